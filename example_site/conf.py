"""Sphinx configuration of the okf_sphinx example site.

This site is the README's demo and a fixture of the test suite: every page
exercises a rule of the search contract (see ``expected_sections.json``).
"""

import os
import sys

# The tiny package documented by api.rst (autodoc imports it).
sys.path.insert(0, os.path.abspath("."))

project = "okf_sphinx example"
author = "okf_sphinx developers"
copyright = "2026, okf_sphinx developers"
language = "en"

extensions = ["okf_sphinx", "myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# _includes/ holds fragments pulled in with ``.. include::`` and ``{include}``;
# they are not documents of their own.
exclude_patterns = ["_build", "_includes"]

html_theme = "alabaster"

# okf_sphinx excludes nothing by default; this site follows the seed's convention
# (landing pages and the change log are navigation), so its answers are the
# reference's: index and log pages are captured but not searchable.
okf_search_exclude = ["index", "*/index", "log", "*/log"]

autodoc_member_order = "bysource"
autodoc_typehints = "none"


def setup(app):
    # a custom object type, as Django's docs declare ``setting``: std:setting objects
    app.add_object_type("setting", "setting", "pair: %s; setting")
    # `.. confval::` is a built-in std object type from Sphinx 7.4 on; on older
    # releases the example declares it the same way, so reference.rst reads alike.
    import sphinx

    if sphinx.version_info < (7, 4):
        from docutils.parsers.rst import directives

        app.add_object_type("confval", "confval", objname="configuration value",
                            indextemplate="pair: %s; configuration value")
        generic = app.registry.domain_directives["std"]["confval"]
        options = {**generic.option_spec, "type": directives.unchanged, "default": directives.unchanged}
        app.add_directive_to_domain("std", "confval", type("ConfVal", (generic,), {"option_spec": options}),
                                    override=True)

