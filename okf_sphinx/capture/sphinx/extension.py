"""The Sphinx extension: config values, events, and the index written at build-finished."""

from __future__ import annotations

import functools
import gc
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ConfigError, ExtensionError
from sphinx.util import logging
from sphinx.util.display import status_iterator

from okf_sphinx import __version__
from okf_sphinx.core.errors import BuildError, NotAnIndexError
from okf_sphinx.core.terms import native
from okf_sphinx.writer.disk import remove_index, write_index
from okf_sphinx.writer.index_writer import Site, build_index, source_root
from okf_sphinx.writer.limits import resolve_limits
from okf_sphinx.writer.sizing import check_file_scale
from okf_sphinx.writer.smart_index import DEFAULT_WEIGHTS, check_weights, page_meta, page_prior

from .collector import OkfCollector, all_records, links, on_include_read
from .links import resolve as resolve_links
from .llms import on_index_written
from .search_page import setup_search_page

logger = logging.getLogger(__name__)

HTML_BUILDERS = frozenset({"html", "dirhtml", "singlehtml"})
#: Nothing is excluded by default: in Sphinx sites ``index`` documents are content
#: (SEARCH_CONTRACT.md).  Sites that follow the seed's convention set
#: ``okf_search_exclude = ["index", "*/index", "log", "*/log"]`` in conf.py.
DEFAULT_EXCLUDE: list[str] = []


def _site(app: Sphinx) -> Site:
    builder = app.builder
    weights = check_weights(app.config.okf_search_weights)
    if builder.name == "singlehtml":
        page = f"{app.config.root_doc}{builder.out_suffix}"
        rendered = _toctree_reachable(app)
        # one page holds every document reachable from the root toctree; others are not rendered
        page_url = lambda docname: page if docname in rendered else ""  # noqa: E731
    else:
        page_url = builder.get_target_uri
    tags = builder.tags
    search_page = getattr(app, "okf_search_page", "search.html")
    return Site(
        builder=builder.name,
        page_url=functools.cache(page_url),
        anchor_ok=functools.cache(lambda exprs: all(tags.eval_condition(e) for e in exprs)),
        search_page=search_page,
        singlehtml=builder.name == "singlehtml",
        language=app.config.language or "en",
        page_prior=functools.cache(lambda docname: page_prior(docname, weights, app.env.metadata.get(docname, {}))),
        page_meta=lambda docname: page_meta(app.env.metadata.get(docname, {})),
        project=str(app.config.project or ""),
        links=lambda: resolve_links(app.env, {d: p for d, p in links(app.env).items() if d in app.env.all_docs},
                                    list(app.config.source_suffix)),
        root_doc=app.config.root_doc,
        source_copy=_source_copies(app),
        file_scale=check_file_scale(app.config.okf_search_index_files),
    )


def _source_copies(app: Sphinx) -> Any:
    """captured path -> its copy in ``_sources/`` (relative to the index folder, and where it
    is), as Sphinx names it when ``html_copy_source`` is on: ``<docname><suffix>`` plus
    ``html_sourcelink_suffix`` unless the suffixes are equal."""
    if not app.config.html_copy_source:
        return lambda path: None
    outdir = Path(app.outdir)
    target = output_target(outdir, app.config.okf_search_output_dir)
    up = "../" * len(target.relative_to(outdir.resolve()).parts)
    link_suffix = app.config.html_sourcelink_suffix
    docs: dict[str, str] = {}
    for docname in sorted(app.env.found_docs):
        source = Path(app.env.doc2path(docname))
        suffix = source.suffix
        name = docname + suffix + ("" if suffix == link_suffix else link_suffix)
        docs.setdefault(str(source.resolve()), name)

    def copy(path: str) -> tuple[str, Path] | None:
        name = docs.get(str(Path(path).resolve()))
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


