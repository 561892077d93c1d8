"""The site's own cross-references on a MkDocs site, per section (docs/smart.md, "Link expansion").

MkDocs has no cross-reference roles: a page links to another with a Markdown
link (``[text](other.md)``, ``[text](other.md#anchor)``), which MkDocs renders as
a relative URL (``../other/``, ``../other/#anchor``).  Those links in a page's
rendered content are the site's cross-references, as the Sphinx side's
(okf_sphinx/capture/sphinx/links.py):

- ``doc``: a link to a page of the site → that page's first section;
- ``ref``: a link to an anchor of a page → the section that holds the element
  with that id.

Per page (:func:`capture_links`, when MkDocs has rendered it): every link to another
page, with the section it stands in (by position in the HTML: the last section
heading before it), and every element id with the section that holds it.  After
the build (:func:`resolve_links`): each link becomes ``(from section, via, to docname,
to section)``, the rows :class:`okf_sphinx.writer.index_writer.Site` ``links``
gives the writer.  Links within a page (``#anchor``), to files that are not
pages, and to other sites are left out.  No MkDocs imports.
"""

from __future__ import annotations

import bisect
import html
import posixpath
import re
import urllib.parse
from dataclasses import dataclass, field

from okf_sphinx.capture.sections import Section

# attribute values as Python-Markdown and MkDocs' themes write them (double quotes); an attribute
# is found wherever it stands in a tag (text content holds no unescaped '<' or 'id="' of a tag)
_HREF = re.compile(r'<a\s[^>]*?href="([^"]*)"')
_ID = re.compile(r'\sid="([^"]*)"')
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass
class PageLinks:
    """One page's links to pages of the site (unresolved: the target may be rendered later)."""

    #: ``(section index, via, to docname, to anchor)``; via ``doc`` (anchor ``""``) or ``ref``
    refs: list[tuple[int, str, str, str]] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)  # element id -> section index


def url_key(url: str) -> str:
    """A page URL (or a link's path resolved against the site root) as a lookup key:
    ``guide/install/``, ``guide/install/index.html`` -> ``guide/install``; ``""`` = the home page."""
    path = urllib.parse.unquote(url).lstrip("/")
    if path == "index.html" or path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return path.rstrip("/")


def capture_links(page_html: str, sections: list[Section], page_url: str, pages: dict[str, str]) -> PageLinks:
    """The links in a page's rendered content (``page_html``) to the site's pages, and its
    element ids, each with the index in ``sections`` of the section it stands in.
    ``page_url``: the page's URL relative to the site root (MkDocs' ``page.url``);
    ``pages``: :func:`url_key` of every page's URL -> its docname."""
    out = PageLinks()
    if not sections:
        return out
    anchors: dict[str, int] = {}
    for i, s in enumerate(sections):
        if s.anchor:
            anchors.setdefault(s.anchor, i)
    ids = [(m.start(), html.unescape(v) if "&" in (v := m.group(1)) else v) for m in _ID.finditer(page_html)]
    marks: list[tuple[int, int]] = []  # (position, section index) of each section's own element
    seen: set[str] = set()
    for at, id_ in ids:
        if id_ in anchors and id_ not in seen:
            seen.add(id_)
            marks.append((at, anchors[id_]))
    marks.sort()
    starts = [at for at, _ in marks]

    def section_at(at: int) -> int:
        k = bisect.bisect_right(starts, at) - 1
        return marks[k][1] if k >= 0 else 0

    for at, id_ in ids:
        if id_ not in out.ids:
            out.ids[id_] = anchors[id_] if id_ in anchors else section_at(at)
    folder = page_url if not page_url or page_url.endswith("/") else posixpath.dirname(page_url) + "/"
    for m in _HREF.finditer(page_html):
        href = m.group(1)
        if "&" in href:
            href = html.unescape(href)
        if not href or href[0] in "#/" or _SCHEME.match(href):
            continue
        path, _, anchor = href.partition("#")
        path = path.partition("?")[0]
        target = posixpath.normpath(posixpath.join(folder, path)) if path else ""
        if target.startswith(".."):
            continue  # outside the site
        docname = pages.get(url_key("" if target == "." else target))
        if docname is None:
            continue
        anchor = urllib.parse.unquote(anchor)
        out.refs.append((section_at(m.start()), "ref" if anchor else "doc", docname, anchor))
    return out


def resolve_links(pages: dict[str, PageLinks]) -> dict[str, list[tuple[int, str, str, int]]]:
    """``docname → [(from section, via, to docname, to section)]`` in document order; a link to
    an id no page has is dropped."""
    out: dict[str, list[tuple[int, str, str, int]]] = {}
    for docname in sorted(pages):
        rows = []
        for i, via, to, anchor in pages[docname].refs:
            target = pages.get(to)
            if target is None:
                continue
            j = target.ids.get(anchor) if anchor else 0
            if j is not None:
                rows.append((i, via, to, j))
        out[docname] = rows
    return out
