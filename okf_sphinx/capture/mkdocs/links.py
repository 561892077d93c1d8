"""The site's own cross-references on a MkDocs site, per section (docs/smart.md, "Link expansion").

MkDocs has no cross-reference roles: a page links to another with a Markdown
link (``[text](other.md)``, ``[text](other.md#anchor)``), which MkDocs renders as
a relative URL (``../other/``, ``../other/#anchor``).  Those links in a page's
rendered content are the site's cross-references, as the Sphinx side's
(okf_sphinx/capture/sphinx/links.py):

- ``doc``: a link to a page of the site → that page's first section;
- ``ref``: a link to an anchor of a page → the section that holds the element
  with that id;
- ``object``: a link to a documented object's id (mkdocstrings' cross-references,
  or a Markdown link to ``page.md#pkg.mod.func``) → the object's section.

Per page (:func:`capture_links`, when MkDocs has rendered it): every link to another
page, with the section it stands in (by position in the HTML: the last section
heading before it), and every element id with the section that holds it.  After
the build (:func:`resolve_links`): each link becomes ``(from section, via, to docname,
to section)``, the rows :class:`okf_sphinx.writer.index_writer.Site` ``links``
gives the writer.  Links within a page (``#anchor``), to files that are not
pages, and to other sites are left out.  No MkDocs imports.
"""

from __future__ import annotations

import html
import posixpath
import re
import urllib.parse
from dataclasses import dataclass, field

from okf_sphinx.core.records import Section
from okf_sphinx.core.terms import terms

# attribute values as Python-Markdown and MkDocs' themes write them: double quotes, one space
# before each attribute (text content holds no unescaped '"' of a tag)
_HEADING_ID = re.compile(r'<h[1-6] [^>]*?id="([^"]*)"')
_ID = re.compile(r' id="([^"]*)"')
_HREF = re.compile(r'<a [^>]*?href="([^"#][^"]*)"[^>]*>(.*?)</a>', re.S)  # in-page links (#…) are left out here
_TAG = re.compile(r"<[^>]*>")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass
class PageLinks:
    """One page's links to pages of the site (unresolved: the target may be rendered later);
    the Sphinx side's counterpart is capture/sphinx/links.py's ``DocReferences`` (doctree references)."""

    #: ``(section index, via, to docname, to anchor)``; via ``doc`` (anchor ``""``) or ``ref``
    #: (a page's links as an earlier index holds them; a rendered page's are in ``runs``)
    refs: list[tuple[int, str, str, str]] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)  # the sections' own ids -> section index
    objects: set[str] = field(default_factory=set)  # the ids of its documented objects' sections
    #: per run of the page that one section holds: (section index, ``"\0id\0id\0"`` its
    #: element ids as written, its links' hrefs joined by ``"\0"``, their labels — the links'
    #: text — joined by ``"\0"``): strings, not one object per id or link (a page's code blocks
    #: can hold thousands; links are read after the build)
    runs: list[tuple[int, str, str, str]] = field(default_factory=list)
    #: ``(section index, terms)`` of the labels of its links to other pages, as an earlier index
    #: holds them (a rendered page's are in ``runs``): smart mode weighs them less (docs/smart.md)
    labels: list[tuple[int, list[str]]] = field(default_factory=list)
    folder: str = ""  # the page's folder URL (links are relative to it)

    def section_of(self, anchor: str) -> int | None:
        """The section that holds the element with id ``anchor`` (None: no such id)."""
        if anchor in self.ids:
            return self.ids[anchor]
        needle = "\0" + _attribute(anchor) + "\0"
        return next((owner for owner, text, _hrefs, _labels in self.runs if needle in text), None)

    def links(self, pages: dict[str, str]) -> list[tuple[int, str, str, str]]:
        """``refs`` and the links of ``runs`` to pages of the site (``pages``: see :func:`capture_links`)."""
        out = list(self.refs)
        for owner, _ids, hrefs, _labels in self.runs:
            for href in hrefs.split("\0") if hrefs else ():
                link = page_link(href, self.folder, pages)
                if link is not None:
                    out.append((owner, *link))
        return out

    def link_labels(self, docname: str, pages: dict[str, str]) -> list[tuple[int, list[str]]]:
        """``labels`` and, for each link of ``runs`` to another page of the site (``pages``: see
        :func:`capture_links`; ``docname``: this page's), ``(section index, terms)`` of its label
        and its address as written: words that name the target page, not this one."""
        out = list(self.labels)
        for owner, _ids, hrefs, labels in self.runs:
            if not hrefs:
                continue
            for href, label in zip(hrefs.split("\0"), labels.split("\0")):
                link = page_link(href, self.folder, pages)
                if link is not None and link[1] != docname:
                    out.append((owner, terms(label + " " + html.unescape(href))))
        return out


