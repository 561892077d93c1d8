"""stemgen: the Python and JavaScript stemmers of okf_sphinx, written from one definition per
Snowball algorithm (``stemgen/algorithms/<name>.sx``).  ``python -m stemgen`` writes
``okf_sphinx/core/snowball/<name>.py`` and ``okf_sphinx/static/okf-stemmer-<name>.js``;
``python -m stemgen --check`` says whether they are what it would write.

Not part of the installed package: the generated files are.
"""
