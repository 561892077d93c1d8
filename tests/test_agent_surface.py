"""The agent surface's invariants: one source for the BM25 constants, one line counter,
``truncation_reason`` beside every ``truncated``, the concept-id list built once, a clear
name for the section count, and cold reads that allocate about what they read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.reading_site import built_site

from okf_sphinx import open_index
from okf_sphinx.agent.pages import concept_ids
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.lines import LineMap

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


def test_bm25_has_one_formula_per_language_and_no_literal_parameters():
    # Lucene's model: k1 and b are state (the manifest's), the formula takes them as arguments
    py = Path(fmt.__file__).read_text(encoding="utf-8")
    js = (ROOT / "okf_sphinx" / "js" / "core" / "index_format.js").read_text(encoding="utf-8")
    for text, start in ((py, "def bm25_part"), (js, "function bm25Part")):
        body = text[text.index(start):].split("\n\n")[0]
        assert not re.search(r"\b(2\.2|1\.2|0\.25|0\.75)\b", body), f"literal BM25 constants in {start}"
        assert "k1 + 1" in body and "1 - b" in body
    for path in (ROOT / "okf_sphinx").rglob("*.[pj][ys]"):  # one formula: no other file writes it
        if path.name not in ("index_format.py", "index_format.js"):
            assert "k1 + 1" not in path.read_text(encoding="utf-8"), path
    assert fmt.bm25_part(1.5, 2, 10, 8.0, fmt.K1, fmt.B) == 1.5 * (2 * 2.2) / (2 + 1.2 * (0.25 + 0.75 * 10 / 8.0))


def test_one_line_counter_agrees_on_every_file_and_on_empty_text(site):
    assert LineMap("").total_lines == 0
    assert LineMap("\n").total_lines == 1
    assert LineMap("a").total_lines == 1 and LineMap("a\n").total_lines == 1 and LineMap("a\nb").total_lines == 2
    assert LineMap("\ufeff").total_lines == 1
    index = open_index(site)
    for n, entry in enumerate(index.files()):
        text = index.file_bytes(n).decode("utf-8")
        answer = index.read_lines(entry["path"], [1, 10**6]) if entry["path"] != "wide.rst" else None
        if answer is not None:
            assert answer["range"]["total_lines"] == LineMap(text).total_lines, entry["path"]
            assert answer["content"] == text


def test_truncation_reason_appears_exactly_when_truncated(site):
    index = open_index(site)
    cut = index.search_concepts("gen", limit=1)
    assert cut["truncated"] and cut["truncation_reason"] == "limit" and cut["total"] > 1
    whole = index.search_concepts("gen", limit=100)
    assert not whole["truncated"] and "truncation_reason" not in whole
    clamped = index.read_lines("guide.rst", [1, 10**6])["range"]
    assert clamped["truncated"] and clamped["truncation_reason"] == "end_of_file"
    exact = index.read_lines("guide.rst", [1, 3])["range"]
    assert not exact["truncated"] and "truncation_reason" not in exact


def test_concept_ids_are_built_once_per_index(site):
    index = open_index(site)
    index.get_section(concept_id="guide", heading="Retry policy")
    first = index.cache.get("concept_ids")  # kept with the index's files (and bounded with them)
    assert first == [c[0] for c in index.concepts()]
    index.get_section(concept_id="notes")
    index.get_section(locator="guide.rst#L6-L10")
    assert index.cache.get("concept_ids") is first and concept_ids(index) is first


def test_section_count_is_named_as_a_count(site):
    index = open_index(site)
    assert index.section_count == index.manifest["sections"]
    assert not hasattr(index, "sections")  # one name: the old alias is gone
    assert isinstance(index.concepts(), list)


def test_a_cold_read_allocates_about_the_files_it_reads(site):
    """Reading an index file allocates about its size, not the 64 MiB per-file cap
    (``read(cap + 1)`` used to allocate the whole cap up front for every file)."""
    import tracemalloc

    index = open_index(site)
    tracemalloc.start()
    try:
        index.get_section(concept_id="guide", heading="Retry policy")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, peak
