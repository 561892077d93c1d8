"""Glossary terms as documented objects (kind ``std:term``; docs/contract.md, "Documented objects").

Sphinx registers every term of a ``glossary`` directive in its standard domain, and its
own search finds a term by name as it finds an API object.  Here each glossary entry (a
``definition_list_item`` of an ``addnodes.glossary``: one or more terms, then their
definition) becomes a section of its own:

- **named** by its first term as the page shows it (translated, on a translated site), its
  other terms (``term`` lines written one under another) being further names of the same
  section; the anchor is the first term's id (``term-environment``), as ``:term:`` links;
- **located** at its lines in the glossary: from the first term's line to the last line of
  the definition (indentation in RST, and inside a MyST ``{glossary}`` fence), carved out of
  the enclosing section like a hand-written object's directive block; the text after the
  glossary continues the section it stands in.

A term is found on its line by its raw text (the parser's line numbers for glossary terms
are relative to the directive's content in MyST), among the lines of the glossary
directives of its source file; a term whose line cannot be found stays in the text of the
section around it.  Runs in the read phase, beside :mod:`.objects`.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

from okf_sphinx.core.lines import LineMap
from okf_sphinx.core.records import MAX_HEADING_BYTES, ObjectInfo

from .sections import Marker, ancestors, block_end, resolve_source

#: The kind of a glossary term's section, as Sphinx's standard domain names the object type.
KIND = "std:term"

_GLOSSARY = re.compile(r"^[ \t]*(?:\.\.[ \t]+glossary::|(?:`{3,}|~{3,}|:{3,})[ \t]*\{glossary\})")


def _glossary_lines(lm: LineMap) -> list[tuple[int, int]]:
    """``(first, last)`` content lines of every glossary directive of one file."""
    out = []
    for n in range(1, lm.total_lines + 1):
        if _GLOSSARY.match(lm.line_text(n)):
            out.append((n + 1, block_end(lm, n)))
    return out


def _is_heading(node: nodes.Node) -> bool:
    return isinstance(node, addnodes.desc) or (
        isinstance(node, nodes.section) and bool(node.children) and isinstance(node[0], nodes.title))


class _TermLines:
    """Finds terms on their lines: each line of a file's glossaries is taken once."""

    def __init__(self, captured: dict[str, LineMap]) -> None:
        self.captured = captured
        self.blocks: dict[str, list[tuple[int, int]]] = {}
        self.used: set[tuple[str, int]] = set()

    def find(self, file: str, term: nodes.term) -> int | None:
        """The physical line of ``term`` (its raw text, alone on its line), nearest to the
        parser's line, or None."""
        raw = (term.rawsource or term.astext()).strip()
        if not raw or "\n" in raw:
            return None
        lm = self.captured[file]
        if file not in self.blocks:
            self.blocks[file] = _glossary_lines(lm)
        hint = (term.line or 0) + 1
        best = None
        for first, last in self.blocks[file]:
            for n in range(first, last + 1):
                if (file, n) not in self.used and lm.line_text(n).strip() == raw:
                    if best is None or abs(n - hint) < abs(best - hint):
                        best = n
        if best is not None:
            self.used.add((file, best))
        return best


def collect(doctree: nodes.document, captured: dict[str, LineMap], srcdir: Path) -> list[tuple[str, Marker]]:
    """Markers that carve every glossary entry of a document out of its section (the entry's
    marker, with its :class:`~okf_sphinx.core.records.ObjectInfo`, and the marker of the text
    after it), for :func:`okf_sphinx.capture.sphinx.sections.split_document`."""
    glossaries = list(doctree.findall(addnodes.glossary))
    if not glossaries:
        return []
    order_of = {id(n): k for k, n in enumerate(doctree.findall(nodes.Element), start=1)}
    lines = _TermLines(captured)
    markers: list[tuple[str, Marker]] = []
    for glossary in glossaries:
        for item in glossary.findall(nodes.definition_list_item):
            found = _entry(item, lines, srcdir, order_of)
            if found is not None:
                markers += found
    return markers


def _entry(item: nodes.definition_list_item, lines: _TermLines, srcdir: Path,
           order_of: dict[int, int]) -> list[tuple[str, Marker]] | None:
    """The markers of one glossary entry, or None when its terms cannot be placed."""
    terms = [t for t in item.children if isinstance(t, nodes.term)]
    names = [" ".join(t.astext().split()) for t in terms]
    if not terms or not all(names) or any(len(n.encode("utf-8")) > MAX_HEADING_BYTES for n in names):
        return None
    file = resolve_source(terms[0].source, srcdir) if terms[0].source else None
    if file not in lines.captured:
        return None
    placed = [lines.find(file, t) for t in terms]
    if any(p is None for p in placed) or placed != sorted(placed):  # type: ignore[type-var]
        return None
    first, last = placed[0], placed[-1]
    assert first is not None and last is not None
    chain = ancestors(item)
    heads = [a for a in chain if _is_heading(a)]
    level = 1 + len(heads)
    parent = order_of.get(id(heads[-1])) if heads else None
    only = tuple(a["expr"] for a in chain if isinstance(a, addnodes.only))
    order = order_of[id(item)]
    info = ObjectInfo(names[0], KIND, "\n".join(names), aliases=tuple(names[1:]))
    anchor = (terms[0].get("ids") or [""])[0]
    out = [(file, Marker(first, order, names[0], level, anchor, only, parent, obj=info))]
    lm = lines.captured[file]
    end = block_end(lm, last)
    if end < lm.total_lines:
        # the text after the entry continues the section around it (objects.py's rule)
        inner = max((order_of[id(n)] for n in item.findall(nodes.Element)), default=order)
        out.append((file, Marker(end + 1, inner + 0.5, resume_of=order)))  # type: ignore[arg-type]
    return out
