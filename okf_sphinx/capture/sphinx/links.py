"""The site's own cross-references, per section (docs/smart.md, "Link expansion").

Read phase (:func:`capture`, beside the sections of a document): every
``pending_xref`` and every toctree entry of the doctree, with the section it
stands in, and every element id of the document with the section that holds
it.  Nothing is resolved yet: a reference may point to a page read later.

Write phase (:func:`resolve`, with the whole environment): each captured
reference becomes ``(from section, via, to docname, to section)``:

- ``ref``: a label (``:ref:``, ``:numref:``, ``{ref}``, a MyST ``#label``
  link) → the section that holds the label's id;
- ``doc``: ``:doc:``, a MyST link to a document, or a hyperlink to one of the site's
  pages (relative, or under ``html_baseurl``) → the page's first section (its section,
  when the link names an anchor: then ``ref``);
- ``toctree``: a toctree entry → the page's first section;
- ``object``: a domain role (``:py:func:``, ``:confval:`` …) or ``:any:``
  naming a documented object → the object's section.

References Sphinx could not resolve, or that point outside the captured
pages, are dropped.  Imports Sphinx/docutils only for node classes.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from docutils import nodes
from docutils.utils import get_source_line
from sphinx import addnodes

from okf_sphinx.core.records import DocRecord
from okf_sphinx.core.terms import terms

from .sections import resolve_source

VIAS = ("ref", "doc", "toctree", "object")
_LABEL_TYPES = frozenset({"ref", "numref", "keyword"})


class Reference(NamedTuple):
    """One reference of a document, unresolved (as the doctree holds it)."""

    section: int  # the index of the section it stands in
    kind: str  # ``toctree`` (target: a docname), ``uri`` (a hyperlink into the site) or ``xref``
    domain: str  # an xref's ``refdomain``
    type: str  # an xref's ``reftype`` (``ref``, ``doc``, ``myst``, ``func`` ...)
    target: str
    refdoc: str  # the document it is written in (relative targets start there)
    module: str  # ``py:module`` and ``py:class`` in force there (Python objects)
    cls: str
    specific: bool  # ``refspecific`` (a ``.name`` target)
    #: its explicit title, as the reader sees it (smart mode weighs those words less on this page
    #: when it leads to another one: they describe that page); ``""`` when the title is implicit
    label: str = ""


@dataclass
class DocReferences:
    """One document's captured references (unresolved) and its element ids; the MkDocs
    side's counterpart is capture/mkdocs/links.py's ``PageLinks`` (rendered links)."""

    refs: list[Reference] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)  # element id -> section index


def _locator(record: DocRecord, srcdir: Path) -> Any:
    by_anchor: dict[str, int] = {}
    for i, s in enumerate(record.sections):
        if s.anchor:
            by_anchor.setdefault(s.anchor, i)

    def section_of(node: nodes.Node) -> int | None:
        source, line = get_source_line(node)
        path = resolve_source(source, srcdir) if source else None
        if path is not None and line is not None:
            best = None
            for i, s in enumerate(record.sections):
                if s.file == path and s.line_start <= line <= s.line_end and (
                        best is None or s.line_start >= record.sections[best].line_start):
                    best = i
            if best is not None:
                return best
        up = node.parent
        while up is not None:  # no line: the enclosing section (or object) by its id
            for id_ in up.get("ids", []) if isinstance(up, nodes.Element) else []:
                if id_ in by_anchor:
                    return by_anchor[id_]
            up = up.parent
        return 0 if record.sections else None

    return section_of, by_anchor


def _site_uri(uri: str, base: str) -> str | None:
    """A hyperlink's target as a path within the site: relative ones as written, absolute ones
    under the site's own address (``html_baseurl``) without it; ``None`` for any other link."""
    if base and uri.startswith(base):
        return "/" + uri[len(base):].lstrip("/")
    if not uri or uri.startswith(("#", "/", "mailto:")) or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", uri):
        return None
    return uri


def capture(doctree: nodes.document, record: DocRecord, srcdir: Path, base: str = "") -> DocReferences:
    """The document's references and ids, each with the index of the section it stands in
    (``base``: the site's published address, ``html_baseurl``, so links written with it count)."""
    out = DocReferences()
    if not record.sections:
        return out
    section_of, by_anchor = _locator(record, srcdir)
    for node in doctree.findall(nodes.Element):
        ids = node.get("ids", [])
        if ids:
            i = by_anchor.get(ids[0])
            if i is None:
                i = section_of(node)
            for id_ in ids:
                if i is not None:
                    out.ids.setdefault(id_, i)
        if isinstance(node, addnodes.toctree):
            i = section_of(node)
            for title, ref in node.get("entries", []):
                if i is not None and ref not in ("self",) and "://" not in ref:
                    out.refs.append(Reference(i, "toctree", "", "", ref, record.docname, "", "", False,
                                              title or ""))
        elif isinstance(node, nodes.reference) and "refuri" in node:
            uri = _site_uri(str(node["refuri"]), base.rstrip("/") + "/" if base else "")
            i = section_of(node) if uri is not None else None
            if i is not None:
                out.refs.append(Reference(i, "uri", "", "", uri, record.docname, "", "", False,
                                          node.astext()))
        elif isinstance(node, addnodes.pending_xref):
            i = section_of(node)
            if i is not None:
                target = str(node.get("reftarget") or "")
                if node.get("reftype") == "myst" and node.get("reftargetid") and "#" not in target:
                    target += "#" + str(node["reftargetid"])  # MyST: a link to a heading of a document
                # an implicit title is the target's own words (its heading), not this source's
                label = node.astext() if node.get("refexplicit") else ""
                out.refs.append(Reference(i, "xref", str(node.get("refdomain") or ""), str(node.get("reftype") or ""), target,
                                          str(node.get("refdoc") or record.docname), str(node.get("py:module") or ""),
                                          str(node.get("py:class") or ""), bool(node.get("refspecific")), label))
    return out


