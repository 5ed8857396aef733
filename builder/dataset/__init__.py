"""From build options to rows and to the publishable Parquet folder."""
