"""The MkDocs / ProperDocs plugin: ``plugins: [search, okf]`` writes the okf index.

Registered as ``okf`` under the ``mkdocs.plugins`` and ``properdocs.plugins``
entry points.  It captures every Markdown page's exact bytes, splits them into
sections with :mod:`okf_sphinx.capture.mkdocs.markdown_sections` (Python-Markdown's idea of a
heading, mapped to the rendered ids), and writes the same index as the Sphinx
extension through :mod:`okf_sphinx.writer.index_writer`, so every reader (CLI, Python
API, MCP server, browser runtime) works unchanged.  ``mkdocs.*`` imports are
resolved by ProperDocs to its own modules, so one class serves both.
"""

from __future__ import annotations

import html
import posixpath
import re
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

import markdown as pymarkdown
import markdown.preprocessors
import markdown.treeprocessors
from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.utils import get_relative_url
from mkdocs.utils.meta import get_data

from okf_sphinx.core.errors import BuildError, OkfError
from okf_sphinx.core.hosts import MKDOCS
from okf_sphinx.core.lines import LineMap
from okf_sphinx.core.records import DEFAULT_EXCLUDE, CapturedFile, DocRecord, ObjectInfo, Section, decode, excluded
from okf_sphinx.writer.build import AgentFiles, build_site, discard_index, index_folder, index_folder_name
from okf_sphinx.writer.index_writer import Site
from okf_sphinx.writer.limits import resolve_limits
from okf_sphinx.writer.llms import DEFAULT_GROUP
from okf_sphinx.writer.sizing import check_file_scale
from okf_sphinx.writer.smart_index import page_meta, page_prior

