"""A tiny package documented by the example site's autodoc page."""
