"""The MkDocs quality harness (bench/bench_quality_mkdocs.py): its known items read from a
real MkDocs build's rendered links, and Material's own search worker driven in Node (Pagefind
needs npm and is exercised by running the bench)."""

from __future__ import annotations

from pathlib import Path

import pytest

import bench_quality as bq
import bench_quality_mkdocs as bqm
from support.mkdocs_sites import build_env, write_mkdocs_project
from support.node import require_node

pytestmark = pytest.mark.slow  # runs the MkDocs quality harness against Material's search in Node

ROOT = Path(__file__).resolve().parent.parent

PAGES = {
    "index.md": (
        "# Home\n\nRead [how retries back off](guide/retry.md#back-off) and the [API pages][api].\n\n"
        "Also [here](guide/retry.md), [guide/retry.md](guide/retry.md), <https://example.org/x>,\n"
        "[https://example.org](https://example.org) and [a file](files/data.txt).\n\n"
        "[api]: api.md\n"
    ),
    "guide/retry.md": (
        "# Retry\n\n## Back off\n\nRetries wait longer each time; see [back off](#back-off) and\n"
        "[Retry rules](retry.md) (links to their own page).\n\n"
        "The [frobnicator reference](../api.md \"title\") has it all.\n"
    ),
    "api.md": "# API\n\nThe frobnicator API lives here. [Back-off **rules**](guide/retry.md#back-off).\n",
    "notes.md": "# Notes\n\nAmbiguous: [details](guide/retry.md) and [details](api.md).\n",
    "files/data.txt": "not a page\n",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("quality-mkdocs")
    project = write_mkdocs_project(root / "p", PAGES, "theme:\n  name: material\nplugins:\n  - search\n")
    site = root / "site"
    links = bqm.build(project, site, env=build_env())
    return site, links


def test_known_items_from_the_rendered_links(built: tuple[Path, Path]) -> None:
    _site, links = built
    items = bqm.known_items(links)
    got = {(i["query"], i["target"], i["source"]) for i in items}
    assert got == {
        ("how retries back off", "guide/retry", "index"),   # inline link with an anchor -> its page
        ("API pages", "api", "index"),                      # reference-style link
        ("frobnicator reference", "api", "guide/retry"),    # a relative link with a title
        ("Back-off rules", "guide/retry", "api"),           # markup inside the text is dropped
    }, got  # pointer words, URLs, paths, self-links, in-page links, files and ambiguous texts are dropped
    assert all(i["half"] == bq.half(i["query"]) and i["kind"] == "link" for i in items)
    by_query = {i["query"]: i for i in items}
    assert by_query["how retries back off"]["section"] == {"heading": "", "anchors": ["back-off"]}  # the link's #anchor
    assert by_query["API pages"]["section"] is None  # a whole page


def test_worded_and_config_rewrite() -> None:
    assert bqm.worded("Setting up site search")
    assert not any(bqm.worded(t) for t in ("here", "This", "https://x.org/a", "www.x.org", "setup/index.md",
                                           "changelog.md", "../a/b", " — "))
    text = bqm.okf_config("site_name: x\nplugins:\n  - search\nhooks:\n  - h.py\n", Path("/b/hook.py"))
    assert text == ("site_name: x\nplugins:\n  - okf:\n      replace_builtin: false\n  - search\n"
                    "hooks:\n  - /b/hook.py\n  - h.py\n")
    assert [g for g, keep in bqm.GROUPS if keep({"query": "9.0.6", "heading": False})] == ["all", "not a heading"]
    assert bqm.okf_config("site_name: x\n", Path("/b/hook.py")).endswith(
        "plugins:\n  - search\n  - okf:\n      replace_builtin: false\nhooks:\n  - /b/hook.py\n")


def test_material_search_and_okf_rank_pages(built: tuple[Path, Path]) -> None:
    require_node()
    site, links = built
    import json

    keys = bqm.page_of_url(json.loads(links.read_text("utf-8"))["urls"])
    assert keys == {"": "index", "guide/retry": "guide/retry", "api": "api", "notes": "notes"}
    queries = ["frobnicator", "retries wait longer", "zzzznothing"]
    material = bqm.material_rankings(site, queries, keys)
    assert material is not None
    assert material[0][0] == "api" and material[1][0] == "guide/retry" and material[2] == []
    okf, _sections = bq.okf_rankings(site, [{"query": q} for q in queries], {"okf smart", "okf keyword"}, [0.0])
    assert okf["okf smart"] is not None and okf["okf smart"][0][0] == "api" and okf["okf smart"][2] == []
    assert okf["okf keyword"] is not None and okf["okf keyword"][1][0] == "guide/retry"
    items = [{"query": "Back  OFF", "target": "guide/retry"}, {"query": "back off", "target": "api"},
             {"query": "retries wait", "target": "guide/retry"}]
    bqm.mark_headings(items, site)
    assert [i["heading"] for i in items] == [True, False, False]
