"""``llms.txt`` and ``llms-full.txt`` for the built site (the llmstxt.org layout).

``llms.txt``: ``# <project>``, ``> <summary>``, a paragraph naming the agent tools
(core/guide.py), then one ``## <caption>``
section per toctree of the root document, listing its pages (and their
descendants) as links, each with the page's locator; pages no toctree reaches
come last under ``## Optional``.

``llms-full.txt``: the same title and summary, then every page in the same
order, headed by ``## <title>`` and a comment line naming its concept id, source
path, the source file's SHA-256 and URL; then each of its sections headed by
``### <heading>`` and a comment line with its locator, the SHA-256 and byte
length of exactly the text that follows (the section's captured source lines),
so an agent can cite the locator and verify what it read.

Both are rendered from the index files the build just computed (pure: the same
index gives the same bytes, serial or parallel) and written atomically.  The
groups and the summary come from the host (capture/sphinx/llms.py: the root
document's toctrees; capture/mkdocs/nav.py: the nav).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.guide import LLMS_TOOLS

from .disk import write_atomic

LLMS_TXT = "llms.txt"
LLMS_FULL_TXT = "llms-full.txt"
DEFAULT_GROUP = "Docs"
OTHER_GROUP = "Optional"


def _link_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]") or "(untitled)"


def _link_url(url: str, baseurl: str) -> str:
    url = quote(url, safe="/#%:@!$&'*+,;=?~-._")
    return urljoin(baseurl if baseurl.endswith("/") else baseurl + "/", url) if baseurl else url


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _pages(files: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """docname → page outline (``p/<n>``) with its title and link.  On a single-page
    build every page shares one URL: the link is its first section's (with the anchor)."""
    single = files["manifest"].get("builder") == "singlehtml"
    per = files["manifest"]["pages_per_file"]
    sections = _sections(files)
    out = {}
    for docname, title, n, _searchable, _paths in files["concepts"]:
        page = files[f"p/{n // per}"][n % per]
        link = page["url"]
        if single and page["sections"]:
            link = sections[page["sections"][0]["sid"]]["url"] or link
        out[docname] = {**page, "title": title, "link": link}
    return out


def _sections(files: dict[str, Any]) -> list[dict[str, Any]]:
    """Every section record, by sid, from the section files ``s/<k>``."""
    return [r for k in range(len(fmt.decode_ints(files["manifest"]["section_files"]) or ())) for r in fmt.section_records(files[f"s/{k}"])]


def _order(pages: dict[str, Any], groups: list[tuple[str, list[str]]], root: str) -> list[tuple[str, list[str]]]:
    listed = {d for _, docs in groups for d in docs}
    rest = [d for d in sorted(pages) if d not in listed and d != root]
    ordered = [(caption, [d for d in docs if d in pages]) for caption, docs in groups]
    if rest:
        ordered.append((OTHER_GROUP, rest))
    return [(c, docs) for c, docs in ordered if docs]


def _page_locator(page: dict[str, Any]) -> str:
    own = [s for s in page["sections"] if s["path"] == page["path"]]
    if not own:
        return ""
    return fmt.locator(page["path"], min(s["line_start"] for s in own), max(s["line_end"] for s in own))


def render(files: dict[str, Any], groups: list[tuple[str, list[str]]], *, project: str, summary: str,
           root: str, baseurl: str = "") -> tuple[str, str]:
    """``(llms.txt, llms-full.txt)`` for the index ``files`` of one build."""
    pages = _pages(files)
    sections = _sections(files)
    hashes = {e["path"]: e["sha256"] for e in files["files"]}
    order = _order(pages, groups, root)
    head = [f"# {_one_line(project) or 'Documentation'}", ""]
    if summary:
        head += [f"> {_one_line(summary)}", ""]

    short = [*head, LLMS_TOOLS, ""]
    for caption, docs in order:
        if not any(pages[d]["link"] for d in docs):
            continue
        short += [f"## {caption}", ""]
        for d in docs:
            page = pages[d]
            if not page["link"]:
                continue  # the builder rendered no page for it (llms-full.txt still has its text)
            link = f"- [{_link_text(_one_line(page['title']) or d)}]({_link_url(page['link'], baseurl)})"
            where = _page_locator(page)
            short.append(link + (f": {where}" if where else ""))
        short.append("")

    full = list(head)
    root_first = ([root] if root in pages else []) + [d for _, docs in order for d in docs]
    for d in root_first:
        page = pages[d]
        full.append(f"## {_one_line(page['title']) or d}")
        full.append(f"<!-- okf:page concept={d} source={quote(page['path'], safe='/')} "
                    f"sha256={hashes.get(page['path'], '')} url={_link_url(page['link'], baseurl)} -->")
        full.append("")
        for s in page["sections"]:
            record = sections[s["sid"]]
            text = record["text"]
            data = text.encode("utf-8", "surrogatepass")
            full.append(f"### {_one_line(s['heading'])}" if s["heading"] else "### (introduction)")
            full.append(f"<!-- okf:section locator={record['locator']} sha256={hashlib.sha256(data).hexdigest()} "
                        f"bytes={len(data)} -->")
            full.append(text)
            full.append("")
    return "\n".join(short).rstrip("\n") + "\n", "\n".join(full).rstrip("\n") + "\n"


def write(outdir: Path, texts: Iterable[tuple[str, str]]) -> None:
    for name, text in texts:
        write_atomic(outdir / name, text)
