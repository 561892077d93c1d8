"""Sections of a Python-Markdown page (MkDocs), from the exact source bytes.

Python-Markdown has no source positions, so the headings are found by a
*shadow parse*: every line that could start a heading gets a marker
(``OKF7H<line>Z``), the marked text goes through the site's own Markdown
extensions' preprocessors and block parser (the stages that decide what is a
heading), and every heading element that carries a marker names its source
line.  Python-Markdown, not CommonMark, decides: ``#hashtag`` at the start of
a line is a heading, `` # x`` (one leading space) is not, and headings inside
admonitions, tabs, lists and ``md_in_html`` blocks count.

The rendered page's headings (in document order, from the final HTML) are then
aligned one to one with the shadow headings; when the two sequences do not
agree (the markdown was rewritten before rendering, inline raw HTML headings
...), the sections keep their exact lines but link to the page, never to a
wrong anchor.  No MkDocs imports: :mod:`okf_sphinx.capture.mkdocs.page` drives this.
"""

from __future__ import annotations

import difflib
import html
import os
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from okf_sphinx.core.records import MAX_HEADING_BYTES, Section
from okf_sphinx.core.lines import BOM, LineMap, is_blank

_MARK_RE = re.compile(r"OKF7H(\d+)(?:F(\d+))?Z")
_SNIPPET_SYNTAX = re.compile(r"[ \t]*;*-+8<-")
_PARSER_BREAK = re.compile(r"\r\n|\r|\n")
_PREFIX = re.compile(r"[ \t>]*")  # indentation and block-quote markers before a line's content
_SETEXT_UNDER = re.compile(r"[ \t>]*(?:=+|-+)[ \t]*")
# lines that open a block (fence, admonition, details, tab, pymdownx block): never a setext
# heading's text, and a marker appended to them would change their meaning
_BLOCK_OPENER = re.compile(r"[ \t>]*(?:`{3,}|~{3,}|!!!|\?{3}|={3}|/{3})")
_HTML_OPEN = re.compile(r"<h([1-6])(?=[\s>/])[^>]*>", re.IGNORECASE)
_HTML_HEADING = re.compile(r"<h([1-6])(\s[^>]*)?>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_ID = re.compile(r"""\sid\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_HEADERLINK = re.compile(r"""<a\b[^>]*class\s*=\s*["'][^"']*\bheaderlink\b[^"']*["'][^>]*>.*?</a\s*>""", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
#: the heading of an object mkdocstrings renders (an object section of its own, see objects.py)
_DOC_HEADING = re.compile(r"""\sclass\s*=\s*["'][^"']*\bdoc-heading\b""", re.IGNORECASE)
_STASH = re.compile("\x02wzxhzdk:(\\d+)\x03")


class HeadingError(ValueError):
    """A heading the index cannot hold (its text is longer than MAX_HEADING_BYTES)."""


@dataclass(frozen=True)
class ShadowHeading:
    level: int
    line: int | None  # parser line (1-based, whole file) of its marker; None = from no captured file's lines
    file: int = 0  # 0 = the page, k = the k-th file pymdownx.snippets included (SnippetCapture.files[k-1])
    text: str = ""  # its text as written (before inline processing), marker, attribute list and tags removed


def _mark(line: int, file: int) -> str:
    return f"OKF7H{line}Z" if not file else f"OKF7H{line}F{file}Z"


@dataclass(frozen=True)
class RenderedHeading:
    level: int
    anchor: str
    text: str


def parser_lines(text: str) -> list[str]:
    """The file as MkDocs and Python-Markdown see it: BOM dropped, CRLF / CR / LF all break."""
    if text.startswith(BOM):
        text = text[1:]
    return _PARSER_BREAK.split(text)


def front_matter_lines(lines: list[str], get_data: Any) -> tuple[int, str, dict[str, Any]]:
    """(number of leading parser lines MkDocs strips as meta data, the markdown it keeps,
    the meta data).

    ``get_data`` is MkDocs' own ``mkdocs.utils.meta.get_data`` (YAML front
    matter or MultiMarkdown meta, then leading blank lines).
    """
    doc = "\n".join(lines)
    markdown, meta = get_data(doc)
    if not doc.endswith(markdown):  # never happens with MkDocs 1.6; be safe
        return 0, doc, meta
    return doc[: len(doc) - len(markdown)].count("\n"), markdown, meta


def candidates(lines: list[str], file: int = 0, numbers: list[int | None] | None = None) -> dict[int, str]:
    """0-based index -> marked line, for every line that could start a heading
    (snippet notation lines are left alone: marking them would break them).
    The marker names line ``numbers[i]`` (default ``i + 1``); None = leave unmarked."""
    out: dict[int, str] = {}
    for i, line in enumerate(lines):
        if _SNIPPET_SYNTAX.match(line) or (numbers is not None and numbers[i] is None):
            continue
        prefix = _PREFIX.match(line).end()  # type: ignore[union-attr]
        if line.startswith("#", prefix):
            hashes = prefix
            while hashes < len(line) and line[hashes] == "#":
                hashes += 1
            out[i] = line[:hashes] + _mark(numbers[i] if numbers is not None else i + 1, file) + line[hashes:]
        elif "<h" in line or "<H" in line:
            marked = _HTML_OPEN.sub(lambda m: m.group(0) + _mark(numbers[i] if numbers is not None else i + 1, file), line)
            if marked != line:
                out[i] = marked
        if (i not in out and i + 1 < len(lines) and line.strip() and _SETEXT_UNDER.fullmatch(lines[i + 1])
                and not _BLOCK_OPENER.match(line)):
            out[i] = line + " " + _mark(numbers[i] if numbers is not None else i + 1, file)
    return out


def includes_snippets(lines: list[str]) -> bool:
    """Does any line hold pymdownx.snippets notation (``--8<--``)?  (Then the shadow parse
    captures the included files.)"""
    return any(_SNIPPET_SYNTAX.match(line) for line in lines)


def _marker(level: int, text: str) -> ShadowHeading:
    m = _MARK_RE.search(text)
    plain = " ".join(_TAG.sub("", _ATTR_LIST.sub("", _MARK_RE.sub("", text))).split())
    if not m:
        return ShadowHeading(level, None, 0, plain)
    return ShadowHeading(level, int(m.group(1)), int(m.group(2) or 0), plain)


def line_numbers(source: list[str], rendered: list[str], first: int) -> tuple[list[int | None], int]:
    """For Markdown another plugin rewrote: the source parser line each rendered line stands
    for (None: none), and how many candidate heading lines were left without one.

    Unchanged runs map line for line (a line-for-line rewrite maps entirely); in a
    changed run, heading-like lines map in order when both sides have the same number
    of them (``#### <!-- md:setting x -->`` expanded into a heading and several lines);
    any other rendered line maps to nothing, so a heading there starts no section.
    """
    numbers: list[int | None] = [None] * len(rendered)
    if len(source) == len(rendered):
        return [first + i + 1 for i in range(len(rendered))], 0
    unmapped = 0
    head = 0
    while head < len(source) and head < len(rendered) and source[head] == rendered[head]:
        numbers[head] = first + head + 1
        head += 1
    tail = 0
    while tail < len(source) - head and tail < len(rendered) - head and source[-1 - tail] == rendered[-1 - tail]:
        numbers[len(rendered) - 1 - tail] = first + len(source) - tail
        tail += 1
    matcher = difflib.SequenceMatcher(None, source[head : len(source) - tail], rendered[head : len(rendered) - tail])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        if tag == "equal":
            for k in range(i2 - i1):
                numbers[j1 + k] = first + i1 + k + 1
        elif tag in ("replace", "insert"):
            new = sorted(candidates(rendered[j1:j2]))
            old = sorted(candidates(source[i1:i2])) if tag == "replace" else []
            if new and len(new) == len(old):
                for a, b in zip(old, new):
                    numbers[j1 + b] = first + i1 + a + 1
            else:
                unmapped += len(new)
    return numbers, unmapped


def shadow_headings(md: Any, body: list[str], first: int, numbers: list[int | None] | None = None) -> list[ShadowHeading]:
    """Headings Python-Markdown finds in ``body``, in document order; ``body[i]`` stands
    for parser line ``first + i + 1`` of the file (``first``: lines of meta data).

    ``body`` is the page's Markdown after its meta data: the source's own lines, or
    what another plugin rewrote them into, with ``numbers`` from :func:`line_numbers`.  ``md`` is a
    ``markdown.Markdown`` built with the site's extensions; only its preprocessors
    and block parser run (inline patterns, tree processors and serialisation do not
    decide what is a heading).
    """
    marked = candidates(body, 0, numbers if numbers is not None else [first + i + 1 for i in range(len(body))])
    shadow = [marked.get(i, line) for i, line in enumerate(body)]
    md.reset()
    source = "\n".join(shadow).replace("\x02", "").replace("\x03", "")
    if not source.strip():
        return []
    md.lines = source.split("\n")
    for prep in md.preprocessors:
        md.lines = prep.run(md.lines)
    root = md.parser.parseDocument(md.lines).getroot()
    return [_marker(level, text) for level, text, _ in tree_headings(root, md.htmlStash.rawHtmlBlocks)]


def tree_headings(root: etree.Element, stash: list[Any]) -> list[tuple[int, str, bool]]:
    """The headings of a block-parsed Python-Markdown tree in document order: (level, text
    as written, from raw HTML), headings in stashed raw HTML blocks included."""
    found: list[tuple[int, str, bool]] = []

    def raw(text: str | None) -> None:
        for m in _STASH.finditer(text or ""):
            n = int(m.group(1))
            block = stash[n] if n < len(stash) else ""
            if isinstance(block, etree.Element):
                visit(block)
                continue
            for h in _HTML_HEADING.finditer(str(block)):
                found.append((int(h.group(1)), h.group(3), True))

    def visit(el: etree.Element) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag == "div" and el.get("class") == "mkdocstrings":
            return  # mkdocstrings' rendered API (and the copies of its headings it adds for the toc)
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            found.append((int(tag[1]), "".join(el.itertext()), len(el) > 0))
        else:
            raw(el.text)
        for child in el:
            visit(child)
            raw(child.tail)

    visit(root)
    return found


def headings_from_tree(
    md: Any, found: list[tuple[int, str, bool]], body: list[str], first: int, numbers: list[int | None] | None = None
) -> list[ShadowHeading] | None:
    """The page's headings from the real render's block tree (:func:`tree_headings`), without
    a shadow parse, when that is certain; else None (the caller runs the shadow parse).

    Each heading of the tree is tied to a line of ``body`` that could start a heading
    (:func:`candidates`) whose level and text as written are the heading's.  Lines that
    could start a heading but are none (a ``#`` comment in a fenced block, indented code)
    are passed over; the tie is certain only when it is the one way to place the
    headings in document order (the earliest and the latest placement agree), no heading
    comes from raw HTML, and no list item line starts with ``#`` (``- # x`` renders a
    heading from a line that is no candidate).  ``md``: the site's Markdown (its tab
    length and header patterns).  ``numbers``: as for :func:`shadow_headings` (rewritten
    Markdown)."""
    if any(from_html for _, _, from_html in found) or any(_LIST_HEADING.match(line) for line in body):
        return None
    at = sorted(candidates(body))
    if len(at) < len(found):
        return None
    hashed = md.parser.blockprocessors["hashheader"].RE if "hashheader" in md.parser.blockprocessors else None
    keys = [_written_heading(md, hashed, body, i) for i in at]
    wanted = [(level, text) for level, text, _ in found]
    early = _placement(keys, wanted)
    if early is None:
        return None
    if len(at) > len(found):
        late = _placement(keys[::-1], wanted[::-1])
        if late is None or early != [len(keys) - 1 - k for k in reversed(late)]:
            return None
    out = []
    for k, (level, text) in zip(early, wanted):
        i = at[k]
        line = numbers[i] if numbers is not None else first + i + 1
        out.append(_marker(level, (_mark(line, 0) if line is not None else "") + text))
    return out


_LIST_HEADING = re.compile(r"[ \t>]*(?:(?:[-*+]|\d+[.)])[ \t]+)+#")


def _written_heading(md: Any, hashed: Any, body: list[str], i: int) -> tuple[int, str] | None:
    """(level, text as written) of the heading line ``body[i]`` would start, or None."""
    source = body[i].expandtabs(md.tab_length)
    rest = source[_PREFIX.match(source).end():]  # type: ignore[union-attr]
    if rest.startswith("#"):
        m = hashed.match(rest) if hashed is not None else None
        return (len(m.group("level")), m.group("header").strip()) if m else None
    if i + 1 < len(body) and _SETEXT_UNDER.fullmatch(body[i + 1]):
        under = body[i + 1].strip(" \t>")
        return (1 if under.startswith("=") else 2, rest.strip())
    return None


def _placement(keys: list[tuple[int, str] | None], wanted: list[tuple[int, str]]) -> list[int] | None:
    """The earliest positions in ``keys`` that hold ``wanted`` in order, or None."""
    out = []
    k = 0
    for key in wanted:
        while k < len(keys) and keys[k] != key:
            k += 1
        if k == len(keys):
            return None
        out.append(k)
        k += 1
    return out


def rendered_headings(page_html: str) -> list[RenderedHeading]:
    """The headings of a page's rendered HTML, in order: level, id and text (permalink removed);
    the headings of mkdocstrings' objects (``doc-heading``) are left out: they are objects."""
    out = []
    for m in _HTML_HEADING.finditer(page_html):
        if m.group(2) and _DOC_HEADING.search(m.group(2)):
            continue
        idm = _ID.search(m.group(2) or "")
        anchor = html.unescape(next(g for g in idm.groups() if g is not None)) if idm else ""
        text = html.unescape(_TAG.sub("", _HEADERLINK.sub("", m.group(3))))
        out.append(RenderedHeading(int(m.group(1)), anchor, " ".join(text.split())))
    return out


def align(shadow: list[ShadowHeading], rendered: list[RenderedHeading]) -> tuple[list[RenderedHeading | None], bool]:
    """The rendered heading of each shadow heading (None: not known), and whether all are known.

    When the two sequences agree in length and levels, they pair in order.  Otherwise
    (an extension such as mkdocstrings rendered headings of its own, a raw ``<h3>``
    inside a paragraph ...) a shadow heading is paired only when it is forced: its level
    and text as written equal those of as many rendered headings as shadow headings
    (of the same level and text), and all such pairs keep document order.  A heading
    whose text inline processing changes (``*emphasis*``, entities) is not paired: its
    section links to the page, never to a guessed anchor.
    """
    if len(shadow) == len(rendered) and all(s.level == r.level for s, r in zip(shadow, rendered)):
        return list(rendered), True
    keyed: dict[tuple[int, str], list[int]] = {}
    for j, r in enumerate(rendered):
        keyed.setdefault((r.level, r.text), []).append(j)
    wanted: dict[tuple[int, str], list[int]] = {}
    for i, sh in enumerate(shadow):
        wanted.setdefault((sh.level, sh.text), []).append(i)
    out: list[RenderedHeading | None] = [None] * len(shadow)
    pairs = []
    for key, mine in wanted.items():
        theirs = keyed.get(key, [])
        if key[1] and len(theirs) == len(mine):
            pairs += zip(mine, theirs)
    pairs.sort()
    if any(b[1] <= a[1] for a, b in zip(pairs, pairs[1:])):
        return out, False  # out of order: nothing is certain
    for i, j in pairs:
        out[i] = rendered[j]
    return out, False


def split_markdown(
    path: str,
    lm: LineMap,
    shadow: list[ShadowHeading],
    rendered: list[RenderedHeading | None] | None,
    file: int = 0,
    runs: list[tuple[int, int]] | None = None,
) -> list[Section]:
    """Contract sections of one captured Markdown file (``file`` 0 = the page, k = its k-th
    snippet): the intro (front matter and meta data included), then one section per
    heading from this file.  ``rendered`` (per shadow heading) None = its anchor falls back
    to the page and its text is read from the source line.
    ``runs``: the parser line runs (1-based, inclusive) a page includes of a snippet file
    (line ranges, named sections); each run is split on its own, and lines no page
    shows belong to no section.  None = the whole file.
    Parents are left unset: :func:`order_sections` sets them in document order."""
    heads: list[tuple[int, int, str, str]] = []  # (physical line, level, text, anchor)
    for i, s in enumerate(shadow):
        if s.line is None or s.file != file:
            continue
        line = lm.physical_line("md", s.line)
        r = rendered[i] if rendered is not None else None
        text, anchor = (r.text, r.anchor) if r is not None else (_source_heading(lm.line_text(line)), "")
        if len(text.encode("utf-8")) > MAX_HEADING_BYTES:
            raise HeadingError(
                f"heading text at {path}:{line} is {len(text.encode('utf-8'))} bytes; "
                f"the limit is {MAX_HEADING_BYTES} (shorten the heading)"
            )
        heads.append((line, s.level, text, anchor))
    spans: list[tuple[int, int]] = []  # physical line spans, in order, merged where they touch
    for lo, hi in [(1, lm.total_lines)] if runs is None else [(lm.physical_line("md", a), lm.physical_line("md", b)) for a, b in runs]:
        if spans and lo <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], max(hi, spans[-1][1]))
        else:
            spans.append((lo, hi))
    sections: list[Section] = []
    for lo, hi in spans:
        bounds: list[tuple[int, int, str, str]] = [(lo, 0, "", "")]
        for h in heads:
            if not lo <= h[0] <= hi:
                continue
            if h[0] == bounds[-1][0]:
                bounds[-1] = h  # a heading on the intro's line, or two on one line: the later names it
            else:
                bounds.append(h)
        for i, (line, level, text, anchor) in enumerate(bounds):
            end = bounds[i + 1][0] - 1 if i + 1 < len(bounds) else hi
            if end < line or is_blank(lm.range_text(line, end)):
                continue
            sections.append(Section(path, text, level, line, end, anchor, (), None))
    return sections


