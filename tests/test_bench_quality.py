"""The quality harness (bench/bench_quality.py): its known items and its Sphinx runner,
on a small real build (Pagefind needs npm and is exercised by running the bench)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import sphinx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "js"))
import bench_quality as bq  # noqa: E402
from conftest import sphinx_build, write_project  # noqa: E402
from okf_js import require_node  # noqa: E402

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
    ranked = bq.okf_rankings(html, ["frobnicator", "retry policy"], {"okf keyword"})
    assert ranked["okf keyword"] is not None
    assert ranked["okf keyword"][0] == ["api"]
    assert ranked["okf keyword"][1][0] == "guide"
