"""Each built page paired with its Markdown source (docs/zensical.md, "How pages are paired").

The URL rules are those Zensical and MkDocs share: ``guide/install.md`` is built to
``guide/install/index.html`` (URL ``guide/install/``) with ``use_directory_urls`` (the
default), to ``guide/install.html`` without; ``index.md`` and ``README.md`` (when the folder
has no ``index.md``) to their folder's ``index.html``.  Files and folders whose name starts
with a dot, the top-level ``templates/`` folder and the author's ``exclude_docs`` patterns are
not pages.  A source page with no built page (a draft, a page the build left out) and a built
page with no source (a generated page: a blog index, tags, an API page a plugin wrote) are
reported and left out — unless a plugin built the page at a URL of its own (a blog post's
dated URL) and its first heading names the source's title (:func:`pair_by_title`).  A page is
titled as the generators title it (:func:`page_title`).
"""

from __future__ import annotations

import html
import os
import posixpath
import re
import urllib.parse
from dataclasses import dataclass
from collections.abc import Callable
from pathlib import Path
from typing import Any

from okf_sphinx.core.errors import OkfError

from .settings import NavItem, Settings

#: The Markdown file suffixes both generators read.
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")
_INDEX_NAMES = ("index", "README")
_HEADERLINK = re.compile(r"<a\s[^>]*class=\"headerlink\"[^>]*>.*?</a>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_FIRST_H1 = re.compile(r"\s*<h1(?:\s[^>]*)?>(.*?)</h1>", re.IGNORECASE | re.DOTALL)


@dataclass
class BuiltPage:
    """A Markdown source and the page its build wrote (what the capture reads as ``page.file``)."""

    src_uri: str  # path in the docs folder, POSIX
    abs_src_path: str
    url: str  # relative to the site root ("./" for the home page), as the generators write it
    built: Path  # the HTML file
    title: str = ""

    @property
    def file(self) -> BuiltPage:
        return self


def source_pages(docs_dir: Path, exclude_docs: list[str]) -> list[str]:
    """The Markdown pages of ``docs_dir`` (POSIX paths, sorted as the generators sort them)."""
    spec = None
    if exclude_docs:
        import pathspec  # noqa: PLC0415 - both generators' dependency, for gitignore-style patterns

        spec = pathspec.GitIgnoreSpec.from_lines(exclude_docs)
    found = []
    for folder, dirs, files in os.walk(docs_dir):
        rel = Path(folder).relative_to(docs_dir).as_posix()
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (rel == "." and d == "templates"))
        for name in files:
            if name.startswith(".") or not name.lower().endswith(MARKDOWN_SUFFIXES):
                continue
            uri = name if rel == "." else f"{rel}/{name}"
            if spec is None or not spec.match_file(uri):
                found.append(uri)
    names = set(found)
    # README.md is its folder's page only when the folder has no index.md
    found = [u for u in found if not (_stem(u) == "README" and _sibling(u, "index") & names)]
    return sorted(found, key=lambda u: (posixpath.dirname(u), _stem(u) not in _INDEX_NAMES, u))


def _stem(uri: str) -> str:
    return posixpath.splitext(posixpath.basename(uri))[0]


def _sibling(uri: str, stem: str) -> set[str]:
    folder = posixpath.dirname(uri)
    return {posixpath.join(folder, stem + s) for s in MARKDOWN_SUFFIXES}


def destination(src_uri: str, use_directory_urls: bool) -> tuple[str, str]:
    """``(built file, URL)`` of a source page, both relative to the site root."""
    parent, _name = posixpath.split(src_uri)
    stem = _stem(src_uri)
    stem = "index" if stem == "README" else stem
    if not use_directory_urls or stem == "index":
        dest = posixpath.join(parent, stem + ".html")
    else:
        dest = posixpath.join(parent, stem, "index.html")
    url = dest
    if use_directory_urls and posixpath.basename(dest) == "index.html":
        url = (posixpath.dirname(dest) or ".") + "/"
    return dest, urllib.parse.quote(url)


def pair_pages(site_dir: Path, docs_dir: Path, settings: Settings) -> tuple[list[BuiltPage], list[str]]:
    """The source pages that have a built page, and those that have none (left out).
    ``source_mismatch`` when no source page has one (the wrong folder, or the wrong
    ``use_directory_urls``)."""
    paired: list[BuiltPage] = []
    unbuilt: list[str] = []
    sources = source_pages(docs_dir, settings.exclude_docs)
    for uri in sources:
        dest, url = destination(uri, settings.use_directory_urls)
        built = site_dir.joinpath(*dest.split("/"))
        if built.is_file():
            paired.append(BuiltPage(uri, os.path.normpath(docs_dir / uri), url, built))
        else:
            unbuilt.append(uri)
    if not paired:
        raise OkfError(
            "source_mismatch",
            f"none of the {len(sources)} Markdown pages of {docs_dir} has a built page in {site_dir}"
            + (f" (e.g. {sources[0]} -> {destination(sources[0], settings.use_directory_urls)[0]})" if sources else "")
            + "; give the docs folder this site was built from with --source, or the configuration it was built "
              "with (use_directory_urls) with --config. Nothing was written",
            source=str(docs_dir), site=str(site_dir),
        )
    return paired, unbuilt


