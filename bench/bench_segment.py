"""How to split Chinese and Japanese words for smart mode, measured: character pairs
(okf_sphinx/core/segment.py), pairs plus single characters, and a dictionary segmenter
(jieba's ``cut_for_search`` for Chinese — what Sphinx's Chinese search uses —, Sphinx's
own default Japanese splitter, TinySegmenter, for Japanese), against no splitting at all
(okf before), on the builds of bench/bench_quality_langs.py.

For each variant the okf index of the finished build is rebuilt from its pickled
doctrees (as bench/reindex_doctrees.py does) with ``segment.units`` replaced by the
variant's, in this process; the same function splits the queries.  Reported per
variant: okf smart's page MRR@10 / found@10 on the tune and held-out halves (known items
and the hand-written words of bench/langs_queries.json), the index's bytes (raw and
gzip, all of ``_okf/`` and its ``t/`` posting shards) and cold-query bytes: for each
query a fresh engine with an empty cache answers it (smart, limit 10) and the gzip size
of every index file it reads is summed (median, 90th percentile, max).

Usage::

    python bench/bench_segment.py [--corpus cookbook-zh,kumaroot-ja] [--work bench/results/quality-langs]
        [--variants none,pairs,pairs+chars,dict]

Run bench_quality_langs.py first (it builds the sites).  ``dict`` needs jieba (Chinese).
"""

from __future__ import annotations

import argparse
import gzip
import json
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_quality as bq  # noqa: E402
import bench_quality_langs as bql  # noqa: E402

VARIANTS = ("none", "pairs", "pairs+chars", "dict")


def dictionary_units(language: str) -> Callable[[str], list[tuple[int, str]]]:
    """``units`` with CJK parts cut by a dictionary segmenter: jieba (zh), TinySegmenter (ja)."""
    from okf_sphinx.core import segment

    if language.startswith("zh"):
        import jieba

        jieba.setLogLevel(60)

        def cut(part: str) -> list[str]:
            return [w for w in jieba.cut_for_search(part) if w.strip()]
    else:
        from sphinx.search.ja import DefaultSplitter

        splitter = DefaultSplitter({})

        def cut(part: str) -> list[str]:
            return [w for w in splitter.split(part) if w.strip()]

    def units(term: str) -> list[tuple[int, str]]:
        if not segment.has_cjk(term):
            return [(0, term)]
        out: list[tuple[int, str]] = []
        for at, part, cjk in segment.parts(term):
            if not cjk:
                out.append((at, part))
                continue
            for w in cut(part):
                out.append((at + max(part.find(w), 0), w))
        return out

    return units


def pairs_and_chars(term: str) -> list[tuple[int, str]]:
    """Pairs, and every character of a CJK part on its own as well."""
    from okf_sphinx.core import segment

    out = _pairs(term)
    if not segment.has_cjk(term):
        return out
    singles = [(at + i, part[i]) for at, part, cjk in segment.parts(term) if cjk and len(part) > 1 for i in range(len(part))]
    return sorted(out + singles, key=lambda u: (u[0], len(u[1])))


_pairs: Callable[[str], list[tuple[int, str]]]


def reindex(html: Path, doctrees: Path, out: Path) -> dict[str, Any]:
    """The okf index of a finished build, rebuilt from its doctrees into ``out/_okf``."""
    from sphinx.util.docutils import LoggingReporter

    from okf_sphinx.capture.sphinx.collector import page_title
    from okf_sphinx.capture.sphinx.sections import split_document
    from okf_sphinx.core.hosts import SPHINX
    from okf_sphinx.core.records import CapturedFile, excluded
    from okf_sphinx.writer.disk import write_index
    from okf_sphinx.writer.index_writer import Site, build_index, source_root
    from okf_sphinx.writer.limits import resolve_limits
    from okf_sphinx.writer.smart_index import DEFAULT_WEIGHTS, check_weights, page_meta, page_prior

    env = pickle.loads((doctrees / "environment.pickle").read_bytes())
    records = []
    for docname in sorted(env.all_docs):
        doctree = pickle.loads((doctrees / f"{docname}.doctree").read_bytes())
        doctree.settings.env = env
        doctree.reporter = LoggingReporter(str(env.doc2path(docname)))
        main = Path(env.doc2path(docname)).resolve()
        records.append(split_document(docname, page_title(env, doctree, docname), not excluded(docname, []), doctree,
                                      [CapturedFile.read(main)], Path(env.srcdir)))
    weights = check_weights(DEFAULT_WEIGHTS)
    site = Site(host=SPHINX, builder="html", page_url=lambda d: d + ".html", anchor_ok=lambda e: True, search_page="search.html",
                language=env.config.language or "en",
                page_prior=lambda d: page_prior(d, weights, env.metadata.get(d, {})),
                page_meta=lambda d: page_meta(env.metadata.get(d, {})))
    files = build_index(records, source_root(records, Path(env.srcdir), None), site, resolve_limits("default", SPHINX))
    out.mkdir(parents=True, exist_ok=True)
    write_index(out / "_okf", files, SPHINX)
    return files["manifest"]


