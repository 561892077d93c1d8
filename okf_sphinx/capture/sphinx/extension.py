"""The Sphinx extension: config values, events, and the index written at build-finished."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ConfigError, ExtensionError
from sphinx.util import logging
from sphinx.util.display import status_iterator

from okf_sphinx import __version__
from okf_sphinx.core.errors import BuildError
from okf_sphinx.core.hosts import SPHINX
from okf_sphinx.core.records import DEFAULT_EXCLUDE, lexical
from okf_sphinx.core.terms import native
from okf_sphinx.writer.build import AgentFiles, build_site, discard_index, index_folder
from okf_sphinx.writer.index_writer import Site
from okf_sphinx.writer.limits import resolve_limits
from okf_sphinx.writer.sizing import check_file_scale
from okf_sphinx.writer.smart_index import DEFAULT_WEIGHTS, check_weights, page_meta, page_prior

from .collector import OkfCollector, all_records, links, on_include_read
from .docstrings import forget_project, project_roots
from .links import resolve as resolve_links
from .llms import groups_from_env, summary_from_env
from .search_page import HTML_BUILDERS, setup_search_page

logger = logging.getLogger(__name__)


def _site(app: Sphinx) -> Site:
    builder = app.builder
    weights = check_weights(app.config.okf_search_weights, SPHINX)
    if builder.name == "singlehtml":
        page = f"{app.config.root_doc}{builder.out_suffix}"
        rendered = _toctree_reachable(app)
        # one page holds every document reachable from the root toctree; others are not rendered
        page_url = lambda docname: page if docname in rendered else ""  # noqa: E731
    else:
        page_url = builder.get_target_uri
    tags = builder.tags
    search_page = getattr(app, "okf_search_page", "search.html")
    resolved = functools.cache(lambda: resolve_links(  # the links and their labels, resolved once
        app.env, {d: p for d, p in links(app.env).items() if d in app.env.all_docs}, list(app.config.source_suffix)))
    return Site(
        host=SPHINX,
        builder=builder.name,
        page_url=functools.cache(page_url),
        anchor_ok=functools.cache(lambda exprs: all(tags.eval_condition(e) for e in exprs)),
        search_page=search_page,
        singlehtml=builder.name == "singlehtml",
        language=app.config.language or "en",
        page_prior=functools.cache(lambda docname: page_prior(docname, weights, app.env.metadata.get(docname, {}))),
        page_meta=lambda docname: page_meta(app.env.metadata.get(docname, {})),
        project=str(app.config.project or ""),
        links=lambda: resolved().links,
        link_labels=lambda: resolved().labels,
        root_doc=app.config.root_doc,
        source_copy=_source_copies(app),
        file_scale=check_file_scale(app.config.okf_search_index_files, SPHINX),
    )


def _source_copies(app: Sphinx) -> Any:
    """captured path -> its copy in ``_sources/`` (relative to the index folder, and where it
    is), as Sphinx names it when ``html_copy_source`` is on: ``<docname><suffix>`` plus
    ``html_sourcelink_suffix`` unless the suffixes are equal."""
    if not app.config.html_copy_source:
        return lambda path: None
    outdir = Path(app.outdir)
    target = index_folder(outdir, app.config.okf_search_output_dir, SPHINX)
    up = "../" * len(target.relative_to(outdir.resolve()).parts)
    link_suffix = app.config.html_sourcelink_suffix
    docs: dict[str, str] = {}
    for docname in sorted(app.env.found_docs):
        source = Path(app.env.doc2path(docname))
        suffix = source.suffix
        name = docname + suffix + ("" if suffix == link_suffix else link_suffix)
        docs.setdefault(lexical(source), name)

    def copy(path: str) -> tuple[str, Path] | None:
        name = docs.get(lexical(path))
        if name is None:
            return None
        return f"{up}_sources/{name}", outdir / "_sources" / name

    return copy


def _toctree_reachable(app: Sphinx) -> set[str]:
    """Documents the singlehtml builder inlines: those reachable from the root toctree."""
    seen = {app.config.root_doc}
    todo = [app.config.root_doc]
    while todo:
        for child in app.env.toctree_includes.get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def _index_folder(app: Sphinx) -> Path:
    try:
        return index_folder(Path(app.outdir), app.config.okf_search_output_dir, SPHINX)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _check_settings(app: Sphinx) -> None:
    """The output folder and the file-count factor, found before the pages are read, not after."""
    if app.builder is not None and app.builder.name in HTML_BUILDERS:
        _index_folder(app)
        try:
            check_file_scale(app.config.okf_search_index_files, SPHINX)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        _check_publish_sources(app)


#: What an HTML build with okf_sphinx publishes of the sources (docs/configuration.md).
PUBLISHED = ("the exact text of every captured source file (search snippets, the agent tools' sections and "
             "line ranges) in the search index and in llms-full.txt")


def _check_publish_sources(app: Sphinx) -> None:
    """``okf_search_publish_sources``: True publishes the sources (the index is their exact
    text); False refuses the build before a page is read; None (the default) publishes,
    with a warning when ``html_copy_source`` is off — its author may expect otherwise."""
    publish = app.config.okf_search_publish_sources
    if publish is False:
        raise ConfigError(
            f"okf_search_publish_sources = False, but okf_sphinx publishes {PUBLISHED}; it cannot search without "
            "them, so nothing was built. Remove okf_sphinx from extensions for this build, or set "
            "okf_search_publish_sources = True"
        )
    if publish is None and not app.config.html_copy_source:
        logger.warning(
            "okf_sphinx: html_copy_source = False, but okf_sphinx publishes %s. Set okf_search_publish_sources = True "
            "in conf.py to publish them (and silence this warning), or okf_search_publish_sources = False to have "
            "okf_sphinx refuse to build", PUBLISHED, type="okf", subtype="sources",
        )


def _load_semantic_model(app: Sphinx) -> None:
    """``okf_search_semantic_model``: the static embedding model, loaded before the pages are
    read (a wrong name fails the build at once); nothing is imported without the setting."""
    spec = app.config.okf_search_semantic_model
    if spec is None or app.builder is None or app.builder.name not in HTML_BUILDERS:
        return
    from okf_sphinx.writer.semantic_index import load_model  # noqa: PLC0415

    try:
        app.okf_semantic_model = load_model(spec, Path(app.confdir), SPHINX.setting("semantic_model"))  # type: ignore[attr-defined]
    except BuildError as exc:
        raise ConfigError(str(exc)) from None


def _discard(target: Path) -> None:
    """Clean-up after a failed build: remove our stale index, never anything else."""
    left = discard_index(target, SPHINX)
    if left is not None:
        logger.warning("%s", left)


def _agent_files(app: Sphinx) -> AgentFiles | None:
    """llms.txt / llms-full.txt (``okf_llms_txt``): the root toctrees' groups, the summary."""
    if not app.config.okf_llms_txt:
        return None
    summary = app.config.okf_llms_summary
    return AgentFiles(groups=groups_from_env(app), summary=summary_from_env(app) if summary is None else summary,
                      root=app.config.root_doc, baseurl=str(getattr(app.config, "html_baseurl", "") or ""))


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    if app.builder is None or app.builder.name not in HTML_BUILDERS:
        return
    if exception is not None:
        try:
            target = index_folder(Path(app.outdir), app.config.okf_search_output_dir, SPHINX)
        except ValueError:
            return  # an unusable setting names no index of ours: nothing to clean up
        _discard(target)  # a failed build leaves no stale index behind
        return
    target = _index_folder(app)
    try:
        limits = resolve_limits(app.config.okf_search_limits, SPHINX)
        site = _site(app)
    except ValueError as exc:
        _discard(target)
        raise ConfigError(str(exc)) from None
    progress = lambda docs: status_iterator(  # noqa: E731
        docs, "indexing sections for okf search... ", "darkgreen", len(docs), app.verbosity, stringify_func=lambda r: r.docname
    )
    try:
        summary = build_site(all_records(app.env), site, outdir=Path(app.outdir), index_dir=target,
                             source_dir=Path(app.srcdir), source_root_setting=app.config.okf_search_source_root,
                             limits=limits, agent_files=_agent_files(app),
                             semantic_model=getattr(app, "okf_semantic_model", None),
                             encoding=app.config.source_encoding, progress=progress)
    except BuildError as exc:
        raise ExtensionError(str(exc)) from None
    for line in summary.report(SPHINX):
        logger.info("%s%s", SPHINX.prefix, line)
    if app.config.okf_search_publish_sources is True and not app.config.html_copy_source:
        logger.info("okf_sphinx: published %s, although html_copy_source = False (okf_search_publish_sources = True)",
                    PUBLISHED)
    unmatched = _unmatched_note(app)
    if unmatched is not None:
        logger.info("%s%s", SPHINX.prefix, unmatched)
    note = summary.stemmer_note()
    if note is not None:
        logger.warning("%s%s", SPHINX.prefix, note, type="okf", subtype="stemmer")


