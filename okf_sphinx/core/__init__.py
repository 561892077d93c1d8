"""What the build side and the read side share: errors, the on-disk index format (names, wrapper,
hashing, the BM25 formula), terms, line numbering and the pinned stemmers.  Imports neither
Sphinx nor MkDocs.
"""
