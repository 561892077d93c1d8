"""The MkDocs / ProperDocs plugin: ``plugins: [search, okf]`` writes the okf index.

Registered as ``okf`` under the ``mkdocs.plugins`` and ``properdocs.plugins``
entry points.  While MkDocs renders, every Markdown page is captured
(:mod:`.page`: its exact bytes split into sections with Python-Markdown's idea of
a heading, mapped to the rendered ids); after the build the records go through
the one build entry point (:func:`okf_sphinx.writer.build.build_site`), which
writes the same index and agent files as the Sphinx extension, so every reader
(CLI, Python API, MCP server, browser runtime) works unchanged.  The options are
in :mod:`.config`, the theme's search taken over in :mod:`.theme`, the pages a
``--dirty`` build does not render in :mod:`.dirty`.  ``mkdocs.*`` imports are
resolved by ProperDocs to its own modules, so one class serves both.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.utils import get_relative_url
from mkdocs.utils.meta import get_data

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import BuildError
from okf_sphinx.core.hosts import MKDOCS
from okf_sphinx.core.records import DocRecord, excluded, lexical
from okf_sphinx.writer.build import AgentFiles, build_site, discard_index, index_folder
from okf_sphinx.writer.disk import is_index_folder
from okf_sphinx.writer.index_writer import Site
from okf_sphinx.writer.llms import DEFAULT_GROUP
from okf_sphinx.writer.smart_index import page_meta, page_prior

from . import theme
from .config import OkfConfig
from .dirty import previous_records
from .links import PageLinks, resolve_labels, resolve_links, url_key
from .nav import INDEXES_FEATURE, nav_depths, nav_groups
from .markdown_sections import HeadingError
from .page import PageCapture, Recorder, concept_id

log = get_plugin_logger(__name__)
#: The hidden folder beside the index that keeps it out of MkDocs' clean (readers wait while it is there).
KEPT_PREFIX = fmt.STAGING_PREFIX + "kept-"


class OkfPlugin(BasePlugin[OkfConfig]):
    """Capture sections while MkDocs renders, write the index after the build."""

    def __init__(self) -> None:
        self._capture: PageCapture | None = None  # made in on_config, with the options
        self._records: dict[str, DocRecord] = {}  # src_uri -> the record of a page this build rendered
        self._skipped: list[str] = []  # pages without a source file (generated)
        self._pages: dict[str, Any] = {}  # src_uri -> File of every documentation page
        self._page_keys: dict[str, str] = {}  # url_key of each page's URL -> its concept id
        self._links: dict[str, PageLinks] = {}  # concept id -> its links to other pages
        self._depths: dict[str, int] = {}  # concept id -> its depth in the nav (the priors' toctree depth)
        self._metas: dict[str, dict[str, Any]] = {}  # concept id -> its front matter (page_meta, page_prior)
        self._groups: list[tuple[str, list[str]]] = []  # llms.txt: the nav's sections and their pages
        self._target: Path | None = None  # the index folder
        self._host = MKDOCS  # MkDocs, its settings in this build's config file
        self._failed = False  # this build's index failed (build_site left nothing of okf's behind)
        self._kept: Path | None = None  # the index, moved out of MkDocs' clean until on_files
        self._strings = ""  # data-okf-strings of the dialog's script tag (its words in the site's language)
        self._semantic: Any = None  # the static embedding model of `semantic_model`, once loaded

    # -- configuration -------------------------------------------------------------------
    def on_config(self, config: Any) -> Any:
        config_file = config.get("config_file_path")
        self._host = MKDOCS.configured_in(Path(config_file).name) if config_file else MKDOCS
        try:
            self._target = index_folder(Path(config["site_dir"]), self.config.output_dir, self._host)
        except ValueError as exc:
            raise PluginError(f"{self._host.prefix}{exc}") from None
        self._semantic = None
        if self.config.semantic_model is not None:  # the model, loaded before the pages are read
            from okf_sphinx.writer.semantic_index import load_model  # noqa: PLC0415

            try:
                self._semantic = load_model(self.config.semantic_model, Path(config_file or ".").parent,
                                            f"{self._host.setting('semantic_model')} ({self._host.where})")
            except BuildError as exc:
                raise PluginError(f"{self._host.prefix}{exc}") from None
        self._capture = PageCapture(self.config, get_data)
        recorder = next((e for e in config["markdown_extensions"] if isinstance(e, Recorder)), None)
        if recorder is None:
            config["markdown_extensions"].append(Recorder(self._capture))
        else:
            recorder.capture = self._capture
        theme.add_templates(config["theme"], self.config)
        self._strings = theme.dialog_strings_attribute(self._named_language(config))
        return config

    @property
    def search_page(self) -> str:
        return theme.search_page(self.config)

    # -- per build -----------------------------------------------------------------------
    def on_pre_build(self, config: Any) -> None:
        self._keep_index(Path(config["site_dir"]))
        self._failed = False
        self._records = {}
        self._metas = {}
        self._skipped = []
        self._links = {}
        assert self._capture is not None
        self._capture.start_build()

    def on_files(self, files: Any, config: Any) -> Any:
        self._restore_index()  # the first event after MkDocs' clean
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
        assert self._capture is not None
        self._capture.rendered(page.file.src_uri, markdown)
        return markdown

    @event_priority(-100)
    def on_page_content(self, html: str, page: Any, config: Any, files: Any) -> str:
        assert self._capture is not None
        file = page.file
        if not file.abs_src_path or getattr(file, "generated_by", None):
            self._capture.skip(file.src_uri)
            self._skipped.append(file.src_uri)
            return html
        docname = concept_id(file.src_uri)
        try:
            record, links, meta = self._capture.capture(page, html, config, not excluded(docname, self.config.exclude))
        except HeadingError as exc:
            raise PluginError(f"{self._host.prefix}{exc}") from None
        self._records[file.src_uri] = record
        self._links[docname] = links
        self._metas[docname] = meta
        return html

    @event_priority(-100)
    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        return self._scripts(output, get_relative_url(".", page.url), config, False)

    def on_post_template(self, output_content: str, template_name: str, config: Any) -> str:
        if template_name == "404.html" or not template_name.endswith(".html"):
            return output_content  # 404: served from any depth, relative links would break; sitemap.xml ...
        base_url = posixpath.relpath(".", posixpath.dirname(template_name) or ".")
        return self._scripts(output_content, base_url, config, template_name == self.search_page)

    def _scripts(self, output: str, base_url: str, config: Any, on_search_page: bool) -> str:
        return theme.page_scripts(output, base_url, self.config, getattr(config["theme"], "name", None) or "",
                                  self._language(config, quiet=True), self._strings, on_search_page)

    def on_template_context(self, context: Any, template_name: str, config: Any) -> Any:
        if template_name == self.search_page:
            return theme.search_page_context(context, self.config, self._named_language(config))
        return context

    def on_post_build(self, config: Any) -> None:
        site_dir = Path(config["site_dir"])
        theme.copy_assets(site_dir, self._language(config, quiet=True), self.config.source_maps)
        docs_dir = Path(lexical(config["docs_dir"]))
        config_file = config.get("config_file_path")
        target = self._target
        assert target is not None  # on_config ran
        records, reused, missing = self._all_records(target)
        self._report(missing)
        urls = {concept_id(uri): f.url for uri, f in self._pages.items()}
        # the pages' final URLs: a plugin may move pages after on_files (Material's blog: dated post URLs)
        self._page_keys = {url_key(url): docname for docname, url in urls.items()}
        site = Site(
            host=self._host,
            builder=_generator(),
            page_url=lambda docname: urls.get(docname, ""),
            anchor_ok=lambda exprs: True,
            search_page=self.search_page,
            project=config["site_name"] or "",
            language=self._language(config),
            links=lambda: resolve_links(self._links, self._page_keys),  # read by build_index (gc off)
            link_labels=lambda: resolve_labels(self._links, self._page_keys),
            page_depths=self._depths,
            # the front matter: the `meta` filter, and the author's okf-search-weight (else `weights` by docname)
            page_meta=lambda docname: page_meta(self._metas.get(docname, {})),
            page_prior=lambda docname: page_prior(docname, self.config.weights, self._metas.get(docname, {})),
            file_scale=self.config.index_files,
        )
        try:
            summary = build_site(records, site, outdir=site_dir, index_dir=target, source_dir=docs_dir,
                                 source_root_setting=self.config.source_root, limits=self.config.limits,
                                 project_dir=Path(config_file or docs_dir).parent,  # the mkdocs.yml folder
                                 agent_files=self._agent_files(config), semantic_model=self._semantic)
        except BuildError as exc:
            self._failed = True
            raise PluginError(str(exc)) from None
        for line in summary.report(self._host):
            log.info(line)
        note = summary.stemmer_note()
        if note is not None:
            # a warning (--strict fails) unless the author chose the language in okf's own options
            (log.info if self.config.language else log.warning)(
                note + ("" if self.config.language else
                        f" (set {self._host.change('language', summary.language)} to make this a note)"))

    def on_build_error(self, error: Exception) -> None:
        """A failed build leaves no index behind (an old one would not match the new pages)."""
        self._records = {}
        if self._kept is not None:
            self._discard(self._kept)
            self._kept = None
        if self._target is not None and not self._failed:
            self._discard(self._target)

    # -- the index across MkDocs' clean ----------------------------------------------------
    def _keep_index(self, site_dir: Path) -> None:
        """A plain build empties site_dir after on_pre_build (MkDocs' clean), then builds: the
        index is moved out of its way — one rename into a hidden ``.okf-kept-*`` folder, which
        the clean skips — and back at on_files, so readers of the site find the old index
        until the new one takes its place in one step (writer/disk.py).  Meanwhile its folder
        is missing and the ``.okf-`` folder beside it makes Python readers wait for it."""
        self._kept = None
        target = self._target
        if target is None or target.parent != site_dir.resolve():
            return  # a nested output_dir: its parent folder is emptied too (docs/mkdocs.md)
        kept = target.parent / (KEPT_PREFIX + target.name)
        if kept.is_dir() and not kept.is_symlink() and is_index_folder(kept):
            if target.exists():
                self._discard(kept)  # left by a build that was killed in between: stale
            else:
                self._kept = kept  # the last index there was: it comes back at on_files
                return
        if target.is_dir() and not target.is_symlink() and is_index_folder(target) and not kept.exists():
            os.rename(target, kept)
            self._kept = kept

    def _restore_index(self) -> None:
        kept, self._kept = self._kept, None
        if kept is None or self._target is None or not kept.exists():
            return
        if self._target.exists():  # not emptied (a --dirty build): what is there now stays
            self._discard(kept)
        else:
            os.rename(kept, self._target)

    def _discard(self, target: Path) -> None:
        """Remove our stale index, never anything else (what is not ours is left, and said so)."""
        left = discard_index(target, self._host)
        if left is not None:
            log.warning(left)

    # -- helpers -------------------------------------------------------------------------
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

    def _language(self, config: Any, quiet: bool = False) -> str:
        """Smart mode's language: the ``language`` option, else the theme's (Material's
        ``theme: language:``, the mkdocs/readthedocs themes' ``theme: locale:``)."""
        named = self._named_language(config)
        if named is None and not quiet:
            log.info("the theme names no language (theme: language: or locale:); smart search stems English")
        return named or "en"

    def _named_language(self, config: Any) -> str | None:
        if self.config.language:
            return str(self.config.language)
        theme_config = config["theme"]
        for key in ("language", "locale"):
            value = theme_config.get(key) if hasattr(theme_config, "get") else None
            if value:
                return str(value)
        return None

    def _all_records(self, target: Path) -> tuple[list[DocRecord], list[str], list[str]]:
        """This build's records, plus those of pages ``--dirty`` did not render (from the
        previous index, when their source is unchanged)."""
        records = dict(self._records)
        todo = [uri for uri in self._pages if uri not in records and uri not in self._skipped]
        reused: list[str] = []
        missing: list[str] = []
        if todo:
            sources = {concept_id(uri): Path(lexical(f.abs_src_path)) for uri, f in self._pages.items() if f.abs_src_path}
            previous, links, metas = previous_records(target, sources)
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

    def _report(self, missing: list[str]) -> None:
        """The build log's notes on what could not be captured as written."""
        notes = self._capture
        assert notes is not None
        for failed in notes.failed:
            log.warning("could not parse %s a second time with the site's Markdown extensions; it is indexed "
                        "as one section", failed)
        warn = self.config.unmatched_headings == "warn"
        say = log.warning if warn else log.info
        if notes.rewritten:
            say(
                "%d pages' Markdown was rewritten before rendering (by a plugin or hook, e.g. mkdocs-macros) "
                "into headings that come from no source line; those headings start no section (their text "
                "stays in the enclosing section), in: %s%s",
                len(notes.rewritten), _names(notes.rewritten),
                " (set unmatched_headings: info in the okf plugin's config to make this a note)" if warn else "",
            )
        if notes.unaligned:
            say(
                "%d pages render headings okf cannot match one to one with their source (inline HTML headings, "
                "headings an extension generates...); the sections of the headings it cannot "
                "tie to a rendered heading (how many of the page's, in brackets) link to the page: %s",
                len(notes.unaligned), _names(notes.unaligned),
            )
        if notes.generated:
            log.info(
                "%d pages render headings of no source line of theirs (raw HTML, an extension's output); they "
                "start no section (how many, in brackets): %s",
                len(notes.generated), _names(notes.generated),
            )
        if notes.objects:
            log.info("%d pages render API documentation with mkdocstrings; each object is a documented-object "
                     "section at its ':::' line (how many, in brackets): %s", len(notes.objects), _names(notes.objects))
        if notes.unplaced:
            log.info("%d pages render mkdocstrings objects from no ':::' line of their own (a macro, a snippet or "
                     "a docstring wrote it); those objects are not indexed (how many, in brackets): %s",
                     len(notes.unplaced), _names(notes.unplaced))
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
