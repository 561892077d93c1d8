"""The Sphinx extension: config values and events, the environment collector, documented
objects, MyST includes and the search page.  Imported only by ``okf_sphinx.setup``.
"""
