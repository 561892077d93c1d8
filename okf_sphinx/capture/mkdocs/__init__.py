"""The MkDocs / ProperDocs plugin and its Python-Markdown section splitter.
"""
