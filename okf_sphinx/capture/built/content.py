"""What a built page holds of its Markdown: the theme's frame taken off (docs/zensical.md,
"How a built page is read").

A generator renders a page's Markdown into HTML (``page.content``) and puts it into the
theme's template.  The MkDocs plugin sees ``page.content`` itself; after the build it is
read back out of the page: the element the theme puts it in (:data:`LAYOUTS`: Material for
MkDocs and Zensical's modern and classic themes, MkDocs' ``mkdocs`` and ``readthedocs``
themes), without what the theme adds around it (Material's edit and view buttons, tags,
the title it writes when the page has no ``<h1>``, source-file facts, feedback and
comments; the ``mkdocs`` theme's source links).  Attribute values a minifier left
unquoted or put in single quotes are double-quoted again (``id=x`` → ``id="x"``), so the headings, ids and links read
from it are those the plugin reads.  No generator imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_Q = "[\"']?"  # a minifier drops the quotes of simple attribute values


@dataclass(frozen=True)
class Layout:
    """How a theme frames a page's content."""

    name: str  # "material" (Material for MkDocs, Zensical's themes), "material-blog", "mkdocs", "readthedocs"
    opens: re.Pattern[str]  # the start tag of the element holding the content
    tag: str  # that element's tag name
    before: tuple[re.Pattern[str], ...] = ()  # the theme's parts at the start of the element
    after: tuple[re.Pattern[str], ...] = ()  # the theme's parts after the content (the first one found ends it)
    auto_title: bool = False  # the theme writes ``<h1>title</h1>`` first when the content has no ``<h1``


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern.replace("Q", _Q), re.IGNORECASE | re.DOTALL)


LAYOUTS = (
    Layout(
        "material",
        _re(r"<article\s+class=Qmd-content__inner md-typesetQ[^>]*>"),
        "article",
        before=(
            _re(r"<a\s+id=Q__skipQ[^>]*>\s*</a>"),  # Zensical's skip target
            _re(r"<nav\s+class=Qmd-tagsQ[^>]*>.*?</nav>"),  # Material: tags before the content
            _re(r"<a\s[^>]*class=Qmd-content__button md-iconQ[^>]*>.*?</a>"),  # edit / view buttons
        ),
        after=(
            _re(r"<nav\s+class=Qmd-tagsQ"),  # Zensical: tags after the content
            _re(r"<aside\s+class=Qmd-source-fileQ"),
            _re(r"<form\s+class=Qmd-feedbackQ"),
            _re(r"<h2\s+id=Q__commentsQ"),
        ),
        auto_title=True,
    ),
    # Material's and Zensical's blog index: the page's own content in a header before the excerpts
    Layout("material-blog", _re(r"<div\s+class=Qmd-content__innerQ[^>]*>\s*<header\s+class=Qmd-typesetQ[^>]*>"), "header"),
    Layout("mkdocs", _re(r"<div\s+class=Qcol-md-9Q\s+role=QmainQ[^>]*>"), "div",
           before=(_re(r"<div\s+class=Qsource-linksQ>.*?</div>"),)),
    Layout("readthedocs", _re(r"<div\s+class=QsectionQ\s+itemprop=QarticleBodyQ[^>]*>"), "div"),
)

_GENERATOR = re.compile(r"""<meta\s+name=["']?generator["']?\s+content=(?:"([^"]*)"|'([^']*)'|([^\s>]+))""",
                        re.IGNORECASE)
_BLANK = re.compile(r"\s*")
_AUTO_TITLE = re.compile(r"<h1>(?:(?!</h1>).)*</h1>", re.IGNORECASE | re.DOTALL)
_START_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)((?:\s[^<>]*)?)(/?)>")
_ATTRIBUTE = re.compile(r"""(\s+)([^\s=/>"']+)(?:(\s*=\s*)(?:("[^"]*"|'[^']*')|([^\s"'=<>`]+)))?""")


def generator(page_html: str) -> str:
    """The ``<meta name="generator">`` of a built page (``zensical-0.1.1``, ``mkdocs-1.6.1,
    mkdocs-material-9.6.0``), or ""."""
    m = _GENERATOR.search(page_html)
    return next((g for g in m.groups() if g is not None), "") if m else ""


def layout_of(page_html: str) -> Layout | None:
    """The layout whose content element the page has (None: a theme okf does not know)."""
    return next((lay for lay in LAYOUTS if lay.opens.search(page_html)), None)


def content_span(page_html: str, layout: Layout) -> tuple[int, int] | None:
    """Where the content element's inside starts and ends in ``page_html`` (None: not there)."""
    m = layout.opens.search(page_html)
    if m is None:
        return None
    opening = re.compile(rf"<{layout.tag}[\s>]|</{layout.tag}\s*>", re.IGNORECASE)
    depth = 1
    for t in opening.finditer(page_html, m.end()):
        depth += -1 if t.group(0).startswith("</") else 1
        if depth == 0:
            return m.end(), t.start()
    return None


def page_content(page_html: str, layout: Layout) -> str | None:
    """The page's rendered Markdown as the generator wrote it into the theme (None: the page
    has no such content element, e.g. a page of another template)."""
    span = content_span(page_html, layout)
    if span is None:
        return None
    region = quote_attributes(page_html[span[0] : span[1]])
    at = 0
    moved = True
    while moved:
        moved = False
        at = _BLANK.match(region, at).end()  # type: ignore[union-attr]
        for part in layout.before:
            m = part.match(region, at)
            if m:
                at = m.end()
                moved = True
    region = region[at:]
    ends = [m.start() for part in layout.after for m in [_last(part, region)] if m is not None]
    if ends:
        region = region[: min(ends)]
    if layout.auto_title:
        m = _AUTO_TITLE.match(region, _BLANK.match(region).end())  # type: ignore[union-attr]
        if m and "<h1" not in region[m.end() :].lower():
            region = region[m.end() :]  # the theme's title: the content has no <h1> of its own
    return region


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    matches = list(pattern.finditer(text))
    return matches[-1] if matches else None


def quote_attributes(fragment: str) -> str:
    """``fragment`` with every attribute value of its start tags in double quotes, as
    Python-Markdown writes them (a minifier's ``<h2 id=usage>`` → ``<h2 id="usage">``,
    ``href='?q="a"'`` → ``href="?q=&quot;a&quot;"``); double-quoted values and text are left
    as they are."""
    if "=" not in fragment:
        return fragment

    def value(a: re.Match[str]) -> str:
        if a.group(5) is not None:  # unquoted
            return f'{a.group(1)}{a.group(2)}{a.group(3)}"{a.group(5)}"'
        if a.group(4) is not None and a.group(4).startswith("'"):  # single quotes around a '"'
            return f'{a.group(1)}{a.group(2)}{a.group(3)}"{a.group(4)[1:-1].replace(chr(34), "&quot;")}"'
        return a.group(0)

    def tag(m: re.Match[str]) -> str:
        attributes = m.group(2)
        if not attributes or not re.search(r"=\s*[^\s\"]", attributes):
            return m.group(0)
        return f"<{m.group(1)}{_ATTRIBUTE.sub(value, attributes)}{m.group(3)}>"

    return _START_TAG.sub(tag, fragment)
