"""Reader search quality on known-item queries: okf_sphinx (keyword and smart modes),
Sphinx's built-in search and Pagefind 1.6, over the same built sites, in one run.

Known items come from each site's own cross-references, read from the build's pickled
doctrees and environment (not from the markup): every ``:ref:`` / ``{ref}`` /
``:doc:`` / MyST link (``pending_xref`` with ``refexplicit``) whose text the author
wrote, plus, on the PEPs, links to another PEP whose text is not just "PEP N".  The
query is the link text; the known item is the page (docname) of the referenced label
or document.  A text that points to different pages is dropped, as is a link to its
own page (the text is then on the target page by construction).  A hash of the query
text splits the set into two fixed halves: ``tune`` (choose constants here) and
``held-out`` (report it; never tune to it).

Page-level metrics over the first 10 distinct pages of each system's answer:
MRR@10, P@1 and found@10.  Section-level engines (okf keyword mode, Sphinx) are read
as a reader sees them: pages in the order of their first result.

Section level, okf smart only: which of the known item's page's sections the link
leads to (a label's section, an object's, a fragment's; a ``:doc:`` link or a label
without an id leads to the whole page, found at the page's first hit), and its rank
among the first 10 hits the answer shows (page 1's hits, then page 2's, …):
MRR@10 and found@10, once per ``--sub-hit-floor`` value (``SUB_HIT_FLOOR``, which
decides how many of a page's sections are hits; the page ranking must not move).

Usage::

    python bench/bench_quality.py [--corpus sphinx,myst,peps] [--work DIR] [--reuse]
    python bench/bench_quality.py --systems "okf smart" --sub-hit-floor 0,0.5,0.7

``sphinx`` fetches Sphinx 9.0.4's docs (../shared/corpora/get-sphinx-docs.sh) and
builds them with okf_sphinx (bench/sphinx_driver.py --okf), ``myst`` builds
../shared/corpora/myst/docs; ``peps`` reads an existing okf_sphinx build of
../shared/corpora/peps (``--peps-html`` / ``--peps-doctrees``, and ``--peps-okf``
when the okf_sphinx index of those PEPs was written elsewhere; building the PEPs
takes 25+ minutes, so this script never does).  Pagefind is installed with npm into
bench/node_modules and indexes each site's HTML offline.  Outputs: a markdown table
per corpus on stdout, the query sets and per-query ranks under bench/results/quality/.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPORA = ROOT.parent / "shared" / "corpora"
if not CORPORA.is_dir():
    CORPORA = Path("/work/shared/corpora")
PAGEFIND_VERSION = "1.6.0"
SYSTEMS = ("okf keyword", "okf smart", "sphinx", "pagefind")
TOP = 10


# -- sites ---------------------------------------------------------------------------

def build(src: Path, out: Path, doctrees: Path, log: Path) -> None:
    """An okf_sphinx build of ``src`` (the project's conf.py, okf_sphinx appended)."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(doctrees, ignore_errors=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(HERE / "sphinx_driver.py"), "--okf", "-j", "2", "-q", "-b", "html",
           # Sphinx's own search (searchindex.js) is one of the systems compared: keep it
           "-D", "nitpicky=0", "-D", "okf_search_replace_builtin=0", "-d", str(doctrees), str(src), str(out)]
    with log.open("w", encoding="utf-8") as fh:
        subprocess.run(cmd, check=True, stdout=fh, stderr=subprocess.STDOUT, env=dict(os.environ))


