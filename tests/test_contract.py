"""The search contract through the Python API: validation, AND, ordering, snippet, revision."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from pathlib import Path

import pytest

import okf_sphinx
from okf_sphinx import OkfError
from support.build import EXAMPLE, sphinx_build, write_project

EXPECTED = json.loads((EXAMPLE / "expected_sections.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def index(example_html: Path) -> okf_sphinx.Index:
    return okf_sphinx.open_index(example_html)


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("", "schema_validation"),
        ("!!!", "schema_validation"),
        ("\u0301\u0301", "schema_validation"),  # marks only: no letter or number
        ("a" * 513, "schema_validation"),
        ("\ud800abc", "schema_validation"),
        (None, "schema_validation"),
        (42, "schema_validation"),
        (" ".join(f"w{i}" for i in range(33)), "resource_limit"),
    ],
)
def test_query_errors(index: okf_sphinx.Index, query: object, code: str) -> None:
    with pytest.raises(OkfError) as err:
        index.search(query)
    assert err.value.code == code
    assert err.value.envelope["error"]["code"] == code
    assert err.value.message


def test_query_boundaries_are_accepted(index: okf_sphinx.Index) -> None:
    assert index.search("a" * 512)["total"] == 0
    words = " ".join(f"w{i}" for i in range(32)) + " w0 W1"
    assert len(index.search(words)["terms"]) == 32


@pytest.mark.parametrize("limit", [0, 101, -1, True, False, 1.0, 2.5, "5", [5]])
def test_limit_errors(index: okf_sphinx.Index, limit: object) -> None:
    with pytest.raises(OkfError) as err:
        index.search("retry", limit=limit)
    assert err.value.code == "schema_validation"


def test_terms_are_distinct_normalised_in_first_occurrence_order(index: okf_sphinx.Index) -> None:
    result = index.search("Retry RETRY policy rétry Straße")
    assert result["terms"] == ["retry", "policy", "rétry", "strasse"]


def test_decomposed_query_finds_precomposed_text(index: okf_sphinx.Index) -> None:
    decomposed = index.search("CAFE\u0301")
    precomposed = index.search("Café")
    assert decomposed["terms"] == precomposed["terms"] == ["café"]
    assert decomposed["total"] >= 1
    assert decomposed["hits"] == precomposed["hits"]
    assert any(h["concept_id"] == "i18n" for h in decomposed["hits"])


@pytest.mark.parametrize("query", ["ΣΊΣΥΦΟΣ", "σίσυφος", "STRASSE", "straße", "İstanbul", "検索", "שָׁלוֹם"])
def test_non_latin_queries_match_the_i18n_page(index: okf_sphinx.Index, query: str) -> None:
    assert any(h["concept_id"] == "i18n" for h in index.search(query, limit=100)["hits"])


def test_and_semantics_every_term_somewhere(index: okf_sphinx.Index) -> None:
    both = index.search("retry cache", limit=100)
    for hit in both["hits"]:
        s = index.section(next(i for i in range(index.section_count) if index.section(i)["locator"] == hit["locator"]))
        text = " ".join([s["text"], s["heading"], s["title"]])
        words = set(okf_sphinx.core.terms.terms(text))
        assert {"retry", "cache"} <= words
    assert index.search("retry zzzunknownzzz")["total"] == 0


def test_limit_truncates_with_exact_total(index: okf_sphinx.Index) -> None:
    full = index.search("the", limit=100)
    assert full["total"] > 3 and not full["truncated"]
    cut = index.search("the", limit=2)
    assert cut["total"] == full["total"] and cut["truncated"] is True
    assert cut["hits"] == full["hits"][:2]
    assert index.search("the", limit=full["total"])["truncated"] is False


def test_ties_are_ordered_by_concept_id_then_line(index: okf_sphinx.Index) -> None:
    for tie in EXPECTED["expected_ties"]:
        hits = index.search(tie["query"], limit=100)["hits"]
        tied = [h for h in hits if h["concept_id"] in tie["order"]]
        assert [h["concept_id"] for h in tied] == tie["order"]
        assert len({h["score"] for h in tied}) == 1
    hits = index.search("the", limit=100)["hits"]
    keys = [(-h["score"], h["concept_id"], h["line_start"], h["path"]) for h in hits]
    assert keys == sorted(keys)


def test_result_shape_and_empty_arrays(index: okf_sphinx.Index) -> None:
    empty = index.search("zzzunknownzzz")
    assert empty == {"query": "zzzunknownzzz", "terms": ["zzzunknownzzz"], "snapshot_revision": index.snapshot_revision,
                     "total": 0, "truncated": False, "hits": []}
    hit = index.search("retry")["hits"][0]
    assert list(hit) == ["concept_id", "path", "heading", "locator", "line_start", "line_end", "content_sha256",
                         "snippet", "score", "matched_terms"]


def test_snippet_is_exact_substring_from_80_before_first_matching_run(index: okf_sphinx.Index, example_src: Path) -> None:
    # a generated object section's text is its rendered docstring, not a range (docs/contract.md)
    generated = {index.section(r[4])["locator"] for r in index.objects() if index.section(r[4]).get("generated")}
    for query in ["retry", "policy backoff", "cache", "Кэш", "script", "café"]:
        result = index.search(query, limit=100)
        for hit in result["hits"]:
            if hit["locator"] in generated:
                continue
            data = (example_src / hit["path"]).read_bytes().decode("utf-8").removeprefix("\ufeff")
            lines = data.split("\n")
            text = "\n".join(lines[hit["line_start"] - 1 : hit["line_end"]])
            text = text.removesuffix("\r")
            assert hit["snippet"] in text and len(hit["snippet"]) <= 512
            # independent first-match search: first maximal word run whose first term is a query term
            p = None
            i = 0
            while i < len(text):
                if unicodedata.category(text[i])[0] in "LNM":
                    j = i
                    while j < len(text) and unicodedata.category(text[j])[0] in "LNM":
                        j += 1
                    run = unicodedata.normalize("NFC", text[i:j].casefold())
                    k = 0
                    while k < len(run) and unicodedata.category(run[k])[0] in "LNM":
                        k += 1
                    if run[:k] in result["terms"]:
                        p = i
                        break
                    i = j
                else:
                    i += 1
            start = 0 if p is None else max(0, p - 80)
            assert hit["snippet"] == text[start : start + 512]


def _independent_revision(src: Path, paths: list[str]) -> str:
    entries = []
    for rel in sorted(paths):
        data = (src / rel).read_bytes()
        entries.append({"path": rel, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    text = json.dumps(entries, separators=(",", ":"), ensure_ascii=False)
    for a, b in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(a, b)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_snapshot_revision_and_content_sha256_from_the_source_bytes(index: okf_sphinx.Index, example_src: Path) -> None:
    assert index.snapshot_revision == _independent_revision(example_src, EXPECTED["captured_files"])
    for hit in index.search("the", limit=100)["hits"]:
        assert hit["content_sha256"] == hashlib.sha256((example_src / hit["path"]).read_bytes()).hexdigest()


def test_reserved_pages_searchable_by_default_and_excludable(tmp_path: Path) -> None:
    files = {"index.rst": "Home\n====\n\nzebra\n\n.. toctree::\n\n   a\n   log\n", "a.rst": "A\n=\n\nzebra\n", "log.md": "# Log\n\nzebra\n"}
    src = write_project(tmp_path / "src", files, conf='okf_search_exclude = ["index", "*/index", "log", "*/log"]\n')
    proc = sphinx_build(src, tmp_path / "out1")
    assert [h["concept_id"] for h in okf_sphinx.open_index(tmp_path / "out1").search("zebra")["hits"]] == ["a"]
    src2 = write_project(tmp_path / "src2", files)
    sphinx_build(src2, tmp_path / "out2")
    hits = okf_sphinx.open_index(tmp_path / "out2").search("zebra")["hits"]
    assert sorted(h["concept_id"] for h in hits) == ["a", "index", "log"]
    assert proc.returncode == 0


def test_locator_percent_encoding(tmp_path: Path) -> None:
    name = "dir one/ü%#?[x].md"
    src = write_project(tmp_path / "src", {"index.rst": ".. toctree::\n   :glob:\n\n   dir one/*\n", name: "# T\n\nyak\n"})
    sphinx_build(src, tmp_path / "out")
    hit = okf_sphinx.open_index(tmp_path / "out").search("yak")["hits"][0]
    assert hit["path"] == name
    assert hit["locator"] == "dir%20one/%C3%BC%25%23%3F%5Bx%5D.md#L1-L3"


def test_shipped_unicode_tables_equal_this_pythons_unicodedata() -> None:
    from okf_sphinx.core.terms import compute_unicode_tables, unicode_tables

    assert unicode_tables() == compute_unicode_tables()
