"""The code points the spelling files hold (``smart.edit_chars``, docs/index-format.md): a
misspelt word's edit key with a code point no word of the site's spelling files has files
no word, so its ``e/`` file is not read — in Python and in Node — and the answers are the
same as on the index without the list (the lookup could not have found anything there).
A list that is not a string of increasing code points is ``index_corrupt`` everywhere."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import okf_sphinx
from okf_sphinx import OkfError
from okf_sphinx.core import index_format as fmt
from support.reads import Reading
from support.build import build_html, index_value, logical_files, rewrite_index_value, write_project
from support.cli import envelope_of, okf

PAGES = {
    "index.rst": "Home\n====\n\n.. toctree::\n\n   deploy\n   cache\n   words\n",
    "deploy.rst": "Deploy\n======\n\nDeploy the application with the installation script.\n",
    "cache.rst": "Cache\n=====\n\nThe cache keeps rendered pages; clear the cache after a deploy.\n",
    # a few words of another script: the spelling files hold some Cyrillic letters, not all
    "words.rst": "Words\n=====\n\nThe Russian word тест means test; документация means documentation.\n",
}
#: Words the site's letters cannot spell (кэш: к, э, ш are in no word of it), words it partly
#: can (деплой: д and е are), misspellings it corrects, and a word one edit from a site word.
QUERIES = ("деплой кэш", "кэш", "деплой", "scirpt deploy", "cahce деплой", "тестт", "докуметация", "γάτα cache",
           "deploy", "кэшш installation")


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The site as built, and a copy whose manifest has no ``edit_chars`` (an older build)."""
    built = build_html(write_project(tmp_path_factory.mktemp("chars") / "src", PAGES, conf='language = "en"\n'))
    older = tmp_path_factory.mktemp("older") / "html"
    shutil.copytree(built, older)
    rewrite_index_value(older / "_okf", "manifest",
                        lambda m: {**m, "smart": {k: v for k, v in m["smart"].items() if k != "edit_chars"}})
    return {"built": built, "older": older}


def spelling_reads(site: Path, query: str) -> tuple[dict[str, Any], set[str]]:
    index = Reading(site)
    answer = index.search(query, mode="smart", limit=5)
    return answer, {n for n in index.names if n.startswith("e/")}


def test_the_build_lists_the_code_points_of_the_words_it_files(sites: dict[str, Path]) -> None:
    okf_dir = sites["built"] / "_okf"
    smart = index_value(okf_dir, "manifest")["smart"]
    words = {w for name in logical_files(okf_dir) if name.startswith("e/")
             for entries in index_value(okf_dir, name).values() for w, _df in fmt.decode_word_list(entries)}
    assert "документация" in words and "deploy" in words
    assert smart["edit_chars"] == "".join(sorted({c for w in words for c in w}))
    assert "к" in smart["edit_chars"] and "э" not in smart["edit_chars"] and "ш" not in smart["edit_chars"]


def test_keys_no_word_can_hold_are_not_read_and_answers_stay_the_same(sites: dict[str, Path]) -> None:
    for query in QUERIES:
        answer, reads = spelling_reads(sites["built"], query)
        before, reads_before = spelling_reads(sites["older"], query)
        assert answer == before, query
        assert reads <= reads_before, query
    # кэш: every edit key (кэ, эш, кш) holds a letter no site word has — no e/ file at all
    answer, reads = spelling_reads(sites["built"], "кэш")
    assert reads == set() and spelling_reads(sites["older"], "кэш")[1]
    assert answer["total"] == 0 and answer["suggestions"] == [{"term": "кэш", "candidates": []}]
    # деплой reads only its key де (both letters are in документация); its other keys are skipped
    assert spelling_reads(sites["built"], "деплой")[1] == {fmt.edit_shard_name("де", index_value(
        sites["built"] / "_okf", "manifest")["smart"]["edit_shards"])}
    # corrections and suggestions are found as before, in either script
    assert spelling_reads(sites["built"], "scirpt deploy")[0]["corrected"]["words"] == [
        {"from": "scirpt", "to": "script"}]
    assert spelling_reads(sites["built"], "докуметация")[0]["corrected"]["words"] == [
        {"from": "докуметация", "to": "документация"}]


def test_node_answers_and_reads_as_python_does(sites: dict[str, Path]) -> None:
    from support.node import node_answers, run_node

    requests = [{"query": q, "mode": "smart", "limit": 5} for q in QUERIES]
    built = node_answers(sites["built"], requests)
    assert built == node_answers(sites["older"], requests)
    cold = run_node(sites["built"] / "_okf", requests, cold=True)
    cold_older = run_node(sites["older"] / "_okf", requests, cold=True)
    assert [c["answer"] for c in cold] == built
    for c, o in zip(cold, cold_older):
        assert set(c["loaded"]) <= set(o["loaded"])
    fewer = [q for q, c, o in zip(QUERIES, cold, cold_older) if len(set(c["loaded"])) < len(set(o["loaded"]))]
    assert "кэш" in fewer and "γάτα cache" in fewer
    # the spelling files Node reads are those Python reads
    for q, c in zip(QUERIES, cold):
        assert {n for n in c["loaded"] if n.startswith("e/")} == spelling_reads(sites["built"], q)[1], q


@pytest.mark.parametrize("chars", ["ba", "aa", 5, ["a"], "aкк"])
def test_a_malformed_list_is_index_corrupt_in_python_cli_and_node(sites: dict[str, Path], tmp_path: Path,
                                                                 chars: object) -> None:
    from support.node import run_node

    site = tmp_path / "site"
    shutil.copytree(sites["built"], site)
    rewrite_index_value(site / "_okf", "manifest", lambda m: {**m, "smart": {**m["smart"], "edit_chars": chars}})
    with pytest.raises(OkfError) as err:
        okf_sphinx.open_index(site).search("deploy", mode="smart")
    assert err.value.code == "index_corrupt"
    proc = okf("search", str(site), "--query", "deploy", "--mode", "smart", "--json")
    assert proc.returncode == 5 and envelope_of(proc) == err.value.envelope["error"]
    assert run_node(site / "_okf", [{"query": "deploy", "mode": "smart"}])[0] == err.value.envelope
    # keyword mode (the contract) does not read the smart block
    assert okf_sphinx.open_index(site).search("deploy")["hits"]
