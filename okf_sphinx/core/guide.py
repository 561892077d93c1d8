"""What agents are told about the tools, in one place: the MCP server's instructions
(surfaces/mcp_server.py) and the paragraph of ``llms.txt`` that names them (writer/llms.py).

The advice is measured, not guessed (bench/NOTEBOOK.md, "One search, the right section,
few bytes"): smart mode with ``limit=3`` and the hit read alone keeps smart mode's sections
at keyword mode's bytes.
"""

from __future__ import annotations

#: How an agent searches, reads, looks up API objects and verifies what it read.
AGENT_GUIDE = (
    "How to use this documentation index. "
    "1. Find: for a question in your own words call search_sections with mode='smart' and limit=3: it stems "
    "words, weighs words spread over a page, ranks identifiers and API object names first and groups up to 3 "
    "hits per page; quote a phrase (\"...\") to keep it together, narrow with kind ('py:function', 'section' …) "
    "or under (a path prefix), and expand=true adds sections the hits link to. Use the default mode='keyword' "
    "for words that must occur verbatim (an error message, a flag, an exact term): AND of exact words, no "
    "stemming, the same ranking everywhere. "
    "2. Read: get_section with the hit's locator and concept_id, and include_subsections=false to read that "
    "section alone (without it a page's top section brings the whole page); get_section(concept_id=…) alone "
    "gives the page's outline; read_batch reads several hits in one call. "
    "3. API: get_section(object='Client.fetch') (a full name or a dotted tail) reads an object's docstring "
    "where it is written (a .py locator; generated=true means no source file holds it and the text is the "
    "rendering); search_concepts lists the objects whose name holds a string. "
    "4. Cite and verify: quote the locator (path#L<start>-L<end>) and content_sha256, the SHA-256 of the "
    "whole captured file. read_lines(path, [start, end]) returns those lines byte for byte, and reading "
    "[1, total_lines] hashes to content_sha256: another hash means the file changed since the build — "
    "search again before trusting a line number."
)

#: ``llms.txt``'s paragraph naming the tools (after the summary, before the page lists).
LLMS_TOOLS = (
    "Agents: this site carries a search index (`_okf/`) of its exact source sections. With the okf_sphinx "
    "package, `okf search SITE -q WORDS --mode smart --limit 3` finds sections, `okf section SITE LOCATOR "
    "--no-subsections` reads one, `okf object SITE NAME` reads an API object's docstring where it is written "
    "(SITE: this site's URL or folder); `okf mcp SITE` serves the same tools over MCP, with instructions on "
    "which mode suits which question and how to verify a read by its SHA-256. Each link below is followed by "
    "the locator (path#L<start>-L<end>) of the page's source."
)