def pair_by_title(site_dir: Path, unbuilt: list[str], generated: list[str], docs_dir: Path,
                  content_of: Callable[[str], str | None],
                  front_matter: Callable[[str], tuple[str, dict[str, Any]]]) -> list[BuiltPage]:
    """Pages a plugin built at a URL of its own (a blog's dated post URLs): a source page with no
    built page at the shared URL rule is paired with the one built page without a source whose
    first ``<h1>`` has the words of the source's first ``# `` heading or front matter ``title``;
    the pairs are taken out of ``unbuilt`` and ``generated``."""
    if not unbuilt or not generated:
        return []
    by_title: dict[str, list[str]] = {}
    for rel in generated:
        content = content_of(rel)
        m = _FIRST_H1.match(content or "")
        if m:
            by_title.setdefault(_key(_heading_text(m.group(1))), []).append(rel)
    paired = []
    for uri in list(unbuilt):
        text, meta = front_matter((docs_dir / uri).read_text(encoding="utf-8-sig"))
        heading = next((line[2:].strip() for line in text.split("\n") if line.startswith("# ")), "")
        titles = {_key(heading), _key(str(meta.get("title") or ""))} - {""}
        found = {rel for t in titles for rel in by_title.get(t, [])}
        if len(found) == 1:
            rel = found.pop()
            url = rel[: -len("index.html")] if rel.endswith("/index.html") else rel
            paired.append(BuiltPage(uri, os.path.normpath(docs_dir / uri), urllib.parse.quote(url), site_dir / rel))
            unbuilt.remove(uri)
            generated.remove(rel)
            for t in [t for t, rels in by_title.items() if rel in rels]:
                by_title[t].remove(rel)
    return paired


def _key(title: str) -> str:
    """A title as compared: its words, case-folded (Markdown's marks and the rendering's
    punctuation aside)."""
    return " ".join(re.findall(r"\w+", title.casefold()))


def _heading_text(inner: str) -> str:
    return html.unescape(_TAG.sub("", _HEADERLINK.sub("", inner))).strip()


def generated_pages(site_dir: Path, paired: list[BuiltPage], skip: tuple[str, ...]) -> list[str]:
    """Built HTML pages that no source page was built into (404 and okf's own files aside)."""
    mine = {p.built.resolve() for p in paired}
    out = []
    for path in sorted(site_dir.rglob("*.html")):
        rel = path.relative_to(site_dir).as_posix()
        if rel == "404.html" or rel.startswith(skip) or path.resolve() in mine:
            continue
        out.append(rel)
    return out


def page_title(page: BuiltPage, nav_title: str | None, meta: dict[str, object], content: str) -> str:
    """The title the generators give a page: its title in the ``nav``, else its front matter
    ``title``, else its first ``<h1>`` when the content starts with one, else ``Home`` for the
    home page, else the file name (``-`` and ``_`` as spaces, capitalised when all lower case)."""
    if nav_title:
        return nav_title
    if "title" in meta and meta["title"] is not None:
        return str(meta["title"])
    m = _FIRST_H1.match(content)
    if m:
        text = _heading_text(m.group(1))
        if text:
            return text
    if page.src_uri in ("index.md", "README.md") or page.url in ("./", "index.html"):
        return "Home"
    stem = _stem(page.src_uri)
    stem = "index" if stem == "README" else stem
    title = stem.replace("-", " ").replace("_", " ")
    return title.capitalize() if title.lower() == title else title


def files_nav(pages: list[BuiltPage]) -> list[NavItem]:
    """The nav a generator makes when ``nav`` is not set: the folders as sections (titled by
    their names), the pages in file order, each folder's index page first."""
    root: list[NavItem] = []
    sections: dict[str, NavItem] = {}

    def holder(folder: str) -> list[NavItem]:
        if folder in ("", "."):
            return root
        if folder not in sections:
            name = posixpath.basename(folder)
            title = name.replace("-", " ").replace("_", " ")
            section = NavItem(title.capitalize() if title.lower() == title else title)
            sections[folder] = section
            holder(posixpath.dirname(folder)).append(section)
        return sections[folder].children

    for page in pages:
        holder(posixpath.dirname(page.src_uri)).append(
            NavItem(None, page.src_uri, [], _stem(page.src_uri) in _INDEX_NAMES))
    return root
