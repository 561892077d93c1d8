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
wrong anchor.  No MkDocs imports: :mod:`okf_sphinx.mkdocs_plugin` drives this.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from typing import Any

from .lines import BOM, LineMap, is_blank
from .sections import MAX_HEADING_BYTES, Section

_MARK = "OKF7H{}Z"
_MARK_RE = re.compile(r"OKF7H(\d+)Z")
_PARSER_BREAK = re.compile(r"\r\n|\r|\n")
_PREFIX = re.compile(r"[ \t>]*")  # indentation and block-quote markers before a line's content
_SETEXT_UNDER = re.compile(r"[ \t>]*(?:=+|-+)[ \t]*")
_HTML_OPEN = re.compile(r"<h([1-6])(?=[\s>/])[^>]*>", re.IGNORECASE)
_HTML_HEADING = re.compile(r"<h([1-6])(\s[^>]*)?>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_ID = re.compile(r"""\sid\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_HEADERLINK = re.compile(r"""<a\b[^>]*class\s*=\s*["'][^"']*\bheaderlink\b[^"']*["'][^>]*>.*?</a\s*>""", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_STASH = re.compile("\x02wzxhzdk:(\\d+)\x03")


class HeadingError(ValueError):
    """A heading the index cannot hold (its text is longer than MAX_HEADING_BYTES)."""


@dataclass(frozen=True)
class ShadowHeading:
    level: int
    line: int | None  # parser line (1-based, whole file) of its marker; None = not from this file's lines


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


def front_matter_lines(lines: list[str], get_data: Any) -> tuple[int, str]:
    """(number of leading parser lines MkDocs strips as meta data, the markdown it keeps).

    ``get_data`` is MkDocs' own ``mkdocs.utils.meta.get_data`` (YAML front
    matter or MultiMarkdown meta, then leading blank lines).
    """
    doc = "\n".join(lines)
    markdown, _ = get_data(doc)
    if not doc.endswith(markdown):  # never happens with MkDocs 1.6; be safe
        return 0, doc
    return doc[: len(doc) - len(markdown)].count("\n"), markdown


def candidates(lines: list[str]) -> dict[int, str]:
    """0-based index -> marked line, for every line that could start a heading."""
    out: dict[int, str] = {}
    for i, line in enumerate(lines):
        prefix = _PREFIX.match(line).end()  # type: ignore[union-attr]
        if line.startswith("#", prefix):
            hashes = prefix
            while hashes < len(line) and line[hashes] == "#":
                hashes += 1
            out[i] = line[:hashes] + _MARK.format(i + 1) + line[hashes:]
        elif "<h" in line or "<H" in line:
            marked = _HTML_OPEN.sub(lambda m: m.group(0) + _MARK.format(i + 1), line)
            if marked != line:
                out[i] = marked
        if i not in out and i + 1 < len(lines) and line.strip() and _SETEXT_UNDER.fullmatch(lines[i + 1]):
            out[i] = line + " " + _MARK.format(i + 1)
    return out


def _marker(text: str) -> int | None:
    m = _MARK_RE.search(text)
    return int(m.group(1)) if m else None


def shadow_headings(md: Any, lines: list[str], first: int) -> list[ShadowHeading]:
    """Headings Python-Markdown finds in ``lines[first:]`` (parser lines), in document order.

    ``md`` is a ``markdown.Markdown`` built with the site's extensions; only its
    preprocessors and block parser run (inline patterns, tree processors and
    serialisation do not decide what is a heading).
    """
    body = lines[first:]
    marked = candidates(body)
    shadow = [marked.get(i, line) for i, line in enumerate(body)]
    md.reset()
    source = "\n".join(shadow).replace("\x02", "").replace("\x03", "")
    if not source.strip():
        return []
    md.lines = source.split("\n")
    for prep in md.preprocessors:
        md.lines = prep.run(md.lines)
    root = md.parser.parseDocument(md.lines).getroot()
    stash = md.htmlStash.rawHtmlBlocks
    found: list[ShadowHeading] = []

    def raw(text: str | None) -> None:
        for m in _STASH.finditer(text or ""):
            n = int(m.group(1))
            block = stash[n] if n < len(stash) else ""
            if isinstance(block, etree.Element):
                visit(block)
                continue
            for h in _HTML_HEADING.finditer(str(block)):
                found.append(ShadowHeading(int(h.group(1)), _marker(h.group(3))))

    def visit(el: etree.Element) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            found.append(ShadowHeading(int(tag[1]), _marker("".join(el.itertext()))))
        else:
            raw(el.text)
        for child in el:
            visit(child)
            raw(child.tail)

    visit(root)
    # markers count body lines from 1: make them whole-file parser lines
    return [ShadowHeading(h.level, h.line + first if h.line is not None else None) for h in found]


def rendered_headings(page_html: str) -> list[RenderedHeading]:
    """The headings of a page's rendered HTML, in order: level, id and text (permalink removed)."""
    out = []
    for m in _HTML_HEADING.finditer(page_html):
        idm = _ID.search(m.group(2) or "")
        anchor = html.unescape(next(g for g in idm.groups() if g is not None)) if idm else ""
        text = html.unescape(_TAG.sub("", _HEADERLINK.sub("", m.group(3))))
        out.append(RenderedHeading(int(m.group(1)), anchor, " ".join(text.split())))
    return out


def align(shadow: list[ShadowHeading], rendered: list[RenderedHeading]) -> list[RenderedHeading] | None:
    """The rendered heading of each shadow heading, or None when the two do not agree."""
    if len(shadow) != len(rendered) or any(s.level != r.level for s, r in zip(shadow, rendered)):
        return None
    return rendered


def split_markdown(
    path: str,
    lm: LineMap,
    shadow: list[ShadowHeading],
    rendered: list[RenderedHeading] | None,
) -> list[Section]:
    """Contract sections of one Markdown file: the intro (front matter included), then
    one section per heading of this file; ``rendered`` None = anchors fall back to the page."""
    heads: list[tuple[int, int, str, str]] = []  # (physical line, level, text, anchor)
    for i, s in enumerate(shadow):
        if s.line is None:
            continue
        line = lm.physical_line("md", s.line)
        if rendered is not None:
            text, anchor = rendered[i].text, rendered[i].anchor
        else:
            text, anchor = "", ""
        if len(text.encode("utf-8")) > MAX_HEADING_BYTES:
            raise HeadingError(
                f"heading text at {path}:{line} is {len(text.encode('utf-8'))} bytes; "
                f"the limit is {MAX_HEADING_BYTES} (shorten the heading)"
            )
        if heads and heads[-1][0] == line:
            heads[-1] = (line, s.level, text, anchor)  # two headings on one line: the later names it
        else:
            heads.append((line, s.level, text, anchor))
    if rendered is None:
        heads = [(line, level, _source_heading(lm.line_text(line)), "") for line, level, _, _ in heads]
    bounds: list[tuple[int, int, str, str]] = [(1, 0, "", "")]
    for h in heads:
        if h[0] == bounds[-1][0]:
            bounds[-1] = h
        else:
            bounds.append(h)
    sections: list[Section] = []
    stack: list[tuple[int, int]] = []  # (level, index in sections)
    for i, (line, level, text, anchor) in enumerate(bounds):
        end = bounds[i + 1][0] - 1 if i + 1 < len(bounds) else lm.total_lines
        if end < line or is_blank(lm.range_text(line, end)):
            continue
        parent = None
        if level:
            while stack and stack[-1][0] >= level:
                stack.pop()
            parent = stack[-1][1] if stack else None
            stack.append((level, len(sections)))
        sections.append(Section(path, text, level, line, end, anchor, (), parent))
    return sections


_ATX_TEXT = re.compile(r"[ \t>]*#{1,6}(.*?)(?:[ \t]+#+)?[ \t]*$")
_ATTR_LIST = re.compile(r"[ \t]*\{:?[^}]*\}[ \t]*$")


def _source_heading(line: str) -> str:
    """A heading's text read from its source line (only when the rendering cannot be aligned)."""
    m = _ATX_TEXT.fullmatch(line)
    text = m.group(1) if m else line
    text = _ATTR_LIST.sub("", text)
    text = _TAG.sub("", text)
    return " ".join(text.split())