def _unmatched_note(app: Sphinx) -> str | None:
    """Once per build: how many autodoc objects are generated because the module autodoc
    imported is an installed file no file of the project matches, and what to do about it."""
    files: dict[str, int] = {}
    for record in all_records(app.env):
        for section in record.sections:
            if section.obj is not None and section.obj.unmatched:
                files[section.obj.unmatched] = files.get(section.obj.unmatched, 0) + 1
    if not files:
        return None
    roots = project_roots(Path(app.srcdir), app.config.okf_search_source_root)
    count = sum(files.values())
    examples = ", ".join(sorted(files)[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return (f"{count} autodoc object{'s are' if count != 1 else ' is'} located at {'their' if count != 1 else 'its'} "
            f"directive line (generated), not in the Python source: autodoc imported "
            f"{'them' if count != 1 else 'it'} from installed files that no file under "
            f"{', '.join(r.rstrip('/') for r in roots)} matches byte for byte ({examples}). Install the version "
            "you document (pip install . from this checkout), or let autodoc import the checkout "
            "(an editable install, or sys.path in conf.py).")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("okf_search_exclude", list(DEFAULT_EXCLUDE), "env", types=[list, tuple])
    app.add_config_value("okf_search_limits", "default", "", types=[str, dict])
    app.add_config_value("okf_search_output_dir", "_okf", "", types=[str])
    app.add_config_value("okf_search_source_root", None, "", types=[str, type(None)])
    app.add_config_value("okf_search_weights", dict(DEFAULT_WEIGHTS), "", types=[dict, list, tuple])
    app.add_config_value("okf_llms_txt", True, "", types=[bool])
    app.add_config_value("okf_llms_summary", None, "", types=[str, type(None)])
    app.add_config_value("okf_search_objects", True, "env", types=[bool])
    app.add_config_value("okf_search_index_files", 1.0, "", types=[int, float])
    app.add_config_value("okf_search_publish_sources", None, "", types=[bool, type(None)])
    app.add_config_value("okf_search_semantic_model", None, "", types=[str, type(None)])
    app.connect("include-read", on_include_read)
    # load the Unicode tables once in the main process, before -j forks its readers
    app.connect("builder-inited", lambda app: native())
    app.connect("builder-inited", lambda app: forget_project())
    app.connect("builder-inited", _check_settings)
    app.connect("builder-inited", _load_semantic_model)
    app.connect("build-finished", on_build_finished)
    app.add_env_collector(OkfCollector)
    setup_search_page(app)
    return {"version": __version__, "env_version": 4, "parallel_read_safe": True, "parallel_write_safe": True}
