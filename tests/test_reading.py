"""get_section, read_lines and search_concepts over a real Sphinx build (docs/agents.md, "Tool contracts")."""

from __future__ import annotations

import hashlib
import json

import pytest
from support.reading_site import built_site

from okf_sphinx import OkfError, open_index
from okf_sphinx.agent.answers import MAX_ANSWER_BYTES, answer_size
from okf_sphinx.agent.dispatch import call_tool
from okf_sphinx.agent.headings import norm_heading, strip_markup


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return open_index(built_site(tmp_path_factory))


def err(fn, *a, **kw) -> OkfError:
    with pytest.raises(OkfError) as info:
        fn(*a, **kw)
    return info.value


# -- heading matching ------------------------------------------------------------------


def test_heading_equality_is_normalised(index):
    for asked in ("Retry policy", "  retry   POLICY ", "RETRY\tpolicy"):
        r = index.get_section(concept_id="guide", heading=asked)
        assert r["heading"] == "Retry policy" and r["locator"] == "guide.rst#L6-L10"


def test_heading_dash_forms_and_source_markup(index):
    shown = "Using okf quickly — a tour"
    for asked in (shown, "using okf quickly - a tour", "Using ``okf`` *quickly* -- a tour",
                  "Using ``okf`` *quickly* — a tour", "USING OKF QUICKLY ‒ A TOUR"):
        r = index.get_section(concept_id="guide", heading=asked)
        assert r["heading"] == shown, asked
    # MyST: as shown and as written
    for asked in ("First code heading", "First `code` heading"):
        assert index.get_section(concept_id="notes", heading=asked)["locator"] == "notes.md#L5-L8"
    assert index.get_section(concept_id="notes", heading="Deeper *detail*")["heading"] == "Deeper detail"


def test_identifier_rule_k1_never_matches_k10(index):
    assert index.get_section(concept_id="guide", heading="K1")["heading"] == "K1 First rule"
    assert index.get_section(concept_id="guide", heading="k10")["heading"] == "K10 Tenth rule"
    assert index.get_section(concept_id="guide", heading="K11")["heading"] == "K11. Eleventh rule"
    assert index.get_section(concept_id="guide", heading="K11.")["heading"] == "K11. Eleventh rule"
    e = err(index.get_section, concept_id="guide", heading="K2")
    assert e.code == "section_not_found"
    # no close heading: the page's identifiers are suggested
    assert [s["heading"] for s in e.details["suggestions"]] == ["K1 First rule", "K10 Tenth rule", "K11. Eleventh rule"]


def test_part_of_a_heading_is_not_a_match(index):
    e = err(index.get_section, concept_id="guide", heading="Retry")
    assert e.code == "section_not_found"
    e = err(index.get_section, concept_id="guide", heading="retry polic")
    assert e.code == "section_not_found"
    assert e.details["suggestions"][0] == {"heading": "Retry policy", "locator": "guide.rst#L6-L10"}
    assert "suggestions_truncated" not in e.details


def test_ambiguous_heading_lists_candidates_in_document_order(index):
    e = err(index.get_section, concept_id="guide", heading="notes")
    assert e.code == "ambiguous_section"
    assert e.details["candidates"] == [
        {"heading": "Notes", "locator": "guide.rst#L35-L39"},
        {"heading": "Notes", "locator": "guide.rst#L40-L44"},
    ]
    assert "candidates_truncated" not in e.details
    # a candidate's locator resolves it
    assert index.get_section(locator="guide.rst#L40-L44")["content"].endswith("Second notes section.\n")


def test_norm_and_markup_helpers():
    assert norm_heading("  A\u2014B\u00a0 c ") == "a-b c"
    assert strip_markup("Using ``okf`` *fast* and :py:func:`run <x.run>` `link <http://x>`_") == "Using okf fast and run link"
    assert strip_markup("[text](http://x) **bold** {py:class}`Foo`") == "text bold Foo"


# -- get_section answers ------------------------------------------------------------------


