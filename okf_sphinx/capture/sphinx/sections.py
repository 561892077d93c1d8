"""Split a docutils doctree into contract sections (docs/contract.md, "Sections").

Headings come from the doctree that docutils / MyST built (never from regexes
over the source); line numbers come from the captured bytes, through
:class:`~okf_sphinx.core.lines.LineMap`.  Runs in the read phase (``doctree-read``),
in parallel workers under ``-j``; the records it returns are pickled with the
environment.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.transforms import SphinxContentsFilter

from okf_sphinx.core.lines import LineMap, is_blank
from okf_sphinx.core.records import MAX_HEADING_BYTES, CapturedFile, DocRecord, ObjectInfo, Section, decode, lexical

_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1*[ \t]*")
_FIELD = re.compile(r":(?![: ])(?:[^:\\]|\\.)*:(?:[ \t]|$)")
_RST_EXPLICIT = re.compile(r"\.\.(?:[ \t]+|$)")
_RST_NOT_COMMENT = re.compile(r"(?:\[|\||[\w.+-]+(?::[\w.+-]+)?::)")
_MD_TARGET = re.compile(r"\([^()\s]*\)=[ \t]*")


@dataclass
class Marker:
    """Where a section starts in one captured file, in document order (a heading, an include's
    intro, a documented object's block or the text after one)."""

    line: int  # physical start line
    order: int  # position in document order
    heading: str = ""
    level: int = 0
    anchor: str = ""
    only: tuple[str, ...] = ()
    parent_order: int | None = None  # order of the enclosing heading marker
    obj: ObjectInfo | None = None  # a documented object's directive block starts here
    resume_of: float | None = None  # ends the block of the object marker with this order: the text
    # after it continues what was current before that object (see _file_ranges)
    continued: bool = False


def heading_text(doctree: nodes.document, title: nodes.title) -> str:
    """The title as Sphinx's own table of contents shows it (``env.titles`` filtering)."""
    visitor = SphinxContentsFilter(doctree)
    title.walkabout(visitor)
    return "".join(node.astext() for node in visitor.get_entry_text())


def _is_adornment(line: str | None) -> bool:
    return line is not None and _ADORNMENT.fullmatch(line) is not None


def _is_overline(over: str | None, under: str | None, above: str | None) -> bool:
    """Is ``over`` (the line above a title's text) that title's overline?

    It must be an adornment equal to the underline (docutils' own rule) and must
    not itself underline the line above it: in ``A\\n---\\nB\\n---`` the first
    ``---`` is A's underline, so B has no overline.
    """
    if over is None or under is None or not _is_adornment(over) or over.rstrip() != under.rstrip():
        return False
    return above is None or is_blank(above) or _is_adornment(above)


def heading_line(lm: LineMap, title: nodes.title, markdown: bool) -> int:
    """Physical line where the heading of ``title`` starts.

    RST reports the underline line (text one above, overline two above); MyST
    the heading's first line; an ``{eval-rst}`` block in Markdown uses RST
    semantics with Markdown line counting.  Each reading is checked against
    the title's raw source, the file's own syntax first.
    """
    line = title.line or 1
    raw = (title.rawsource or title.astext()).split("\n")[0].strip()

    def rst(model: str) -> int | None:
        text_line = lm.parser_line_text(model, line - 1)
        if not _is_adornment(lm.parser_line_text(model, line)) or text_line is None:
            return None
        if raw and text_line.strip() != raw:
            return None
        over = lm.parser_line_text(model, line - 2)
        under = lm.parser_line_text(model, line)
        start = line - 2 if _is_overline(over, under, lm.parser_line_text(model, line - 3)) else line - 1
        return lm.physical_line(model, start)

    def md() -> int | None:
        text_line = lm.parser_line_text("md", line)
        if text_line is None or (raw and raw not in text_line):
            return None
        return lm.physical_line("md", line)

    readings = (md, lambda: rst("md"), lambda: rst("rst")) if markdown else (lambda: rst("rst"), md, lambda: rst("md"))
    for reading in readings:
        found = reading()
        if found is not None:
            return found
    # Unverifiable (a source-read handler rewrote the text): trust the parser.
    return lm.physical_line("md", line) if markdown else lm.physical_line("rst", max(line - 1, 1))


def metadata_end(lm: LineMap, markdown: bool) -> int:
    """Last physical line of front matter / file-wide fields at the top (0 when none)."""
    total = lm.total_lines
    if markdown:
        if lm.line_text(1).rstrip() != "---":
            return 0
        for n in range(2, total + 1):
            if lm.line_text(n).rstrip() in ("---", "..."):
                return n
        return 0
    n = 1
    while n <= total and is_blank(lm.line_text(n)):
        n += 1
    if n > total or not _FIELD.match(lm.line_text(n)):
        return 0
    end = n
    n += 1
    while n <= total:
        text = lm.line_text(n)
        if is_blank(text):
            break
        if not (_FIELD.match(text) or text[0] in " \t"):
            break
        end = n
        n += 1
    return end


def only_markup_noise(text: str, markdown: bool) -> bool:
    """True when a range holds nothing but comments and hyperlink targets."""
    in_explicit = False
    for line in re.split(r"\r?\n", text):
        if is_blank(line):
            continue
        if line[0] in " \t":
            if in_explicit:
                continue
            return False
        in_explicit = False
        if markdown:
            if _MD_TARGET.fullmatch(line) or line.startswith("%"):
                continue
            return False
        if _RST_EXPLICIT.match(line):
            rest = line[2:].strip()
            if rest.startswith("_") or not _RST_NOT_COMMENT.match(rest):
                in_explicit = True  # comment or target, with its indented continuation
                continue
            return False
        if line.startswith("__ ") or line == "__":
            in_explicit = True
            continue
        return False
    return True


@functools.lru_cache(maxsize=4096)
def resolve_source(source: str | None, srcdir: Path) -> str | None:
    """The :func:`~okf_sphinx.core.records.lexical` path of a node's ``source`` (relative ones
    are from the cwd or srcdir), as captured files are named."""
    if not source:
        return None
    path = Path(source)
    if not path.is_absolute():
        for base in (Path.cwd(), srcdir):
            if (base / path).exists():
                path = base / path
                break
        else:
            return None
    return lexical(path)


def _walk(doctree: nodes.document, captured: dict[str, LineMap], srcdir: Path, main: str) -> list[tuple[str, Marker]]:
    """Heading markers and include-intro markers of each captured file, in document order."""
    markers: list[tuple[str, Marker]] = [(main, Marker(line=0, order=0))]
    seen = {main}
    order = 0
    stack: list[tuple[nodes.Node, int]] = []  # (section node, its marker order)

    def enclosing(node: nodes.Node) -> int | None:
        while stack and not _is_ancestor(stack[-1][0], node):
            stack.pop()
        return stack[-1][1] if stack else None

    for node in doctree.findall(nodes.Element):
        order += 1
        is_section = isinstance(node, nodes.section) and bool(node.children) and isinstance(node[0], nodes.title)
        source = (node[0].source or node.source) if is_section else node.get("source")
        file = resolve_source(source, srcdir) if source else None
        if file in captured and file not in seen:
            # first node from an included file: its intro sits here in the document
            seen.add(file)
            markers.append((file, Marker(line=0, order=order, parent_order=enclosing(node))))
        if not is_section:
            continue
        parent = enclosing(node)
        if file in captured:
            title = node[0]
            text = heading_text(doctree, title)
            if len(text.encode("utf-8")) > MAX_HEADING_BYTES:
                raise ExtensionError(
                    f"okf_sphinx: heading text at {file}:{title.line} is "
                    f"{len(text.encode('utf-8'))} bytes; the limit is {MAX_HEADING_BYTES} (shorten the heading)"
                )
            only = tuple(a["expr"] for a in ancestors(node) if isinstance(a, addnodes.only))
            level = sum(1 for a in ancestors(node) if isinstance(a, nodes.section)) + 1
            line = heading_line(captured[file], title, file.endswith(".md"))
            anchor = node["ids"][0] if node["ids"] else ""
            markers.append((file, Marker(line, order, text, level, anchor, only, parent)))
        stack.append((node, order))
    for file in captured:
        if file not in seen:  # included but left no node (e.g. only comments)
            markers.append((file, Marker(line=0, order=order + 1)))
    return markers


def ancestors(node: nodes.Node) -> list[nodes.Node]:
    """The elements enclosing ``node``, outermost first."""
    out = []
    parent = node.parent
    while parent is not None:
        out.append(parent)
        parent = parent.parent
    return out[::-1]


def _is_ancestor(candidate: nodes.Node, node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent is candidate:
            return True
        parent = parent.parent
    return False


ObjectsHook = Callable[
    [nodes.document, dict[str, LineMap], Path, str],
    tuple[list[tuple[str, Marker]], list[tuple[Marker, Section]], list[CapturedFile]],
]


def split_document(
    docname: str,
    title: str,
    searchable: bool,
    doctree: nodes.document,
    files: list[tuple[CapturedFile, bytes]],
    srcdir: Path,
    objects: ObjectsHook | None = None,
    encoding: str = "utf-8",
) -> DocRecord:
    """All sections of one document, in document order (sources decoded as ``encoding``).

    ``objects`` (okf_sphinx/capture/sphinx/objects.py) adds documented objects: markers that
    carve directive blocks out of the document's ranges, sections whose range
    is fixed (docstrings in ``.py`` files, generated objects) and the extra
    captured files those live in.
    """
    maps = {f.path: LineMap(decode(data, encoding)) for f, data in files}
    per_file: dict[str, list[Marker]] = {}
    markers = _walk(doctree, maps, srcdir, files[0][0].path)
    fixed: list[tuple[Marker, Section]] = []
    extra_files: list[CapturedFile] = []
    if objects is not None:
        more, fixed, extra_files = objects(doctree, maps, srcdir, files[0][0].path)
        markers += more
    for file, marker in markers:
        per_file.setdefault(file, []).append(marker)
    found = [r for file, markers in per_file.items() for r in _file_ranges(file, maps[file], markers)]
    found += fixed
    found.sort(key=lambda r: (r[0].order, r[0].line))
    ordered = [section for _, section in found]
    # parents: the enclosing heading marker's position in document order → its index here
    index_of = {m.order: i for i, (m, s) in enumerate(found) if s.level}
    for marker, section in found:
        section.parent = index_of.get(marker.parent_order) if marker.parent_order is not None else None
    return DocRecord(docname, title, searchable, [f for f, _ in files] + extra_files, ordered)


def _file_ranges(file: str, lm: LineMap, markers: list[Marker]) -> list[tuple[Marker, Section]]:
    """The disjoint ranges one captured file contributes, each with the marker that starts it."""
    markdown = file.endswith(".md")
    body = metadata_end(lm, markdown) + 1
    for m in markers:
        if m.line == 0 or m.line < body:  # intros; myst_title_to_header puts its heading in the front matter
            m.line = body
    heads = sorted((m for m in markers if m.level or m.resume_of is not None), key=lambda m: (m.line, m.order))
    # a heading on the intro's line replaces it; of two headings on one line the later wins
    bounds = [next(m for m in markers if not m.level and m.resume_of is None)]
    before: dict[float, Marker] = {}  # object marker order -> the bound current before it
    for m in heads:
        if m.resume_of is not None:
            # the text after an object's directive block continues what was current before it
            was = before.get(m.resume_of)
            if was is None:
                continue
            # a continuation is a child of the section it continues (so that section's subtree holds it)
            m = replace(was, line=m.line, order=m.order, resume_of=None, continued=True,
                        parent_order=was.parent_order if was.continued else was.order)
        if m.obj is not None:
            before[m.order] = bounds[-1] if m.line != bounds[-1].line or len(bounds) == 1 else bounds[-2]
        if m.line == bounds[-1].line:
            bounds[-1] = m
        else:
            bounds.append(m)
    out = []
    for i, m in enumerate(bounds):
        end = bounds[i + 1].line - 1 if i + 1 < len(bounds) else lm.total_lines
        if end < m.line:
            continue
        text = lm.range_text(m.line, end)
        if is_blank(text) or only_markup_noise(text, markdown):
            continue
        out.append((m, Section(file, m.heading, m.level, m.line, end, m.anchor, m.only, None, m.obj, m.continued)))
    return out
