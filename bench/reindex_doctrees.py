"""Rebuild only the okf index of a finished Sphinx HTML build, from its pickled doctrees.

    python bench/reindex_doctrees.py DOCTREES SRCDIR OUT [--sources HTML/_sources]

Builds the records as the extension would (one captured file per page) and writes
OUT/_okf; with ``--sources`` the site's ``_sources/`` folder is copied to OUT first
so captured files are served from it (as a real build with ``html_copy_source``
does).  For the PEPs this takes about a minute instead of a 68-minute build.

``--pep-titles`` gives each PEP the title the PEP site's own build gives it.  The corpus is
built with plain Sphinx, without the site's ``pep_sphinx_extensions``, so a PEP's page
title is its first heading ("Abstract") and its RFC 2822 header ("PEP: 8", "Title: ...")
is a paragraph of the page's first section.  The site's own build (its PEPTitle transform)
wraps the whole document in one section titled "PEP <number> -- <Title>" (smart quotes
make the "--" an en dash), taken from that header; that section has no source line, so
the capture sees the page title change and every heading one level deeper, and captures
the same lines.  This option makes that section, from each PEP source's header, before the
capture reads the doctree.
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import time
from pathlib import Path
from typing import Any

from okf_sphinx.capture.sphinx.collector import page_title
from okf_sphinx.capture.sphinx.links import capture, resolve
from okf_sphinx.capture.sphinx.sections import split_document
from okf_sphinx.core.hosts import SPHINX
from okf_sphinx.core.records import CapturedFile, excluded
from okf_sphinx.writer.disk import write_index
from okf_sphinx.writer.index_writer import Site, build_index, source_root
from okf_sphinx.writer.limits import resolve_limits
from okf_sphinx.writer.smart_index import DEFAULT_WEIGHTS, check_weights, page_meta, page_prior


def pep_title(source: str) -> str | None:
    """The title the PEP site's build gives the PEP whose source text is ``source``:
    "PEP <number> – <Title>" from its RFC 2822 header (None without a PEP and a Title field)."""
    fields: dict[str, str] = {}
    name = None
    for line in source.lstrip("\ufeff").splitlines():
        if not line.strip():
            break
        if line[0] in " \t" and name is not None:
            fields[name] += " " + line.strip()
            continue
        name, sep, value = line.partition(":")
        if not sep:
            return None
        fields[name] = value.strip()
    if "PEP" not in fields or "Title" not in fields or not fields["PEP"].isdigit():
        return None
    return f"PEP {int(fields['PEP'])} \u2013 {fields['Title']}"


def wrap_in_title(doctree: Any, title: str) -> None:
    """Put the whole document in one section titled ``title``, with no source line (as the
    PEP site's build does)."""
    from docutils import nodes

    section = nodes.section("", nodes.title("", title, classes=["page-title"]), names=["pep-content"])
    children = list(doctree.children)
    doctree.children = []
    doctree.append(section)
    section.extend(children)
    doctree.note_implicit_target(section, section)


def load_env(doctrees: Path, srcdir: Path) -> Any:
    """The build's pickled environment, set up with an application over ``srcdir`` (as Sphinx
    sets up an environment it loads: its domains need one)."""
    import tempfile

    from sphinx.application import Sphinx
    from sphinx.errors import BuildEnvironmentError

    env = pickle.loads((doctrees / "environment.pickle").read_bytes())
    scratch = Path(tempfile.mkdtemp(prefix="okf-reindex-"))
    app = Sphinx(str(srcdir), str(srcdir), str(scratch / "out"), str(scratch / "doctrees"), "html",
                 status=None, warning=None)
    try:
        env.setup(app)
    except BuildEnvironmentError:  # pickled by another Sphinx version: read as this one's
        env.version = app.registry.get_envversion(app)
        env.setup(app)
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("doctrees", type=Path)
    ap.add_argument("srcdir", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--sources", type=Path, help="the built site's _sources/ folder, copied into OUT")
    ap.add_argument("--pep-titles", action="store_true",
                    help="title each PEP as the PEP site's own build does (see the module's docstring)")
    ap.add_argument("--trace-memory", action="store_true", help="report tracemalloc's peak over the index build")
    ap.add_argument("--budget-scale", type=float, default=1.0,
                    help="okf_search_index_files: multiply the writer's file budgets (files against cold-query bytes)")
    ap.add_argument("--vectors", metavar="MODEL", help="add semantic vectors from this model2vec folder, as a build with "
                    "okf_search_semantic_model does (t/ sized for questions)")
    args = ap.parse_args()
    from sphinx.util.docutils import LoggingReporter

    t0 = time.time()
    env = load_env(args.doctrees, args.srcdir)
    records = []
    docs = {}
    refs = {}
    base = str(getattr(env.config, "html_baseurl", "") or "")
    for docname in sorted(env.all_docs):
        doctree = pickle.loads((args.doctrees / f"{docname}.doctree").read_bytes())
        doctree.settings.env = env
        doctree.reporter = LoggingReporter(str(env.doc2path(docname)))
        main = Path(env.doc2path(docname)).resolve()
        docs[str(main)] = docname + main.suffix + ("" if main.suffix == ".txt" else ".txt")
        captured = CapturedFile.read(main)
        title = page_title(env, doctree, docname)
        pep = pep_title(captured[1].decode("utf-8")) if args.pep_titles and main.match("pep-*") else None
        if pep is not None:
            wrap_in_title(doctree, pep)
            title = pep
        records.append(split_document(docname, title, not excluded(docname, []), doctree, [captured], args.srcdir))
        refs[docname] = capture(doctree, records[-1], args.srcdir, base)  # as the collector does at doctree-read
    print("records", len(records), round(time.time() - t0, 1), "s", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.sources:
        shutil.rmtree(args.out / "_sources", ignore_errors=True)
        shutil.copytree(args.sources, args.out / "_sources")

    def copy(path: str) -> tuple[str, Path] | None:
        name = docs.get(str(Path(path).resolve()))
        return None if name is None or not args.sources else (f"../_sources/{name}", args.out / "_sources" / name)

    weights = check_weights(DEFAULT_WEIGHTS, SPHINX)
    resolved = resolve(env, refs, list(env.config.source_suffix))
    extra = {"source_copy": copy} if "source_copy" in getattr(Site, "__dataclass_fields__", {}) else {}
    site = Site(host=SPHINX, builder="html", page_url=lambda d: d + ".html", anchor_ok=lambda e: True, search_page="search.html",
                language=env.config.language or "en",
                page_prior=lambda d: page_prior(d, weights, env.metadata.get(d, {})),
                page_meta=lambda d: page_meta(env.metadata.get(d, {})), file_scale=args.budget_scale,
                project=str(env.config.project or ""), links=lambda: resolved.links, link_labels=lambda: resolved.labels,
                root_doc=env.config.root_doc, **extra)
    if args.trace_memory:
        import gc
        import tracemalloc

        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
    t1 = time.time()
    files = build_index(records, source_root(records, args.srcdir, None), site, resolve_limits("default", SPHINX),
                        vectors=bool(args.vectors))
    if args.vectors:
        from okf_sphinx.writer.semantic_index import add_semantic, load_model

        add_semantic(files, load_model(args.vectors, Path.cwd(), "model"))
    written = write_index(args.out / "_okf", files, SPHINX)
    print(len(records), "pages", files["manifest"]["sections"], "sections", written, "bytes",
          len(files), "files", "index", round(time.time() - t1, 1), "s", "total", round(time.time() - t0, 1), "s")
    if args.trace_memory:
        peak = tracemalloc.get_traced_memory()[1]
        print(f"peak memory of the index build (tracemalloc, above the records): {(peak - base) / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
