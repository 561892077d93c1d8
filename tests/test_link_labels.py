"""Link labels (okf_sphinx/engine/link_labels.py, docs/smart.md "Link labels"), on real builds:
the words of a link to another page count less in smart mode on the page that holds them, on
MkDocs and Sphinx (RST and MyST) sites; keyword mode answers as if they were not stored;
Python and the Node runtime answer alike; an index without the counts still answers, and
counts that do not fit the posting lists are ``index_corrupt`` in both engines."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from support.build import build_html, same_build, write_project
from support.mkdocs_sites import built_mkdocs_project

import okf_sphinx
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import OkfError

FILLER = "Plan the trip with the keepers and the vets. " * 4
PAGES = {
    "index.md": "# Home\n\nStart here.\n",
    # the words are the labels (and addresses) of links to walrus.md, and one link to this page
    "guide.md": "# Guide\n\nBefore you begin, read the [walrus migration notes](walrus.md) and the "
                "[walrus migration steps](walrus.md#steps); this page is [about](#guide) care in general.\n",
    "walrus.md": "# Moving tusked animals\n\n" + FILLER + "The walrus migration is the hard part: a walrus "
                 "migration takes weeks.\n\n## Steps\n\n" + "Load the crates, check the water. " * 20 + "\n",
}
QUERIES = ("walrus migration", "walrus", "migration notes", "guide", "walrus migration steps", "\"walrus migration\"")


def label_counts(site: Path) -> dict[str, dict[int, int]]:
    """``term → {sid: count}`` as the build stored them in the stem groups."""
    out: dict[str, dict[int, int]] = {}
    for path in sorted((site / "_okf" / "t").glob("*.js")):
        name = f"t/{path.stem}"
        if "-" in path.stem:
            continue  # a large posting list's own file
        for group in fmt.unwrap(name, path.read_bytes())["groups"].values():
            for term, text in (group[3].items() if len(group) > 3 else ()):
                flat = fmt.decode_ints(text)
                sid, counts = 0, {}
                for i in range(0, len(flat), 2):
                    sid = flat[i] if i == 0 else sid + flat[i]
                    counts[sid] = flat[i + 1]
                out[term] = counts
    return out


def without_labels(site: Path, target: Path) -> Path:
    """A copy of the built site whose stem groups hold no label counts (as an older build's)."""
    shutil.copytree(site, target)
    for path in sorted((target / "_okf" / "t").glob("*.js")):
        name = f"t/{path.stem}"
        shard = fmt.unwrap(name, path.read_bytes())
        if isinstance(shard, dict) and any(len(g) > 3 for g in shard["groups"].values()):
            shard["groups"] = {k: g[:3] for k, g in shard["groups"].items()}
            path.write_bytes(same_build(name, shard, path))
    return target


def order(site: Path, query: str, **options: Any) -> list[str]:
    answer = okf_sphinx.open_index(site).search(query, limit=10, mode="smart", **options)
    return [p["concept_id"] for p in answer["pages"]]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_mkdocs_project(tmp_path_factory.mktemp("labels"), PAGES)


def test_mkdocs_counts_the_labels_and_addresses_of_links_to_other_pages(site: Path) -> None:
    index = okf_sphinx.open_index(site)
    guide = next(s["sid"] for n in range(len(index.concepts())) for s in index.page(n)["sections"]
                 if index.page(n)["concept_id"] == "guide")
    counts = label_counts(site)
    # two links to walrus.md: "walrus" in each label and each address; "about" leads to this page
    assert counts["walrus"] == {guide: 4} and counts["migration"] == {guide: 2}
    assert counts["notes"] == {guide: 1} and counts["steps"] == {guide: 2}
    assert "about" not in counts and "guide" not in counts


def test_the_linked_page_comes_before_the_page_that_links_to_it(site: Path, tmp_path: Path) -> None:
    assert order(site, "walrus migration") == ["walrus", "guide"]
    assert order(site, "walrus") == ["walrus", "guide"]
    old = without_labels(site, tmp_path / "old")
    assert order(old, "walrus migration") == ["guide", "walrus"]  # what the counts change
    # keyword mode (the contract) reads no count: the same answers with or without them
    for q in QUERIES:
        assert okf_sphinx.open_index(old).search(q) == okf_sphinx.open_index(site).search(q), q


@pytest.mark.node
def test_node_gives_the_same_answers_with_and_without_counts(site: Path, tmp_path: Path) -> None:
    from support.node import python_answer, run_node, same

    old = without_labels(site, tmp_path / "old")
    requests = [{"query": q, "mode": mode, **extra} for q in QUERIES for mode in ("smart", "keyword")
                for extra in ({}, {"prefix": True}, {"limit": 1})]
    for folder in (site, old):
        index = okf_sphinx.open_index(folder)
        for request, js in zip(requests, run_node(folder / "_okf", requests)):
            assert same(js, python_answer(index, request)) is None, (folder, request)


@pytest.mark.node
def test_counts_that_do_not_fit_the_postings_are_index_corrupt(site: Path, tmp_path: Path) -> None:
    from support.node import run_node

    for bad in ("AF", "AEB", "BE"):  # more than the section holds; an odd list; a sid without the term
        broken = tmp_path / bad
        shutil.copytree(site, broken)
        index = okf_sphinx.open_index(broken)
        path = broken / "_okf" / (index.shard_of("walrus") + ".js")
        name = index.shard_of("walrus")
        shard = fmt.unwrap(name, path.read_bytes())
        shard["groups"]["walrus"][3]["walrus"] = bad
        path.write_bytes(same_build(name, shard, path))
        with pytest.raises(OkfError) as err:
            okf_sphinx.open_index(broken).search("walrus", mode="smart")
        assert err.value.code == "index_corrupt", bad
        js = run_node(broken / "_okf", [{"query": "walrus", "mode": "smart"}])[0]
        assert js["error"]["code"] == "index_corrupt", (bad, js)
        assert okf_sphinx.open_index(broken).search("walrus")["hits"]  # keyword mode reads no count


def test_sphinx_counts_the_explicit_titles_of_references_to_other_pages(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   guide\n   walrus\n   notes\n",
        "guide.rst": "Guide\n=====\n\nRead :doc:`the walrus migration notes <walrus>`, then :ref:`walrus migration "
                     "steps <steps>`, and :doc:`walrus`; the `walrus crates <walrus.html>`_ too.  The section "
                     ":ref:`walrus care here <guide-here>` is this page's.\n\n.. _guide-here:\n\nHere\n----\n\n"
                     "Walrus care.\n",
        "walrus.rst": "Moving tusked animals\n=====================\n\n" + FILLER + "The walrus migration is the hard "
                      "part.\n\n.. _steps:\n\nSteps\n-----\n\nLoad the crates.\n",
        "notes.md": "# Notes\n\nSee [the walrus migration](walrus.rst) and [](walrus.rst).\n",
    })
    html = build_html(src)
    index = okf_sphinx.open_index(html)
    first = {index.page(n)["concept_id"]: index.page(n)["sections"][0]["sid"] for n in range(len(index.concepts()))}
    counts = label_counts(html)
    # guide: "walrus" in two explicit titles and one hyperlink's text; the implicit :doc:`walrus`
    # shows the target's heading, which the source does not hold; the last :ref: is to this page
    assert counts["walrus"][first["guide"]] == 3
    assert counts["migration"][first["guide"]] == 2 and counts["steps"][first["guide"]] == 1
    assert "care" not in counts and "here" not in counts
    # MyST: an explicit text counts; ``[](walrus.rst)`` has none of its own
    assert counts["walrus"][first["notes"]] == 1 and counts["migration"][first["notes"]] == 1
    assert order(html, "walrus migration")[0] == "walrus"
