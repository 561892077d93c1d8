"""One search, the right section, few bytes (issue 23 point 4): an agent that calls
``search_sections`` once (5 hits) and then ``get_section`` on the hit it reads.

Known items are bench/bench_quality.py's (a site's own cross-references: the link text is
the query, the section it leads to is the target), split into its fixed ``tune`` and
``held-out`` halves.  For each item and each way of asking (below) the bench counts:

* **section in 5**: the target section is among the first 5 hits the answer shows (smart
  mode: page 1's hits, then page 2's, …), matched as bench_quality matches sections;
* **page in 5**: the target page is among the pages of those hits;
* **bytes**: the JSON the agent receives (the MCP text content, ``answer_json``) for the
  search, plus for ``get_section`` of the first hit (by its locator and page; where that is
  ambiguous, the refusal and then the read by page and heading).

Ways of asking (``--ways``; each names the mode, the search's ``limit`` and how the hit is read):

* ``keyword``: keyword mode, limit 5, the hit read with its subsections (the default);
* ``keyword+alone``: the same, the hit read alone (``include_subsections=false``);
* ``smart``: smart mode, limit 5 pages, read with subsections;
* ``smart+alone``: smart mode, limit 5, read alone;
* ``smart3+alone``: smart mode, limit 3 pages, read alone (what the MCP server's instructions advise);
* ``smart2+alone``: smart mode, limit 2 pages, read alone.

Usage: ``python bench/bench_one_search.py [--corpus myst] [--work DIR] [--reuse] [--json FILE]``
(the site is built as bench_quality builds it; ``--reuse`` keeps a finished build).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import okf_sphinx  # noqa: E402
from bench_quality import known_items, norm, query_set, section_anchors, section_match, site_for  # noqa: E402
from okf_sphinx.agent.answers import answer_size  # noqa: E402
from okf_sphinx.agent.dispatch import call_tool  # noqa: E402
from okf_sphinx.core.errors import OkfError  # noqa: E402

HITS = 5
WAYS = {  # name -> (mode, search limit, include_subsections)
    "keyword": ("keyword", 5, True),
    "keyword+alone": ("keyword", 5, False),
    "smart": ("smart", 5, True),
    "smart+alone": ("smart", 5, False),
    "smart3+alone": ("smart", 3, False),
    "smart2+alone": ("smart", 2, False),
}


def shown(answer: dict[str, Any], anchors: dict[tuple[str, str], tuple[str, str]]) -> list[dict[str, Any]]:
    """The answer's first :data:`HITS` hits as bench_quality's section entries, with their locators."""
    if answer.get("mode") == "smart":
        flat = [(h, j == 0) for p in answer["pages"] for j, h in enumerate(p.get("hits", []))]
    else:
        seen: set[str] = set()
        flat = []
        for h in answer["hits"]:
            flat.append((h, h["concept_id"] not in seen))
            seen.add(h["concept_id"])
    return [{"page": h["concept_id"], "heading": norm(h["heading"]), "raw_heading": h["heading"], "first": first,
             "locator": h["locator"],
             "anchor": anchors.get((h["locator"], h["heading"]), ("", ""))[1]} for h, first in flat[:HITS]]


def read_size(index: Any, entry: dict[str, Any], subtree: bool) -> int:
    """The bytes of reading a hit: by locator and page; where several sections of the page share
    that locator (objects one directive rendered) the refusal, then by page and heading."""
    size = 0
    for arguments in ({"locator": entry["locator"]}, {"heading": entry["raw_heading"]}):
        try:
            return size + answer_size(call_tool(index, "get_section", {**arguments, "concept_id": entry["page"],
                                                                       "include_subsections": subtree}))
        except OkfError as err:
            size += answer_size(err.envelope)
    return size


def ask(index: Any, item: dict[str, Any], way: str, anchors: dict[tuple[str, str], tuple[str, str]]) -> dict[str, Any]:
    mode, limit, subtree = WAYS[way]
    try:
        answer = call_tool(index, "search_sections", {"query": item["query"], "limit": limit, "mode": mode})
    except OkfError as err:
        return {"section": False, "page": False, "bytes": answer_size(err.envelope)}
    entries = shown(answer, anchors)
    size = answer_size(answer)
    if entries:
        size += read_size(index, entries[0], subtree)
    return {"section": any(section_match(item, e) for e in entries),
            "page": any(e["page"] == item["target"] for e in entries), "bytes": size}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="myst")
    ap.add_argument("--work", type=Path, default=HERE / "results" / "one_search")
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--ways", default=",".join(WAYS))
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    report: dict[str, Any] = {}
    for corpus in args.corpus.split(","):
        html, doctrees = site_for(corpus, args.work, args)
        items = query_set(known_items(doctrees))
        index = okf_sphinx.open_index(html)
        anchors = section_anchors(index)
        report[corpus] = {}
        print(f"\n{corpus}: {len(items)} known items "
              f"({sum(i['half'] == 'held-out' for i in items)} held out)")
        print(f"  {'way':<15}{'half':<10}{'n':>5}{'section in 5':>14}{'page in 5':>11}{'median bytes':>14}")
        for way in args.ways.split(","):
            runs = [(item["half"], ask(index, item, way, anchors)) for item in items]
            report[corpus][way] = {}
            for part in ("tune", "held-out"):
                rows = [r for h, r in runs if h == part]
                n = len(rows) or 1
                row = {"n": len(rows), "section_in_5": sum(r["section"] for r in rows) / n,
                       "page_in_5": sum(r["page"] for r in rows) / n,
                       "median_bytes": statistics.median(r["bytes"] for r in rows) if rows else 0}
                report[corpus][way][part] = row
                print(f"  {way:<15}{part:<10}{row['n']:>5}{row['section_in_5']:>14.1%}{row['page_in_5']:>11.1%}"
                      f"{row['median_bytes'] / 1024:>11.1f} KiB")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
