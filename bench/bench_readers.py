"""What readers actually type: misspelled known items and questions, answered by okf_sphinx's
smart mode beside Sphinx's search and Pagefind 1.6 (and, on a MkDocs site, Material's own
search), over one build of each site, in one run.

Query sets (each split in bench_quality's two fixed halves by a hash of the query: choose
constants on ``tune``, report ``held-out``):

- ``typos``: bench_quality's known items (bench_quality_mkdocs's on a MkDocs site) with one
  typo in the query's longest word (:func:`misspell`); each is measured against the same
  query spelled right, so the table says how much of the spelled-right MRR@10 a typo keeps;
- ``headings``: the site's section headings as a reader asks for them (:func:`as_question`):
  "how do I …", "what is …", "… example", "… guide"; the target is the heading's page
  (headings found on several pages, object entries and headings of more than 8 words are
  left out; at most ``--per-set`` of them, chosen by hash);
- ``links``: the link texts authors wrote between pages (bench_quality's ``link`` kind),
  rephrased the same way; the target is the link's page;
- ``faq``: the titles of the site's FAQ entries (bench_semantic.faq, Sphinx sites);
- ``hand-written``: bench/semantic_sets' readers' questions, written by hand for pages picked
  before any search (bench_semantic.questions): never tuned to — reported whole.

The typo generator (:func:`misspell`, seeded by a hash of the query, so a query always gets
the same typo): the query's longest term of letters only (4 code points or more; the first
of equal length) gets one edit — deletion of a letter, insertion of a QWERTY neighbour of
the letter beside it, substitution of a letter by a QWERTY neighbour, or transposition of
two different adjacent letters — chosen with equal odds, at a uniform position.  Queries
with no such word are left out.  The questions' templates (:data:`TEMPLATES`) wrap the
lower-cased text in question words and stop words, or add a word the target page may not
hold ("guide", "example", "reference", "tutorial").

Systems: ``okf smart`` (the Python API, limit 10, as bench_quality asks), ``okf as typed``
(the same with ``correct=False``: misspelt words searched as written), ``sphinx``
(searchindex.js in Node), ``pagefind`` and, on a MkDocs site, ``material``.  Page MRR@10 and
found@10 over the first 10 distinct pages.

Usage::

    python bench/bench_readers.py --corpus sphinx,myst [--reuse] [--mkdocs] [--systems ...]
    python bench/bench_readers.py --corpus sphinx,myst --reuse --mkdocs --systems "okf smart" \\
        --grid "words.COVERAGE_POWER=1,2,3;words.MIN_COVERAGE=0.5,0.7"     # tune halves only

Sites are bench_quality's (``--work``, ``--reuse``, ``--peps-*``) and bench_quality_mkdocs'
(``--mkdocs-work``).  Outputs: markdown tables on stdout, the queries with their ranks in
``<work>/readers-<corpus>.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import itertools
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_quality as bq  # noqa: E402
import bench_quality_mkdocs as bqm  # noqa: E402
import bench_semantic as bs  # noqa: E402

SETS = ("typos", "headings", "links", "faq", "hand-written", "known items")
QUESTION_SETS = ("headings", "links", "faq", "hand-written")
MIN_TYPO_WORD = 4

# -- the typo generator ----------------------------------------------------------------

_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def keyboard_neighbours() -> dict[str, str]:
    """QWERTY neighbours of each lower-case letter: left and right on its row, and the keys
    touching it on the rows above and below (the rows are staggered by half a key)."""
    out: dict[str, str] = {}
    for r, row in enumerate(_ROWS):
        for c, ch in enumerate(row):
            near = [row[c - 1] if c > 0 else "", row[c + 1] if c + 1 < len(row) else ""]
            if r > 0:
                up = _ROWS[r - 1]
                near += [up[c] if c < len(up) else "", up[c + 1] if c + 1 < len(up) else ""]
            if r + 1 < len(_ROWS):
                down = _ROWS[r + 1]
                near += [down[c - 1] if 0 < c <= len(down) else "", down[c] if c < len(down) else ""]
            out[ch] = "".join(n for n in near if n)
    return out


NEIGHBOURS = keyboard_neighbours()


def _neighbour(rng: random.Random, ch: str) -> str:
    near = NEIGHBOURS.get(ch.lower())
    return rng.choice(near) if near else rng.choice("abcdefghijklmnopqrstuvwxyz")


def typo(word: str, rng: random.Random) -> tuple[str, str]:
    """``(misspelt word, edit)``: one edit of ``word`` (see the module's docstring)."""
    n = len(word)
    op = rng.choice(("deletion", "insertion", "substitution", "transposition"))
    if op == "transposition":
        spots = [i for i in range(n - 1) if word[i] != word[i + 1]]
        if not spots:
            op = "deletion"
        else:
            i = rng.choice(spots)
            return word[:i] + word[i + 1] + word[i] + word[i + 2:], op
    if op == "deletion":
        i = rng.randrange(n)
        return word[:i] + word[i + 1:], op
    if op == "insertion":
        i = rng.randrange(n + 1)
        beside = word[i] if i < n else word[n - 1]
        return word[:i] + _neighbour(rng, beside) + word[i:], op
    i = rng.randrange(n)
    return word[:i] + _neighbour(rng, word[i]) + word[i + 1:], op


_LETTERS = re.compile(r"[^\W\d_]+")


def misspell(query: str) -> dict[str, str] | None:
    """The query with one typo in its longest word of letters (``None`` when it has none of
    :data:`MIN_TYPO_WORD` code points or more): ``{"query", "word", "typo", "edit"}``."""
    words = [m for m in _LETTERS.finditer(query) if len(m.group()) >= MIN_TYPO_WORD]
    if not words:
        return None
    best = max(words, key=lambda m: (len(m.group()), -m.start()))
    rng = random.Random(hashlib.sha256(("typo:" + query).encode("utf-8")).digest())
    wrong, edit = typo(best.group(), rng)
    return {"query": query[: best.start()] + wrong + query[best.end():], "word": best.group(), "typo": wrong,
            "edit": edit}


# -- questions -------------------------------------------------------------------------

#: How a reader turns a heading or a link text into a query: question words and stop words
#: around it, or a word the target page may not hold.
TEMPLATES = (
    "how do I {x}", "how to {x}", "what is {x}", "what are {x}", "what does {x} do", "how does {x} work",
    "why is {x} not working", "where can I find {x}", "can I use {x} in my project", "is there a way to {x}",
    "{x} example", "{x} guide", "{x} reference", "{x} tutorial", "help with {x}", "{x}?",
)


def as_question(text: str) -> str:
    rng = random.Random(hashlib.sha256(("question:" + text).encode("utf-8")).digest())
    return rng.choice(TEMPLATES).format(x=bq.norm(text).lower().rstrip("?.:"))


def _pick(items: list[dict[str, Any]], n: int, salt: str) -> list[dict[str, Any]]:
    return sorted(items, key=lambda i: hashlib.sha256((salt + i["query"]).encode("utf-8")).digest())[:n]


def heading_questions(index: Any, per_set: int) -> list[dict[str, Any]]:
    """Headings (and page titles) found on one page only, as questions; the target their page."""
    pages: dict[str, set[str]] = {}
    for sid in range(index.section_count):
        rec = index.section(sid)
        if rec.get("kind", "section") != "section":
            continue
        for text in (rec["heading"], rec["title"]):
            text = bq.norm(text or "")
            if 2 <= len(text) and len(text.split()) <= 8 and re.search(r"[^\W\d_]{3}", text):
                pages.setdefault(text.casefold(), set()).add(rec["concept_id"])
    items = []
    for key, where in sorted(pages.items()):
        if len(where) == 1:
            q = as_question(key)
            items.append({"query": q, "from": key, "targets": [(next(iter(where)), None)], "half": bq.half(q),
                          "set": "headings"})
    return _pick(items, per_set, "headings")


def link_questions(known: list[dict[str, Any]], per_set: int) -> list[dict[str, Any]]:
    items = []
    seen = set()
    for item in known:
        if item["kind"] != "link" or len(item["query"].split()) > 8:
            continue
        q = as_question(item["query"])
        if q.casefold() in seen:
            continue
        seen.add(q.casefold())
        items.append({"query": q, "from": item["query"], "targets": [(item["target"], None)], "half": bq.half(q),
                      "set": "links"})
    return _pick(items, per_set, "links")


def typo_items(known: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for item in known:
        wrong = misspell(item["query"])
        if wrong is None:
            continue
        # the half of the spelled-right query: a typo never moves a query between halves
        out.append({"query": wrong["query"], "right": item["query"], "word": wrong["word"], "typo": wrong["typo"],
                    "edit": wrong["edit"], "targets": [(item["target"], None)], "half": item["half"], "set": "typos"})
    return out


# -- systems ---------------------------------------------------------------------------

def okf_pages(index: Any, queries: list[str], correct: bool = True) -> list[list[str]]:
    from okf_sphinx import OkfError

    out = []
    for q in queries:
        try:
            pages = index.search(q, limit=bq.TOP, mode="smart", **({} if correct else {"correct": False}))["pages"]
        except OkfError:
            pages = []
        out.append(bq.distinct_pages([p["concept_id"] for p in pages]))
    return out


def page_rank(item: dict[str, Any], pages: list[str]) -> int | None:
    wanted = {p for p, _h in item["targets"]}
    return next((i + 1 for i, p in enumerate(pages) if p in wanted), None)


class Site:
    """One built site and every query asked of it: each system's ranked pages per query."""

    def __init__(self, name: str, index: Any, items: list[dict[str, Any]], others: dict[str, Any]) -> None:
        self.name, self.index, self.items, self.others = name, index, items, others

    def queries(self) -> list[str]:
        """Every query text: the items', and the typos' spelled-right queries."""
        out = [i["query"] for i in self.items]
        out += [i["right"] for i in self.items if i["set"] == "typos"]
        return list(dict.fromkeys(out))

    def ranks(self, systems: set[str], items: list[dict[str, Any]] | None = None) -> dict[str, dict[str, list[str]]]:
        """``system → query → pages`` for ``items`` (default all)."""
        chosen = self.items if items is None else items
        qs = list(dict.fromkeys([i["query"] for i in chosen] + [i["right"] for i in chosen if i["set"] == "typos"]))
        out: dict[str, dict[str, list[str]]] = {}
        if "okf smart" in systems:
            out["okf smart"] = dict(zip(qs, okf_pages(self.index, qs)))
        if "okf as typed" in systems:  # smart mode with correct=false: the misspelt words as written
            out["okf as typed"] = dict(zip(qs, okf_pages(self.index, qs, correct=False)))
        for system, run in self.others.items():
            if system in systems:
                got = run(qs)
                if got is not None:
                    out[system] = dict(zip(qs, got))
        return out


def sphinx_site(corpus: str, work: Path, args: argparse.Namespace, per_set: int) -> Site | None:
    from okf_sphinx import open_index

    site = bq.site_for(corpus, work, args)
    if site is None:
        return None
    html, doctrees = site
    okf_dir = Path(args.peps_okf) if corpus == "peps" and args.peps_okf else html
    index = open_index(okf_dir)
    known = bq.query_set(bq.known_items(doctrees))
    items = (typo_items(known) + heading_questions(index, per_set) + link_questions(known, per_set)
             + bs.faq(doctrees) + [{**i, "set": "hand-written"} for i in bs.questions(corpus)]
             + bs.as_known(known, "known items"))
    pf = work / corpus / "pagefind-readers"
    others = {"sphinx": lambda qs: bq.sphinx_rankings(html, qs),
              "pagefind": lambda qs: bq.pagefind_rankings(html, pf, qs)}
    return Site(corpus, index, items, others)


def mkdocs_site(work: Path, reuse: bool, per_set: int) -> Site:
    import os
    import shutil

    from okf_sphinx import open_index

    project, site, links = work / "src", work / "site", work / bqm.LINKS_FILE
    if not (reuse and (site / "_okf" / "manifest.js").is_file() and links.is_file()):
        shutil.rmtree(project, ignore_errors=True)
        shutil.copytree(bq.CORPORA / "material", project, ignore=shutil.ignore_patterns("site", ".cache", "__pycache__"))
        print("material: building with okf ...", file=sys.stderr, flush=True)
        links = bqm.build(project, site, "mkdocs.yml", dict(os.environ))
    index = open_index(site)
    known = bqm.known_items(links)
    keys = bqm.page_of_url(json.loads(links.read_text("utf-8"))["urls"])
    items = (typo_items(known) + heading_questions(index, per_set) + link_questions(known, per_set)
             + bs.as_known(known, "known items"))
    others = {"material": lambda qs: bqm.material_rankings(site, qs, keys),
              "pagefind": lambda qs: bqm.pagefind_rankings(site, work / "pagefind-readers", qs, keys)}
    return Site("material", index, items, others)


# -- tables ----------------------------------------------------------------------------

def mrr(items: list[dict[str, Any]], ranked: dict[str, list[str]], key: str = "query") -> tuple[float, int]:
    ranks = [page_rank(i, ranked.get(i[key], [])) for i in items]
    m = bq.metrics(ranks)
    return m["mrr@10"], sum(1 for r in ranks if r)


def typo_table(title: str, items: list[dict[str, Any]], ranked: dict[str, dict[str, list[str]]]) -> str:
    systems = list(ranked)
    lines = [f"### {title}: one typo in the longest word", "",
             "MRR@10 spelled right → with the typo (kept %)", "",
             "| half | n | " + " | ".join(systems) + " |", "|---|---:|" + "---|" * len(systems)]
    for which in ("tune", "held-out", "all"):
        chosen = [i for i in items if i["set"] == "typos" and which in ("all", i["half"])]
        if not chosen:
            continue
        cells = []
        for s in systems:
            right, _f = mrr(chosen, ranked[s], "right")
            wrong, _f = mrr(chosen, ranked[s])
            cells.append(f"{right:.3f} → {wrong:.3f} ({100 * wrong / right if right else 0:.0f} %)")
        lines.append(f"| {which} | {len(chosen)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def question_table(title: str, items: list[dict[str, Any]], ranked: dict[str, dict[str, list[str]]],
                   sets: tuple[str, ...] = QUESTION_SETS + ("known items",)) -> str:
    systems = list(ranked)
    lines = [f"### {title}: questions", "", "page MRR@10 / found@10 (count)", "",
             "| set | half | n | " + " | ".join(systems) + " |", "|---|---|---:|" + "---|" * len(systems)]
    for name in sets:
        for which in ("tune", "held-out", "all"):
            chosen = [i for i in items if i["set"] == name and which in ("all", i["half"])]
            if not chosen or (which == "all" and name not in ("hand-written", "faq")):
                continue
            cells = []
            for s in systems:
                value, found = mrr(chosen, ranked[s])
                cells.append(f"{value:.3f} / {found}")
            lines.append(f"| {name} | {which} | {len(chosen)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -- the grid --------------------------------------------------------------------------

def parse_grid(spec: str) -> list[tuple[Any, str, list[Any]]]:
    """``"words.A=1,2;spelling.B=0.5"`` → ``[(module, name, values)]`` (engine modules)."""
    out = []
    for part in [p.strip() for p in spec.split(";") if p.strip()]:
        target, _, values = part.partition("=")
        mod, _, name = target.strip().rpartition(".")
        module = importlib.import_module(f"okf_sphinx.engine.{mod}")
        if not hasattr(module, name):
            raise SystemExit(f"--grid: okf_sphinx.engine.{mod} has no {name}")
        out.append((module, name, [json.loads(v) for v in values.split(",")]))
    return out


def grid(sites: list[Site], spec: str) -> None:
    """Every point of the grid over the tune halves: page MRR@10 per set (pooled over sites),
    the typos' kept share, and the mean of the reader sets."""
    axes = parse_grid(spec)
    shipped = [(m, n, getattr(m, n)) for m, n, _v in axes]
    rows = []
    try:
        for values in itertools.product(*[v for _m, _n, v in axes]):
            for (m, n, _vs), v in zip(axes, values):
                setattr(m, n, v)
            per: dict[str, list[float]] = {}
            right_all: list[float] = []
            for site in sites:
                tune = [i for i in site.items if i["half"] == "tune" and i["set"] != "hand-written"]
                ranked = site.ranks({"okf smart"}, tune)["okf smart"]
                for i in tune:
                    r = page_rank(i, ranked.get(i["query"], []))
                    per.setdefault(i["set"], []).append(1 / r if r else 0.0)
                    if i["set"] == "typos":
                        r2 = page_rank(i, ranked.get(i["right"], []))
                        right_all.append(1 / r2 if r2 else 0.0)
            means = {k: sum(v) / len(v) for k, v in per.items() if v}
            kept = (sum(per.get("typos", [])) / sum(right_all)) if right_all and sum(right_all) else 0.0
            questions = [x for k in ("headings", "links", "faq") for x in per.get(k, [])]
            rows.append((sum(questions) / max(1, len(questions)), kept, values, means))
    finally:
        for m, n, v in shipped:
            setattr(m, n, v)
    rows.sort(key=lambda r: (-r[0], -r[1]))
    names = [f"{m.__name__.rsplit('.', 1)[1]}.{n}" for m, n, _v in axes]
    sets = list(rows[0][3]) if rows else []
    print("| " + " | ".join(names) + " | questions | typos kept | " + " | ".join(sets) + " |")
    print("|" + "---|" * (len(names) + 2 + len(sets)))
    for q, kept, values, means in rows:
        print("| " + " | ".join(json.dumps(v) for v in values) + f" | {q:.4f} | {100 * kept:.1f} % | "
              + " | ".join(f"{means[s]:.3f}" for s in sets) + " |")
    print("shipped:", {f"{m.__name__}.{n}": v for m, n, v in shipped})


# -- main ------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="sphinx,myst", help="comma-separated: sphinx, myst, peps ('' for none)")
    ap.add_argument("--mkdocs", action="store_true", help="also Material for MkDocs' docs (bench_quality_mkdocs' build)")
    ap.add_argument("--work", default=str(HERE / "results" / "quality"))
    ap.add_argument("--mkdocs-work", default=str(HERE / "results" / "quality-mkdocs"))
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--peps-html", default="/work/peps/html")
    ap.add_argument("--peps-doctrees", default="/work/peps/doctrees")
    ap.add_argument("--peps-okf", default=None)
    ap.add_argument("--per-set", type=int, default=300, help="heading and link questions per site (default 300)")
    ap.add_argument("--systems", default="okf smart,okf as typed,sphinx,pagefind,material")
    ap.add_argument("--grid", default=None, help="engine constants to try over the tune halves (okf smart only)")
    args = ap.parse_args(argv)
    systems = {s.strip() for s in args.systems.split(",") if s.strip()}
    work = Path(args.work).resolve()
    sites: list[Site] = []
    for corpus in [c.strip() for c in args.corpus.split(",") if c.strip()]:
        site = sphinx_site(corpus, work, args, args.per_set)
        if site is not None:
            sites.append(site)
    if args.mkdocs:
        sites.append(mkdocs_site(Path(args.mkdocs_work).resolve(), args.reuse, args.per_set))
    for site in sites:
        counts = ", ".join(f"{n} {sum(1 for i in site.items if i['set'] == n)}" for n in SETS)
        print(f"{site.name}: {counts}", file=sys.stderr, flush=True)
    if args.grid:
        grid(sites, args.grid)
        return 0
    pooled_items: list[dict[str, Any]] = []
    pooled: dict[str, dict[str, list[str]]] = {}
    for site in sites:
        ranked = site.ranks(systems)
        print(typo_table(site.name, site.items, ranked) + "\n", flush=True)
        print(question_table(site.name, site.items, ranked) + "\n", flush=True)
        out = [{**{k: v for k, v in i.items() if k != "section"},
                "ranks": {s: page_rank(i, r.get(i["query"], [])) for s, r in ranked.items()},
                **({"right_ranks": {s: page_rank(i, r.get(i["right"], [])) for s, r in ranked.items()}}
                   if i["set"] == "typos" else {})} for i in site.items]
        (work / f"readers-{site.name}.json").write_text(json.dumps(out, indent=1, ensure_ascii=False), "utf-8")
        # pool the Sphinx corpora (the same systems); prefix queries with the site, as they
        # may repeat across sites
        if site.name != "material":
            for i in site.items:
                pooled_items.append({**i, "query": site.name + "\0" + i["query"],
                                     **({"right": site.name + "\0" + i["right"]} if "right" in i else {})})
            for s, r in ranked.items():
                pooled.setdefault(s, {}).update({site.name + "\0" + q: p for q, p in r.items()})
    if len([s for s in sites if s.name != "material"]) > 1:
        complete = {s: r for s, r in pooled.items() if all(i["query"] in r for i in pooled_items)}
        print(typo_table("Sphinx corpora pooled", pooled_items, complete) + "\n", flush=True)
        print(question_table("Sphinx corpora pooled", pooled_items, complete) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
