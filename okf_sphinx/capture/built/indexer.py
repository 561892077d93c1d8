"""``okf index SITE_DIR``: the index, the agent files and the dialog added to a site after
its build (docs/zensical.md).

Zensical builds ``mkdocs.yml`` and ``zensical.toml`` projects but runs no MkDocs plugin, so
okf cannot capture while it renders.  After the build every page is paired with its
Markdown source (:mod:`.pages`), its rendered content read back out of the theme
(:mod:`.content`), and the page captured by the MkDocs plugin's own capture
(:class:`okf_sphinx.capture.mkdocs.page.PageCapture`: exact source lines, the site's
Markdown extensions as the generator resolved them, :mod:`.settings`); the records go
through the one build entry point (:func:`okf_sphinx.writer.build.build_site`), then the
runtime's files are copied and every page gets the dialog (:mod:`.inject`).

Nothing is written before every page is captured: a bad site folder, a source folder that
does not match it or a configuration error stop the command with a named error code and
leave the site as it was; a failure of the index itself leaves no index (``build_site``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from okf_sphinx.capture.mkdocs import theme
from okf_sphinx.capture.mkdocs.links import PageLinks, resolve_labels, resolve_links, url_key
from okf_sphinx.capture.mkdocs.markdown_sections import HeadingError
from okf_sphinx.capture.mkdocs.nav import INDEXES_FEATURE, nav_depths, nav_groups
from okf_sphinx.capture.mkdocs.page import PageCapture, concept_id
from okf_sphinx.core.errors import BuildError, OkfError
from okf_sphinx.core.hosts import MKDOCS, Host
from okf_sphinx.core.records import DocRecord, excluded
from okf_sphinx.writer.build import AgentFiles, Summary, build_site, index_folder
from okf_sphinx.writer.index_writer import Site
from okf_sphinx.writer.llms import DEFAULT_GROUP
from okf_sphinx.writer.smart_index import page_meta, page_prior

from .content import generator, layout_of, page_content
from .inject import inject_page, search_page_html, write_text
from .pages import BuiltPage, files_nav, generated_pages, pair_by_title, pair_pages, page_title
from .settings import Settings, find_config, read_settings


@dataclass
class Indexed:
    """What ``okf index`` did, for its report."""

    summary: Summary
    generator: str  # "zensical-0.0.73", "mkdocs-1.6.1, mkdocs-material-9.6.0"
    pages: list[str]  # indexed source pages
    injected: int  # built pages given the dialog
    search_page: str | None  # okf's search page, when written
    notes: list[str] = field(default_factory=list)  # what was left out, and why


def index_built_site(site_dir: str | Path, source: str | Path | None = None, config: str | None = None,
                     say: Callable[[str], None] = lambda line: None) -> Indexed:
    """Index the built site ``site_dir`` (see the module doc); ``source``: its docs folder
    (default: the configuration's ``docs_dir``); ``config``: the ``zensical.toml`` or
    ``mkdocs.yml`` it was built from (default: found in the current folder or beside the
    site).  Raises :class:`OkfError` (``site_not_built``, ``source_mismatch``,
    ``schema_validation``, ``build_failed``, ``missing_dependency``)."""
    site = Path(site_dir)
    built_by, sample = _built_by(site)
    config_file = find_config(site, config)
    settings = read_settings(config_file, "zensical" if built_by.startswith("zensical") else "mkdocs")
    host = MKDOCS.configured_in(config_file.name)
    options = _options(settings, host)
    docs_dir = Path(os.path.abspath(source)) if source is not None else settings.docs_dir
    if not docs_dir.is_dir():
        raise OkfError("source_mismatch", f"the docs folder {str(docs_dir)!r} is not a folder; give the folder of the "
                       "site's Markdown sources with --source. Nothing was written", source=str(docs_dir))
    try:
        target = index_folder(site, options.output_dir, host)
    except ValueError as exc:
        raise OkfError("schema_validation", str(exc), field="output_dir") from None
    pages, unbuilt = pair_pages(site, docs_dir, settings)
    layout = layout_of(sample)
    skip = (options.output_dir + "/", theme.ASSETS + "/")
    search_page = theme.search_page(options)
    generated = [g for g in generated_pages(site, pages, skip) if g != search_page]

    from mkdocs.utils.meta import get_data  # noqa: PLC0415 - the front matter as both generators read it

    def content_of(rel: str) -> str | None:
        page_html = (site / rel).read_text(encoding="utf-8")
        page_layout = layout_of(page_html)
        return page_content(page_html, page_layout) if page_layout is not None else None

    pages += pair_by_title(site, unbuilt, generated, docs_dir, content_of, get_data)
    pages.sort(key=lambda p: p.src_uri)
    notes = []
    if unbuilt:
        notes.append(f"{len(unbuilt)} Markdown pages have no built page and are not indexed (drafts, pages the build "
                     f"left out): {_names(unbuilt)}")
    if generated:
        notes.append(f"{len(generated)} built pages have no Markdown source (generated pages) and are not indexed: "
                     f"{_names(generated)}")

    capture = PageCapture(options, get_data)
    records: list[DocRecord] = []
    links: dict[str, PageLinks] = {}
    metas: dict[str, dict[str, Any]] = {}
    nav_titles = _nav_titles(settings)
    captured: list[BuiltPage] = []
    unread: list[str] = []  # pages whose built HTML shows no content element okf knows
    for page in pages:
        page_html = page.built.read_text(encoding="utf-8")
        page_layout = layout_of(page_html) or layout
        content = page_content(page_html, page_layout) if page_layout is not None else None
        if content is None:  # a template that shows no content (a redirect), a theme okf does not know
            unread.append(page.src_uri)
            content = ""
        _text, meta = get_data(Path(page.abs_src_path).read_text(encoding="utf-8-sig"))
        page.title = page_title(page, nav_titles.get(page.src_uri), meta, content)
        docname = concept_id(page.src_uri)
        try:
            record, page_links, meta = capture.capture(page, content, settings.markdown,
                                                       not excluded(docname, options.exclude))
        except HeadingError as exc:
            raise OkfError("build_failed", f"{host.prefix}{exc}") from None
        records.append(record)
        links[docname] = page_links
        metas[docname] = meta
        captured.append(page)
    if unread:
        notes.append(f"{len(unread)} built pages show no content element of a theme okf knows (a redirect template, "
                     f"another theme); their sections come from the source, linked to the page without anchors: "
                     f"{_names(unread)}")
    notes += _capture_notes(capture)

    keys = {url_key(p.url): concept_id(p.src_uri) for p in captured}
    home = keys.get("")
    nav = settings.nav if settings.nav is not None else files_nav(captured)
    known = {concept_id(p.src_uri) for p in captured}
    depths = {k: v for k, v in nav_depths(nav, _docname, home, INDEXES_FEATURE in settings.features).items() if k in known}
    groups = [(c, [d for d in docs if d in known]) for c, docs in nav_groups(nav, _docname, home, DEFAULT_GROUP)]
    urls = {concept_id(p.src_uri): p.url for p in captured}
    language = options.language or settings.language or "en"
    index_site = Site(
        host=host,
        builder=built_by.split("-", 1)[0] if built_by else settings.generator,
        page_url=lambda docname: urls.get(docname, ""),
        anchor_ok=lambda exprs: True,
        search_page=search_page,
        project=settings.site_name,
        language=language,
        links=lambda: resolve_links(links, keys),
        link_labels=lambda: resolve_labels(links, keys),
        page_depths=depths,
        page_meta=lambda docname: page_meta(metas.get(docname, {})),
        page_prior=lambda docname: page_prior(docname, options.weights, metas.get(docname, {})),  # as the plugin weighs
        file_scale=options.index_files,
    )
    agent_files = None
    if options.llms_txt:
        summary_line = options.llms_summary if options.llms_summary is not None else settings.site_description
        agent_files = AgentFiles(groups=[g for g in groups if g[1]], summary=summary_line, root=home or "",
                                 baseurl=settings.site_url)
    semantic = None
    if options.semantic_model is not None:
        from okf_sphinx.writer.semantic_index import load_model  # noqa: PLC0415

        try:
            semantic = load_model(options.semantic_model, config_file.parent,
                                  f"{host.setting('semantic_model')} ({host.where})")
        except BuildError as exc:
            raise OkfError("build_failed", str(exc)) from None
    records.sort(key=lambda r: r.docname)
    try:
        summary = build_site(records, index_site, outdir=site, index_dir=target, source_dir=docs_dir,
                             source_root_setting=options.source_root, limits=options.limits,
                             agent_files=agent_files, semantic_model=semantic)
    except BuildError as exc:
        raise OkfError("build_failed", str(exc)) from None

    # the index is written: the runtime's files and the dialog on every page
    theme.copy_assets(site, language, options.source_maps)
    written_search_page = None
    if layout is not None:
        home_page = site / "index.html"
        frame = home_page.read_text(encoding="utf-8") if home_page.is_file() else sample
        page_html = search_page_html(frame, layout_of(frame) or layout, options, language)
        if page_html is not None:
            write_text(site / search_page, page_html)
            written_search_page = search_page
    strings = theme.dialog_strings_attribute(language)
    injected = 0
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel == "404.html" or rel.startswith(skip):
            continue
        inject_page(path, rel, options, _theme_name(settings), language, strings, search_page)
        injected += 1
    for line in summary.report(host):
        say(line)
    for note in notes:
        say(note)
    return Indexed(summary, built_by, [p.src_uri for p in captured], injected, written_search_page, notes)


def _built_by(site: Path) -> tuple[str, str]:
    """The generator named by the site's pages, and its home page (or first page) as a sample;
    ``site_not_built`` when ``site`` is no built site."""
    if not site.is_dir():
        raise OkfError("site_not_built", f"{str(site)!r} is not a folder; give the folder a build wrote (Zensical's "
                       "and MkDocs' site_dir, 'site' by default). Nothing was written", site=str(site))
    candidates = [site / "index.html"] + sorted(p for p in site.rglob("index.html") if p.parent != site)[:20]
    for path in candidates:
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            name = generator(text)
            if name.startswith(("zensical", "mkdocs")) or layout_of(text) is not None:
                return name, text
    raise OkfError("site_not_built", f"{str(site)!r} holds no page built by Zensical or MkDocs (no index.html naming "
                   "its generator, none in a theme okf knows); build the site first (zensical build, mkdocs build) "
                   "and give its site_dir. Nothing was written", site=str(site))


def _options(settings: Settings, host: Host) -> Any:
    """The okf plugin's options of the configuration, checked by the plugin's own checks."""
    from okf_sphinx.capture.mkdocs.config import OkfConfig  # noqa: PLC0415 - MkDocs' option checks

    options = OkfConfig(config_file_path=str(settings.config_file))
    options.load_dict(dict(settings.okf))
    failed, _warnings = options.validate()
    if failed:
        name, error = failed[0]
        raise OkfError("schema_validation", f"{host.prefix}option {name!r} of the okf plugin in {settings.config_file.name}: "
                       f"{error}. Nothing was written", field=name)
    return options


def _nav_titles(settings: Settings) -> dict[str, str]:
    out: dict[str, str] = {}

    def walk(items: list[Any]) -> None:
        for item in items:
            if item.src_uri is not None and item.title:
                out.setdefault(item.src_uri, item.title)
            walk(item.children)

    walk(settings.nav or [])
    return out


def _docname(file: Any) -> str:
    return concept_id(file.src_uri)


def _theme_name(settings: Settings) -> str:
    """The theme as okf's scripts name it: Zensical's themes are Material's."""
    return "material" if settings.generator == "zensical" or settings.theme == "material" else settings.theme


def _capture_notes(capture: PageCapture) -> list[str]:
    out = [f"could not parse {f} a second time with the site's Markdown extensions; it is indexed as one section"
           for f in capture.failed]
    if capture.unaligned:
        out.append(f"{len(capture.unaligned)} pages render headings okf cannot match one to one with their source; "
                   f"those sections link to the page: {_names(capture.unaligned)}")
    if capture.generated:
        out.append(f"{len(capture.generated)} pages render headings of no source line of theirs; they start no "
                   f"section: {_names(capture.generated)}")
    if capture.unplaced:
        out.append(f"{len(capture.unplaced)} pages render mkdocstrings objects from no ':::' line of their own; not "
                   f"indexed: {_names(capture.unplaced)}")
    return out


def _names(items: list[str]) -> str:
    return ", ".join(items[:5]) + (" ..." if len(items) > 5 else "")