def sizes(okf: Path) -> dict[str, int]:
    out = {"raw": 0, "gzip": 0, "files": 0, "t_raw": 0, "t_gzip": 0}
    for f in okf.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            g = len(gzip.compress(data, 9))
            out["raw"] += len(data)
            out["gzip"] += g
            out["files"] += 1
            if f.relative_to(okf).parts[0] == "t":
                out["t_raw"] += len(data)
                out["t_gzip"] += g
    return out


def cold_bytes(okf: Path, queries: list[str]) -> list[int]:
    """Per query: gzip bytes of every index file a fresh engine reads for one smart answer."""
    from okf_sphinx import OkfError
    from okf_sphinx.engine.index import Index
    from okf_sphinx.engine.source import DiskSource

    gz: dict[str, int] = {}
    out = []
    for q in queries:
        seen: list[str] = []
        disk = DiskSource(okf)

        class Tracing:
            def read(self, name: str) -> bytes:
                seen.append(name)
                return disk.read(name)

            def __getattr__(self, attr: str) -> Any:
                return getattr(disk, attr)

        index = Index(Tracing())  # type: ignore[arg-type]
        try:
            index.search(q, limit=10, mode="smart")
        except OkfError:
            pass
        total = 0
        for name in dict.fromkeys(seen):
            if name not in gz:
                gz[name] = len(gzip.compress(disk.read(name), 9))
            total += gz[name]
        out.append(total)
    return out


def pct(values: list[int], p: float) -> int:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, -(-len(ordered) * p // 100) - 1))]


def main(argv: list[str] | None = None) -> int:
    global _pairs
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="cookbook-zh,kumaroot-ja")
    ap.add_argument("--work", default=str(HERE / "results" / "quality-langs"))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args(argv)
    from okf_sphinx.core import segment
    from okf_sphinx.engine import smart as engine

    _pairs = segment.units
    work = Path(args.work).resolve()
    report: dict[str, Any] = {}
    for name in [c.strip() for c in args.corpus.split(",") if c.strip()]:
        spec = bql.CORPORA[name]
        html, doctrees = work / name / "html", work / name / "doctrees"
        if not (doctrees / "environment.pickle").is_file():
            raise SystemExit(f"{name}: no build under {work}: run bench_quality_langs.py --corpus {name} first")
        items = bq.query_set(bq.known_items(doctrees)) + bql.hand_queries(name)
        queries = [i["query"] for i in items]
        rows = []
        for variant in [v.strip() for v in args.variants.split(",") if v.strip()]:
            if variant == "none":
                units = lambda term: [(0, term)]  # noqa: E731
            elif variant == "pairs":
                units = _pairs
            elif variant == "pairs+chars":
                units = pairs_and_chars
            elif variant == "dict":
                units = dictionary_units(spec["language"])
            else:
                raise SystemExit(f"unknown variant {variant!r}: use {', '.join(VARIANTS)}")
            segment.units = units  # the build's and the queries' splitting, in this process
            out = work / name / "variants" / variant
            t0 = time.monotonic()
            reindex(html, doctrees, out)
            took = time.monotonic() - t0
            ranks, _s = bq.okf_rankings(out, items, {"okf smart"}, [engine.SUB_HIT_FLOOR])
            ranked = ranks["okf smart"]
            assert ranked is not None
            cold = cold_bytes(out / "_okf", queries)
            row: dict[str, Any] = {"variant": variant, "build_s": round(took, 1), **sizes(out / "_okf"),
                                   "cold_median": statistics.median(cold), "cold_p90": pct(cold, 90), "cold_max": max(cold)}
            for g, w, chosen in bql.rows(items):
                m = bq.metrics([bq.rank_of(items[i]["target"], ranked[i]) for i in chosen])
                row[f"{g} {w}"] = [round(m["mrr@10"], 3), round(m["found@10"], 3), len(chosen)]
            rows.append(row)
            print(json.dumps({name: row}, ensure_ascii=False), flush=True)
        segment.units = _pairs
        report[name] = rows
        keys = [k for k in rows[0] if " " in k and k.split(" ")[-1] in ("tune", "held-out")]
        print(f"\n### {name}\n\n| variant | " + " | ".join(keys) + " | _okf gzip | t/ gzip | cold median / p90 / max |")
        print("|---|" + "---|" * (len(keys) + 3))
        for r in rows:
            print(f"| {r['variant']} | " + " | ".join(f"{r[k][0]:.3f} / {r[k][1]:.3f}" for k in keys)
                  + f" | {r['gzip'] / 1024:.0f} KiB | {r['t_gzip'] / 1024:.0f} KiB | "
                  f"{r['cold_median'] / 1024:.1f} / {r['cold_p90'] / 1024:.1f} / {r['cold_max'] / 1024:.1f} KiB |")
    (work / "segment-variants.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
