"""extractors."""