def line_runs(numbers: set[int]) -> list[tuple[int, int]]:
    """Sorted line numbers as inclusive runs: {1, 2, 3, 7} -> [(1, 3), (7, 7)]."""
    runs: list[tuple[int, int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def order_sections(page: list[Section], included: list[tuple[int, list[Section]]]) -> list[Section]:
    """The page's sections with each included file's at its point of inclusion (``at``: the
    physical page line that includes it), in document order, parents set by heading level:
    a heading's parent is the nearest earlier heading of a lower level, an included
    file's intro belongs to the heading it is included under."""
    keyed = [((s.line_start, 0, 0, 0), s) for s in page]
    keyed += [((at, 1, k, s.line_start), s) for k, (at, sections) in enumerate(included) for s in sections]
    keyed.sort(key=lambda item: item[0])
    out: list[Section] = []
    stack: list[tuple[int, int]] = []  # (level, index in out)
    for _, s in keyed:
        if s.level:
            while stack and stack[-1][0] >= s.level:
                stack.pop()
        s.parent = stack[-1][1] if stack else None
        if s.level:
            stack.append((s.level, len(out)))
        out.append(s)
    return out


def _plain_code(src: str = "", language: str = "", options: Any = None, md: Any = None, **kwargs: Any) -> str:
    return "<pre><code></code></pre>"


def skip_highlighting(md: Any) -> None:
    """Make a shadow ``Markdown`` skip syntax highlighting (the dearest part of a render).

    A highlighted block reaches the block parser as one stash placeholder whatever
    its HTML, and that HTML holds no raw heading tags, so what is a heading does not
    change.  Covers pymdownx.superfences' default formatter and fenced_code's
    CodeHilite hand-off; custom fences keep their own formatters.
    """
    for ext in getattr(md, "registeredExtensions", []):
        for fence in getattr(ext, "superfences", None) or []:
            formatter = fence.get("formatter")
            if getattr(formatter, "__name__", "") == "highlight" and type(getattr(formatter, "__self__", None)).__name__ == "SuperFencesBlockPreprocessor":
                fence["formatter"] = _plain_code
    if "fenced_code_block" in md.preprocessors:
        pre = md.preprocessors["fenced_code_block"]
        if hasattr(pre, "checked_for_deps") and hasattr(pre, "codehilite_conf"):
            pre.checked_for_deps = True
            pre.codehilite_conf = {}


def skip_generators(md: Any) -> None:
    """Make a shadow ``Markdown`` leave alone the block processors that render content from
    elsewhere: mkdocstrings' ``::: identifier`` (it would load and render the API a second
    time, registering its anchors again).  Their headings come from no source line, so
    they start no section either way; the ``:::`` lines stay plain text."""
    for name in ("mkdocstrings",):
        if name in md.parser.blockprocessors:
            md.parser.blockprocessors.deregister(name)


class SnippetCapture:
    """Captures the files ``pymdownx.snippets`` includes, under their own paths.

    Installed on the shadow ``Markdown`` only: its ``process_snippet_lines`` hook
    (pymdownx 10.x+) marks the candidate heading lines of each included file with
    their own line numbers in that file, so the shadow parse tells which rendered
    heading comes from which line of which file.  A whole file, a line range
    (``file.md:3:9``) and a named section (``file.md:name``) are captured alike, with
    the lines the page shows (:meth:`runs`); URLs and ``auto_append`` files (an
    abbreviation list on every page) render but belong to no section of their own.
    A line a page includes twice renders twice, but is captured at its first inclusion.
    """

    def __init__(self, md: Any) -> None:
        self.pre = md.preprocessors["snippet"] if "snippet" in md.preprocessors else None
        self.files: list[str] = []
        self._lines: dict[str, set[int]] = {}  # path -> parser lines (1-based) this page includes
        self._whole: set[str] = set()
        if self.pre is not None and hasattr(self.pre, "process_snippet_lines"):
            self._original = self.pre.process_snippet_lines
            self.pre.process_snippet_lines = self._process
        else:
            self.pre = None

    def start(self) -> None:
        self.files = []
        self._lines = {}
        self._whole = set()

    def runs(self, path: str) -> list[tuple[int, int]] | None:
        """The parser line runs of ``path`` the page includes; None = the whole file."""
        return None if path in self._whole else line_runs(self._lines[path])

    def _numbers(self, lines: list[str], target: dict[str, Any]) -> list[int] | None:
        """The file's parser line (1-based) of each selected line, as pymdownx selected them."""
        if not target.get("start") and not target.get("section"):
            return list(range(1, len(lines) + 1))
        whole = self.pre.read_lines(target["snippet"])
        # the same selection over lines tagged with their index (tags survive dedenting and
        # escaped section markers: they sit before each line's own text)
        picked = self.pre.select_snippet_lines([f"\x00{i}\x00{line}" for i, line in enumerate(whole)], target)
        if len(picked) != len(lines) or not all(p.startswith("\x00") for p in picked):
            return None
        return [int(p.split("\x00", 2)[1]) + 1 for p in picked]

    def _process(self, lines: list[str], target: dict[str, Any]) -> list[str]:
        lines = self._original(lines, target)
        if target.get("is_url") or target.get("path") in (self.pre.auto_append or ()):
            return lines
        numbers = self._numbers(lines, target)
        if numbers is None:
            return lines  # never seen: a pymdownx whose selection okf cannot replay; rendered, not captured
        path = Path(os.path.realpath(target["snippet"])).as_posix()
        if path not in self._lines:
            self.files.append(path)
            self._lines[path] = set()
        seen = self._lines[path]
        if not target.get("start") and not target.get("section"):
            self._whole.add(path)
        marks: list[int | None] = [None if n in seen else n for n in numbers]
        seen.update(numbers)
        marked = candidates(lines, self.files.index(path) + 1, marks)
        return [marked.get(i, line) for i, line in enumerate(lines)]

    def inclusion_lines(self, lines: list[str]) -> dict[str, int]:
        """Resolved path -> first page parser line (1-based) that includes it directly."""
        pre = self.pre
        out: dict[str, int] = {}
        if pre is None:
            return out
        pre.bases = None
        block = False
        for i, line in enumerate(lines):
            m = pre.RE_ALL_SNIPPETS.match(line)
            path = None
            if m:
                if m.group("escape"):
                    continue
                if m.group("inline_marker"):
                    path = m.group("snippet")[1:-1].strip()
                else:
                    block = not block
                    continue
            elif block:
                m = pre.RE_SNIPPET.match(line)
                path = m.group("snippet").strip() if m else None
            target = pre.parse_snippet_target(path) if path else None
            if target is None:
                continue
            found = pre.get_snippet_path(target["path"])
            if found:
                out.setdefault(Path(os.path.realpath(found)).as_posix(), i + 1)
        return out


_ATX_TEXT = re.compile(r"[ \t>]*#{1,6}(.*?)(?:[ \t]+#+)?[ \t]*$")
_ATTR_LIST = re.compile(r"[ \t]*\{:?[^}]*\}[ \t]*$")


def _source_heading(line: str) -> str:
    """A heading's text read from its source line (only when the rendering cannot be aligned)."""
    m = _ATX_TEXT.fullmatch(line)
    text = m.group(1) if m else line
    text = _ATTR_LIST.sub("", text)
    text = _TAG.sub("", text)
    return " ".join(text.split())