def test_section_subtree_breadcrumb_neighbours(index):
    r = index.get_section(concept_id="guide", heading="Retry policy")
    assert r["status"] == "ok" and "error" not in r and r["kind"] == "section"
    assert (r["line_start"], r["line_end"]) == (6, 10)
    assert r["content_locator"] == "guide.rst#L6-L25"  # subtree: K1, K10, K11.
    assert r["content"].startswith("Retry policy\n------------\n") and "The eleventh rule" in r["content"]
    assert r["breadcrumb"] == ["Guide"]
    assert [s["heading"] for s in r["subsections"]] == ["K1 First rule", "K10 Tenth rule", "K11. Eleventh rule"]
    assert r["previous"] == {"heading": "Guide", "locator": "guide.rst#L1-L5"}
    assert r["next"] == {"heading": "K1 First rule", "locator": "guide.rst#L11-L15"}
    assert r["url"] == "guide.html#retry-policy"
    own = index.get_section(concept_id="guide", heading="Retry policy", include_subsections=False)
    assert own["content_locator"] == own["locator"] == "guide.rst#L6-L10"
    assert "K1 First" not in own["content"]
    sha = hashlib.sha256((index.source.index_dir.parent.parent / "src" / "guide.rst").read_bytes()).hexdigest()
    assert r["content_sha256"] == sha


def test_subtree_stays_in_its_file_but_lists_included_children(index):
    r = index.get_section(concept_id="guide", heading="Using okf quickly — a tour")
    assert r["content_locator"] == "guide.rst#L26-L34"
    assert ".. include:: _includes/shared.rst" in r["content"] and "zebras" not in r["content"]
    assert r["subsections"] == [{"heading": "Shared fragment", "locator": "_includes/shared.rst#L1-L4"}]
    inc = index.get_section(locator="_includes/shared.rst#L1-L4")
    assert inc["concept_id"] == "guide" and inc["path"] == "_includes/shared.rst"
    assert inc["breadcrumb"] == ["Guide", "Using okf quickly — a tour"]


def test_outline_without_heading(index):
    r = index.get_section(concept_id="guide")
    assert r["kind"] == "outline" and r["title"] == "Guide" and r["total"] == len(r["outline"])
    assert r["outline"][0] == {"heading": "Guide", "level": 1, "locator": "guide.rst#L1-L5", "parent": None}
    assert r["outline"][2]["parent"] == 1


def test_crlf_and_bom_sections(index):
    r = index.get_section(concept_id="crlf", heading="Second section")
    assert r["content"] == "Second section\r\n--------------\r\n\r\nMore walrus text."  # without the final CRLF
    b = index.get_section(concept_id="bom", heading="BOM page", include_subsections=False)
    assert not b["content"].startswith("\ufeff") and b["content"].startswith("# BOM page")


def test_paging_reassembles_on_code_points(index):
    full = index.get_section(concept_id="big", heading="Long section", max_chars=200000)
    assert not full["truncated"] and "next_offset" not in full and "truncation_reason" not in full
    text = full["content"]
    assert len(text) > 20000
    first = index.get_section(concept_id="big", heading="Long section")
    assert first["truncated"] and first["truncation_reason"] == "max_chars" and first["max_chars"] == 20000
    pieces, offset = [first["content"]], first["next_offset"]
    while True:
        r = index.get_section(concept_id="big", heading="Long section", offset=offset, max_chars=7777)
        pieces.append(r["content"])
        if not r["truncated"]:
            break
        offset = r["next_offset"]
    assert "".join(pieces) == text


def test_paging_numbers_are_clamped_and_echoed(index):
    r = index.get_section(concept_id="guide", heading="Cache", max_chars=0, offset=-5)
    assert r["max_chars"] == 1 and r["offset"] == 0 and len(r["content"]) == 1 and r["truncated"]
    r = index.get_section(concept_id="guide", heading="Cache", max_chars=10**9, offset=10**9)
    assert r["max_chars"] == 200000 and r["offset"] == r["content_chars"] and r["content"] == "" and not r["truncated"]
    for bad in (True, 1.5, "10"):
        assert err(index.get_section, concept_id="guide", heading="Cache", max_chars=bad).code == "schema_validation"
        assert err(index.get_section, concept_id="guide", heading="Cache", offset=bad).code == "schema_validation"
    assert err(index.get_section, concept_id="guide", include_subsections=1).code == "schema_validation"


