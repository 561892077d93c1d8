"""A MkDocs hook (``hooks:`` in mkdocs.yml) that records the link texts between pages, for
bench/bench_quality_mkdocs.py's known items.

It reads each page's rendered content (``on_page_content``: the Markdown as MkDocs
rendered it, without the theme's navigation, header or footer) — the same HTML and
the same link resolution as okf's own capture (okf_sphinx/capture/mkdocs/links.py:
``page_folder``, ``page_link``, ``url_key``), so inline and reference-style links,
links written by snippets or autorefs, and ``page.md#anchor`` links are read alike.
Only pages that have a Markdown source count, as targets and as sources (generated
pages such as blog archives are not written by an author and not indexed by okf).

Output: the JSON file named by ``OKF_BENCH_LINK_TEXTS``: ``{"links": [{"text", "source",
"target", "anchor"}, …], "urls": {docname: page URL}}``, written after the build.
"""

from __future__ import annotations

import html
import json
import os
import re
from typing import Any

from okf_sphinx.capture.mkdocs.links import page_folder, page_link, url_key
from okf_sphinx.capture.mkdocs.page import concept_id

_ANCHOR = re.compile(r'<a\s[^>]*?href="([^"]*)"[^>]*>(.*?)</a>', re.S)
_TAG = re.compile(r"<[^>]*>")

_keys: dict[str, str] = {}
_urls: dict[str, str] = {}
_links: list[dict[str, str]] = []


def _authored(file: Any) -> bool:
    return bool(file.abs_src_path) and not getattr(file, "generated_by", None)


def on_files(files: Any, config: Any) -> Any:
    _keys.clear()
    _urls.clear()
    _links.clear()
    for f in files.documentation_pages():
        if _authored(f):
            _keys[url_key(f.url)] = concept_id(f.src_uri)
            _urls[concept_id(f.src_uri)] = f.url
    return files


def on_page_content(content: str, page: Any, config: Any, files: Any) -> str:
    if not _authored(page.file):
        return content
    folder = page_folder(page.url)
    for m in _ANCHOR.finditer(content):
        link = page_link(m.group(1), folder, _keys)
        if link is not None:
            text = " ".join(html.unescape(_TAG.sub("", m.group(2))).split())
            _links.append({"text": text, "source": concept_id(page.file.src_uri), "target": link[1],
                           "anchor": link[2]})
    return content


def on_post_build(config: Any) -> None:
    out = os.environ.get("OKF_BENCH_LINK_TEXTS")
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump({"links": _links, "urls": _urls}, fh, ensure_ascii=False, indent=0)