def _attribute(value: str) -> str:
    """``value`` as Python-Markdown writes it in an attribute."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def url_key(url: str) -> str:
    """A page URL (or a link's path resolved against the site root) as a lookup key:
    ``guide/install/``, ``guide/install/index.html`` -> ``guide/install``; ``""`` = the home page
    (``""``, ``./``, ``index.html``)."""
    path = urllib.parse.unquote(url).lstrip("/")
    if path == "index.html" or path.endswith("/index.html"):
        path = path[: -len("index.html")]
    path = posixpath.normpath(path) if path else ""
    return "" if path == "." else path


def capture_links(page_html: str, sections: list[Section], page_url: str) -> PageLinks:
    """The links in a page's rendered content (``page_html``) to the site's pages, and its
    element ids, each with the index in ``sections`` of the section it stands in (the last
    section whose own element comes before it; the first section before any).
    ``page_url``: the page's URL relative to the site root (MkDocs' ``page.url``)."""
    out = PageLinks(folder=page_folder(page_url))
    if not sections:
        return out
    for i, s in enumerate(sections):
        if s.anchor:
            out.ids.setdefault(s.anchor, i)
            if s.obj is not None:
                out.objects.add(s.anchor)
    marks: list[tuple[int, int]] = []  # (where its id attribute starts, section index)
    written = {_attribute(a): a for a in out.ids}
    seen: set[str] = set()
    for m in _HEADING_ID.finditer(page_html):
        anchor = written.get(m.group(1))
        if anchor is not None and anchor not in seen:
            seen.add(anchor)
            marks.append((m.start(1) - 5, out.ids[anchor]))
    for value, anchor in written.items():  # sections whose element is no heading (an object's <a id>)
        if anchor not in seen:
            at = page_html.find(' id="' + value + '"')
            if at >= 0:
                marks.append((at, out.ids[anchor]))
    marks.sort()
    cuts = [0] + [at for at, _ in marks] + [len(page_html)]
    owners = [0] + [i for _, i in marks]
    for k, owner in enumerate(owners):
        run = page_html[cuts[k] : cuts[k + 1]]
        found = _ID.findall(run)
        anchors = _HREF.findall(run)
        if found or anchors:
            out.runs.append((owner, "\0" + "\0".join(found) + "\0", "\0".join(href for href, _label in anchors),
                             "\0".join(_label_text(label) for _href, label in anchors)))
    return out


def _label_text(inner: str) -> str:
    """A link's label as the reader sees it: the text of its element's content (``inner``)."""
    return html.unescape(_TAG.sub(" ", inner)).replace("\0", " ")


def page_folder(page_url: str) -> str:
    """The folder URL a page's relative links start from (``guide/install/`` -> itself,
    ``guide/install.html`` -> ``guide/``)."""
    return page_url if not page_url or page_url.endswith("/") else posixpath.dirname(page_url) + "/"


def page_link(href: str, folder: str, pages: dict[str, str]) -> tuple[str, str, str] | None:
    """``(via, to docname, to anchor)`` of a rendered link (``href`` as written in the HTML,
    ``folder``: :func:`page_folder` of the page it is on), or None (not to a page of the site)."""
    if "&" in href:
        href = html.unescape(href)
    if not href or href[0] in "#/" or _SCHEME.match(href):
        return None
    path, _, anchor = href.partition("#")
    path = path.partition("?")[0]
    target = posixpath.normpath(posixpath.join(folder, path)) if path else ""
    if target.startswith(".."):
        return None  # outside the site
    docname = pages.get(url_key(target))
    if docname is None:
        return None
    return ("ref" if anchor else "doc", docname, urllib.parse.unquote(anchor))


def resolve_labels(pages: dict[str, PageLinks], keys: dict[str, str]) -> dict[str, list[tuple[int, list[str]]]]:
    """``docname → [(section index, terms)]``: the labels of each page's links to the site's
    other pages (:meth:`PageLinks.link_labels`; ``keys`` as :func:`resolve_links`')."""
    return {docname: pages[docname].link_labels(docname, keys) for docname in sorted(pages)}


def resolve_links(pages: dict[str, PageLinks], keys: dict[str, str]) -> dict[str, list[tuple[int, str, str, int]]]:
    """``docname → [(from section, via, to docname, to section)]`` in document order; a link to
    an id no page has is dropped.  ``keys``: :func:`url_key` of every page's URL -> its docname."""
    out: dict[str, list[tuple[int, str, str, int]]] = {}
    for docname in sorted(pages):
        rows = []
        for i, via, to, anchor in pages[docname].links(keys):
            target = pages.get(to)
            if target is None:
                continue
            j = target.section_of(anchor) if anchor else 0
            if j is not None:
                rows.append((i, "object" if anchor in target.objects else via, to, j))
        out[docname] = rows
    return out
