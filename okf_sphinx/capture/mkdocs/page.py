"""One rendered Python-Markdown page → its record: sections with exact source lines, its
documented objects, its links to other pages and its front matter (docs/mkdocs.md, "Sections
of a Python-Markdown page").

:class:`PageCapture` keeps what a build needs across pages: the headings each page's real
render recorded (:class:`Recorder`, a read-only Markdown extension), the Markdown each
page really rendered (after other plugins), one shadow parser, and the notes the build
log reports (pages rewritten by macros, headings that could not be paired, objects that
could not be placed, pages the shadow parse failed on).  No MkDocs imports: the MkDocs
plugin drives it while MkDocs renders, ``okf index`` (:mod:`okf_sphinx.capture.built`)
after any generator's build, each passing its own reader of a page's front matter.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

import markdown as pymarkdown
import markdown.preprocessors
import markdown.treeprocessors

from okf_sphinx.core.lines import LineMap
from okf_sphinx.core.records import CapturedFile, DocRecord, ObjectInfo, Section, decode

from .links import PageLinks, capture_links
from .markdown_sections import (
    SnippetCapture,
    align,
    front_matter_lines,
    headings_from_tree,
    includes_snippets,
    line_numbers,
    order_sections,
    parser_lines,
    rendered_headings,
    shadow_headings,
    skip_generators,
    skip_highlighting,
    split_markdown,
    tree_headings,
)
from .objects import DIRECTIVE, RenderedObject, rendered_objects

if TYPE_CHECKING:
    from .config import OkfConfig

#: A page's front matter reader: its Markdown text -> (the Markdown the generator renders, the
#: front matter's data); MkDocs' ``mkdocs.utils.meta.get_data`` is one.
FrontMatter = Callable[[str], tuple[str, dict[str, Any]]]


def concept_id(src_uri: str) -> str:
    """``guide/install.md`` -> ``guide/install`` (the docname-like id of a page)."""
    path = PurePosixPath(src_uri)
    return path.with_suffix("").as_posix() if path.suffix else path.as_posix()


class Recorder(pymarkdown.Extension):
    """Reads the headings of each page's real render from its block tree (read only: the
    published HTML does not change), so most pages need no shadow parse.

    A first preprocessor tells the page's own conversion from others (an extension's
    nested Markdown, an excerpt) by its source; a first tree processor, before inline
    processing, records the headings' levels and texts as written."""

    def __init__(self, capture: PageCapture) -> None:
        super().__init__()
        self.capture = capture

    def extendMarkdown(self, md: Any) -> None:
        capture = self.capture

        class Source(pymarkdown.preprocessors.Preprocessor):
            def run(self, lines: list[str]) -> list[str]:
                page = capture.rendering
                self.md.okf_page = page[0] if page is not None and "\n".join(lines) == page[1] else None
                return lines

        class Headings(pymarkdown.treeprocessors.Treeprocessor):
            def run(self, root: Any) -> None:
                uri = getattr(self.md, "okf_page", None)
                if uri is not None:
                    capture.trees[uri] = tree_headings(root, self.md.htmlStash.rawHtmlBlocks)
                    self.md.okf_page = None

        md.preprocessors.register(Source(md), "okf_source", 1000)
        md.treeprocessors.register(Headings(md), "okf_headings", 1000)


