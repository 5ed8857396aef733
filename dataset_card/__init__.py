"""Render the dataset folder's README.md card from the built data."""
