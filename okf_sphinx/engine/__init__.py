"""The read side: an index's files (folder or URL) -> cached, checked tables -> keyword (the
contract) and smart answers.  Imports neither Sphinx nor MkDocs.
"""
