"""okf's dialog and search page added to a built site's pages (docs/zensical.md, "The dialog").

Every built page gets what the MkDocs plugin adds while it renders (:func:`okf_sphinx.capture.mkdocs.theme.page_scripts`):
the runtime, the stemmer, the dialog and the hook that hands the theme's search box to it.
Running ``okf index`` again first takes out what an earlier run added, so a page is
never given two dialogs, and a page the generator rebuilt meanwhile gets the same tags.
The search page (``search.html``, or ``okf-search.html`` with ``replace_builtin: false``)
is the home page's frame with okf's search body as its content.  Each file is replaced
atomically (written beside it, then renamed).
"""

from __future__ import annotations

import html
import os
import posixpath
import re
from pathlib import Path
from typing import Any

import jinja2

from okf_sphinx.capture.mkdocs.theme import ASSETS, TEMPLATES, page_scripts
from okf_sphinx.capture.ui_strings import page_strings, page_strings_context

from .content import content_span

#: What an earlier ``okf index`` added to a page (the assets' folder is okf's own).
_ADDED = re.compile(
    r'<script src="[^"<>]*' + re.escape(ASSETS) + r'/okf-[a-z-]+\.js"[^<>]*></script>'
    r'|<link rel="stylesheet" href="[^"<>]*' + re.escape(ASSETS) + r'/okf-(?:dialog|search)\.css">'
)
_TITLE = re.compile(r"<title>.*?</title>", re.IGNORECASE | re.DOTALL)


def strip_added(page_html: str) -> str:
    """``page_html`` without the tags an earlier ``okf index`` added."""
    return _ADDED.sub("", page_html)


def inject_page(path: Path, rel: str, options: Any, theme: str, language: str, strings: str, search_page: str) -> None:
    """okf's scripts into the built page ``rel`` (relative to the site root)."""
    text = strip_added(path.read_text(encoding="utf-8"))
    depth = posixpath.dirname(rel)
    base_url = posixpath.relpath(".", depth) if depth else "."
    write_text(path, page_scripts(text, base_url, options, theme, language, strings, rel == search_page))


def search_page_html(frame_html: str, layout: Any, options: Any, language: str | None) -> str | None:
    """okf's search page: ``frame_html`` (the home page, at the site root) with okf's search body
    as its content and okf's title, its words in the site's ``language`` (None: the frame has no
    content element)."""
    frame = strip_added(frame_html)
    span = content_span(frame, layout)
    if span is None:
        return None
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False,
                             extensions=["jinja2.ext.i18n"])
    env.install_null_translations()  # type: ignore[attr-defined]
    body = env.get_template("okf-search-body.html").render(
        okf_index_url=f"./{options.output_dir}/", okf_site_root="./", okf_title=options.title,
        **page_strings_context(page_strings(language)))
    content = f'<link rel="stylesheet" href="./{ASSETS}/okf-search.css">{body}'
    page = frame[: span[0]] + content + frame[span[1] :]
    return _TITLE.sub(lambda m: f"<title>{html.escape(options.title)}</title>", page, count=1)


def write_text(path: Path, text: str) -> None:
    """``path`` replaced by ``text`` atomically."""
    tmp = path.with_name(f".{path.name}.okf-tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
