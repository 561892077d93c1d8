"""Link expansion (docs/smart.md, "Link expansion"): the site's own cross-references are
captured per section at build time, written as ``l/<shard>``, and ``expand`` adds the sections
the hits link to, with ``via`` and ``from``, on every surface."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import okf_sphinx
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import json_text
from okf_sphinx.engine.expansion import MAX_EXPANDED
from support.build import index_value, logical_files, page_priors, rewrite_index_value, sphinx_build, write_project, same_build
from support.node import run_node, same
from support.mcp import session_for
from support.parity import api_answer


def link_table(site: Path) -> set[tuple[str, str, str]]:
    """Every written link as (from heading, via, to heading)."""
    index = okf_sphinx.open_index(site)
    out = set()
    for name in sorted(n for n in logical_files(site / "_okf") if n.startswith("l/")):
        for sid, links in index_value(site / "_okf", name).items():
            for to, via in links:
                out.add((index.section(int(sid))["heading"], via, index.section(to)["heading"]))
    return out


def test_every_kind_of_cross_reference_is_captured_and_resolved(links_html: Path) -> None:
    assert link_table(links_html) == {
        ("Handbook", "toctree", "Setup"), ("Handbook", "toctree", "Tuning"), ("Handbook", "toctree", "API"),
        ("Handbook", "toctree", "Notes"),
        ("Widget configuration", "ref", "Knobs"), ("Widget configuration", "doc", "Tuning"),
        ("Widget configuration", "object", "widgets.spin"),
        ("Knobs", "ref", "After setup"),
        ("After setup", "object", "widgets.Widget"),  # :any: to an object
        ("After setup", "object", "torque"),  # :term: to the glossary entry, a section of its own
        ("widgets.spin", "ref", "Knobs"),
        ("widgets.Widget", "object", "widgets.Widget.stop"),
        ("Notes", "doc", "Setup"), ("Notes", "ref", "Knobs"),  # MyST: a link to a file, {ref}
        ("Tuning", "doc", "API"),  # a hyperlink under html_baseurl
        ("Spin notes", "ref", "Troubleshooting"),  # a relative hyperlink with an anchor
    }


def _hit_locators(answer: dict[str, Any]) -> list[str]:
    return [h["locator"] for p in answer["pages"] for h in p["hits"]]


@pytest.mark.parametrize("query", ["widget configuration", "widget spin", "knobs", "handbook", "notes setup", "widget"])
def test_expand_adds_linked_sections_beside_the_unchanged_answer(links_html: Path, query: str) -> None:
    index = okf_sphinx.open_index(links_html)
    plain = index.search(query, 3, mode="smart")
    answer = index.search(query, 3, mode="smart", expand=True)
    assert "expanded" not in plain
    assert list(answer) == ["query", "mode", "terms", "snapshot_revision", "total", "truncated", "pages", "expanded",
                            "suggestions"]
    assert {k: v for k, v in answer.items() if k != "expanded"} == plain  # total and pages unchanged
    table = link_table(links_html)
    hits = _hit_locators(answer)
    heading_of = {index.section(sid)["locator"]: index.section(sid)["heading"] for sid in range(index.section_count)}
    assert len(answer["expanded"]) <= MAX_EXPANDED
    # the order: hits in answer order, each one's links in document order
    assert [hits.index(e["from"]) for e in answer["expanded"]] == sorted(hits.index(e["from"]) for e in answer["expanded"])
    for e in answer["expanded"]:
        assert e["locator"] not in hits
        assert (heading_of[e["from"]], e["via"], e["heading"]) in table
        section = index.get_section(locator=e["locator"], concept_id=e["concept_id"])
        assert section["content_sha256"] == e["content_sha256"]
    assert len({e["locator"] for e in answer["expanded"]}) == len(answer["expanded"])
    expected = [(h, to) for h in hits for (frm, _via, to) in sorted(table) if frm == heading_of[h]]
    assert answer["expanded"] or not [t for _h, t in expected if t not in {heading_of[x] for x in hits}]


def test_expand_of_the_configuration_section(links_html: Path) -> None:
    index = okf_sphinx.open_index(links_html)
    answer = index.search("widget configuration", 1, mode="smart", expand=True)
    assert [h["heading"] for h in answer["pages"][0]["hits"]][0] == "Widget configuration"
    got = [(e["heading"], e["via"], e["from"]) for e in answer["expanded"]]
    assert ("Knobs", "ref", "setup.rst#L6-L11") in got and ("Tuning", "doc", "setup.rst#L6-L11") in got
    assert ("widgets.spin", "object", "setup.rst#L6-L11") in got
    assert all(e["url"].startswith(("tuning.html#", "api.html#")) for e in answer["expanded"])


def test_expand_keeps_the_filters(links_html: Path) -> None:
    index = okf_sphinx.open_index(links_html)
    under = index.search("widget", 10, mode="smart", expand=True, under="setup")
    assert all(e["path"] == "setup.rst" for e in under["expanded"])
    unfiltered = index.search("widget", 10, mode="smart", expand=True)
    assert any(e["path"] != "setup.rst" for e in unfiltered["expanded"])
    kinds = index.search("widget spin", 10, mode="smart", expand=True, kind="py:method")
    assert all(index.section(0) and e["heading"] == "widgets.Widget.stop" for e in kinds["expanded"])


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_a_bad_expand_value_is_named(links_html: Path, value: Any) -> None:
    index = okf_sphinx.open_index(links_html)
    with pytest.raises(okf_sphinx.OkfError) as err:
        index.search("widget", mode="smart", expand=value)
    assert err.value.code == "schema_validation" and json_text(value) in str(err.value) and "expand" in str(err.value)
    with pytest.raises(okf_sphinx.OkfError) as err:
        index.search("widget", expand=True)
    assert err.value.code == "schema_validation" and "expand" in str(err.value)


def test_cli_and_mcp_take_expand(links_html: Path) -> None:
    index = okf_sphinx.open_index(links_html)
    want = index.search("widget configuration", 3, mode="smart", expand=True)
    proc = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", str(links_html), "--query", "widget configuration",
                           "--mode", "smart", "--expand", "--limit", "3", "--json"], capture_output=True, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout) == want
    text = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", str(links_html), "--query", "widget configuration",
                           "--mode", "smart", "--expand"], capture_output=True, text=True, timeout=60)
    assert "linked from these hits:" in text.stdout and "(ref from setup.rst#L6-L11)" in text.stdout

    async def go() -> list[Any]:
        async with session_for(links_html) as session:
            good = await session.call_tool("search_sections", {"query": "widget configuration", "mode": "smart",
                                                               "limit": 3, "expand": True})
            bad = await session.call_tool("search_sections", {"query": "widget", "mode": "smart", "expand": "yes"})
            return [good.structured_content, bad]

    good, bad = anyio.run(go)
    assert good == want
    assert bad.is_error and "schema_validation" in bad.content[0].text and "expand" in bad.content[0].text


def test_expand_answers_are_the_same_bytes_in_node(links_html: Path) -> None:
    index = okf_sphinx.open_index(links_html)
    words = ["widget", "spin", "knobs", "handbook", "notes", "setup", "tuning", "torque", "configuration", "stop"]
    requests: list[dict[str, Any]] = [
        {"query": f"{a} {b}", "mode": "smart", "expand": True, "limit": n}
        for a in words for b in words for n in (1, 3)
    ]
    requests += [{"query": w, "mode": "smart", "expand": True, **extra} for w in words
                 for extra in ({}, {"under": "api"}, {"kind": "section"}, {"kind": ["py:function", "py:method"]},
                               {"prefix": True})]
    requests += [{"query": "widget", "mode": "smart", "expand": v} for v in ("yes", 0, None)]
    expected = [api_answer(index, r) for r in requests]
    assert sum(bool(a.get("expanded")) for a in expected) > 50
    for req, want, got in zip(requests, expected, run_node(links_html / "_okf", requests)):
        assert same(got, want) is None, (req, same(got, want))


def _copy(site: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(site, dest)
    return dest


def test_a_corrupt_link_shard_is_index_corrupt_in_python_and_node(links_html: Path, tmp_path: Path) -> None:
    site = _copy(links_html, tmp_path)
    rewrite_index_value(site / "_okf", "l/0", lambda _v: {"3": [[1, "elsewhere"]]})
    req = {"query": "handbook", "mode": "smart", "expand": True}
    want = api_answer(okf_sphinx.open_index(site), req)
    assert want["error"]["code"] == "index_corrupt" and "link shard" in want["error"]["message"]
    assert same(run_node(site / "_okf", [req])[0], want) is None


def test_an_index_without_link_data_asks_for_a_rebuild(links_html: Path, tmp_path: Path) -> None:
    site = _copy(links_html, tmp_path)
    path = site / "_okf" / "manifest.js"
    manifest = fmt.unwrap("manifest", path.read_bytes())
    del manifest["smart"]["link_firsts"]
    path.write_bytes(same_build("manifest", manifest, path))
    req = {"query": "handbook", "mode": "smart", "expand": True}
    want = api_answer(okf_sphinx.open_index(site), req)
    assert want["error"]["code"] == "index_version_unsupported"
    assert same(run_node(site / "_okf", [req])[0], want) is None
    assert "error" not in api_answer(okf_sphinx.open_index(site), {"query": "handbook", "mode": "smart"})


def _priors(site: Path) -> dict[str, float]:
    return page_priors(site)


def test_page_priors_count_inbound_pages_and_toctree_depth(links_html: Path) -> None:
    from okf_sphinx.writer.smart_index import DEPTH_COST, INBOUND_GAIN, structure_factor

    assert INBOUND_GAIN > 0 and DEPTH_COST > 0
    priors = _priors(links_html)
    # other pages linking in (any via, any number of links from one page count once), at depth 1
    inbound = {"tuning.rst": 4, "api.rst": 3, "setup.rst": 2, "notes.md": 1}
    for path, n in inbound.items():
        assert priors[path] == float(f"{structure_factor(n, 1):.4g}"), path
    assert priors["index.rst"] == 1.0  # the root: depth 0, nothing links to it
    assert priors["tuning.rst"] > priors["api.rst"] > priors["setup.rst"] > priors["notes.md"] > 1.0
    assert structure_factor(0, 1) < 1.0 and structure_factor(0, None) == structure_factor(0, 3)


def test_a_much_linked_change_log_stays_below_the_page_it_describes(tmp_path: Path) -> None:
    pages = {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   feature\n   changelog\n"
                     + "".join(f"   p{i}\n" for i in range(6)),
        "feature.rst": "Walrus mode\n===========\n\nWalrus mode makes the tool sleep like a walrus.\n",
        "changelog.rst": "Changelog\n=========\n\n2.0\n---\n\nWalrus mode: walrus walrus walrus (see :doc:`feature`).\n",
    }
    for i in range(6):  # every page links to the change log, none to the feature
        pages[f"p{i}.rst"] = f"Page {i}\n=======\n\nWhat changed: :doc:`changelog`.\n"
    src = write_project(tmp_path / "src", pages, conf="okf_search_exclude = []\n")
    sphinx_build(src, tmp_path / "html", "-d", str(tmp_path / "doctrees"))
    priors = _priors(tmp_path / "html")
    assert priors["changelog.rst"] == 0.5 and priors["feature.rst"] > 1.0
    index = okf_sphinx.open_index(tmp_path / "html")
    assert [p["concept_id"] for p in index.search("walrus mode", mode="smart")["pages"]][:2] == ["feature", "changelog"]
    from okf_sphinx.writer.smart_index import structure_factor

    # the structure alone would lift the change log (7 pages link to it, 2 to the feature) over the feature
    assert structure_factor(7, 1) > structure_factor(2, 1) and priors["feature.rst"] == float(f"{structure_factor(2, 1):.4g}")


def test_page_structure_counts_every_page_and_walks_excluded_ones() -> None:
    from okf_sphinx.writer.smart_index import page_structure

    resolved = {  # index (say, excluded from search) lists guide; guide lists a and b; a links to b twice
        "index": [(0, "toctree", "guide", 0)],
        "guide": [(0, "toctree", "a", 0), (0, "toctree", "b", 0), (1, "ref", "guide", 2)],
        "a": [(0, "ref", "b", 1), (2, "doc", "b", 0)],
        "orphan": [(0, "doc", "a", 0)],
    }
    inbound, depth = page_structure(resolved, "index")
    assert inbound == {"guide": 1, "a": 2, "b": 2}  # a link to its own page does not count
    assert depth == {"index": 0, "guide": 1, "a": 2, "b": 2}  # orphan: unreached
    assert page_structure(resolved, "")[1] == {}


def test_an_excluded_root_still_gives_depths(tmp_path: Path) -> None:
    from okf_sphinx.writer.smart_index import structure_factor

    pages = {"index.rst": "Home\n====\n\n.. toctree::\n\n   guide\n",
             "guide.rst": "Guide\n=====\n\n.. toctree::\n\n   deep\n",
             "deep.rst": "Deep\n====\n\nText.\n", "orphan.rst": ":orphan:\n\nOrphan\n======\n\nText.\n"}
    src = write_project(tmp_path / "src", pages, conf='okf_search_exclude = ["index"]\n')
    sphinx_build(src, tmp_path / "html", "-d", str(tmp_path / "doctrees"))
    priors = _priors(tmp_path / "html")
    assert "index.rst" not in priors
    assert priors["guide.rst"] == float(f"{structure_factor(1, 1):.4g}")
    assert priors["deep.rst"] == float(f"{structure_factor(1, 2):.4g}")
    assert priors["orphan.rst"] == float(f"{structure_factor(0, None):.4g}") < priors["deep.rst"]