class PageCapture:
    """Captures every rendered page of one build (see the module doc)."""

    def __init__(self, options: OkfConfig, front_matter: FrontMatter) -> None:
        self.options = options  # read: ``objects``
        self.front_matter = front_matter
        self.md: Any = None  # the shadow parser and its snippet capture, made once per configuration
        self.rendering: tuple[str, str] | None = None  # (src_uri, markdown) of the page being rendered
        self.trees: dict[str, list[tuple[int, str, bool]]] = {}  # src_uri -> headings of its real render
        self.markdown: dict[str, str] = {}  # src_uri -> the Markdown really rendered
        self.start_build()

    def start_build(self) -> None:
        """A new build: no page rendered yet, no notes."""
        self.trees = {}
        self.markdown = {}
        self.rewritten: list[str] = []  # pages rewritten into headings of no source line (how many)
        self.unaligned: list[str] = []  # pages whose headings could not all be paired with the render
        self.generated: list[str] = []  # pages rendering headings of no source line of theirs
        self.objects: list[str] = []  # pages with mkdocstrings objects (how many)
        self.unplaced: list[str] = []  # pages with objects no ``:::`` line of theirs rendered
        self.failed: list[str] = []  # pages the shadow parse failed on (indexed as one section): "uri (why)"

    def rendered(self, uri: str, markdown: str) -> None:
        """The Markdown page ``uri`` is about to render (after every other plugin's changes)."""
        self.markdown[uri] = markdown
        self.rendering = (uri, markdown)

    def skip(self, uri: str) -> None:
        """Page ``uri`` was rendered but is not captured (no source file)."""
        self.rendering = None
        self.trees.pop(uri, None)

    def _shadow_markdown(self, config: Any) -> tuple[Any, SnippetCapture]:
        if self.md is None:
            md = pymarkdown.Markdown(extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"] or {})
            skip_highlighting(md)
            skip_generators(md)
            self.md = (md, SnippetCapture(md))
        return self.md

    def capture(self, page: Any, html: str, config: Any, searchable: bool) -> tuple[DocRecord, PageLinks, dict[str, Any]]:
        """A rendered page's record, its links to other pages and its front matter (``page.file``
        has a source file: ``src_uri``, ``abs_src_path``; ``page.title``, ``page.url``); ``html``:
        its rendered content; ``config``: the site's ``markdown_extensions`` and ``mdx_configs``.
        A heading too long for the index raises ``markdown_sections.HeadingError``."""
        file = page.file
        self.rendering = None
        tree = self.trees.pop(file.src_uri, None)
        captured, data = CapturedFile.read(file.abs_src_path)  # where MkDocs sees it: a link keeps its own path
        text = decode(data)
        lines = parser_lines(text)
        first, source_markdown, meta = front_matter_lines(lines, self.front_matter)
        md, snippets = self._shadow_markdown(config)
        try:
            shadow, rendered = self._headings(md, snippets, file.src_uri, lines, first, source_markdown, html, tree)
        except Exception as exc:  # an extension that fails on the marked copy must not fail the build
            self.failed.append(f"{file.src_uri} ({type(exc).__name__}: {exc})")
            snippets.start()
            shadow, rendered = [], None
        lm = LineMap(text)
        files = [captured]
        page_sections = split_markdown(captured.path, lm, shadow, rendered)
        included = []
        at = snippets.inclusion_lines(lines) if snippets.files else {}
        for k, included_path in enumerate(snippets.files, 1):
            snippet, snippet_data = CapturedFile.read(included_path)
            files.append(snippet)
            line = at.get(included_path)
            where = lm.physical_line("md", line) if line else lm.total_lines + 1
            runs = snippets.runs(included_path)
            included.append((where, split_markdown(snippet.path, LineMap(decode(snippet_data)), shadow, rendered, k, runs)))
        objects = self._object_sections(file.src_uri, captured.path, lm, lines, first, page_sections, rendered_objects(html))
        sections = order_sections(page_sections + objects, included)
        record = DocRecord(concept_id(file.src_uri), page.title or "", searchable, files, sections)
        return record, capture_links(html, sections, page.url), meta

    def _headings(
        self, md: Any, snippets: SnippetCapture, uri: str, lines: list[str], first: int, source_markdown: str, html: str,
        tree: list[tuple[int, str, bool]] | None = None,
    ) -> tuple[list[Any], list[Any] | None]:
        """The headings of a page (from its real render's tree when certain, else from a shadow
        parse) and the rendered heading of each (None: unmatched)."""
        snippets.start()
        rendered_markdown = self.markdown.get(uri, source_markdown)
        body = lines[first:]
        numbers = None
        if rendered_markdown != source_markdown:
            # rewritten by another plugin or hook (shortcodes, macros): parse what was
            # rendered, each line standing for the source line it came from
            numbers, unmapped = line_numbers(body, rendered_markdown.split("\n"), first)
            body = rendered_markdown.split("\n")
            if unmapped:
                self.rewritten.append(f"{uri} ({unmapped})")
        headings = rendered_headings(html)
        if tree is not None and not includes_snippets(body):
            found = headings_from_tree(md, tree, body, first, numbers)
            if found is not None:
                rendered, complete = align(found, headings)
                if complete:
                    return found, rendered
        shadow = shadow_headings(md, body, first, numbers)
        rendered, complete = align(shadow, headings)
        if not complete and numbers is not None:  # read the headings from the source instead
            snippets.start()
            shadow = shadow_headings(md, lines[first:], first)
            rendered, complete = align(shadow, headings)
        if not complete:
            lost = sum(1 for s, r in zip(shadow, rendered) if r is None and s.line is not None)
            if lost:
                self.unaligned.append(f"{uri} ({lost} of {len(shadow)})")
            extra = len(headings) - sum(1 for r in rendered if r is not None)
            if extra > 0 and not lost:
                self.generated.append(f"{uri} ({extra})")
        return shadow, rendered

    def _object_sections(
        self, uri: str, path: str, lm: LineMap, lines: list[str], first: int, page: list[Section],
        objects: list[RenderedObject],
    ) -> list[Section]:
        """Sections of the objects mkdocstrings rendered (docs/contract.md, "Documented objects"):
        generated, located at the ``:::`` line that rendered them, one level below the section
        that holds that line (members one more per nesting)."""
        if not objects or not self.options.objects:
            return []
        directives = [(i + 1, m.group("name")) for i in range(first, len(lines)) if (m := DIRECTIVE.fullmatch(lines[i]))]
        roots = [k for k, o in enumerate(objects) if o.depth == 0]
        place: dict[int, int] = {}  # root position -> parser line of its directive
        if len(roots) == len(directives):
            place = {k: line for k, (line, _name) in zip(roots, directives)}
        else:
            at = 0
            for k in roots:
                j = next((j for j in range(at, len(directives)) if directives[j][1] == objects[k].name), None)
                if j is not None:
                    place[k] = directives[j][0]
                    at = j + 1
        out: list[Section] = []
        line = None
        unplaced = 0
        for k, o in enumerate(objects):
            if o.depth == 0:
                line = lm.physical_line("md", place[k]) if k in place else None
            if line is None:
                unplaced += 1
                continue
            enclosing = next((s.level for s in reversed(page) if s.line_start <= line), 0)
            info = ObjectInfo(o.name, o.kind, o.signature, True, o.text)
            out.append(Section(path, o.name, enclosing + 1 + o.depth, line, line, o.name, (), None, info))
        if out:
            self.objects.append(f"{uri} ({len(out)})")
        if unplaced:
            self.unplaced.append(f"{uri} ({unplaced})")
        return out
