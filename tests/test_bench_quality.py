"""The quality harness (bench/bench_quality.py): its known items and its Sphinx runner,
on a small real build (Pagefind needs npm and is exercised by running the bench)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sphinx

import bench_quality as bq
from support.build import sphinx_build, write_project
from support.node import require_node

pytestmark = pytest.mark.slow  # runs the quality harness against Sphinx's search in Node

ROOT = Path(__file__).resolve().parent.parent

FILES = {
    "index.rst": (
        "Home\n====\n\n.. toctree::\n\n   guide\n   api\n   notes\n\n"
        "Read :ref:`how retries back off <retry-policy>` and :doc:`the API pages <api>`.\n"
        "Also :ref:`retry-policy` and :confval:`retry_limit`.\n"
    ),
    "guide.rst": (
        "Guide\n=====\n\n.. _retry-policy:\n\nRetry policy\n------------\n\n"
        "Retries wait longer each time. See :ref:`this page <retry-policy>` (a self-link).\n\n"
        ".. confval:: retry_limit\n\n   How often to retry.\n"
    ),
    "api.rst": "API\n===\n\nThe frobnicator API lives here. :ref:`Back-off rules <retry-policy>`.\n",
    "notes.rst": (
        "Notes\n=====\n\nAmbiguous: :ref:`details <retry-policy>` and :doc:`details <api>`.\n"
        "A dangling :ref:`missing text <no-such-label>`.\n"
    ),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("quality")
    src = write_project(root / "src", FILES)
    (src / "conf.py").write_text(
        (src / "conf.py").read_text("utf-8")
        + "okf_search_replace_builtin = False  # Sphinx's searchindex.js is compared too\n"
        + "def setup(app):\n    app.add_object_type('confval', 'confval')\n",
        "utf-8",
    )
    out, doctrees = root / "html", root / "doctrees"
    sphinx_build(src, out, "-d", str(doctrees), check=False)
    return out, doctrees


def test_known_items_from_the_doctrees(site: tuple[Path, Path]) -> None:
    _html, doctrees = site
    items = bq.query_set(bq.known_items(doctrees))
    got = {(i["query"], i["target"], i["kind"]) for i in items}
    assert got == {
        ("how retries back off", "guide", "link"),   # explicit :ref: text -> the label's page
        ("the API pages", "api", "link"),             # explicit :doc: text
        ("Back-off rules", "guide", "link"),
        ("Retry policy", "guide", "title"),           # implicit :ref: -> the section title
        ("retry_limit", "guide", "object"),           # a role naming a documented object
    }, got  # self-links, ambiguous texts ("details") and unresolved labels are dropped
    assert {i["half"] for i in items} <= {"tune", "held-out"}
    assert all(i["half"] == bq.half(i["query"]) for i in items)


def test_halves_are_a_fixed_function_of_the_text() -> None:
    queries = [f"query {n}" for n in range(400)]
    halves = [bq.half(q) for q in queries]
    assert halves == [bq.half(q) for q in queries]
    assert 150 < halves.count("tune") < 250
    assert bq.half("Retry Policy") == bq.half("retry policy")


def test_metrics_and_page_mapping() -> None:
    assert bq.url_page("/a/b.html#x") == "a/b"
    assert bq.url_page("/") == "index"
    assert bq.url_page("/dir/") == "dir/index"
    assert bq.distinct_pages(["a", "a", "b"]) == ["a", "b"]
    m = bq.metrics([1, 2, None, 10])
    assert m == {"mrr@10": (1 + 0.5 + 0.1) / 4, "p@1": 0.25, "found@10": 0.75}


@pytest.mark.skipif(sphinx.version_info < (7, 3), reason="the harness drives Search._parseQuery, new in Sphinx 7.3 "
                    "(the benchmark runs on the newest Sphinx; older releases are covered by the rest of the suite)")
def test_sphinx_search_runs_in_node(site: tuple[Path, Path]) -> None:
    require_node()
    html, _doctrees = site
    pages = bq.sphinx_rankings(html, ["frobnicator", "retries wait longer", "zzzznothing"])
    assert pages[0][0] == "api"
    assert pages[1][0] == "guide"
    assert pages[2] == []


def test_okf_keyword_pages(site: tuple[Path, Path]) -> None:
    html, _doctrees = site
    ranked, sections = bq.okf_rankings(html, [{"query": "frobnicator"}, {"query": "retry policy"}], {"okf keyword"}, [0.0])
    assert ranked["okf keyword"] is not None and ranked["okf smart"] is None and sections == {}
    assert ranked["okf keyword"][0] == ["api"]
    assert ranked["okf keyword"][1][0] == "guide"


def test_section_targets(site: tuple[Path, Path]) -> None:
    _html, doctrees = site
    by_query = {i["query"]: i for i in bq.query_set(bq.known_items(doctrees))}
    # a label: its std-domain section name, its id and the ids of the section that holds it
    label = by_query["how retries back off"]["section"]
    assert label["heading"] == "Retry policy" and label["anchors"][0] == "retry-policy"
    assert by_query["Retry policy"]["section"] == label
    assert by_query["the API pages"]["section"] is None  # :doc: -> the whole page
    assert by_query["retry_limit"]["section"] == {"heading": "", "anchors": ["confval-retry_limit"]}


def test_sections_shown_in_display_order(site: tuple[Path, Path]) -> None:
    html, doctrees = site
    items = [i for i in bq.query_set(bq.known_items(doctrees)) if i["query"] in ("Retry policy", "the API pages")]
    items[items.index(next(i for i in items if i["query"] == "the API pages"))] = {
        "query": "frobnicator API", "target": "api", "section": None}  # a page's words: found by its first hit
    ranked, sections = bq.okf_rankings(html, items, {"okf smart"}, [0.0, 1.0])
    assert ranked["okf smart"] is not None and set(sections) == {0.0, 1.0}
    assert all(i["section"] is None or i["section"]["indexed"] for i in items)  # the label's section is in the index
    for shown in sections.values():
        for item, entries in zip(items, shown):
            assert 1 <= len(entries) <= bq.TOP and [e["first"] for e in entries].count(True) == len({e["page"] for e in entries})
            assert bq.section_rank(item, entries) is not None
    # the rank of the known item's section among the hits shown: page 1's hits, then page 2's …
    retry = next(i for i in items if i["query"] == "Retry policy")
    api = next(i for i in items if i["target"] == "api")
    entries = [{"page": "guide", "heading": "Guide", "anchor": "guide", "first": True},
               {"page": "guide", "heading": "Retry policy", "anchor": "retry-policy", "first": False},
               {"page": "api", "heading": "Other", "anchor": "other", "first": False},
               {"page": "api", "heading": "API", "anchor": "api", "first": True}]
    assert bq.section_rank(retry, entries) == 2 and bq.section_match(retry, entries[1]) == "anchor"
    assert bq.section_rank(api, entries) == 4  # a whole page: its first hit, not any hit of it
    assert bq.section_rank(retry, entries[:1]) is None
    # a target whose anchors name no indexed section falls back to its heading
    loose = {**retry, "section": {**retry["section"], "anchors": ["gone"], "indexed": False}}
    assert bq.section_rank(loose, entries) == 2 and bq.section_match(loose, entries[1]) == "heading"


def test_typing_cuts_the_last_word_and_answers_with_prefixes(site: tuple[Path, Path]) -> None:
    """bench_typing.py: a query as typed so far keeps its last word's first letters (only words
    with two letters still to type count), and okf smart mode with ``prefix`` completes it."""
    import bench_typing as bt

    import okf_sphinx

    assert bt.typed("how retries back off", 3) is None  # "off" is no longer than 3 + 1 letters
    assert bt.typed("Back-off rules", 3) == "Back-off rul"
    assert bt.typed("frobnicator", 4) == "frob"
    assert bt.typed("the API pages.", 3) == "the API pag"
    index = okf_sphinx.open_index(site[0])
    with_prefix, whole = bt.smart_pages(index, ["frob"], True), bt.smart_pages(index, ["frob"], False)
    assert with_prefix == [["api"]] and whole == [[]]  # "frob" completes to frobnicator; as a word it is nowhere
