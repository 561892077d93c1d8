"""Should meaning stand in for a site's commonest words in the blend?  Quality and cold bytes.

    python bench/bench_common_words.py --ranks SITE=RANKS [...] [--cost SITE] [--cutoffs 0,0.05,0.1]

The idea (issue 28, point 3): a blended question reads one posting shard per counted word;
if the build listed the site's commonest stems (by section df) in the manifest, the blend
could leave those words to the meaning side and not read their shards when the query has
another counted word (quoted words, a word being completed and an identifier's words
always read).  Measured here, not built: the rule is applied by wrapping smart mode's
``counting`` (engine/words.py) in this process only, and the list is put into each
fresh index's manifest in memory, so the engine and the index files stay as they are.

- ``--ranks SITE=RANKS``: a site with vectors and the per-query file ``bench_semantic.py``
  wrote for it (``<work>/<corpus>-vectors`` and ``<work>/semantic-<corpus>.json``): blend
  page MRR@10 / found@10 per set and half, at each cutoff (0: the engine as it is);
- ``--cost SITE``: the PEPs (or any site) with vectors: cold first step of the blend at
  limit 5 (median / max gzip KiB, the mean of ``t/``), bench_query's 30 queries and the
  questions of ``--queries``, the list's gzip bytes in the manifest counted in;
- ``--min-others N``: skip only when N other words still count (default 1).

A cutoff ``c`` lists every stem in at least ``c`` × the site's sections.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# the benchmarks beside this one: importable only once their folder is on sys.path (so E402)
import add_vectors  # noqa: E402
import bench_quality as bq  # noqa: E402
import bench_query  # noqa: E402
import bench_semantic as bs  # noqa: E402
from bench_semantic_cost import Recording  # noqa: E402


def section_df(site: Path) -> tuple[dict[str, int], int]:
    """Every stem group's section df (from the ``t/`` shards) and the site's sections."""
    files = add_vectors.read_index(site / "_okf")
    df = {stem: g[0] for name, v in files.items() if name.startswith("t/") and isinstance(v, dict)
          for stem, g in v.get("groups", {}).items()}
    return df, files["manifest"]["sections"]


def common_list(df: dict[str, int], sections: int, cutoff: float) -> list[str]:
    """The stems in at least ``cutoff`` × ``sections`` sections, commonest first."""
    return sorted((s for s, d in df.items() if cutoff > 0 and d >= cutoff * sections), key=lambda s: (-df[s], s))


class StandIn:
    """Smart mode's ``counting`` with the common words dropped (while active)."""

    def __init__(self, min_others: int) -> None:
        from okf_sphinx.engine import smart

        self.smart, self.inner, self.min_others = smart, smart.counting, min_others
        self.common: set[str] = set()
        self.stem: Any = None
        self.named: set[str] = set()
        smart.counting = self.counting

    def restore(self) -> None:
        """Smart mode's own ``counting`` again."""
        self.smart.counting = self.inner

    def counting(self, words: list[str], stops: frozenset[str], kept: set[int]) -> list[bool]:
        counts = self.inner(words, stops, kept)
        key = self.stem or (lambda t: t)
        out = {i for i, w in enumerate(words)
               if counts[i] and i not in kept and w not in self.named and key(w) in self.common}
        if sum(1 for i, c in enumerate(counts) if c and i not in out) >= self.min_others:
            counts = [c and i not in out for i, c in enumerate(counts)]
        return counts

    def ask(self, index: Any, listed: list[str], query: str, limit: int) -> dict[str, Any]:
        """``query`` blended on ``index`` with ``listed`` as the site's common stems."""
        from okf_sphinx.engine import smart

        self.common = set(listed)
        self.stem = index.stem
        self.named = {t for ident in smart.query_identifiers(query) for t in index.normaliser.terms(ident)}
        if listed:
            index.manifest["smart"]["common"] = listed
        return index.search(query, limit=limit, mode="smart")


