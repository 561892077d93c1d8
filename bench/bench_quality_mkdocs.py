"""Reader search quality on a MkDocs site: okf (keyword and smart modes), Material for
MkDocs' own search and Pagefind 1.6, over one build of the same site, in one run.

Corpus: Material for MkDocs' own documentation (``../shared/corpora/material``, copied
first: the corpus is read-only), built once with ``okf`` added to its plugins
(``replace_builtin: false``: Material's search stays, so both run on one build) and
the hook bench/mkdocs_link_texts.py.

Known items, as bench/bench_quality.py's (its helpers are imported, not copied): the
link texts authors wrote between pages.  They are read from the rendered content of
each page as MkDocs hands it to plugins, resolved with okf's own link capture
(okf_sphinx/capture/mkdocs/links.py), rather than from the Markdown with a regex:
inline and reference-style links, links written by snippets or hooks (Material's
shortcodes), and ``page.md#anchor`` targets come out exactly as MkDocs rendered and
resolved them.  Texts with no word (icon links) are dropped.  The query is the link text; the known item is the target page
(its docname, ``setup/setting-up-site-search``).  Dropped: texts that point to
different pages, links to their own page (bench_quality.query_set), and texts that
are only a URL, a path or file name, or a pointer word ("here", "this", "link", …)
(:func:`worded`).  The same hash of the query splits ``tune`` / ``held-out``.

Systems, page level (first 10 distinct pages of each answer): MRR@10, P@1, found@10;
and okf smart at section level (bench_quality.section_table: the link's ``#anchor`` is
its section; a link without one leads to the page's first hit).

- ``okf keyword`` / ``okf smart``: the Python API over the build's ``_okf/``;
- ``material``: Material's own search worker from the built site
  (``assets/javascripts/workers/search.*.min.js``, lunr bundled) driven in Node
  through its message API (bench/quality_material.js) over ``search/search_index.json``;
  the query is the raw text, as Material's search box sends it; its answer is grouped
  by page, in rank order;
- ``pagefind``: Pagefind 1.6 over the same HTML (bench/quality_pagefind.mjs; npm
  installs it into bench/node_modules).

Usage::

    python bench/bench_quality_mkdocs.py [--work DIR] [--reuse] [--systems ...]

Outputs: a markdown table on stdout, the query set with per-query ranks and a summary
under ``--work`` (default bench/results/quality-mkdocs/).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_quality as bq  # noqa: E402

SYSTEMS = ("okf keyword", "okf smart", "material", "pagefind")
HOOK = HERE / "mkdocs_link_texts.py"
LINKS_FILE = "link-texts.json"

# a text that only points: a URL, a path or file name, or a word such as "here"
_URL = re.compile(r"(?i)^(?:[a-z][a-z0-9+.-]*://|www\.)\S*$")
_PATH = re.compile(r"^[\w.~-]*[/\\][\w./\\~#-]*$|^[\w-]+\.(?:md|html?|ya?ml|json|py|txt)$")
POINTERS = frozenset({"here", "this", "link", "this link", "click here", "this page", "here.", "there", "see here",
                      "read more", "more", "docs", "documentation"})


def worded(text: str) -> bool:
    """Is ``text`` a query a reader could type (not only a URL, a path or a pointer word)?"""
    t = text.strip()
    return bool(re.search(r"\w", t)) and not _URL.match(t) and not _PATH.match(t) and t.casefold() not in POINTERS


def okf_config(text: str, hook: Path = HOOK) -> str:
    """``mkdocs.yml`` text with ``okf`` (``replace_builtin: false``) first in ``plugins:`` and
    ``hook`` added to ``hooks:`` (a block list at the top level: the forms both appear in)."""
    lines = text.splitlines()
    out: list[str] = []
    seen_plugins = seen_hooks = False
    for line in lines:
        out.append(line)
        if line.rstrip() == "plugins:":
            out += ["  - okf:", "      replace_builtin: false"]
            seen_plugins = True
        elif line.rstrip() == "hooks:":
            out.append(f"  - {hook}")
            seen_hooks = True
    if not seen_plugins:
        out += ["plugins:", "  - search", "  - okf:", "      replace_builtin: false"]
    if not seen_hooks:
        out += ["hooks:", f"  - {hook}"]
    return "\n".join(out) + "\n"


def build(project: Path, site: Path, config: str = "mkdocs.yml", env: dict[str, str] | None = None) -> Path:
    """A ``mkdocs build`` of ``project`` (its ``config``, rewritten by :func:`okf_config` into
    ``mkdocs-okf-bench.yml`` beside it) into ``site``, with ``env`` (default: this process's);
    returns the link texts file."""
    cfg = project / "mkdocs-okf-bench.yml"
    cfg.write_text(okf_config((project / config).read_text("utf-8")), "utf-8")
    shutil.rmtree(site, ignore_errors=True)
    links = site.parent / LINKS_FILE
    env = {**(os.environ if env is None else env), "OKF_BENCH_LINK_TEXTS": str(links), "PYTHONHASHSEED": "0"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(cfg), "-d", str(site)],
                          cwd=project, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"mkdocs build of {project} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return links


def known_items(links_file: Path) -> list[dict[str, Any]]:
    """The known-item set: bq.query_set over the worded link texts (``kind`` ``link``)."""
    data = json.loads(links_file.read_text("utf-8"))
    raw = [{"query": row["text"], "target": row["target"], "source": row["source"], "kind": "link",
            "section": {"heading": "", "anchors": [row["anchor"]]} if row["anchor"] else None}
           for row in data["links"] if worded(row["text"])]
    return bq.query_set(raw)


def page_of_url(urls: dict[str, str]) -> dict[str, str]:
    """``url_key`` of every page's URL -> its docname (for Material's and Pagefind's URLs)."""
    from okf_sphinx.capture.mkdocs.links import url_key

    return {url_key(u): d for d, u in urls.items()}


def url_docname(url: str, keys: dict[str, str]) -> str:
    """A result URL (``setup/setting-up-site-search/#x``, ``/a/b/index.html``) as a docname
    (the URL itself when it names no page)."""
    from okf_sphinx.capture.mkdocs.links import url_key

    path = url.split("#", 1)[0].split("?", 1)[0]
    return keys.get(url_key(path), path)


def material_ready(site: Path) -> bool:
    return bool(list((site / "assets" / "javascripts" / "workers").glob("search.*.min.js"))) and (
        site / "search" / "search_index.json").is_file()


def material_rankings(site: Path, queries: list[str], keys: dict[str, str]) -> list[list[str]] | None:
    if not material_ready(site):
        return None
    answers = bq.node_lines(["node", str(HERE / "quality_material.js"), str(site)], queries)
    return [bq.distinct_pages([url_docname(u, keys) for u in a]) for a in answers]


def pagefind_rankings(site: Path, out: Path, queries: list[str], keys: dict[str, str]) -> list[list[str]] | None:
    if not bq.pagefind_ready():
        return None
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(["node", str(HERE / "quality_pagefind.mjs"), "index", str(site), str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    answers = bq.node_lines(["node", str(HERE / "quality_pagefind.mjs"), "query", str(out)], queries)
    return [bq.distinct_pages([url_docname(u, keys) for u in a]) for a in answers]


_VERSION = re.compile(r"v?\d+(?:\.\d+)+")

#: Row groups of the table: every query; without bare version numbers (Material's docs link
#: each "added in 9.2.0" badge to the change log: many short queries with one obvious answer);
#: queries that are a heading of the target page, and the rest.
GROUPS = (("all", lambda item: True),
          ("no version numbers", lambda item: not _VERSION.fullmatch(item["query"])),
          ("a heading of the page", lambda item: item["heading"]),
          ("not a heading", lambda item: not item["heading"]))


def mark_headings(items: list[dict[str, Any]], site: Path) -> None:
    """``item["heading"]``: is the query (case-folded) a section heading of its target page?"""
    from okf_sphinx import open_index

    index = open_index(site)
    heads: dict[str, set[str]] = {}
    for sid in range(index.sections_all):
        rec = index.section(sid)
        heads.setdefault(rec["concept_id"], set()).add(bq.norm(rec["heading"]).casefold())
    for item in items:
        item["heading"] = bq.norm(item["query"]).casefold() in heads.get(item["target"], set())


def rows(items: list[dict[str, Any]]) -> list[tuple[str, str, list[int]]]:
    """(group, half, the items' indexes) for every group of :data:`GROUPS` and half."""
    return [(group, which, [i for i, item in enumerate(items) if item["half"] == which and keep(item)])
            for group, keep in GROUPS for which in ("tune", "held-out")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", default=str(bq.CORPORA / "material"), help="a MkDocs project (copied first)")
    ap.add_argument("--config", default="mkdocs.yml", help="its config file")
    ap.add_argument("--work", default=str(HERE / "results" / "quality-mkdocs"), help="build and outputs")
    ap.add_argument("--reuse", action="store_true", help="reuse a finished build under --work")
    ap.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated subset of: " + ", ".join(SYSTEMS))
    args = ap.parse_args(argv)
    systems = {s.strip() for s in args.systems.split(",") if s.strip()}
    if not systems <= set(SYSTEMS):
        raise SystemExit(f"unknown system(s) {sorted(systems - set(SYSTEMS))}: use {', '.join(SYSTEMS)}")
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    project, site, links = work / "src", work / "site", work / LINKS_FILE
    if not (args.reuse and (site / "_okf" / "manifest.js").is_file() and links.is_file()):
        shutil.rmtree(project, ignore_errors=True)
        shutil.copytree(args.project, project, ignore=shutil.ignore_patterns("site", ".cache", "__pycache__"))
        t0 = time.monotonic()
        print("building with okf ...", file=sys.stderr, flush=True)
        links = build(project, site, args.config)
        print(f"built in {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    items = known_items(links)
    mark_headings(items, site)
    keys = page_of_url(json.loads(links.read_text("utf-8"))["urls"])
    queries = [i["query"] for i in items]
    print(f"{len(items)} known-item queries", file=sys.stderr, flush=True)
    from okf_sphinx.engine import smart as engine

    rankings, sections = bq.okf_rankings(site, items, systems, [float(getattr(engine, "SUB_HIT_FLOOR", 0.0))])
    rankings["material"] = material_rankings(site, queries, keys) if "material" in systems else None
    rankings["pagefind"] = pagefind_rankings(site, work / "pagefind", queries, keys) if "pagefind" in systems else None
    name = Path(args.project).name
    print(bq.table(name, items, rankings, SYSTEMS, rows(items)) + "\n", flush=True)
    if sections:
        print(bq.section_table(name, items, sections) + "\n", flush=True)
    per_query = [{**item, "ranks": {s: (bq.rank_of(item["target"], r[i]) if r is not None else None)
                                    for s, r in rankings.items()},
                  "section_ranks": {f"{r:g}": bq.section_rank(item, shown[i]) for r, shown in sections.items()}}
                 for i, item in enumerate(items)]
    (work / "queries.json").write_text(json.dumps(per_query, indent=1, ensure_ascii=False), "utf-8")
    summary = {"queries": len(items), "site": str(site), "metrics": {
        f"{group} {which}": {s: (None if r is None else bq.metrics([bq.rank_of(items[i]["target"], r[i]) for i in chosen]))
                             for s, r in rankings.items()}
        for group, which, chosen in rows(items)}}
    (work / "summary.json").write_text(json.dumps(summary, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
