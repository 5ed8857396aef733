"""Row and folder checks, each a small class that answers pass or fail with a reason (``base``); the row
sources hand out the row checks that apply to their configs, and ``builder.validate`` runs them."""
