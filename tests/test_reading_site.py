"""A small real Sphinx project for the agent-tool tests, built once per session.

``built_site(tmp_path_factory)`` writes the project below, builds it with
``sphinx-build -b html`` (in-process) and returns the HTML output folder.  It
covers what the reading tools must handle: RST and MyST, CRLF and BOM files,
an included file, headings with inline markup, duplicate headings,
identifier-style headings (K1 / K10 / K11.), a section larger than one
page of ``max_chars``, a file larger than the 256,000-byte answer budget, and
generated pages with many sections for the random round trips.
"""

from __future__ import annotations

from support.reading_site import built_site



def test_site_builds_with_expected_files(tmp_path_factory):
    site = built_site(tmp_path_factory)
    from okf_sphinx import open_index

    index = open_index(site)
    paths = {f["path"] for f in index.files()}
    assert {"guide.rst", "_includes/shared.rst", "crlf.rst", "bom.md", "notes.md", "wide.rst"} <= paths
    assert index.section_count > 200
