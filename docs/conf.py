"""Sphinx configuration of okf_sphinx's own documentation (built with okf_sphinx)."""

project = "okf_sphinx"
author = "okf_sphinx developers"
copyright = "2026, okf_sphinx developers"
language = "en"

extensions = ["okf_sphinx", "myst_parser"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]

myst_heading_anchors = 3

html_theme = "alabaster"
html_title = "okf_sphinx"