def test_byte_budget_pages_instead_of_cutting(index):
    r = index.get_section(concept_id="wide", heading="Wide page", max_chars=200000)
    assert r["truncated"] and r["truncation_reason"] == "byte_budget"
    size = len(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode())
    assert answer_size(r) <= MAX_ANSWER_BYTES and size <= MAX_ANSWER_BYTES
    pieces, offset = [r["content"]], r["next_offset"]
    while True:
        nxt = index.get_section(concept_id="wide", heading="Wide page", max_chars=200000, offset=offset)
        assert answer_size(nxt) <= MAX_ANSWER_BYTES
        pieces.append(nxt["content"])
        if not nxt["truncated"]:
            break
        offset = nxt["next_offset"]
    source = (index.source.index_dir.parent.parent / "src" / "wide.rst").read_text(encoding="utf-8")
    assert "".join(pieces) == source.rstrip("\n")


def test_get_section_argument_errors(index):
    assert err(index.get_section).code == "schema_validation"
    assert err(index.get_section, heading="x").code == "schema_validation"
    assert err(index.get_section, locator="guide.rst#L6-L10", heading="Retry policy").code == "schema_validation"
    assert err(index.get_section, locator="guide.rst#L6-L10", concept_id="notes").code == "section_not_found"
    assert err(index.get_section, locator="guide.rst").code == "schema_validation"
    assert err(index.get_section, locator="guide.rst#L6-L99").code == "section_not_found"
    assert err(index.get_section, locator="nope.rst#L1-L2").code == "not_found"
    assert err(index.get_section, locator="../etc/passwd#L1-L2").code == "path_outside_root"
    assert err(index.get_section, locator="guide.rst#L9-L3").code == "invalid_line_range"
    assert err(index.get_section, concept_id="nope").code == "not_found"
    e = err(index.get_section, concept_id="guid")
    assert e.code == "not_found" and e.details["suggestions"][0] == "guide"


def test_locator_of_a_wrong_range_suggests_overlapping_sections(index):
    e = err(index.get_section, locator="guide.rst#L7-L12")
    assert e.code == "section_not_found"
    assert [s["locator"] for s in e.details["suggestions"]] == ["guide.rst#L6-L10", "guide.rst#L11-L15"]


# -- read_lines ----------------------------------------------------------------------------


def test_read_lines_ranges_and_crlf_round_trip(index):
    data = (index.source.index_dir.parent.parent / "src" / "crlf.rst").read_bytes()
    r = index.read_lines("crlf.rst", [1, 9])
    assert r["range"] == {"start": 1, "end": 9, "total_lines": 9, "truncated": False}
    assert r["content"].encode() == data
    a = index.read_lines("crlf.rst", [1, 4])["content"]
    b = index.read_lines("crlf.rst", [5, 9])["content"]
    assert a.endswith("walrus.\r") and (a + "\n" + b).encode() == data
    t = index.read_lines("crlf.rst", [8, 50])
    assert t["range"] == {"start": 8, "end": 9, "total_lines": 9, "truncated": True, "truncation_reason": "end_of_file"}
    assert hashlib.sha256(data).hexdigest() == r["content_sha256"]


def test_read_lines_errors(index):
    assert err(index.read_lines, "crlf.rst", [10, 12]).code == "range_out_of_bounds"
    for bad in ([0, 3], [3, 2], [-1, 2], [1], [1, 2, 3], "1-2", [True, 5], [1, 5.0], [1.0, 2], None):
        assert err(index.read_lines, "crlf.rst", bad).code == "invalid_line_range", bad
    assert err(index.read_lines, "", [1, 2]).code == "missing_path"
    assert err(index.read_lines, "./", [1, 2]).code == "missing_path"
    assert err(index.read_lines, "../conf.py", [1, 2]).code == "path_outside_root"
    assert err(index.read_lines, "_includes/../../x.rst", [1, 2]).code == "path_outside_root"
    assert err(index.read_lines, "/etc/passwd", [1, 2]).code == "path_outside_root"
    assert err(index.read_lines, "a" * 4097, [0, 0]).code == "path_too_long"  # before the range check
    assert err(index.read_lines, "a/" * 70 + "x", [1, 1]).code == "path_too_long"
    assert err(index.read_lines, "conf.py", [1, 2]).code == "not_found"
    # a path unit boundary: "_includesx/shared.rst" is not "_includes/shared.rst"
    assert err(index.read_lines, "_includesx/shared.rst", [1, 2]).code == "not_found"
    assert err(index.read_lines, 5, [1, 2]).code == "schema_validation"
    # normalisation: ./ and inner .. resolve as path units
    assert index.read_lines("./_includes/./x/../shared.rst", [1, 1])["path"] == "_includes/shared.rst"


