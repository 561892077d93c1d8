"""As-you-type quality: bench_quality.py's known-item queries as a reader has typed them so
far — the last word cut to its first letters — answered by okf_sphinx's smart mode with
``prefix`` (the runtimes' dialog), and by Pagefind 1.6 (whose search matches every word as
a prefix) over the same HTML, in one run.

A query counts when its last word has at least ``cut + 2`` letters (so a reader who typed
``cut`` letters still has two to go); its typed text is everything before that word plus the
word's first ``cut`` letters.  okf smart mode is run once per ``MAX_COMPLETION_GROUPS`` value
(``--groups``; the stem groups a prefix's completions may come from, each one more posting
file a cold query reads), and once without ``prefix`` (the cut word taken as a whole word: the
floor any completion must beat).  Page MRR@10 and found@10 over the first 10 distinct pages,
per half (``tune`` / ``held-out``, bench_quality's fixed split): choose on the tune half,
report the held-out half.

    python bench/bench_typing.py [--corpus sphinx,myst,peps] [--cut 3,4] [--groups 1,2,3,5]
                                 [--work DIR] [--reuse] [--peps-okf DIR]

The sites are bench_quality's (``--work``, ``--reuse``, ``--peps-html`` …: the same options).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_quality as quality  # noqa: E402

_LAST_WORD = re.compile(r"(\w+)\W*$")


def typed(query: str, cut: int) -> str | None:
    """The query as typed so far: its last word cut to ``cut`` letters, or None when that
    word is shorter than ``cut + 2``."""
    m = _LAST_WORD.search(query)
    if m is None or len(m.group(1)) < cut + 2:
        return None
    return query[: m.start(1) + cut]


def smart_pages(index: Any, queries: list[str], prefix: bool) -> list[list[str]]:
    from okf_sphinx import OkfError

    out = []
    for q in queries:
        try:
            pages = index.search(q, limit=quality.TOP, mode="smart", prefix=prefix)["pages"]
        except OkfError:
            pages = []
        out.append(quality.distinct_pages([p["concept_id"] for p in pages]))
    return out


def rows(items: list[dict[str, Any]], rankings: dict[str, list[list[str]] | None]) -> list[str]:
    lines = []
    for name, ranking in rankings.items():
        if ranking is None:
            continue
        cells = []
        for which in ("tune", "held-out"):
            ranks = [quality.rank_of(item["target"], ranking[i]) for i, item in enumerate(items) if item["half"] == which]
            m = quality.metrics(ranks)
            cells.append(f"{m['mrr@10']:.3f} / {m['found@10']:.3f} ({len(ranks)})")
        lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="sphinx,myst,peps")
    ap.add_argument("--cut", default="3,4", help="letters of the last word typed (comma-separated)")
    ap.add_argument("--groups", default="1,2,3,5", help="MAX_COMPLETION_GROUPS values (comma-separated)")
    ap.add_argument("--work", default=str(HERE / "results" / "quality"))
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--peps-html", default="/work/peps/html")
    ap.add_argument("--peps-doctrees", default="/work/peps/doctrees")
    ap.add_argument("--peps-okf", default=None)
    ap.add_argument("--no-pagefind", action="store_true")
    args = ap.parse_args(argv)
    cuts = [int(c) for c in args.cut.split(",") if c.strip()]
    groups = [int(g) for g in args.groups.split(",") if g.strip()]
    if not cuts or min(cuts) < 2 or not groups or min(groups) < 1:
        raise SystemExit("--cut: numbers ≥ 2; --groups: numbers ≥ 1")
    from okf_sphinx import open_index
    from okf_sphinx.engine import smart as engine

    shipped = engine.MAX_COMPLETION_GROUPS
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    for corpus in [c.strip() for c in args.corpus.split(",") if c.strip()]:
        site = quality.site_for(corpus, work, args)
        if site is None:
            continue
        html, doctrees = site
        index = open_index(Path(args.peps_okf) if corpus == "peps" and args.peps_okf else html)
        base = quality.query_set(quality.known_items(doctrees))
        for cut in cuts:
            items = [{**item, "query": t} for item in base if (t := typed(item["query"], cut)) is not None]
            queries = [i["query"] for i in items]
            rankings: dict[str, list[list[str]] | None] = {}
            for g in groups:
                engine.MAX_COMPLETION_GROUPS = g
                try:
                    rankings[f"okf smart, prefix, {g} group{'s' if g > 1 else ''}" + (" (shipped)" if g == shipped else "")] = (
                        smart_pages(index, queries, True))
                finally:
                    engine.MAX_COMPLETION_GROUPS = shipped
            rankings["okf smart, no prefix"] = smart_pages(index, queries, False)
            if not args.no_pagefind:
                rankings["pagefind 1.6"] = quality.pagefind_rankings(html, work / corpus / "pagefind", queries)
            print(f"### {corpus}: last word cut to {cut} letters, {len(items)} of {len(base)} queries\n")
            print("| system | tune: MRR@10 / found@10 (n) | held-out: MRR@10 / found@10 (n) |")
            print("|---|---|---|")
            print("\n".join(rows(items, rankings)) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
