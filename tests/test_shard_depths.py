"""Posting shards keyed deeper where a start has many stems (``shard_depths``, format_version
8, docs/index-format.md): the writer lists each start whose stems hold more than a shard's
aim with the code points that key them; Python and Node read the same shards and give the
same answers; a malformed list is ``index_corrupt`` in Python, the CLI and Node; an index
with semantic vectors gets smaller ``t/`` files (writer/sizing.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import okf_sphinx
from okf_sphinx import OkfError
from okf_sphinx.core import index_format as fmt
from okf_sphinx.writer import packing, sizing
from support.reads import Reading
from support.build import build_html, index_value, logical_files, rewrite_index_value, write_project
from support.cli import envelope_of, okf

#: Many words that start alike (``con…``, ``pro…``) and a few that do not.
CON = ("configure configuration configured connect connection connections consider considered console constant "
       "constants construct constructor consume consumer contain container containers content contents context "
       "contexts continue contract control controller convert converter convention concurrency condition "
       "conditions conflict conflicts confirm confusion connectivity conservative consistent")
PRO = "process processes processing produce producer product profile program programs project projects promise property protocol provide proxy"
PAGES = {
    "index.rst": "Home\n====\n\n.. toctree::\n\n   config\n   process\n   other\n",
    "config.rst": "Config\n======\n\n" + "\n\n".join(f"{w.title()}\n{'-' * len(w)}\n\nThe {w} of the {CON.split()[i - 1]} "
                                                    f"and {w} again." for i, w in enumerate(CON.split())) + "\n",
    "process.rst": "Process\n=======\n\n" + "\n\n".join(f"{w.title()}\n{'-' * len(w)}\n\nA {w} beside a container."
                                                       for w in PRO.split()) + "\n",
    "other.rst": "Other\n=====\n\nRetry the walrus with a backoff; a yak shaves.\n",
}
#: Whole words, typed prefixes (completions across deeper keys), a start no list names.
REQUESTS = ([{"query": q} for q in ("configuration", "container contents", "walrus", "process producer", "conf")]
            + [{"query": q, "mode": "smart", "limit": 5} for q in ("configured connections", "consumer", "walrus backoff",
                                                                     "projects protocol", "contract controller")]
            + [{"query": q, "mode": "smart", "limit": 5, "prefix": True} for q in ("con", "conf", "pro", "contai", "wal")])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # the largest file-count factor: shards of ~128 bytes, so the con… and pro… starts hold many
    return build_html(write_project(tmp_path_factory.mktemp("depths") / "src", PAGES,
                                    conf='language = "en"\nokf_search_index_files = 16\n'))


def test_shard_depths_split_only_the_starts_over_the_aim() -> None:
    keys = {"conf": 40, "confirm": 40, "cont": 40, "contain": 40, "wal": 30, "pro": 10}
    # con… holds 160 bytes: at 4 code points conf… and cont… still hold 80 each; at 5 they part
    assert packing.shard_depths(keys, 60) == {"con": 5}
    assert packing.shard_depths(keys, 100) == {"con": 4}
    assert packing.shard_depths(keys, 160) == {}
    # one stem larger than the aim cannot be split further: the fewest code points that part it from the rest
    assert packing.shard_depths({"python": 500, "pyt": 10}, 100) == {"pyt": 4}
    assert packing.shard_depths({"ab": 500, "abc": 500}, 100) == {"abc": 4}  # a key shorter than three is its own start


def test_shard_names_follow_the_depths() -> None:
    depths = {"con": 5}
    assert fmt.shard_key("configuration", depths) == "confi" and fmt.shard_key("con", depths) == "con"
    assert fmt.shard_key("walrus", depths) == "wal" and fmt.shard_key("walrus") == "wal"
    assert fmt.shard_name("configure", 4096, depths=depths) == f"t/{fmt.fnv1a32('confi') % 4096:x}"
    assert fmt.shard_name("configure", 4096) == fmt.shard_name("contain", 4096)
    # identifiers (x/) are keyed whole, whatever the depths
    assert fmt.shard_name("configure", 16, "x", depths) == f"x/{fmt.fnv1a32('configure') % 16:x}"


def test_the_build_writes_depths_and_every_group_is_where_they_say(site: Path) -> None:
    okf_dir = site / "_okf"
    manifest = index_value(okf_dir, "manifest")
    depths = manifest["shard_depths"]
    assert manifest["format_version"] == 8 == fmt.FORMAT_VERSION
    assert "con" in depths and all(len(k) == 3 and 3 < d <= fmt.MAX_SHARD_DEPTH for k, d in depths.items())
    placed = 0
    for name in logical_files(okf_dir):
        if name.startswith("t/") and "-" not in name:
            for stem in index_value(okf_dir, name)["groups"]:
                assert fmt.shard_name(stem, manifest["shards"], depths=depths) == name, stem
                placed += 1
    assert placed > 40
    # the con… stems spread over more than one shard
    con = {fmt.shard_name(s, manifest["shards"], depths=depths) for s in ("configur", "connect", "contain", "convert")}
    assert len(con) > 1


@pytest.mark.node
def test_node_answers_and_reads_the_shards_python_does(site: Path) -> None:
    from support.node import node_answers, run_node

    answers = node_answers(site, REQUESTS)  # each equal to Python's, float bits included
    assert answers[0]["hits"] and answers[5]["pages"] and answers[10]["pages"]
    cold = run_node(site / "_okf", REQUESTS, cold=True)
    for request, c, answer in zip(REQUESTS, cold, answers):
        assert c["answer"] == answer
        index = Reading(site)
        index.search(request["query"], **{k: v for k, v in request.items() if k != "query"})
        assert {n for n in c["loaded"] if n.startswith("t/")} == {n for n in index.names if n.startswith("t/")}, request


@pytest.mark.node
@pytest.mark.parametrize("depths", [[], {"co": 5}, {"con": 3}, {"con": 17}, {"con": "5"}, {"con": True}, {"conf": 5}])
def test_a_malformed_list_is_index_corrupt_in_python_cli_and_node(site: Path, tmp_path: Path, depths: object) -> None:
    from support.node import run_node

    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    rewrite_index_value(copy / "_okf", "manifest", lambda m: {**m, "shard_depths": depths})
    with pytest.raises(OkfError) as err:
        okf_sphinx.open_index(copy).search("configuration")
    assert err.value.code == "index_corrupt" and "shard_depths" in err.value.message
    proc = okf("search", str(copy), "--query", "configuration", "--json")
    assert proc.returncode == 5 and envelope_of(proc) == err.value.envelope["error"]
    assert run_node(copy / "_okf", [{"query": "configuration"}])[0] == err.value.envelope


@pytest.mark.node
@pytest.mark.browser
def test_python_cli_mcp_node_and_chromium_agree(site: Path) -> None:
    from support.parity import assert_surfaces_agree

    assert_surfaces_agree(site, REQUESTS, cli_sample=6)


def test_an_index_with_vectors_gets_smaller_posting_files() -> None:
    plain, vectors = sizing.file_budgets(689), sizing.file_budgets(689, vectors=True)
    assert vectors["t"].cap == plain["t"].cap * sizing.VECTOR_POSTING_SCALE
    assert vectors["t"].largest == plain["t"].largest // sizing.VECTOR_POSTING_SCALE
    assert vectors["t"].files > plain["t"].files
    assert {k: v for k, v in vectors.items() if k != "t"} == {k: v for k, v in plain.items() if k != "t"}