def output_target(outdir: Path, value: Any) -> Path:
    """The index folder ``okf_search_output_dir`` names: a non-empty relative path
    strictly inside the output folder (symbolic links resolved), else ConfigError."""
    def refuse(why: str) -> ConfigError:
        return ConfigError(
            f"okf_search_output_dir = {value!r} {why}; give a relative folder name inside the HTML output, "
            f"such as '_okf' (the default). Nothing was deleted"
        )

    if not isinstance(value, str):
        raise refuse("is not a string")
    if PurePosixPath(value).is_absolute() or PureWindowsPath(value).is_absolute() or PureWindowsPath(value).drive:
        raise refuse("is an absolute path")
    parts = [p for p in value.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise refuse("climbs out with '..'")
    if not parts or not value.strip():
        raise refuse("names the output folder itself")
    root = Path(outdir).resolve()
    target = root.joinpath(*parts)
    # every existing component is followed: a link must not lead the index (or its removal) elsewhere
    resolved = target.parent.resolve() / target.name
    if not resolved.is_relative_to(root) or resolved == root:
        raise refuse(f"leads outside the output folder {root} through a symbolic link")
    return target


def _check_output_dir(app: Sphinx) -> None:
    if app.builder is not None and app.builder.name in HTML_BUILDERS:
        output_target(Path(app.outdir), app.config.okf_search_output_dir)
        try:  # found before the pages are read, not after
            check_file_scale(app.config.okf_search_index_files)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None


def _discard(target: Path) -> None:
    """Clean-up after a failed build: remove our stale index, never anything else."""
    try:
        remove_index(target)
    except BuildError as exc:
        logger.warning("%s", exc)


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    if app.builder is None or app.builder.name not in HTML_BUILDERS:
        return
    if exception is not None:
        try:
            target = output_target(Path(app.outdir), app.config.okf_search_output_dir)
        except ConfigError:
            return  # an unusable setting names no index of ours: nothing to clean up
        _discard(target)  # a failed build leaves no stale index behind
        return
    target = output_target(Path(app.outdir), app.config.okf_search_output_dir)
    try:
        limits = resolve_limits(app.config.okf_search_limits)
    except ValueError as exc:
        _discard(target)
        raise ConfigError(str(exc)) from None
    records = all_records(app.env)
    root = source_root(records, Path(app.srcdir), app.config.okf_search_source_root)
    progress = lambda docs: status_iterator(  # noqa: E731
        docs, "indexing sections for okf search... ", "darkgreen", len(docs), app.verbosity, stringify_func=lambda r: r.docname
    )
    try:
        site = _site(app)
    except ValueError as exc:
        _discard(target)
        raise ConfigError(str(exc)) from None
    # The index is built from many small containers while Sphinx holds millions of
    # objects: without this, cyclic-GC passes over them cost more than the work itself.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        files = build_index(records, root, site, limits, progress, app.config.source_encoding)
        written = write_index(target, files)
    except BuildError as exc:
        if not isinstance(exc, NotAnIndexError):
            _discard(target)
        raise ExtensionError(str(exc)) from None
    finally:
        if gc_was_enabled:
            gc.enable()
    _summary(app, records, files, written, target)
    smart = files["manifest"]["smart"]
    if not smart["stemmer"]:
        logger.warning(
            "okf_sphinx: no stemmer for language %r: smart search on this site matches exact words only "
            "(no plural or tense forms); keyword search is unaffected",
            smart["language"], type="okf", subtype="stemmer",
        )
    on_index_written(app, files)  # llms.txt / llms-full.txt from the same index


def _summary(app: Sphinx, records: list[Any], files: dict[str, Any], written: int, target: Path) -> None:
    manifest = files["manifest"]
    excluded = [r.docname for r in records if not r.searchable]
    terms = sum(len(v) for k, v in files.items() if k.startswith("t/") and isinstance(v, dict))
    logger.info(
        "okf_sphinx: indexed %d sections of %d pages (%d distinct terms, %d captured files); "
        "wrote %d bytes to %s/",
        manifest["sections"], len(records) - len(excluded), terms, manifest["files"], written, target.name,
    )
    if excluded:
        logger.info(
            "okf_sphinx: %d pages excluded from search by okf_search_exclude (%s); "
            "set okf_search_exclude = [] in conf.py to include them",
            len(excluded), ", ".join(excluded[:5]) + (" …" if len(excluded) > 5 else ""),
        )


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
    app.connect("include-read", on_include_read)
    # load the Unicode tables once in the main process, before -j forks its readers
    app.connect("builder-inited", lambda app: native())
    app.connect("builder-inited", _check_output_dir)
    app.connect("build-finished", on_build_finished)
    app.add_env_collector(OkfCollector)
    setup_search_page(app)
    return {"version": __version__, "env_version": 3, "parallel_read_safe": True, "parallel_write_safe": True}