def test_read_lines_over_budget_is_refused_with_size(index):
    e = err(index.read_lines, "wide.rst", [1, 10**6])
    assert e.code == "page_too_large" and e.details["size"] > MAX_ANSWER_BYTES
    ok = index.read_lines("wide.rst", [1, e.details["max_end"]])
    assert answer_size(ok) <= MAX_ANSWER_BYTES
    assert err(index.read_lines, "wide.rst", [1, e.details["max_end"] + 1]).code == "page_too_large"


# -- search_concepts -----------------------------------------------------------------------


def test_search_concepts_literal_substring(index):
    r = index.search_concepts("GEN_")
    assert r["status"] == "ok" and r["total"] == 4 and not r["truncated"]
    assert [c["concept_id"] for c in r["concepts"]] == ["gen_md_0", "gen_md_1", "gen_rst_0", "gen_rst_1"]
    assert index.search_concepts("bom page")["concepts"] == [{"concept_id": "bom", "title": "BOM page", "searchable": True}]
    r = index.search_concepts("e", limit=2)
    assert r["truncated"] and len(r["concepts"]) == 2 and r["total"] > 2
    assert index.search_concepts("reading tests")["concepts"][0]["searchable"] is False  # index page
    assert index.search_concepts("g.n")["total"] == 0  # literal, not a pattern
    for bad in ("", "   ", "x" * 513, 3):
        assert err(index.search_concepts, bad).code == "schema_validation"
    for bad in (0, 101, True, 2.0):
        assert err(index.search_concepts, "gen", bad).code == "schema_validation"


def test_call_tool_is_strict(index):
    assert err(call_tool, index, "nope", {}).code == "schema_validation"
    assert err(call_tool, index, "search_sections", {"query": "x", "extra": 1}).code == "schema_validation"
    assert err(call_tool, index, "search_sections", {"limit": 3}).code == "schema_validation"
    assert err(call_tool, index, "search_sections", {"query": "retry", "limit": True}).code == "schema_validation"
    assert err(call_tool, index, "search_sections", {"query": "retry", "limit": None}).code == "schema_validation"
    assert err(call_tool, index, "read_lines", {"lines": [1, 2]}).code == "missing_path"
    assert err(call_tool, index, "read_lines", {"path": "crlf.rst"}).code == "schema_validation"
    assert err(call_tool, index, "get_section", [1]).code == "schema_validation"
    assert call_tool(index, "get_section", {"concept_id": "guide"})["kind"] == "outline"


def test_every_example_site_section_reads_back(example_html):
    """Over example_site (line drift, CRLF, BOM, includes, non-Latin text): every
    section resolves by locator and by heading, and read_lines gives its exact text."""
    ex = open_index(example_html)
    for sid in range(ex.sections_all):
        s = ex.section(sid)
        r = ex.get_section(locator=s["locator"], include_subsections=False)
        assert (r["concept_id"], r["path"], r["line_start"], r["line_end"]) == (
            s["concept_id"], s["path"], s["line_start"], s["line_end"])
        assert r["content"] == s["text"]
        if s.get("generated"):  # its text is the rendering; the range is its directive (docs/contract.md)
            assert r["object"]["generated"] is True
            continue
        got = ex.read_lines(s["path"], [s["line_start"], s["line_end"]])
        lines = got["content"].removeprefix("\ufeff")
        if got["range"]["end"] == got["range"]["total_lines"]:  # the file's final line break is kept there
            lines = lines.removesuffix("\n")
        assert lines.removesuffix("\r") == s["text"]
        if s["heading"]:
            try:
                found = ex.get_section(concept_id=s["concept_id"], heading=s["heading"], include_subsections=False)
                if s.get("continued"):  # the heading names the section it continues, whose subtree holds it
                    whole = ex.get_section(locator=found["locator"])
                    assert s["text"] in whole["content"] and whole["heading"] == s["heading"]
                    continue
                assert found["locator"] == s["locator"]
            except OkfError as e:
                assert e.code == "ambiguous_section", e
                assert {"heading": s["heading"], "locator": s["locator"]} in e.details["candidates"]