from .markdown_sections import (
    HeadingError,
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
from .links import PageLinks, capture_links, resolve_links, url_key
from .nav import INDEXES_FEATURE, nav_depths, nav_groups
from .objects import DIRECTIVE, RenderedObject, rendered_objects

log = get_plugin_logger(__name__)

HERE = Path(__file__).resolve().parents[2]
STATIC = HERE / "static"
TEMPLATES = HERE / "templates"
MKDOCS_TEMPLATES = HERE / "mkdocs_templates"
ASSETS = "assets/okf"  # where the runtime, its CSS and the search-box hook land in the site
ASSET_FILES = ("okf-stemmer.js", "okf-search.js", "okf-search.css", "okf-mkdocs.js", "okf-dialog.js", "okf-dialog.css")
#: The search boxes of the mkdocs, readthedocs and Material themes (and of themes built on
#: them) that okf's dialog takes over: a click or focus there opens the dialog instead.
THEME_BOXES = ", ".join((
    "#mkdocs-search-query", 'a[data-bs-target="#mkdocs_search_modal"]',  # mkdocs: the navbar link, the modal's box
    "#rtd-search-form input[name=q]",  # readthedocs
    "input.md-search__input", 'label[for="__search"]',  # Material: the header's box, the search button
))
#: Material for MkDocs mounts its search on these attributes; without them its search never
#: starts (no index download, no "/", "s", "f" keys, no ?q= overlay).
_MATERIAL_SEARCH = re.compile(r'\sdata-md-component="search(?:-[a-z]+)?"')
#: The search plugin's client for the mkdocs and readthedocs themes: it starts a worker that
#: downloads the whole lunr index on every page, for a search box okf has taken over.
_MKDOCS_SEARCH_CLIENT = re.compile(r'<script src="[^"<>]*search/main\.js"[^<>]*></script>')


class _Limits(c.BaseConfigOption):
    """``"default"``, ``"reference"`` or a mapping of caps (docs/configuration.md)."""

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default

    def run_validation(self, value: object) -> dict[str, int]:
        try:
            return resolve_limits(value, MKDOCS)
        except ValueError as exc:
            raise base.ValidationError(str(exc)) from None


class _IndexFiles(c.BaseConfigOption):
    """A factor on the index's file counts, 0.25 to 16 (okf_search_index_files in Sphinx)."""

    def __init__(self, default: float) -> None:
        super().__init__()
        self.default = default

    def run_validation(self, value: object) -> float:
        try:
            return check_file_scale(value, MKDOCS)
        except ValueError as exc:
            raise base.ValidationError(str(exc)) from None


class _OutputDir(c.Type):
    """A non-empty relative folder name inside ``site_dir`` (the index is replaced wholesale),
    by the Sphinx extension's rule (writer/build.py); where it leads is checked in ``on_config``."""

    def __init__(self, default: str) -> None:
        super().__init__(str, default=default)

    def run_validation(self, value: object) -> str:
        try:
            return index_folder_name(super().run_validation(value), MKDOCS)
        except ValueError as exc:
            raise base.ValidationError(str(exc)) from None


class _Recorder(pymarkdown.Extension):
    """Reads the headings of each page's real render from its block tree (read only: the
    published HTML does not change), so most pages need no shadow parse.

    A first preprocessor tells the page's own conversion from others (an extension's
    nested Markdown, an excerpt) by its source; a first tree processor, before inline
    processing, records the headings' levels and texts as written."""

    def __init__(self, plugin: OkfPlugin) -> None:
        super().__init__()
        self.plugin = plugin

    def extendMarkdown(self, md: Any) -> None:
        plugin = self.plugin

        class Source(pymarkdown.preprocessors.Preprocessor):
            def run(self, lines: list[str]) -> list[str]:
                page = plugin._rendering
                self.md.okf_page = page[0] if page is not None and "\n".join(lines) == page[1] else None
                return lines

        class Headings(pymarkdown.treeprocessors.Treeprocessor):
            def run(self, root: Any) -> None:
                uri = getattr(self.md, "okf_page", None)
                if uri is not None:
                    plugin._trees[uri] = tree_headings(root, self.md.htmlStash.rawHtmlBlocks)
                    self.md.okf_page = None

        md.preprocessors.register(Source(md), "okf_source", 1000)
        md.treeprocessors.register(Headings(md), "okf_headings", 1000)


class OkfConfig(base.Config):
    exclude = c.ListOfItems(c.Type(str), default=list(DEFAULT_EXCLUDE))
    limits = _Limits(default="default")
    output_dir = _OutputDir(default="_okf")
    source_root = c.Optional(c.Type(str))
    replace_builtin = c.Type(bool, default=True)
    dialog = c.Type(bool, default=True)
    title = c.Type(str, default="Search")
    language = c.Optional(c.Type(str))
    unmatched_headings = c.Choice(("warn", "info"), default="warn")
    objects = c.Type(bool, default=True)
    index_files = _IndexFiles(default=1.0)
    llms_txt = c.Type(bool, default=True)
    llms_summary = c.Optional(c.Type(str))


def concept_id(src_uri: str) -> str:
    """``guide/install.md`` -> ``guide/install`` (the docname-like id of a page)."""
    path = PurePosixPath(src_uri)
    return path.with_suffix("").as_posix() if path.suffix else path.as_posix()


class OkfPlugin(BasePlugin[OkfConfig]):
    """Capture sections while MkDocs renders, write the index after the build."""

    def __init__(self) -> None:
        self._md: Any = None
        self._rendering: tuple[str, str] | None = None  # (src_uri, markdown) of the page being rendered
        self._trees: dict[str, list[tuple[int, str, bool]]] = {}  # src_uri -> headings of its real render
        self._records: dict[str, DocRecord] = {}
        self._markdown: dict[str, str] = {}
        self._rewritten: list[str] = []
        self._unaligned: list[str] = []
        self._generated: list[str] = []
        self._skipped: list[str] = []
        self._objects: list[str] = []  # pages with mkdocstrings objects (how many)
        self._unplaced: list[str] = []  # pages with objects no ``:::`` line of theirs rendered
        self._pages: dict[str, Any] = {}  # src_uri -> File of every documentation page
        self._page_keys: dict[str, str] = {}  # url_key of each page's URL -> its concept id
        self._links: dict[str, PageLinks] = {}  # concept id -> its links to other pages
        self._depths: dict[str, int] = {}  # concept id -> its depth in the nav (the priors' toctree depth)
        self._metas: dict[str, dict[str, Any]] = {}  # concept id -> its front matter (page_meta, page_prior)
        self._groups: list[tuple[str, list[str]]] = []  # llms.txt: the nav's sections and their pages
        self._target: Path | None = None  # the index folder
        self._failed = False  # this build's index failed (build_site left nothing of okf's behind)

    # -- configuration -------------------------------------------------------------------
    def on_config(self, config: Any) -> Any:
        try:
            self._target = index_folder(Path(config["site_dir"]), self.config.output_dir, MKDOCS)
        except ValueError as exc:
            raise PluginError(f"{MKDOCS.prefix}{exc}") from None
        self._md = None
        if not any(isinstance(e, _Recorder) for e in config["markdown_extensions"]):
            config["markdown_extensions"].append(_Recorder(self))
        theme = config["theme"]
        if self.config.replace_builtin:
            # before the theme's own search.html, after the author's custom_dir (which may override ours)
            custom = getattr(theme, "custom_dir", None)
            theme.dirs.insert(1 if custom and theme.dirs and theme.dirs[0] == custom else 0, str(MKDOCS_TEMPLATES))
        else:
            theme.dirs.append(str(MKDOCS_TEMPLATES))  # okf-search.html only; the theme's search.html stays
        theme.dirs.append(str(TEMPLATES))  # okf-search-body.html, shared with the Sphinx page
        theme.static_templates.add(self.search_page)
        return config

    @property
    def search_page(self) -> str:
        return "search.html" if self.config.replace_builtin else "okf-search.html"

    def _shadow_markdown(self, config: Any) -> tuple[Any, SnippetCapture]:
        if self._md is None:
            md = pymarkdown.Markdown(extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"] or {})
            skip_highlighting(md)
            skip_generators(md)
            self._md = (md, SnippetCapture(md))
        return self._md

    # -- per build -----------------------------------------------------------------------
    def on_pre_build(self, config: Any) -> None:
        self._failed = False
        self._records = {}
        self._metas = {}
        self._markdown = {}
        self._rewritten = []
        self._unaligned = []
        self._generated = []
        self._skipped = []
        self._objects = []
        self._unplaced = []
        self._links = {}
        self._trees = {}

    def on_files(self, files: Any, config: Any) -> Any:
        self._pages = {f.src_uri: f for f in files.documentation_pages()}
        self._page_keys = {url_key(f.url): concept_id(uri) for uri, f in self._pages.items()}
        return files

    def on_nav(self, nav: Any, config: Any, files: Any) -> Any:
        """The nav as the site's toctree: each page's depth in it (nav.py), on every build."""
        features = (config["theme"].get("features") if hasattr(config["theme"], "get") else None) or []
        home = self._page_keys.get("")
        self._depths = nav_depths(nav.items, lambda f: concept_id(f.src_uri), home, INDEXES_FEATURE in features)
        self._groups = nav_groups(nav.items, lambda f: concept_id(f.src_uri), home, DEFAULT_GROUP)
        return nav

    @event_priority(-100)  # after every other plugin: the markdown that is really rendered
    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Any) -> str:
        self._markdown[page.file.src_uri] = markdown
        self._rendering = (page.file.src_uri, markdown)
        return markdown

    @event_priority(-100)
    def on_page_content(self, html: str, page: Any, config: Any, files: Any) -> str:
        file = page.file
        self._rendering = None
        tree = self._trees.pop(file.src_uri, None)
        if not file.abs_src_path or getattr(file, "generated_by", None):
            self._skipped.append(file.src_uri)
            return html
        path = Path(file.abs_src_path).resolve()
        captured, data = CapturedFile.read(path)
        text = decode(data)
        lines = parser_lines(text)
        first, source_markdown, meta = front_matter_lines(lines, get_data)
        self._metas[concept_id(file.src_uri)] = meta
        md, snippets = self._shadow_markdown(config)
        try:
            shadow, rendered = self._headings(md, snippets, file.src_uri, lines, first, source_markdown, html, tree)
        except Exception as exc:  # an extension that fails on the marked copy must not fail the build
            log.warning("could not parse %s a second time with the site's Markdown extensions (%s: %s); "
                        "it is indexed as one section", file.src_uri, type(exc).__name__, exc)
            snippets.start()
            shadow, rendered = [], None
        lm = LineMap(text)
        files = [captured]
        try:
            page_sections = split_markdown(captured.path, lm, shadow, rendered)
            included = []
            at = snippets.inclusion_lines(lines) if snippets.files else {}
            for k, included_path in enumerate(snippets.files, 1):
                snippet, snippet_data = CapturedFile.read(Path(included_path))
                files.append(snippet)
                line = at.get(included_path)
                where = lm.physical_line("md", line) if line else lm.total_lines + 1
                runs = snippets.runs(included_path)
                included.append((where, split_markdown(snippet.path, LineMap(decode(snippet_data)), shadow, rendered, k, runs)))
        except HeadingError as exc:
            raise PluginError(f"okf: {exc}") from None
        objects = self._object_sections(file.src_uri, captured.path, lm, lines, first, page_sections, rendered_objects(html))
        sections = order_sections(page_sections + objects, included)
        docname = concept_id(file.src_uri)
        searchable = not excluded(docname, self.config.exclude)
        self._records[file.src_uri] = DocRecord(docname, page.title or "", searchable, files, sections)
        self._links[docname] = capture_links(html, sections, page.url)
        return html

    def _headings(
        self, md: Any, snippets: SnippetCapture, uri: str, lines: list[str], first: int, source_markdown: str, html: str,
        tree: list[tuple[int, str, bool]] | None = None,
    ) -> tuple[list[Any], list[Any] | None]:
        """The headings of a page (from its real render's tree when certain, else from a shadow
        parse) and the rendered heading of each (None: unmatched)."""
        snippets.start()
        rendered_markdown = self._markdown.get(uri, source_markdown)
        body = lines[first:]
        numbers = None
        if rendered_markdown != source_markdown:
            # rewritten by another plugin or hook (shortcodes, macros): parse what was
            # rendered, each line standing for the source line it came from
            numbers, unmapped = line_numbers(body, rendered_markdown.split("\n"), first)
            body = rendered_markdown.split("\n")
            if unmapped:
                self._rewritten.append(f"{uri} ({unmapped})")
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
                self._unaligned.append(f"{uri} ({lost} of {len(shadow)})")
            extra = len(headings) - sum(1 for r in rendered if r is not None)
            if extra > 0 and not lost:
                self._generated.append(f"{uri} ({extra})")
        return shadow, rendered

    def _object_sections(
        self, uri: str, path: str, lm: LineMap, lines: list[str], first: int, page: list[Section],
        objects: list[RenderedObject],
    ) -> list[Section]:
        """Sections of the objects mkdocstrings rendered (docs/contract.md, "Documented objects"):
        generated, located at the ``:::`` line that rendered them, one level below the section
        that holds that line (members one more per nesting)."""
        if not objects or not self.config.objects:
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
            self._objects.append(f"{uri} ({len(out)})")
        if unplaced:
            self._unplaced.append(f"{uri} ({unplaced})")
        return out

    @event_priority(-100)
    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        return self._hook(output, get_relative_url(".", page.url), config, False)

    def on_post_template(self, output_content: str, template_name: str, config: Any) -> str:
        if template_name == "404.html" or not template_name.endswith(".html"):
            return output_content  # 404: served from any depth, relative links would break; sitemap.xml ...
        base_url = posixpath.relpath(".", posixpath.dirname(template_name) or ".")
        return self._hook(output_content, base_url, config, template_name == self.search_page)

    def _hook(self, output: str, base_url: str, config: Any, search_page: bool) -> str:
        """okf's scripts on a rendered page: the runtime where it searches (every page with
        the dialog, else the search page), the dialog, and the theme's search box and
        shortcuts taken over (replace_builtin: true)."""
        at = output.rfind("</body>")
        if at < 0:
            return output  # not an HTML page: left alone
        root = base_url.rstrip("/") + "/"
        assets = root + ASSETS + "/"
        replace, dialog = self.config.replace_builtin, self.config.dialog
        tags = []
        if dialog or search_page:
            # the stemmer before the runtime: smart mode stems with it
            tags.append(f'<script src="{assets}okf-stemmer.js" defer></script>')
            tags.append(f'<script src="{assets}okf-search.js" data-okf-index="{root}{self.config.output_dir}/" defer></script>')
        if replace:
            theme = html.escape(getattr(config["theme"], "name", None) or "")
            tags.append(f'<script src="{assets}okf-mkdocs.js" data-okf-search="{root}{self.search_page}" data-okf-theme="{theme}" defer></script>')
        if dialog:
            # the theme's box is ours where the theme's search does not run (see below)
            taken = f' data-okf-box="{html.escape(THEME_BOXES)}"' if replace or search_page else ' data-okf-slash="theme"'
            tags.append(
                f'<script src="{assets}okf-dialog.js" data-okf-root="{root}" data-okf-search-page="{self.search_page}"{taken} defer></script>'
            )
        output = output[:at] + "".join(tags) + output[at:]
        if dialog:
            head = output.find("</head>")
            if head >= 0:
                output = output[:head] + f'<link rel="stylesheet" href="{assets}okf-dialog.css">' + output[head:]
        if replace or search_page:
            # Material's own search would open over okf's (and reads ?q= too): it is not started
            output = _MKDOCS_SEARCH_CLIENT.sub("", _MATERIAL_SEARCH.sub("", output))
        return output

    def on_template_context(self, context: Any, template_name: str, config: Any) -> Any:
        if template_name == self.search_page:
            root = context.get("base_url", ".").rstrip("/") + "/"
            context["okf_title"] = self.config.title
            context["okf_site_root"] = root
            context["okf_index_url"] = root + self.config.output_dir + "/"
            context["okf_assets"] = root + ASSETS + "/"
        return context

    def on_post_build(self, config: Any) -> None:
        site_dir = Path(config["site_dir"])
        self._copy_assets(site_dir)
        docs_dir = Path(config["docs_dir"]).resolve()
        target = self._target
        assert target is not None  # on_config ran
        records, reused, missing = self._all_records(target, docs_dir)
        self._report(records, reused, missing)
        urls = {concept_id(uri): f.url for uri, f in self._pages.items()}
        site = Site(
            host=MKDOCS,
            builder=_generator(),
            page_url=lambda docname: urls.get(docname, ""),
            anchor_ok=lambda exprs: True,
            search_page=self.search_page,
            project=config["site_name"] or "",
            language=self._language(config),
            links=lambda: resolve_links(self._links, self._page_keys),  # read by build_index (gc off)
            page_depths=self._depths,
            # the front matter: the `meta` filter, and the author's okf-search-weight (no weights by pattern)
            page_meta=lambda docname: page_meta(self._metas.get(docname, {})),
            page_prior=lambda docname: page_prior(docname, [], self._metas.get(docname, {})),
            file_scale=self.config.index_files,
        )
        try:
            summary = build_site(records, site, outdir=site_dir, index_dir=target, source_dir=docs_dir,
                                 source_root_setting=self.config.source_root, limits=self.config.limits,
                                 agent_files=self._agent_files(config))
        except BuildError as exc:
            self._failed = True
            raise PluginError(str(exc)) from None
        for line in summary.report(MKDOCS):
            log.info(line)
        note = summary.stemmer_note()
        if note is not None:
            # a warning (--strict fails) unless the author chose the language in okf's own options
            (log.info if self.config.language else log.warning)(
                note + ("" if self.config.language else
                        f" (set {MKDOCS.change('language', summary.language)} to make this a note)"))

    def on_build_error(self, error: Exception) -> None:
        """A failed build leaves no index behind (an old one would not match the new pages)."""
        self._records = {}
        if self._target is not None and not self._failed:
            left = discard_index(self._target, MKDOCS)
            if left is not None:
                log.warning(left)

    def _agent_files(self, config: Any) -> AgentFiles | None:
        """llms.txt / llms-full.txt (``llms_txt``): the nav's sections, ``llms_summary`` or the
        site's description, links under ``site_url``."""
        if not self.config.llms_txt:
            return None
        summary = self.config.llms_summary
        if summary is None:
            summary = config.get("site_description") or ""
        return AgentFiles(groups=self._groups, summary=summary, root=self._page_keys.get("", ""),
                          baseurl=config.get("site_url") or "")

    # -- helpers -------------------------------------------------------------------------
    def _language(self, config: Any) -> str:
        """Smart mode's language: the ``language`` option, else the theme's (Material's
        ``theme: language:``, the mkdocs/readthedocs themes' ``theme: locale:``)."""
        if self.config.language:
            return self.config.language
        theme = config["theme"]
        for key in ("language", "locale"):
            value = theme.get(key) if hasattr(theme, "get") else None
            if value:
                return str(value)
        log.info("the theme names no language (theme: language: or locale:); smart search stems English")
        return "en"

    def _copy_assets(self, site_dir: Path) -> None:
        dest = site_dir / ASSETS
        dest.mkdir(parents=True, exist_ok=True)
        for name in ASSET_FILES:
            shutil.copyfile(STATIC / name, dest / name)

    def _all_records(self, target: Path, docs_dir: Path) -> tuple[list[DocRecord], list[str], list[str]]:
        """This build's records, plus those of pages ``--dirty`` did not render (from the
        previous index, when their source is unchanged)."""
        records = dict(self._records)
        todo = [uri for uri in self._pages if uri not in records and uri not in self._skipped]
        reused: list[str] = []
        missing: list[str] = []
        if todo:
            sources = {concept_id(uri): Path(f.abs_src_path).resolve() for uri, f in self._pages.items() if f.abs_src_path}
            previous, links, metas = _previous_records(target, sources)
            for uri in todo:
                record = previous.get(concept_id(uri))
                if record is not None:
                    record.searchable = not excluded(record.docname, self.config.exclude)
                    records[uri] = record
                    self._metas[record.docname] = metas[record.docname]
                    self._links[record.docname] = links[record.docname]
                    reused.append(uri)
                else:
                    missing.append(uri)
        return [records[uri] for uri in sorted(records, key=concept_id)], reused, missing

    def _report(self, records: list[DocRecord], reused: list[str], missing: list[str]) -> None:
        warn = self.config.unmatched_headings == "warn"
        say = log.warning if warn else log.info
        if self._rewritten:
            say(
                "%d pages' Markdown was rewritten before rendering (by a plugin or hook, e.g. mkdocs-macros) "
                "into headings that come from no source line; those headings start no section (their text "
                "stays in the enclosing section), in: %s%s",
                len(self._rewritten), _names(self._rewritten),
                " (set unmatched_headings: info in the okf plugin's config to make this a note)" if warn else "",
            )
        if self._unaligned:
            say(
                "%d pages render headings okf cannot match one to one with their source (inline HTML headings, "
                "headings an extension generates...); the sections of the headings it cannot "
                "tie to a rendered heading (how many of the page's, in brackets) link to the page: %s",
                len(self._unaligned), _names(self._unaligned),
            )
        if self._generated:
            log.info(
                "%d pages render headings of no source line of theirs (raw HTML, an extension's output); they "
                "start no section (how many, in brackets): %s",
                len(self._generated), _names(self._generated),
            )
        if self._objects:
            log.info("%d pages render API documentation with mkdocstrings; each object is a documented-object "
                     "section at its ':::' line (how many, in brackets): %s", len(self._objects), _names(self._objects))
        if self._unplaced:
            log.info("%d pages render mkdocstrings objects from no ':::' line of their own (a macro, a snippet or "
                     "a docstring wrote it); those objects are not indexed (how many, in brackets): %s",
                     len(self._unplaced), _names(self._unplaced))
        if self._skipped:
            log.info("%d generated pages have no source file and are not indexed: %s", len(self._skipped), _names(self._skipped))
        if missing:
            log.warning(
                "%d pages were not rendered by this --dirty build and are not in the previous index unchanged; "
                "they are left out until a full build: %s", len(missing), _names(missing),
            )


def _generator() -> str:
    """``"mkdocs"``, or ``"properdocs"`` when ProperDocs runs the build (it aliases ``mkdocs``)."""
    import mkdocs  # noqa: PLC0415

    return "properdocs" if mkdocs.__name__.startswith("properdocs") else "mkdocs"


def _names(items: list[str]) -> str:
    return ", ".join(items[:5]) + (" ..." if len(items) > 5 else "")


def _previous_records(target: Path, sources: dict[str, Path]) -> tuple[
        dict[str, DocRecord], dict[str, PageLinks], dict[str, dict[str, Any]]]:
    """Records rebuilt from an existing index (for pages a ``--dirty`` build skips), keeping
    only pages whose every captured file still has the digest the index recorded, their
    links to other pages (from its link shards: each section's first link to each target, to
    the target section's anchor; links from pages excluded from search are not kept there)
    and their front matter (read from the page's file, as a rendered page's is).
    ``sources``: concept id -> the page's source file now."""
    from okf_sphinx.engine.index import Index  # noqa: PLC0415 - only --dirty builds read an old index
    from okf_sphinx.engine.source import DiskSource  # noqa: PLC0415

    if not (target / "manifest.js").is_file():
        return {}, {}, {}
    out: dict[str, DocRecord] = {}
    links: dict[str, PageLinks] = {}
    metas: dict[str, dict[str, Any]] = {}
    try:
        index = Index(DiskSource(target))
        where: dict[int, tuple[str, str]] = {}  # sid -> (concept id, anchor)
        files = {f["path"]: f for f in index.files()}
        for concept, title, n, searchable, _paths in index.concepts():
            page = index.page(n)
            source = sources.get(concept)
            rel = page["path"]
            if source is None or not source.as_posix().endswith("/" + rel):
                continue
            root = Path(source.as_posix()[: -len(rel) - 1])  # the old index's source root
            paths = [rel] + sorted({s["path"] for s in page["sections"]} - {rel})
            captured = []
            meta: dict[str, Any] = {}
            for rel_path in paths:
                entry = files.get(rel_path)
                path = root / rel_path
                if entry is None or not path.is_file():
                    break
                now, data = CapturedFile.read(path.resolve())
                if now.sha256 != entry["sha256"]:
                    break
                if not captured:  # the page's own file: its front matter
                    meta = front_matter_lines(parser_lines(decode(data)), get_data)[2]
                captured.append(now)
            else:
                sections = [
                    Section((root / s["path"]).resolve().as_posix(), s["heading"], s["level"], s["line_start"],
                            s["line_end"], s["anchor"], (), s["parent"], _previous_object(index, s))
                    for s in page["sections"]
                ]
                out[concept] = DocRecord(concept, title, searchable, captured, sections)
                links[concept] = _previous_links(index, page, where)
                metas[concept] = meta
    except OkfError:
        return {}, {}, {}
    return out, links, metas


def _previous_links(index: Any, page: dict[str, Any], where: dict[int, tuple[str, str]]) -> PageLinks:
    """A page's links to other pages, as an existing index's link shards hold them."""
    from okf_sphinx.engine.smart import links  # noqa: PLC0415 - only --dirty builds read an old index

    if not where:
        for n in range(len(index.concepts())):
            for s in index.page(n)["sections"]:
                where[s["sid"]] = (index.page(n)["concept_id"], s["anchor"])
    out = PageLinks(ids={s["anchor"]: i for i, s in reversed(list(enumerate(page["sections"]))) if s["anchor"]},
                    objects={s["anchor"] for s in page["sections"] if s["anchor"] and "kind" in s})
    for i, s in enumerate(page["sections"]):
        if s["sid"] >= index.section_count:
            continue
        for to, via in links(index, s["sid"]):
            concept, anchor = where[to]
            if via == "doc":
                out.refs.append((i, via, concept, ""))
            elif anchor:  # ref, or object (a ref to an object's id: object again when resolved)
                out.refs.append((i, "ref", concept, anchor))
    return out


def _previous_object(index: Any, s: dict[str, Any]) -> ObjectInfo | None:
    """The documented object of a page outline's section in an existing index (None: none)."""
    if "kind" not in s:
        return None
    record = index.section(s["sid"])
    generated = bool(s.get("generated"))
    return ObjectInfo(s["name"], s["kind"], record.get("signature", ""), generated, record["text"] if generated else "")
