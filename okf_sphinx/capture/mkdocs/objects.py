"""Documented objects of a MkDocs page: what mkdocstrings renders for ``::: identifier``.

mkdocstrings' Python handler renders every object as ``<div class="doc doc-object
doc-<kind>">`` holding its heading (``<hN id="pkg.mod.func" class="doc
doc-heading">``, or a bare ``<a id="pkg.mod.func">`` when the root heading is not
shown), an optional separate signature (``div.doc-signature``), its contents
(``div.doc-contents``) and its members' objects nested inside.  Each becomes a
documented-object section as Sphinx's autodoc objects do (docs/contract.md,
"Documented objects"): its full dotted name, kind (``py:module``, ``py:class``,
``py:function``, ``py:method``, ``py:attribute``, ``py:property`` ...), signature text and
rendered text, *generated* (no source line holds the rendered words), located at
the line of the ``:::`` directive that rendered it.  No MkDocs imports:
:mod:`okf_sphinx.capture.mkdocs.page` drives this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

#: mkdocstrings' own block syntax: ``::: identifier`` (optionally after ``#``s) at a block's start
DIRECTIVE = re.compile(r"[ \t>]*(?:#{1,6} *|)::: ?(?P<name>.+?) *")
_VOID = frozenset(("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"))
_BLOCK = frozenset(("p", "div", "table", "thead", "tbody", "tr", "td", "th", "li", "ul", "ol", "dl", "dt", "dd",
                    "pre", "details", "summary", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "section"))
_KINDS = {"type_alias": "type", "type-alias": "type"}


@dataclass
class RenderedObject:
    """One object mkdocstrings rendered, in document order."""

    name: str  # the full dotted name (its heading's id)
    kind: str  # ``py:<kind>``
    signature: str
    text: str  # signature, then its own contents (members and the source listing left out)
    depth: int  # 0 = what a ``:::`` directive names, 1 = its members ...
    heading: bool  # rendered with a heading (else only an anchor)


@dataclass
class _Open:
    kind: str
    depth: int
    element: int  # depth of its div in the element stack
    name: str = ""
    heading: bool = False
    labels: set[str] = field(default_factory=set)  # mkdocstrings' labels (``property``, ``classmethod`` ...)
    head: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)


class _Objects(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []  # (tag, role): role "" or heading/signature/contents/skip/object
        self.open: list[_Open] = []
        self.started: list[_Open] = []  # every object, in document order

    def _role(self) -> str:
        """The role of the innermost element that has one, inside the innermost open object."""
        top = self.open[-1].element if self.open else 0
        for _tag, role in reversed(self.stack[top:]):
            if role:
                return role
        return ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        role = ""
        if tag == "div" and "doc-object" in classes:
            kinds = [c[4:] for c in classes if c.startswith("doc-") and c != "doc-object"]
            parent = self.open[-1] if self.open else None
            kind = kinds[0] if kinds else "object"
            if kind == "function" and parent is not None and parent.kind == "class":
                kind = "method"
            self.open.append(_Open(kind, len(self.open), len(self.stack)))
            self.started.append(self.open[-1])
            role = "object"
        elif "doc-label" in classes and self.open:  # a label of the object (in its heading's labels)
            self.open[-1].labels.update(c[len("doc-label-"):] for c in classes if c.startswith("doc-label-"))
        elif self.open and self._role() not in ("skip",):
            obj = self.open[-1]
            if tag[:1] == "h" and tag[1:] in ("1", "2", "3", "4", "5", "6") and "doc-heading" in classes and not obj.name:
                obj.name, obj.heading, role = a.get("id") or "", True, "heading"
            elif tag == "a" and a.get("id") and not obj.name and self._role() == "object":
                obj.name = a["id"] or ""
            elif ("headerlink" in classes or "doc-labels" in classes) and self._role() == "heading":
                role = "skip"
            elif tag == "div" and "doc-signature" in classes:
                role = "signature"
            elif tag == "div" and "doc-contents" in classes:
                role = "contents"
            elif tag == "details" and "mkdocstrings-source" in classes:
                role = "skip"
        if tag in _BLOCK:
            self._data("\n")
        if tag not in _VOID:
            self.stack.append((tag, role))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID and self.stack and self.stack[-1][0] == tag:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not any(t == tag for t, _ in self.stack):
            return
        while self.stack:
            t, role = self.stack.pop()
            if role == "object":
                self.open.pop()
            if t == tag:
                break
        if tag in _BLOCK:
            self._data("\n")

    def handle_data(self, data: str) -> None:
        self._data(data)

    def _data(self, data: str) -> None:
        if not self.open:
            return
        role = self._role()
        obj = self.open[-1]
        if role == "heading":
            obj.head.append(data)
        elif role == "signature":
            obj.signature.append(data)
        elif role == "contents":
            obj.text.append(data)


def _lines(parts: list[str]) -> list[str]:
    return [" ".join(line.split()) for line in "".join(parts).split("\n") if line.strip()]


def rendered_objects(page_html: str) -> list[RenderedObject]:
    """The objects mkdocstrings rendered in a page's HTML, in document order (an object
    without a name, or named twice on the page, is left out)."""
    if "doc-object" not in page_html:
        return []
    parser = _Objects()
    parser.feed(page_html)
    parser.close()
    out: list[RenderedObject] = []
    seen: set[str] = set()
    for obj in parser.started:
        if not obj.name or obj.name in seen:
            continue
        seen.add(obj.name)
        head = " ".join(_lines(obj.head))
        separate = " ".join(_lines(obj.signature))
        signature = "" if obj.kind == "module" else (separate or head)
        parts = [signature] if signature else []
        body = "\n".join(_lines(obj.text))
        if body:
            parts.append(body)
        kind = "property" if obj.kind == "attribute" and "property" in obj.labels else _KINDS.get(obj.kind, obj.kind)
        out.append(RenderedObject(obj.name, "py:" + kind, signature, "\n\n".join(parts), obj.depth,
                                  obj.heading))
    return out
