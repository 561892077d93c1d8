"""Smart mode (docs/smart.md) on real Sphinx builds: page grouping, stems, prefixes,
partial answers, suggestions, the modes' argument checks and the answer's schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import okf_sphinx
from support.build import build_html, index_value, page_priors, rewrite_index_value, sphinx_build, write_project
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.contracts import contract
from okf_sphinx.core.errors import json_text

ROOT = Path(__file__).resolve().parent.parent

PAGES = {
    "index.rst": "Home\n====\n\n.. toctree::\n\n   spread\n   together\n   exact\n   stemmed\n   prefix\n   other\n   changelog\n   guide/draft\n   guide/final\n   ident\n   words\n",
    # the two words only in different sections of one page: keyword mode finds nothing
    "spread.rst": "Spread\n======\n\nIntro.\n\nFirst\n-----\n\nThe walrus sleeps here.\n\nSecond\n------\n\n"
                  "The narwhal swims here.\n\nThird\n-----\n\nNothing else.\n",
    "together.rst": "Together\n========\n\nThe walrus and the narwhal meet in this one paragraph of text.\n",
    "exact.rst": "Exact\n=====\n\nHow to install the tool on a plain machine today.\n",
    "stemmed.rst": "Stemmed\n=======\n\nHow it installs the tool on a plain machine today.\n",
    "prefix.rst": "Prefix\n======\n\nThe installbase guide is long and detailed here.\n",
    "other.rst": "Other\n=====\n\nThe walrus appears alone; zebra crossings too.\n",
    # a change log mentions everything, often: its default weight keeps it below the pages
    "changelog.rst": "Changelog\n=========\n\n1.1\n---\n\nWalrus walrus walrus.\n\n1.0\n---\n\nWalrus narwhal added.\n",
    "guide/draft.md": "---\nstatus: draft\nokf-search-weight: 3\n---\n# Draft\n\nThe walrus plan, unfinished.\n",
    "guide/final.rst": ":status: final\n\nFinal\n=====\n\nThe walrus plan, done.\n",
    # identifiers as written beat their words spread around
    "ident.rst": "Ident\n=====\n\nSet ``SECRET_KEY`` in the settings; run ``pip install --no-deps``.\n",
    "words.rst": "Words\n=====\n\nThe secret of the key: a secret key, no key, no secret, deps.\n",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_html(write_project(tmp_path_factory.mktemp("smart") / "src", PAGES, conf='language = "en"\nokf_search_exclude = []\n'))


@pytest.fixture(scope="module")
def index(site: Path) -> okf_sphinx.Index:
    return okf_sphinx.open_index(site)


def pages(answer: dict) -> list[str]:
    return [p["concept_id"] for p in answer["pages"]]


def test_words_spread_over_sections_find_the_page(index: okf_sphinx.Index) -> None:
    assert {h["concept_id"] for h in index.search("walrus narwhal")["hits"]} == {"together", "changelog"}  # keyword: one section
    r = index.search("walrus narwhal", mode="smart")
    assert set(pages(r)) == {"spread", "together", "changelog"} and r["total"] == 3
    assert all(not p["partial"] and p["missing_terms"] == [] for p in r["pages"])
    spread = next(p for p in r["pages"] if p["concept_id"] == "spread")
    # the page's best section, a keyword-shaped hit with its own matched words; "First" (walrus, a word
    # of many pages) scores below SUB_HIT_FLOOR × its score, so it is no hit (tests/test_smart_hits.py)
    assert [(h["heading"], h["matched_terms"]) for h in spread["hits"]] == [("Second", ["narwhal"])]
    assert spread["url"] == "spread.html" and spread["path"] == "spread.rst" and spread["title"] == "Spread"
    scores = [p["score"] for p in r["pages"]]
    assert scores == sorted(scores, reverse=True)


def test_exact_word_ranks_above_its_stem_forms(index: okf_sphinx.Index) -> None:
    r = index.search("install", mode="smart")
    order = pages(r)
    assert order.index("exact") < order.index("stemmed")  # "install" exactly vs only "installs"
    assert "stemmed" in order  # found through the stem
    stemmed = r["pages"][order.index("stemmed")]
    assert stemmed["hits"][0]["matched_terms"] == ["install"]
    assert stemmed["hits"][0]["snippet"].startswith("Stemmed")
    assert "prefix" not in order  # installbase: another stem, and prefix is off


def test_prefix_completes_the_last_word_only(index: okf_sphinx.Index) -> None:
    assert index.search("installb", mode="smart", correct=False)["total"] == 0
    r = index.search("installb", mode="smart", prefix=True)
    assert pages(r) == ["prefix"]
    r = index.search("instal", mode="smart", prefix=True)  # the stem's forms and the completions
    assert {"exact", "stemmed", "prefix"} <= set(pages(r))
    assert r["suggestions"] == []
    # whole words first: "install" itself (exact) beats a completion of it
    r = index.search("install", mode="smart", prefix=True)
    order = pages(r)
    assert order.index("exact") < order.index("prefix")
    # a one-letter word is not completed
    assert index.search("z", mode="smart", prefix=True)["total"] == 0
    # only the last word is a prefix
    assert index.search("installb walrus", mode="smart", prefix=True)["pages"][0]["partial"] is True


def test_misspelt_words_are_corrected_at_once(index: okf_sphinx.Index) -> None:
    # one misspelt word among correct ones: searched as the site's word, and the answer says so
    r = index.search("walrus narwhel", mode="smart")
    assert r["corrected"] == {"query": "walrus narwhal", "words": [{"from": "narwhel", "to": "narwhal"}]}
    assert r["terms"] == ["walrus", "narwhel"]  # the words as typed
    assert pages(r)[0] in {"together", "spread"} and r["suggestions"] == []
    assert r["pages"][0]["hits"][0]["matched_terms"] and not r["pages"][0]["partial"]
    assert pages(r) == pages(index.search("walrus narwhal", mode="smart"))
    # the query keeps what the reader typed around the corrected word (case, punctuation)
    r = index.search("Walrsu, please", mode="smart")
    assert r["corrected"]["query"] == "walrus, please" and r["corrected"]["words"] == [{"from": "walrsu", "to": "walrus"}]
    # words the site has, short words, numbers and words inside quotes are never corrected
    for q in ("walrus narwhal", "walrus zeb", "walrus 1.2x", '"walrsu plan"'):
        assert "corrected" not in index.search(q, mode="smart"), q
    # keyword mode is the contract: nothing corrected
    assert "corrected" not in index.search("walrus narwhel")
    with pytest.raises(okf_sphinx.OkfError) as err:
        index.search("walrsu", mode="smart", correct="yes")
    assert err.value.code == "schema_validation" and err.value.details["field"] == "correct"


def test_no_dead_ends_partial_pages_and_suggestions(index: okf_sphinx.Index) -> None:
    r = index.search("walrus narwhel", mode="smart", correct=False)
    assert r["total"] == 6 and all(p["partial"] and p["missing_terms"] == ["narwhel"] for p in r["pages"])
    assert r["suggestions"] == [{"term": "narwhel", "candidates": ["narwhal"]}]
    # pages holding more of the words come first
    r = index.search("walrus zebra narwhal", mode="smart")
    assert r["pages"][0]["concept_id"] in {"other", "spread", "together"}
    assert [len(p["missing_terms"]) for p in r["pages"]] == sorted(len(p["missing_terms"]) for p in r["pages"])
    assert r["pages"][0]["partial"] is True
    # nothing matches at all: an empty answer with the suggestions, the reader's word kept
    r = index.search("walrsu", mode="smart", correct=False)
    assert r["total"] == 0 and r["pages"] == [] and r["terms"] == ["walrsu"]
    assert r["suggestions"] == [{"term": "walrsu", "candidates": ["walrus"]}]


def test_limit_counts_pages_and_ties_are_deterministic(index: okf_sphinx.Index) -> None:
    r = index.search("the", mode="smart", limit=2)
    assert len(r["pages"]) == 2 and r["truncated"] and r["total"] > 2
    assert index.search("the", mode="smart", limit=2) == r
    full = index.search("the", mode="smart", limit=100)
    assert full["pages"][:2] == r["pages"]
    keys = [(-p["score"], p["concept_id"]) for p in full["pages"]]
    assert keys == sorted(keys)


def test_keyword_mode_is_unchanged_and_options_are_checked(index: okf_sphinx.Index) -> None:
    plain = index.search("walrus", 5)
    assert index.search("walrus", 5, mode="keyword") == plain
    assert "mode" not in plain and "pages" not in plain
    for kwargs, field in (({"mode": "fuzzy"}, "mode"), ({"mode": None}, "mode"), ({"prefix": True}, "prefix"),
                          ({"mode": "smart", "prefix": "yes"}, "prefix"), ({"mode": "smart", "color": 1}, "color")):
        with pytest.raises(okf_sphinx.OkfError) as err:
            index.search("walrus", **kwargs)
        assert err.value.code == "schema_validation" and err.value.envelope["error"]["field"] == field
    assert "fuzzy" in str(index_error(index, mode="fuzzy"))
    with pytest.raises(okf_sphinx.OkfError) as err:
        index.search("", mode="smart")
    assert err.value.code == "schema_validation"


def index_error(index: okf_sphinx.Index, **kwargs: object) -> str:
    try:
        index.search("walrus", **kwargs)
    except okf_sphinx.OkfError as exc:
        return exc.message
    raise AssertionError("no error")


def test_schemas(index: okf_sphinx.Index) -> None:
    combined = Draft202012Validator(contract("search_sections", "output"))
    # the keyword answer's schema from before modes existed, kept verbatim as $defs/keyword
    keyword_schema = contract("search_sections", "output")["$defs"]["keyword"]
    before = subprocess.run(["git", "-C", str(ROOT), "show", "7666757:okf_sphinx/contracts/search_sections.output.json"],
                            capture_output=True, text=True)
    if before.returncode == 0:  # a clone with that history: the copy is exact
        assert {k: v for k, v in json.loads(before.stdout).items() if k not in ("$schema", "$id")} == \
            {k: v for k, v in keyword_schema.items() if k not in ("$schema", "$id")}
    for q in ("walrus narwhal", "the", "walrus narwhel", "walrsu", "instal"):
        kw = index.search(q)
        Draft202012Validator(keyword_schema).validate(kw)  # today's schema still validates keyword answers
        combined.validate(kw)
        for prefix in (False, True):
            sm = index.search(q, mode="smart", prefix=prefix)
            combined.validate(sm)
            assert not Draft202012Validator(keyword_schema).is_valid(sm)
    inputs = Draft202012Validator(contract("search_sections", "input"))
    inputs.validate({"query": "x", "mode": "smart", "prefix": True})
    assert not inputs.is_valid({"query": "x", "mode": "fuzzy"})


def test_index_files_and_manifest(site: Path, index: okf_sphinx.Index) -> None:
    smart = index.manifest["smart"]
    assert smart["language"] == "en" and smart["stemmer"] is True and isinstance(smart["stemmer_version"], str)
    table = fmt.unwrap("smart", (site / "_okf" / "smart.js").read_bytes())
    paths = index_value(site / "_okf", "paths")
    assert paths == sorted(PAGES, key=lambda f: f.rsplit(".", 1)[0])  # every page, sid order
    counts = fmt.decode_ints(table["counts"])
    assert sum(counts) == index.section_count and len(counts) == len(fmt.decode_ints(table["lengths"])) == len(table["priors"]) == len(paths)
    # a stem group holds every form of the stem; a dictionary group every term of its first two letters
    from okf_sphinx.engine import smart as engine
    from okf_sphinx.engine.spelling import dictionary

    group = engine.group(index, engine.stemmer(index)("installs"))
    assert {"install", "installs"} <= set(group[2]) and group[0] > 0 and group[1] > 0
    entries = dictionary(index, "in")
    assert ["install", 2] in entries and all(t.startswith("in") for t, _df in entries)
    assert entries == sorted(entries, key=lambda e: (-e[1], e[0]))


def test_language_without_stemmer_warns_and_matches_exact_words(tmp_path: Path) -> None:
    # Polish: no Snowball stemmer in Sphinx's set, and no CJK segmentation (which needs no warning)
    src = write_project(tmp_path / "src", {"index.rst": "Accueil\n=======\n\nInstall installs.\n"}, conf='language = "pl"\nokf_search_exclude = []\n')
    proc = sphinx_build(src, tmp_path / "html", "-d", str(tmp_path / "doctrees"))
    assert "no stemmer for language 'pl'" in proc.stderr
    index = okf_sphinx.open_index(tmp_path / "html")
    assert index.manifest["smart"]["stemmer"] is False
    r = index.search("install", mode="smart")
    assert r["pages"][0]["hits"][0]["matched_terms"] == ["install"]
    assert engine_forms(index, "installs") == ["installs"]


def engine_forms(index: okf_sphinx.Index, word: str) -> list[str]:
    from okf_sphinx.engine import smart as engine

    forms, _s, _p = engine.variants(index, word, engine.stemmer(index), False)
    return [t for t, _w in forms]


def test_cli_smart(site: Path, index: okf_sphinx.Index) -> None:
    argv = [sys.executable, "-m", "okf_sphinx", "search", str(site), "--query", "walrus narwhel", "--mode", "smart"]
    proc = subprocess.run(argv + ["--json", "--limit", "2"], capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout) == index.search("walrus narwhel", 2, mode="smart")
    text = subprocess.run(argv, capture_output=True, text=True).stdout
    assert "Showing results for 'walrus narwhal' (search for 'walrus narwhel' instead: --no-correct)" in text
    text = subprocess.run(argv + ["--no-correct"], capture_output=True, text=True).stdout
    assert "did you mean: narwhal?" in text and "lacks: narwhel" in text
    # the text answer is a reader's: it completes the last word, as the dialog does; --json
    # (an agent's) and --no-prefix search the words as given
    partial = argv[:5] + ["--query", "walrus narwh", "--mode", "smart"]
    text = subprocess.run(partial, capture_output=True, text=True).stdout
    assert text.startswith(f"{index.search('walrus narwh', mode='smart', prefix=True)['total']} pages match 'walrus narwh'")
    assert "corrected" not in index.search("walrus narwh", mode="smart", prefix=True)
    as_json = json.loads(subprocess.run(partial + ["--json"], capture_output=True, text=True).stdout)
    assert as_json == index.search("walrus narwh", mode="smart")
    text = subprocess.run(partial + ["--no-prefix"], capture_output=True, text=True).stdout
    assert "lacks: narwh" in text
    proc = subprocess.run(argv[:-2] + ["--prefix", "--json"], capture_output=True, text=True)
    assert proc.returncode != 0 and json.loads(proc.stdout)["error"]["field"] == "prefix"


def test_page_priors_weights_and_filters(site: Path, index: okf_sphinx.Index) -> None:
    rows = page_priors(site)
    # the author's weight times the structure's factor (each page: linked from the root's toctree, depth 1);
    # a page weighed below 1 (the change log, by default) is never lifted
    from okf_sphinx.writer.smart_index import structure_factor

    lifted = structure_factor(1, 1)
    assert lifted > 1
    assert rows["changelog.rst"] == 0.5 and rows["guide/draft.md"] == float(f"{3.0 * lifted:.4g}")
    assert rows["other.rst"] == float(f"{lifted:.4g}") and rows["index.rst"] == 1.0  # the root: depth 0, no inbound link
    assert index.search("walrus", 1)["hits"][0]["concept_id"] == "changelog"  # keyword: the most mentions
    order = pages(index.search("walrus", mode="smart"))
    assert order[0] == "guide/draft" and order.index("changelog") > order.index("other")
    # under: whole path units of the page's source path without its suffix
    assert set(pages(index.search("walrus", mode="smart", under="guide"))) == {"guide/draft", "guide/final"}
    assert pages(index.search("walrus", mode="smart", under="guide/final")) == ["guide/final"]
    assert index.search("walrus", mode="smart", under="gui")["total"] == 0
    # meta: RST file-wide fields and MyST front matter
    assert pages(index.search("walrus plan", mode="smart", meta={"status": "draft"})) == ["guide/draft"]
    assert pages(index.search("walrus plan", mode="smart", meta={"status": "final"})) == ["guide/final"]
    assert index.search("walrus", mode="smart", meta={"status": "gone"})["total"] == 0
    # kind: plain sections are "section"; no object kinds on this site
    assert index.search("walrus", mode="smart", kind="section")["total"] == index.search("walrus", mode="smart")["total"]
    assert index.search("walrus", mode="smart", kind=["py:function"])["total"] == 0
    for bad in ({"under": "/abs"}, {"under": "a/../b"}, {"meta": {"status": 1}}, {"meta": {}}, {"kind": "Py Function"}):
        with pytest.raises(okf_sphinx.OkfError) as err:
            index.search("walrus", mode="smart", **bad)
        field = next(iter(bad))
        assert err.value.code == "schema_validation" and err.value.envelope["error"]["field"] == field
        assert json_text(bad[field]) in err.value.message


def test_bad_weights_fail_the_build(tmp_path: Path) -> None:
    src = write_project(tmp_path / "a", {"index.rst": "Home\n====\n\nText.\n"}, conf="okf_search_weights = {'x*': -1}\n")
    proc = sphinx_build(src, tmp_path / "a-html", check=False)
    assert proc.returncode != 0 and "okf_search_weights['x*'] must be a number above 0" in proc.stderr
    src = write_project(tmp_path / "b", {"index.rst": "Home\n====\n\n.. toctree::\n\n   page\n",
                                         "page.rst": ":okf-search-weight: lots\n\nPage\n====\n\nText.\n"})
    proc = sphinx_build(src, tmp_path / "b-html", check=False)
    assert proc.returncode != 0 and "okf-search-weight field must be a number above 0" in proc.stderr
    assert not (tmp_path / "b-html" / "_okf").exists()


def test_identifiers_as_written_rank_first(index: okf_sphinx.Index) -> None:
    assert fmt.identifiers("Set SECRET_KEY, url_for(), QuerySet.filter and --no-deps; e.g. 1.2.0") == [
        "secret_key", "url_for", "queryset.filter", "--no-deps", "e.g"]
    for query in ("SECRET_KEY", "secret_key", "--no-deps"):
        r = index.search(query, mode="smart")
        assert pages(r)[:2] == ["ident", "words"], query  # both hold the words; one holds the identifier
    # the words alone do not favour the identifier's page
    assert pages(index.search("secret key", mode="smart"))[0] == "words"


def test_quoted_phrases(index: okf_sphinx.Index) -> None:
    # "walrus plan" stands in that order on two pages; elsewhere the words are apart or absent
    r = index.search('"walrus plan"', mode="smart")
    assert set(pages(r)) == {"guide/draft", "guide/final"} and not r["pages"][0]["partial"]
    r = index.search('"plan walrus"', mode="smart")  # the words are there, never in this order
    assert all(p["partial"] for p in r["pages"])
    assert {p["concept_id"] for p in r["pages"][:2]} == {"guide/draft", "guide/final"}
    assert all(p["missing_terms"] == ['"plan walrus"'] for p in r["pages"][:2])  # they lack the order only
    # mixed with plain words; curly quotes too; a lone quote mark is text
    # (the page holding the phrase but not the common word is shown too, below, partial)
    r = index.search("“walrus plan” done", mode="smart")
    assert pages(r) == ["guide/final", "guide/draft"] and [p["partial"] for p in r["pages"]] == [False, True]
    assert index.search('walrus "plan', mode="smart")["total"] == index.search("walrus plan", mode="smart")["total"]
    # a page holding the phrase outranks one holding only its words, other things equal
    plain = index.search("narwhal walrus", mode="smart")
    quoted = index.search('"walrus and the narwhal"', mode="smart")
    assert pages(quoted) == ["together"] and "spread" in pages(plain)


def _object_rows(index: okf_sphinx.Index) -> list[list]:
    return [r for r in index.objects() if r[4] < index.section_count]


def test_object_names_rank_their_object_first(example_html: Path) -> None:
    """The exact-name boost: a query that is an object's full name, a dotted tail of it or its
    short name puts an object so named first (its page first, its section the page's first hit)."""
    index = okf_sphinx.open_index(example_html)
    rows = _object_rows(index)
    assert len(rows) > 15 and index.manifest["smart"]["name_shards"] >= 1
    checked = 0
    for name, _kind, _page, _pos, sid in rows:
        parts = name.split(".")
        for q in {name, ".".join(parts[-2:]), parts[-1]}:
            r = index.search(q, mode="smart", limit=3)
            top = r["pages"][0]["hits"][0]
            named = [x for x in rows if x[0].lower() == q.lower() or x[0].lower().endswith("." + q.lower())]
            assert (top["concept_id"], top["locator"]) in {
                (index.section(x[4])["concept_id"], index.section(x[4])["locator"]) for x in named}, (q, top)
            if q == name and sum(x[0] == name for x in rows) == 1:  # a unique full name: exactly its section
                assert top["locator"] == index.section(sid)["locator"] and top["heading"] == index.section(sid)["heading"], q
            checked += 1
    assert checked > 40
    # case, a call's parentheses and white space at the ends do not matter; keyword mode is untouched
    base = index.search("CacheStore.put", mode="smart")
    for q in ("cachestore.PUT", "CacheStore.put()", "  CacheStore.put "):
        assert index.search(q, mode="smart")["pages"] == base["pages"], q
    assert base["pages"][0]["hits"][0]["heading"] == "example_pkg.cache.CacheStore.put"
    # the full name wins over a mere tail: "cache" is the module example_pkg.cache's short name
    # and a word on many pages; the module's own section comes first
    r = index.search("example_pkg.cache", mode="smart")
    assert r["pages"][0]["hits"][0]["heading"].startswith("example_pkg.cache"), r["pages"][0]["hits"][0]
    # a kind filter keeps only named objects of that kind
    assert index.search("put", mode="smart", kind="py:method")["pages"][0]["hits"][0]["heading"] == "example_pkg.cache.CacheStore.put"
    r = index.search("put", mode="smart", kind="c:function")
    assert all(h["heading"] != "example_pkg.cache.CacheStore.put" for p in r["pages"] for h in p["hits"])


def _rewrite(site: Path, name: str, change) -> None:  # type: ignore[no-untyped-def]
    rewrite_index_value(site / "_okf", name, change)


CORRUPTIONS = [
    # (file, change, request, expected code)
    # a page of no sections; counts one past the sections; a column one page short; not an integer list; a prior of 0
    ("smart", lambda v: {**v, "counts": fmt.encode_ints([0, *fmt.decode_ints(v["counts"])[1:]])}, {"query": "retry"}, "index_corrupt"),
    ("smart", lambda v: {**v, "counts": fmt.encode_ints([c + (i == 0) for i, c in enumerate(fmt.decode_ints(v["counts"]))])},
     {"query": "retry"}, "index_corrupt"),
    ("smart", lambda v: {**v, "lengths": fmt.encode_ints(fmt.decode_ints(v["lengths"])[1:])}, {"query": "retry"}, "index_corrupt"),
    ("smart", lambda v: {**v, "lengths": [1, 2]}, {"query": "retry"}, "index_corrupt"),
    ("smart", lambda v: {**v, "priors": [0.0, *v["priors"][1:]]}, {"query": "retry"}, "index_corrupt"),
    ("paths", lambda v: v[1:], {"query": "retry", "under": "guide"}, "index_corrupt"),
    ("paths", lambda v: [3, *v[1:]], {"query": "retry", "under": "guide"}, "index_corrupt"),
    ("manifest", lambda v: {**v, "smart": {**v["smart"], "dict_shards": 0}}, {"query": "retry"}, "index_corrupt"),
    ("manifest", lambda v: {**v, "smart": {**v["smart"], "stemmer_version": "snowball-0"}}, {"query": "retry"}, "index_version_unsupported"),
    ("manifest", lambda v: {k: x for k, x in v.items() if k != "smart"}, {"query": "retry"}, "index_version_unsupported"),
    ("meta", lambda v: {"0": {"title": 3}}, {"query": "retry", "meta": {"title": "x"}}, "index_corrupt"),
]


@pytest.mark.node
@pytest.mark.parametrize("case", range(len(CORRUPTIONS) + 6))
def test_corrupt_smart_files_are_named_errors(example_html: Path, tmp_path: Path, case: int) -> None:
    import shutil

    from support.node import python_answer, run_node, same

    site = tmp_path / "site"
    shutil.copytree(example_html, site, ignore=shutil.ignore_patterns(".doctrees"))
    index = okf_sphinx.open_index(site)
    m = index.manifest["smart"]
    if case < len(CORRUPTIONS):
        name, change, request, code = CORRUPTIONS[case]
        _rewrite(site, name, change)
    else:  # one shard of each kind a smart query reads: stem groups, dictionary, identifiers, names, headings
        name, key, request = [
            (index.shard_of("retry"), "groups", {"query": "retry"}),
            (fmt.dict_shard_name("re", m["dict_shards"]), "re", {"query": "retr", "prefix": True}),
            (fmt.shard_name("retry.base_delay", m["id_shards"], "x"), "retry.base_delay", {"query": "retry.base_delay"}),
            (fmt.name_shard_name("put", m["name_shards"]), "put", {"query": "CacheStore.put"}),
            (fmt.heading_shard_name("re", m["heading_shards"]), "re", {"query": "retry"}),
            (fmt.heading_shard_name("re", m["heading_shards"]), "re", {"query": "retry"}),
        ][case - len(CORRUPTIONS)]
        # the last: a heading row naming a section past the searchable ones
        broken = "broken" if case < len(CORRUPTIONS) + 5 else [["retry", index.section_count]]
        _rewrite(site, name, lambda v: {**v, key: broken})
        code = "index_corrupt"
    request = {**request, "mode": "smart"}
    answer = python_answer(okf_sphinx.open_index(site), request)
    assert answer["error"]["code"] == code, answer
    assert same(run_node(site / "_okf", [request])[0], answer) is None


def test_a_no_index_copy_is_not_named(tmp_path: Path) -> None:
    """An object documented twice, once with ``:no-index:``: its name finds the indexed one
    (as Sphinx's object index does), though the copy's page holds the name more often."""
    pages = {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   api\n   types\n",
        "api.rst": "API\n===\n\nMisc text.\n\n.. py:class:: pkg.Widget\n\n   A thing.\n\n"
                   ".. py:function:: pkg.command()\n\n   Make a command.\n\n.. py:class:: pkg.Command\n\n   A command.\n",
        "types.rst": "Types\n=====\n\nWidget, widget, pkg.Widget and Widget again.\n\n.. py:class:: pkg.Widget\n"
                     "   :no-index:\n\n   A thing. Widget Widget Widget pkg.Widget.\n",
    }
    src = write_project(tmp_path / "src", pages)
    sphinx_build(src, tmp_path / "html")
    index = okf_sphinx.open_index(tmp_path / "html")
    assert sum(r[0] == "pkg.Widget" for r in index.objects()) == 2  # both are object sections
    for q in ("pkg.Widget", "Widget"):
        assert pages_of(index.search(q, mode="smart"))[:2] == ["api", "types"], q
    # names that differ only in case: the one as written first, full names before tails
    for q, first in (("Command", "pkg.Command"), ("command", "pkg.command"), ("pkg.command", "pkg.command"),
                     ("pkg.Command()", "pkg.Command")):
        hits = index.search(q, mode="smart")["pages"][0]["hits"]
        assert [h["heading"] for h in hits[:2]] == [first, ({"pkg.Command", "pkg.command"} - {first}).pop()], q


def pages_of(answer: dict) -> list[str]:
    return [p["concept_id"] for p in answer["pages"]]


def test_an_answer_does_not_depend_on_the_queries_before_it(example_html: Path) -> None:
    """Each identifier's evidence is cached under its own name: a query whose first identifier
    the site lacks once cached the next identifier's evidence under the missing one's name, and
    a later query with another identifier after it got that evidence back."""
    first, second = "no_such_ident base_delay", "no_such_ident default_ttl"
    warm = okf_sphinx.open_index(example_html)
    warm.search(first, 5, mode="smart")
    answer = warm.search(second, 5, mode="smart")
    assert answer == okf_sphinx.open_index(example_html).search(second, 5, mode="smart")
    assert any(h["heading"].endswith("default_ttl") for p in answer["pages"] for h in p["hits"])


def test_a_huge_weight_names_the_setting_or_the_page(tmp_path: Path) -> None:
    """``okf_search_weights = {"*": 10**400}`` and a 400-digit field: an error naming the
    setting (or the page and its field), never a traceback (issue 20, point 7)."""
    src = write_project(tmp_path / "a", {"index.rst": "Home\n====\n\nText.\n"}, conf='okf_search_weights = {"*": 10**400}\n')
    proc = sphinx_build(src, tmp_path / "a-html", check=False)
    assert proc.returncode != 0 and "okf_search_weights['*'] must be a number above 0" in proc.stderr, proc.stderr[-2000:]
    assert "a 401-digit number" in proc.stderr and "int too large" not in proc.stderr
    src = write_project(tmp_path / "b", {"index.rst": "Home\n====\n\n.. toctree::\n\n   page\n",
                                         "page.rst": f":okf-search-weight: {'9' * 400}\n\nPage\n====\n\nText.\n"})
    proc = sphinx_build(src, tmp_path / "b-html", check=False)
    assert proc.returncode != 0 and "page page: the okf-search-weight field must be a number" in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "b-html" / "_okf").exists()