def _join(base: str, target: str) -> str:
    """``docname_join``: a document path relative to ``base``'s folder (``/`` = the root)."""
    if target.startswith("/"):
        return posixpath.normpath(target[1:])
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), target))


class _Resolver:
    def __init__(self, env: Any, pages: dict[str, DocReferences], suffixes: list[str]) -> None:
        self.env = env
        self.pages = pages
        self.suffixes = suffixes
        self.std = env.get_domain("std")
        self._objects: dict[str, dict[str, tuple[str, str]]] = {}

    def domain_names(self) -> list[str]:
        domains = self.env.domains
        try:
            return sorted(d.name for d in domains.sorted())  # Sphinx >= 8.1
        except AttributeError:
            return sorted(domains)

    def section(self, docname: str, anchor: str | None) -> int | None:
        page = self.pages.get(docname)
        if page is None:
            return None
        if not anchor:
            return 0
        return page.ids.get(anchor)

    def label(self, name: str) -> tuple[str, int] | None:
        for table in (self.std.labels, self.std.anonlabels):
            entry = table.get(name)
            if entry and entry[0]:
                j = self.section(entry[0], entry[1])
                if j is not None:
                    return entry[0], j
        return None

    def doc(self, base: str, target: str) -> str | None:
        for suffix in ["", *self.suffixes, ".html"]:
            t = target[: -len(suffix)] if suffix and target.endswith(suffix) else target
            if suffix and t == target:
                continue
            name = _join(base, t)
            if name in self.pages:
                return name
        return None

    def objects(self, domain: str) -> dict[str, tuple[str, str]]:
        if domain not in self._objects:
            table: dict[str, tuple[str, str]] = {}
            try:
                found = sorted(self.env.get_domain(domain).get_objects(), key=lambda o: (o[0], o[3], o[4]))
            except Exception:  # an extension's domain that cannot list its objects: none
                found = []
            for name, _disp, _type, docname, anchor, _prio in found:
                table.setdefault(name, (docname, anchor))
                table.setdefault(name.lower(), (docname, anchor))
            self._objects[domain] = table
        return self._objects[domain]

    def object(self, domain: str, type_: str, target: str, module: str, cls: str, specific: bool) -> tuple[str, int] | None:
        target = target.lstrip("~").lstrip(".") if domain == "py" else target
        hit: tuple[str, str] | None = None
        if domain == "py":
            try:
                py = self.env.get_domain("py")
                matches = py.find_obj(self.env, module or None, cls or None, target, type_, 1 if specific else 0)
            except Exception:
                matches = []
            if matches:
                entry = matches[0][1]
                hit = (entry[0], entry[1])
        if hit is None:
            table = self.objects(domain)
            hit = table.get(target) or table.get(target.lower())
        if hit is None:
            return None
        j = self.section(hit[0], hit[1])
        return (hit[0], j) if j is not None else None

    def one(self, ref: Reference) -> tuple[str, str, int] | None:
        _i, kind, domain, type_, target, refdoc, module, cls, specific, _label = ref
        if kind == "toctree":
            return ("toctree", target, 0) if target in self.pages else None
        if kind == "uri":
            path, _, anchor = target.partition("#")
            path = path.split("?", 1)[0]
            for ending in ("/index.html", ".html", "/"):
                if path.endswith(ending):
                    path = path[: -len(ending)]
                    break
            name = _join(refdoc, path) if path else refdoc
            if name not in self.pages:
                return None
            j = self.section(name, anchor) if anchor else 0
            return ("ref" if anchor else "doc", name, j) if j is not None else None
        if type_ == "doc":
            name = self.doc(refdoc, target)
            return ("doc", name, 0) if name else None
        if type_ == "myst":
            path, _, anchor = target.partition("#")
            if path:
                name = self.doc(refdoc, path)
                if name is None:
                    return None
                j = self.section(name, anchor) if anchor else 0
                return ("ref" if anchor else "doc", name, j) if j is not None else None
            found = self.label(anchor.lower()) or (
                (refdoc, self.section(refdoc, anchor)) if self.section(refdoc, anchor) is not None else None)
            return ("ref", *found) if found else None
        if domain == "std" and type_ in _LABEL_TYPES:
            found = self.label(target.lower())
            return ("ref", *found) if found else None
        if type_ == "any":
            found = self.label(target.lower())
            if found:
                return ("ref", *found)
            for name in self.domain_names():
                obj = self.object(name, "any", target, module, cls, specific)
                if obj:
                    return ("object", *obj)
            return None
        if domain:
            obj = self.object(domain, type_, target, module, cls, specific)
            return ("object", *obj) if obj else None
        return None


class Resolved(NamedTuple):
    """The captured references, resolved."""

    #: ``docname → [(from section, via, to docname, to section)]`` in document order
    links: dict[str, list[tuple[int, str, str, int]]]
    #: ``docname → [(section, terms)]``: the label terms of its references to other pages
    labels: dict[str, list[tuple[int, list[str]]]]


def resolve(env: Any, pages: dict[str, DocReferences], suffixes: list[str]) -> Resolved:
    """Every page's references resolved, and the labels of those that lead to another page."""
    r = _Resolver(env, pages, suffixes)
    out = Resolved({}, {})
    for docname in sorted(pages):
        rows = []
        labels = []
        for ref in pages[docname].refs:
            found = r.one(ref)
            if found is not None:
                rows.append((ref.section, found[0], found[1], found[2]))
                if found[1] != docname and ref.label:
                    labels.append((ref.section, terms(ref.label)))
        out.links[docname] = rows
        out.labels[docname] = labels
    return out