def site_for(corpus: str, work: Path, args: argparse.Namespace) -> tuple[Path, Path] | None:
    """(html, doctrees) of ``corpus``, built unless ``--reuse`` finds a finished build."""
    if corpus == "peps":
        html, doctrees = Path(args.peps_html), Path(args.peps_doctrees)
        if not (html / "searchindex.js").is_file() or not (doctrees / "environment.pickle").is_file():
            print(f"peps: no finished build at {html} (+ {doctrees}); skipped", file=sys.stderr)
            return None
        return html, doctrees
    html, doctrees = work / corpus / "html", work / corpus / "doctrees"
    if args.reuse and (html / "_okf" / "manifest.js").is_file() and (doctrees / "environment.pickle").is_file():
        return html, doctrees
    if corpus == "sphinx":
        src_root = work / "src" / "sphinx"
        if not (src_root / "doc" / "conf.py").is_file():
            subprocess.run(["bash", str(CORPORA / "get-sphinx-docs.sh"), str(src_root)], check=True)
        src = src_root / "doc"
    elif corpus == "myst":
        src = CORPORA / "myst" / "docs"
    else:
        raise SystemExit(f"unknown corpus {corpus!r}: use sphinx, myst or peps")
    t0 = time.monotonic()
    print(f"{corpus}: building with okf_sphinx ...", file=sys.stderr, flush=True)
    build(src, html, doctrees, work / corpus / "build.log")
    print(f"{corpus}: built in {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    return html, doctrees


# -- known items ---------------------------------------------------------------------

_PEP_URI = re.compile(r"(?:^|/)pep-(\d+)(?:\.html|/|$|#)")
_JUST_PEP = re.compile(r"(?i)pep\s*\d+")


def norm(text: str) -> str:
    return " ".join(text.split())


_OBJECT_TYPES = {  # (domain, role) -> the domain's object key
    ("std", "confval"): "confval", ("std", "option"): "cmdoption", ("std", "event"): "event",
    ("std", "envvar"): "envvar", ("std", "term"): "term",
    ("rst", "dir"): "directive", ("rst", "role"): "role",
}


def known_items(doctrees: Path) -> list[dict[str, Any]]:
    """Every (link text, target page) pair of the site's own cross-references.

    ``kind`` says what the link is: ``link`` (the author wrote the text: ``:ref:`` /
    ``:doc:`` / MyST links with explicit text, and links to another PEP whose text is
    not just "PEP N"), ``title`` (a ``:ref:`` / ``:doc:`` without text: the reader
    sees the target's title) or ``object`` (a role naming an API object, configuration
    value, option, event, term, directive or role documented on this site).

    ``section`` says which of the page's sections the link leads to (the section-level
    metric, :func:`section_rank`): ``None`` for a whole page (``:doc:``, a PEP link
    without a fragment, a label with no id), else ``{"heading", "anchors"}``: a label's
    ``sectname`` (its std-domain entry) and ids — the ``labelid`` and the ids of the
    section that holds it —, an object's node id, a fragment's id and its section's ids.
    """
    from docutils import nodes
    from sphinx import addnodes
    from sphinx.util import docname_join

    env = pickle.loads((doctrees / "environment.pickle").read_bytes())
    std = env.domaindata["std"]
    labels, anonlabels = std["labels"], std["anonlabels"]
    std_objects = std.get("objects", {})
    rst_objects = env.domaindata.get("rst", {}).get("objects", {})
    py_objects = env.domaindata.get("py", {}).get("objects", {})
    docs = set(env.found_docs)
    holders: dict[str, dict[str, tuple[list[str], str]]] = {}

    def holder(docname: str, node_id: str) -> tuple[list[str], str]:
        """(ids, title) of the section that holds the element ``node_id`` of ``docname``."""
        if docname not in holders:
            ids: dict[str, tuple[list[str], str]] = {}
            path = doctrees / f"{docname}.doctree"
            tree = pickle.loads(path.read_bytes()) if path.is_file() else None
            for node in tree.findall(nodes.Element) if tree is not None else ():
                sec = node
                while sec is not None and not isinstance(sec, nodes.section):
                    sec = sec.parent
                if sec is not None:
                    title = sec[0].astext() if len(sec) and isinstance(sec[0], nodes.title) else ""
                    for i in node.get("ids", ()):
                        ids.setdefault(i, (list(sec["ids"]), norm(title)))
            holders[docname] = ids
        return holders[docname].get(node_id, ([], ""))

    def label_target(target: str) -> tuple[str | None, dict[str, Any] | None]:
        hit = labels.get(target) or anonlabels.get(target)
        if not hit:
            return None, None
        docname, labelid = hit[0], hit[1]
        if not labelid:
            return docname, None
        sec_ids, title = holder(docname, labelid)
        sectname = norm(hit[2]) if len(hit) > 2 else ""
        return docname, {"heading": sectname or title, "anchors": [labelid, *sec_ids]}

    def object_target(domain: str, role: str, target: str) -> tuple[str | None, dict[str, Any] | None]:
        if domain == "py":
            target = target.lstrip("~.")
            hit = py_objects.get(target)
            if hit is None:
                ends = [v for k, v in py_objects.items() if k.endswith("." + target)]
                hit = ends[0] if len(ends) == 1 else None
            return (hit.docname, {"heading": "", "anchors": [hit.node_id]}) if hit is not None else (None, None)
        key = _OBJECT_TYPES.get((domain, role))
        if key is None:
            return None, None
        table = std_objects if domain == "std" else rst_objects
        hit = table.get((key, target)) or table.get((key, target.lower()))
        return (hit[0], {"heading": "", "anchors": [hit[1]]}) if hit else (None, None)

    def fragment_target(docname: str, fragment: str) -> dict[str, Any] | None:
        if not fragment:
            return None
        sec_ids, title = holder(docname, fragment)
        return {"heading": title, "anchors": [fragment, *sec_ids]}

    items: list[dict[str, Any]] = []
    for docname in sorted(docs):
        path = doctrees / f"{docname}.doctree"
        if not path.is_file():
            continue
        tree = pickle.loads(path.read_bytes())
        for node in tree.findall(addnodes.pending_xref):
            role, target = node.get("reftype"), node.get("reftarget", "")
            domain, explicit = node.get("refdomain"), bool(node.get("refexplicit"))
            text, kind, section = norm(node.astext()), "link" if explicit else "title", None
            if domain == "std" and role == "ref":
                page, section = label_target(target)
                if not explicit:
                    hit = labels.get(target)
                    text = norm(hit[2]) if hit else ""
            elif domain == "std" and role == "doc":
                page = docname_join(node.get("refdoc", docname), target)
                if not explicit:
                    title = env.titles.get(page)
                    text = norm(title.astext()) if title is not None else ""
            elif role == "myst" and explicit:  # MyST [text](target): a label or a document
                page, section = label_target(target.lower())
                if page is None:
                    page, section = label_target(target)
                if page is None:
                    bare, _, fragment = target.partition("#")
                    bare = re.sub(r"\.(md|rst)$", "", bare)
                    page = docname_join(node.get("refdoc", docname), bare) if bare else None
                    section = fragment_target(page, fragment) if page in docs else None
            elif domain in ("py", "std", "rst"):
                (page, section), kind = object_target(domain, role, target), "object"
            else:
                continue
            if page in docs and text:
                items.append({"query": text, "target": page, "source": docname, "kind": kind, "section": section})
        for node in tree.findall(nodes.reference):
            m = _PEP_URI.search(node.get("refuri", ""))
            text = norm(node.astext())
            if m and not _JUST_PEP.fullmatch(text):
                page = f"pep-{int(m.group(1)):04d}"
                if page in docs:
                    section = fragment_target(page, node.get("refuri", "").partition("#")[2])
                    items.append({"query": text, "target": page, "source": docname, "kind": "link",
                                  "section": section})
    return items


def query_set(items: list[dict[str, str]]) -> list[dict[str, str]]:
    """One item per (text, page); texts that name two pages and self-links dropped."""
    pages: dict[str, set[str]] = {}
    first: dict[tuple[str, str], dict[str, str]] = {}
    for item in items:
        if item["target"] == item["source"] or not re.search(r"\w", item["query"]):
            continue
        key = item["query"].casefold()
        pages.setdefault(key, set()).add(item["target"])
        first.setdefault((key, item["target"]), item)
    out = []
    for (key, _target), item in sorted(first.items()):
        if len(pages[key]) == 1:
            out.append({**item, "half": half(item["query"])})
    return out


def half(query: str) -> str:
    return "tune" if hashlib.sha256(query.casefold().encode("utf-8")).digest()[0] % 2 == 0 else "held-out"


# -- systems -------------------------------------------------------------------------

def distinct_pages(pages: list[str]) -> list[str]:
    seen: list[str] = []
    for p in pages:
        if p not in seen:
            seen.append(p)
            if len(seen) == TOP:
                break
    return seen


def url_page(url: str) -> str:
    """A site-relative page URL (``/a/b.html#x``) as its docname (``a/b``)."""
    path = url.split("#", 1)[0].split("?", 1)[0].lstrip("/")
    if path.endswith("/") or path == "":
        path += "index.html"
    return path[:-5] if path.endswith(".html") else path


def has_smart_mode(index: Any) -> bool:
    """Does the installed okf_sphinx answer ``mode="smart"`` (issue 7)?"""
    try:
        params = inspect.signature(index.search).parameters
    except (TypeError, ValueError):
        return False
    return "mode" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def okf_rankings(html: Path, items: list[dict[str, Any]], systems: set[str],
                 floors: list[float]) -> tuple[dict[str, list[list[str]] | None], dict[float, list[list[dict[str, Any]]]]]:
    """Page rankings of both okf modes, and smart mode's shown sections per sub-hit floor
    (``SUB_HIT_FLOOR`` set to each value in turn; the page rankings must not move).  Each
    item's ``section`` learns whether the index has a section with one of its anchors."""
    from okf_sphinx import OkfError, open_index

    index = open_index(html)
    queries = [i["query"] for i in items]
    keyword: list[list[str]] | None = None
    if "okf keyword" in systems:
        keyword = []
        for q in queries:
            try:
                hits = index.search(q, limit=100)["hits"]
            except OkfError:
                hits = []
            keyword.append(distinct_pages([h["concept_id"] for h in hits]))
    smart: list[list[str]] | None = None
    sections: dict[float, list[list[dict[str, Any]]]] = {}
    if "okf smart" in systems and has_smart_mode(index):
        from okf_sphinx.engine import smart as engine

        shipped = getattr(engine, "SUB_HIT_FLOOR", None)
        anchors = section_anchors(index)
        indexed = {(page, anchor) for page, anchor in anchors.values()}
        for item in items:
            if item.get("section") is not None:
                item["section"]["indexed"] = any((item["target"], a) in indexed for a in item["section"]["anchors"])
        for floor in floors:
            if shipped is None and floor:
                raise SystemExit("--sub-hit-floor: this okf_sphinx has no SUB_HIT_FLOOR")
            if shipped is not None:
                engine.SUB_HIT_FLOOR = floor
            try:
                answers = smart_answers(index, queries)
            finally:
                if shipped is not None:
                    engine.SUB_HIT_FLOOR = shipped
            ranking = [distinct_pages([p["hits"][0]["concept_id"] if p.get("hits") else url_page(p["url"])
                                       for p in pages]) for pages in answers]
            if smart is not None and ranking != smart:
                raise SystemExit(f"the sub-hit floor {floor} changed the page ranking")
            smart = ranking
            sections[floor] = shown_sections(anchors, answers)
    return {"okf keyword": keyword, "okf smart": smart}, sections


def smart_answers(index: Any, queries: list[str]) -> list[list[dict[str, Any]]]:
    """Each query's smart ``pages`` (limit 10; ``[]`` for a query smart mode refuses)."""
    from okf_sphinx import OkfError

    out = []
    for q in queries:
        try:
            out.append(index.search(q, limit=TOP, mode="smart")["pages"])
        except OkfError:
            out.append([])
    return out


# -- sections as a reader sees them ----------------------------------------------------

def shown_sections(anchors: dict[tuple[str, str], tuple[str, str]],
                   answers: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """Each smart answer flattened in display order (page 1's hits, then page 2's, …), cut
    to its first :data:`TOP` entries: ``{"page", "heading", "anchor", "first"}`` per hit,
    ``first`` when it is its page's first hit.  A hit names its section by locator and
    heading; its anchor comes from ``anchors`` (:func:`section_anchors`)."""
    out = []
    for pages in answers:
        flat = [{"page": h["concept_id"], "heading": norm(h["heading"]), "first": j == 0,
                 "anchor": anchors.get((h["locator"], h["heading"]), ("", ""))[1]}
                for p in pages for j, h in enumerate(p.get("hits", []))]
        out.append(flat[:TOP])
    return out


def section_anchors(index: Any) -> dict[tuple[str, str], tuple[str, str]]:
    """(locator, heading) -> (page, anchor) of every searchable section."""
    anchors: dict[tuple[str, str], tuple[str, str]] = {}
    for sid in range(index.section_count):
        rec = index.section(sid)
        anchors.setdefault((rec["locator"], rec["heading"]), (rec["concept_id"], rec["anchor"]))
    return anchors


def section_match(item: dict[str, Any], entry: dict[str, Any]) -> str | None:
    """How ``entry`` is the known item's section: ``"first"`` (a whole page's known item,
    found at the page's first hit), ``"anchor"`` (the label's id or its section's ids hold
    the hit's anchor), ``"heading"`` (the label's section name is the hit's heading: only
    for a target whose anchors name no section of the index — one heading may stand
    over several sections of a page, an anchor never does), or ``None``."""
    if entry["page"] != item["target"]:
        return None
    section = item.get("section")
    if section is None:
        return "first" if entry["first"] else None
    if section.get("indexed", True):
        return "anchor" if entry["anchor"] and entry["anchor"] in section["anchors"] else None
    return "heading" if section["heading"] and entry["heading"] == section["heading"] else None


def section_rank(item: dict[str, Any], entries: list[dict[str, Any]]) -> int | None:
    """The 1-based position of the known item's section among the shown entries."""
    return next((i + 1 for i, e in enumerate(entries) if section_match(item, e)), None)


def node_lines(cmd: list[str], queries: list[str]) -> list[Any]:
    proc = subprocess.run(cmd, input=json.dumps(queries), capture_output=True, text=True,
                          encoding="utf-8", check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} failed: {proc.stderr[-2000:]}")
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == len(queries), (len(lines), len(queries))
    return lines


def sphinx_rankings(html: Path, queries: list[str]) -> list[list[str]]:
    answers = node_lines(["node", str(HERE / "quality_sphinx.js"), str(html)], queries)
    return [distinct_pages([r[0] for r in a]) for a in answers]


def pagefind_ready() -> bool:
    pkg = HERE / "node_modules" / "pagefind" / "package.json"
    if pkg.is_file() and json.loads(pkg.read_text("utf-8"))["version"] == PAGEFIND_VERSION:
        return True
    subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(HERE),
                    f"pagefind@{PAGEFIND_VERSION}"], check=False, stdout=subprocess.DEVNULL)
    return pkg.is_file()