def quality(stand: StandIn, pairs: list[tuple[Path, Path]], cutoffs: list[float]) -> None:
    from okf_sphinx import OkfError, open_index

    res: dict[tuple[float, str, str], list[int | None]] = {}
    for site, ranks in pairs:
        items = json.loads(ranks.read_text("utf-8"))
        df, n = section_df(site)
        for cut in cutoffs:
            listed = common_list(df, n, cut)
            index = open_index(site)
            for item in items:
                try:
                    pages = stand.ask(index, listed, item["query"], bq.TOP)["pages"]
                except OkfError:
                    pages = []
                rank = bs.page_rank(item, bq.distinct_pages([p["concept_id"] for p in pages]))
                res.setdefault((cut, item["half"], item["set"]), []).append(rank)
            print(f"{site}: cutoff {cut}, {len(listed)} stems: {listed[:10]}", file=sys.stderr, flush=True)
    print("| cutoff | half | set | blend page MRR@10 / found@10 |\n|---|---|---|---|")
    for (cut, half, name), r in sorted(res.items()):
        print(f"| {cut:g} | {half} | {name} ({len(r)}) | {bq.metrics(r)['mrr@10']:.3f} / {sum(1 for x in r if x)} |")


def cost(stand: StandIn, site: Path, queries: Path | None, cutoffs: list[float]) -> None:
    from okf_sphinx import OkfError
    from okf_sphinx.engine.index import Index
    from okf_sphinx.engine.source import open_source

    def gz(data: bytes) -> int:
        return len(gzip.compress(data, 9))

    df, n = section_df(site)
    raw = (site / "_okf" / "manifest.js").read_bytes()
    groups = {"bench_query's 30": list(bench_query.QUERIES)}
    if queries:
        groups["questions"] = [q for q, _k, _t in json.loads(queries.read_text("utf-8"))["items"]]
    print("| cutoff | stems | manifest + | set | blend 5 median / max KiB | `t/` mean KiB |\n|---|---|---|---|---|---|")
    for cut in cutoffs:
        listed = common_list(df, n, cut)
        field = b'"smart":{"common":' + json.dumps(listed, ensure_ascii=False, separators=(",", ":")).encode() + b","
        extra = gz(raw.replace(b'"smart":{', field, 1)) - gz(raw) if listed else 0
        for name, qs in groups.items():
            sizes, t_bytes = [], []
            for q in qs:
                source = Recording(open_source(site))
                try:
                    stand.ask(Index(source), listed, q, 5)
                except OkfError:
                    continue
                # the browser reads unicode.js only for a query with a non-ASCII character
                read = {k: v for k, v in source.read_names.items() if k != "unicode" or not q.isascii()}
                sizes.append(sum(read.values()) + extra)
                t_bytes.append(sum(v for k, v in read.items() if k.startswith("t/")))
            print(f"| {cut:g} | {len(listed)} | {extra} B | {name} | {statistics.median(sizes) / 1024:.1f} / "
                  f"{max(sizes) / 1024:.1f} | {statistics.mean(t_bytes) / 1024:.1f} |", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", action="append", default=[], help="SITE=RANKS: a site with vectors and bench_semantic's per-query file")
    ap.add_argument("--cost", type=Path, default=None, help="a site with vectors whose cold blend bytes are counted")
    ap.add_argument("--queries", type=Path, default=None, help="a bench/semantic_sets file (questions for --cost)")
    ap.add_argument("--cutoffs", default="0,0.05,0.1,0.2,0.3")
    ap.add_argument("--min-others", type=int, default=1)
    args = ap.parse_args(argv)
    cutoffs = [float(c) for c in args.cutoffs.split(",")]
    stand = StandIn(args.min_others)
    if args.ranks:
        quality(stand, [(Path(a), Path(b)) for a, b in (r.split("=", 1) for r in args.ranks)], cutoffs)
    if args.cost is not None:
        cost(stand, args.cost, args.queries, cutoffs)
    stand.restore()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