def pagefind_rankings(html: Path, out: Path, queries: list[str]) -> list[list[str]] | None:
    if not pagefind_ready():
        return None
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(["node", str(HERE / "quality_pagefind.mjs"), "index", str(html), str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    answers = node_lines(["node", str(HERE / "quality_pagefind.mjs"), "query", str(out)], queries)
    return [distinct_pages([url_page(u) for u in a]) for a in answers]


# -- metrics -------------------------------------------------------------------------

def rank_of(target: str, pages: list[str]) -> int | None:
    return pages.index(target) + 1 if target in pages else None


def metrics(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    return {
        "mrr@10": sum(1 / r for r in ranks if r) / n,
        "p@1": sum(1 for r in ranks if r == 1) / n,
        "found@10": sum(1 for r in ranks if r) / n,
    }


GROUPS = (("sections", ("link", "title")), ("objects", ("object",)), ("all", ("link", "title", "object")))


def groups(items: list[dict[str, Any]], table: tuple[tuple[str, tuple[str, ...]], ...] = GROUPS) -> list[tuple[str, str, list[int]]]:
    """(group, half, the items' indexes) for every query group (``table``: name, kinds) and half that has items."""
    out = []
    for group, kinds in table:
        for which in ("tune", "held-out"):
            chosen = [i for i, item in enumerate(items) if item["half"] == which and item["kind"] in kinds]
            if chosen:
                out.append((group, which, chosen))
    return out


def table(corpus: str, items: list[dict[str, Any]], rankings: dict[str, list[list[str]] | None],
          systems: tuple[str, ...] = SYSTEMS, rows: list[tuple[str, str, list[int]]] | None = None) -> str:
    """One row per query group and half (``rows``, default :func:`groups`); each cell is
    MRR@10 / P@1 / found@10 of one of ``systems``."""
    lines = [f"### {corpus}", "", "MRR@10 / P@1 / found@10, page level", "",
             "| queries | half | n | " + " | ".join(systems) + " |", "|---|---|---:|" + "---|" * len(systems)]
    for group, which, chosen in groups(items) if rows is None else rows:
        cells = []
        for system in systems:
            ranked = rankings.get(system)
            if ranked is None:
                cells.append("n/a")
                continue
            m = metrics([rank_of(items[i]["target"], ranked[i]) for i in chosen])
            cells.append(f"{m['mrr@10']:.3f} / {m['p@1']:.3f} / {m['found@10']:.3f}")
        lines.append(f"| {group} | {which} | {len(chosen)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def section_metrics(items: list[dict[str, Any]], shown: list[list[dict[str, Any]]],
                    chosen: list[int]) -> dict[str, float]:
    m = metrics([section_rank(items[i], shown[i]) for i in chosen])
    return {"mrr@10": m["mrr@10"], "found@10": m["found@10"]}


def section_table(corpus: str, items: list[dict[str, Any]], sections: dict[float, list[list[dict[str, Any]]]]) -> str:
    """Smart mode at section level, one column per sub-hit floor: MRR@10 / found@10 of the
    known item's section among the first 10 hits shown (pages' hits in display order)."""
    floors = list(sections)
    lines = [f"### {corpus}: sections shown by okf smart", "",
             "MRR@10 / found@10 of the known item's section among the first 10 hits shown, per SUB_HIT_FLOOR", "",
             "| queries | half | n | " + " | ".join(f"R = {r:g}" for r in floors) + " |",
             "|---|---|---:|" + "---|" * len(floors)]
    for group, which, chosen in groups(items):
        cells = []
        for r in floors:
            m = section_metrics(items, sections[r], chosen)
            cells.append(f"{m['mrr@10']:.3f} / {m['found@10']:.3f}")
        lines.append(f"| {group} | {which} | {len(chosen)} | " + " | ".join(cells) + " |")
    how: dict[str, int] = {}
    first = sections[floors[0]]
    for i, item in enumerate(items):
        rank = section_rank(item, first[i])
        if rank is not None:
            kind = section_match(item, first[i][rank - 1]) or ""
            how[kind] = how.get(kind, 0) + 1
    targets = {"page": 0, "anchor": 0, "heading": 0}
    for item in items:
        section = item.get("section")
        targets["page" if section is None else "anchor" if section.get("indexed", True) else "heading"] += 1
    lines += ["", "targets: " + ", ".join(f"{k} {v}" for k, v in targets.items())
              + f"; found (R = {floors[0]:g}) by: " + ", ".join(f"{k} {v}" for k, v in sorted(how.items()))]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="sphinx,myst,peps", help="comma-separated: sphinx, myst, peps")
    ap.add_argument("--work", default=str(HERE / "results" / "quality"), help="builds and outputs")
    ap.add_argument("--reuse", action="store_true", help="reuse finished builds under --work")
    ap.add_argument("--peps-html", default="/work/peps/html")
    ap.add_argument("--peps-doctrees", default="/work/peps/doctrees")
    ap.add_argument("--peps-okf", default=None,
                    help="the okf_sphinx index of the same PEPs, when --peps-html is a build without it")
    ap.add_argument("--systems", default=",".join(SYSTEMS),
                    help="comma-separated subset of: " + ", ".join(SYSTEMS) + " (e.g. 'okf smart' while tuning)")
    ap.add_argument("--sub-hit-floor", default=None,
                    help="comma-separated SUB_HIT_FLOOR values for the section-level table of okf smart "
                         "(default: the engine's own); the page ranking must be the same for each")
    args = ap.parse_args(argv)
    systems = {s.strip() for s in args.systems.split(",") if s.strip()}
    if not systems <= set(SYSTEMS):
        raise SystemExit(f"unknown system(s) {sorted(systems - set(SYSTEMS))}: use {', '.join(SYSTEMS)}")
    if args.sub_hit_floor is None:
        from okf_sphinx.engine import smart as engine

        floors = [float(getattr(engine, "SUB_HIT_FLOOR", 0.0))]
    else:
        try:
            floors = [float(r) for r in args.sub_hit_floor.split(",") if r.strip()]
        except ValueError:
            raise SystemExit(f"--sub-hit-floor: comma-separated numbers, got {args.sub_hit_floor!r}") from None
        if not floors or not all(0 <= r <= 1 for r in floors):
            raise SystemExit(f"--sub-hit-floor: numbers from 0 to 1, got {args.sub_hit_floor!r}")
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {}
    combined: list[dict[str, Any]] = []
    combined_rank: dict[str, list[list[str]] | None] = {s: [] for s in SYSTEMS}
    combined_sections: dict[float, list[list[dict[str, Any]]]] | None = {r: [] for r in floors}
    for corpus in [c.strip() for c in args.corpus.split(",") if c.strip()]:
        site = site_for(corpus, work, args)
        if site is None:
            continue
        html, doctrees = site
        items = query_set(known_items(doctrees))
        queries = [i["query"] for i in items]
        print(f"{corpus}: {len(items)} known-item queries", file=sys.stderr, flush=True)
        okf_dir = Path(args.peps_okf) if corpus == "peps" and args.peps_okf else html
        if (okf_dir / "_okf" / "manifest.js").is_file() or (okf_dir / "manifest.js").is_file():
            rankings, sections = okf_rankings(okf_dir, items, systems, floors)
        else:  # a plain Sphinx build: only Sphinx and Pagefind
            print(f"{corpus}: no okf_sphinx index at {okf_dir}; okf columns n/a", file=sys.stderr)
            rankings, sections = {"okf keyword": None, "okf smart": None}, {}
        rankings["sphinx"] = sphinx_rankings(html, queries) if "sphinx" in systems else None
        rankings["pagefind"] = (
            pagefind_rankings(html, work / corpus / "pagefind", queries) if "pagefind" in systems else None
        )
        print(table(corpus, items, rankings) + "\n", flush=True)
        if sections:
            print(section_table(corpus, items, sections) + "\n", flush=True)
        per_query = [
            {**item, "ranks": {s: (rank_of(item["target"], r[i]) if r is not None else None)
                               for s, r in rankings.items()},
             "section_ranks": {f"{r:g}": section_rank(item, shown[i]) for r, shown in sections.items()}}
            for i, item in enumerate(items)
        ]
        (work / f"{corpus}-queries.json").write_text(json.dumps(per_query, indent=1, ensure_ascii=False), "utf-8")
        summary[corpus] = {
            "queries": len(items), "html": str(html),
            "metrics": {
                f"{group} {which}": {
                    system: (None if rankings[system] is None else metrics([
                        rank_of(item["target"], rankings[system][i])  # type: ignore[index]
                        for i, item in enumerate(items) if item["half"] == which and item["kind"] in kinds
                    ]))
                    for system in SYSTEMS
                }
                for group, kinds in GROUPS for which in ("tune", "held-out")
            },
            "section_metrics": {  # okf smart, per SUB_HIT_FLOOR
                f"{group} {which}": {f"{r:g}": section_metrics(items, shown, chosen) for r, shown in sections.items()}
                for group, which, chosen in groups(items)
            },
        }
        combined.extend(items)
        if combined_sections is not None and sections:
            for r in floors:
                combined_sections[r] = combined_sections[r] + sections[r]
        else:
            combined_sections = None
        for s in SYSTEMS:
            r = rankings.get(s)
            combined_rank[s] = None if r is None or combined_rank[s] is None else combined_rank[s] + r  # type: ignore[operator]
    if len(summary) > 1:
        print(table("all corpora", combined, combined_rank) + "\n", flush=True)
        if combined_sections:
            print(section_table("all corpora", combined, combined_sections) + "\n", flush=True)
    (work / "summary.json").write_text(json.dumps(summary, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
