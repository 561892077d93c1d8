"""The contract's rules, one by one, on pure functions and a small real index.

The index here is written by the real index writer from hand-made records (no
Sphinx run), so these tests are fast: they are the test selection of the
mutation run (bench/mutation.py), and each assertion pins one rule of
SEARCH_CONTRACT.md / AGENT_TOOLS.md with values worked out by hand.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path, PurePosixPath

import pytest

import okf_sphinx
from okf_sphinx import OkfError
from okf_sphinx import format as fmt
from okf_sphinx import query as q
from okf_sphinx.index_writer import DEFAULT_LIMITS, Site, build_index, write_index
from okf_sphinx.sections import CapturedFile, DocRecord, Section
from okf_sphinx.terms import native, terms, validate_limit


def code_of(fn) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(OkfError) as err:
        fn()
    return err.value.code


# -- format.py ------------------------------------------------------------------------------


def test_locator_escapes_all_but_unreserved_and_sub_delims() -> None:
    keep = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/$&+,:;=@")
    for cp in range(0x20, 0x7F):
        ch = chr(cp)
        expected = ch if ch in keep else f"%{cp:02X}"
        assert fmt.locator(f"a{ch}b", 3, 9) == f"a{expected}b#L3-L9", ch
    assert fmt.locator("dir/é \u2028.md", 1, 1) == "dir/%C3%A9%20%E2%80%A8.md#L1-L1"
    assert fmt.locator("x", 12, 345) == "x#L12-L345"


def test_canonical_json_is_compact_sorted_and_html_safe() -> None:
    value = {"b": "<a href='x'>&</a>\u2028\u2029", "a": [1, 2.5, None, True], "é": "é"}
    text = fmt.canonical_json(value)
    assert text == ('{"a":[1,2.5,null,true],"b":"\\u003ca href=\'x\'\\u003e\\u0026\\u003c/a\\u003e\\u2028\\u2029",'
                    '"é":"é"}')
    assert fmt.canonical_json({"b": 1, "a": 2}, sort_keys=False) == '{"b":1,"a":2}'
    with pytest.raises(ValueError):
        fmt.canonical_json({"x": math.nan})


def test_wrap_and_unwrap_are_exact_inverses_and_strict() -> None:
    data = fmt.wrap("t/1f", {"k": [1, "<"]})
    assert data == b'okfLoad("t/1f",{"k":[1,"\\u003c"]});\n'
    assert fmt.unwrap("t/1f", data) == {"k": [1, "<"]}
    for bad in (data[:-1], data.replace(b"okfLoad", b"okfLoaf"), b"\xff" + data, data.replace(b"[1", b"[NaN")):
        assert code_of(lambda: fmt.unwrap("t/1f", bad)) == "index_corrupt"
    assert code_of(lambda: fmt.unwrap("t/1e", data)) == "index_corrupt"
    for literal in (b"NaN", b"Infinity", b"-Infinity"):
        assert code_of(lambda: fmt.unwrap("x", b'okfLoad("x",' + literal + b");\n")) == "index_corrupt"
    assert fmt.unwrap("x", b'okfLoad("x",1e999);\n') == math.inf  # a number: its range is the reader's check


def test_fnv1a32_and_shard_names() -> None:
    # FNV-1a 32-bit reference vectors
    assert fmt.fnv1a32("") == 0x811C9DC5
    assert fmt.fnv1a32("a") == 0xE40C292C
    assert fmt.fnv1a32("foobar") == 0xBF9CF968
    h = 0x811C9DC5
    for byte in (0xC3, 0xA9):  # "é" in UTF-8: the hash is over bytes
        h = ((h ^ byte) * 0x01000193) % 2**32
    assert fmt.fnv1a32("é") == h
    assert fmt.shard_name("foobar", 1) == "t/0"
    assert fmt.shard_name("foobar", 4096) == f"t/{0xBF9CF968 % 4096:x}"
    assert fmt.shard_name("a", 16) == f"t/{0xE40C292C % 16:x}"


def test_snapshot_revision_follows_the_contract_text() -> None:
    entries = [{"path": "b&<>.md", "size": 2, "sha256": "b" * 64, "extra": 1},
               {"sha256": "a" * 64, "size": 10, "path": "a\u2028\u2029.rst"}]
    payload = ('[{"path":"a\\u2028\\u2029.rst","size":10,"sha256":"' + "a" * 64 + '"},'
               '{"path":"b\\u0026\\u003c\\u003e.md","size":2,"sha256":"' + "b" * 64 + '"}]')
    assert fmt.snapshot_revision(entries) == hashlib.sha256(payload.encode("utf-8")).hexdigest()
    assert fmt.snapshot_revision([]) == hashlib.sha256(b"[]").hexdigest()


def test_bm25_part_values_and_operation_order() -> None:
    assert fmt.bm25_part(1.0, 1, 10, 10.0) == 1.0  # 2.2 / (1 + 1.2)
    assert fmt.bm25_part(2.0, 2, 20, 10.0) == 2.0 * 4.4 / (2 + 1.2 * (0.25 + 0.75 * 2.0))
    assert fmt.bm25_part(0.5, 3, 0, 7.0) == 0.5 * 6.6000000000000005 / (3 + 1.2 * 0.25)
    # the fixed order: idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * length / avglen)), bit for bit
    for idf, f, n, avg in ((0.1, 1, 3, 7.3), (3.7, 5, 11, 2.9), (1e-3, 9, 1000, 13.1)):
        assert fmt.bm25_part(idf, f, n, avg) == idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * n / avg))
    assert (fmt.K1, fmt.B, fmt.WEIGHTS) == (1.2, 0.75, {"body": 1, "heading": 3, "title": 2})


# -- terms.py -------------------------------------------------------------------------------


def test_terms_rule_by_example() -> None:
    assert terms("Hello, World_42 x-y") == ["hello", "world", "42", "x", "y"]
    assert terms("Straße ΣΊΣΥΦΟΣ ﬁle") == ["strasse", "σίσυφοσ", "file"]
    assert terms("Cafe\u0301 café") == ["café", "café"]  # NFC after casefold
    assert terms("don't a.b") == ["don", "t", "a", "b"]
    assert terms("") == [] and terms(" \t.,;") == []
    assert terms("日本語テキスト") == ["日本語テキスト"]
    assert terms("x\u0301y") == ["x\u0301y"]  # marks join a run


def test_query_terms_validation_and_order() -> None:
    n = native()
    assert n.query_terms("Retry retry RETRY policy") == ["retry", "policy"]
    assert n.query_terms("a" * 512) == ["a" * 512]
    for bad in (None, 5, "", "a" * 513, "...", "\ud800x", "_"):
        assert code_of(lambda: n.query_terms(bad)) == "schema_validation", bad
    assert n.query_terms(" ".join(f"w{i}" for i in range(32)))[-1] == "w31"
    with pytest.raises(OkfError) as err:
        n.query_terms(" ".join(f"w{i}" for i in range(33)))
    assert err.value.code == "resource_limit" and err.value.details == {"limit": 32, "actual": 33}
    # a term over 4096 code points needs a query over 512: never reachable, the cap still holds
    assert code_of(lambda: n.query_terms("ﬃ" * 512 + "x")) == "schema_validation"


def test_validate_limit() -> None:
    assert validate_limit(None) == 20 and validate_limit(1) == 1 and validate_limit(100) == 100
    for bad in (0, 101, -1, True, 1.0, "5"):
        assert code_of(lambda: validate_limit(bad)) == "schema_validation", bad


def test_snippet_rule() -> None:
    n = native()
    text = "x" * 100 + " retry " + "y" * 600
    assert n.snippet(text, ["retry"]) == text[21:533]  # 80 code points before the run, 512 long
    assert n.snippet("retry now", ["retry"]) == "retry now"
    assert n.snippet("a" * 600, ["zzz"]) == "a" * 512  # no match: the first 512
    assert n.snippet("préretry retry", ["retry"]) == "préretry retry"  # a run must be the whole term
    assert n.snippet("é" * 90 + " Straße", ["strasse"]) == ("é" * 90 + " Straße")[11:]


# -- query.py on a real index written from hand-made records ---------------------------------


def _section(file: str, heading: str, level: int, start: int, end: int, parent: int | None = None) -> Section:
    return Section(file, heading, level, start, end, heading.lower().replace(" ", "-"), (), parent)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> okf_sphinx.Index:
    root = tmp_path_factory.mktemp("rules")
    src = root / "src"
    sources = {
        "alpha.rst": "Alpha\n=====\n\nretry policy retry\n\nBeta part\n---------\n\nretry once\n",
        "gamma.md": "# Gamma\n\npolicy only here and retry\n",
        "index.rst": "Home\n====\n\nretry\n",
    }
    records = []
    for name, text in sources.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    a, g, i = (CapturedFile.read((src / n).resolve())[0] for n in sources)
    records.append(DocRecord("alpha", "Alpha", True, [a], [_section(a.path, "Alpha", 1, 1, 5),
                                                          _section(a.path, "Beta part", 2, 6, 9, 0)]))
    records.append(DocRecord("gamma", "Gamma", True, [g], [_section(g.path, "Gamma", 1, 1, 3)]))
    records.append(DocRecord("index", "Home", False, [i], [_section(i.path, "Home", 1, 1, 4)]))
    site = Site("html", lambda d: f"{d}.html", lambda exprs: True, "search.html")
    files = build_index(records, PurePosixPath(src.resolve().as_posix()), site, dict(DEFAULT_LIMITS))
    write_index(root / "out" / "_okf", files)
    return okf_sphinx.open_index(root / "out")


def _idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def test_search_scores_are_the_contract_bm25(index: okf_sphinx.Index) -> None:
    r = index.search("retry")
    # searchable sections: alpha 1-5, alpha 6-9, gamma 1-3 (index is excluded); the range
    # text holds the heading line, so heading terms count as body (1) and heading (3)
    lengths = {("alpha", 1): 4 + 3 * 1 + 2 * 1, ("alpha", 6): 4 + 3 * 2 + 2 * 1, ("gamma", 1): 6 + 3 + 2}
    freqs = {("alpha", 1): 2, ("alpha", 6): 1, ("gamma", 1): 1}
    avg = sum(lengths.values()) / 3
    assert index.avglen == avg
    idf = _idf(3, 3)
    expected = {k: idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * lengths[k] / avg)) for k, f in freqs.items()}
    order = sorted(expected, key=lambda k: (-expected[k], k))  # score, then sid: (concept_id, line_start, path)
    assert [(h["concept_id"], h["line_start"]) for h in r["hits"]] == order
    assert [h["score"] for h in r["hits"]] == [expected[k] for k in order]
    assert r["total"] == 3 and r["truncated"] is False and r["terms"] == ["retry"] and r["query"] == "retry"


def test_search_and_semantics_sum_order_and_fields(index: okf_sphinx.Index) -> None:
    r = index.search("policy retry")
    assert r["terms"] == ["policy", "retry"] and r["total"] == 2
    assert [(h["concept_id"], h["heading"]) for h in r["hits"]] == [("alpha", "Alpha"), ("gamma", "Gamma")]
    hit = r["hits"][0]
    idf_p, idf_r = _idf(3, 2), _idf(3, 3)
    avg = index.avglen
    expected = 0.0 + idf_p * (1 * 2.2) / (1 + 1.2 * (0.25 + 0.75 * 9 / avg))
    expected += idf_r * (2 * 2.2) / (2 + 1.2 * (0.25 + 0.75 * 9 / avg))
    assert hit["score"] == expected
    assert list(hit) == ["concept_id", "path", "heading", "locator", "line_start", "line_end", "content_sha256",
                         "snippet", "score", "matched_terms"]
    assert hit["locator"] == "alpha.rst#L1-L5" and hit["matched_terms"] == ["policy", "retry"]
    assert hit["snippet"] == "Alpha\n=====\n\nretry policy retry\n"
    assert index.search("policy nowhere") == {**index.search("policy nowhere"), "total": 0, "hits": [], "truncated": False}
    assert index.search("home")["total"] == 0  # an excluded page is never a hit


def test_limit_truncates_and_ties_break_by_sid(index: okf_sphinx.Index) -> None:
    full = index.search("retry", limit=3)
    assert full["truncated"] is False and len(full["hits"]) == 3
    for k in (1, 2):
        r = index.search("retry", limit=k)
        assert r["total"] == 3 and r["truncated"] is True and r["hits"] == full["hits"][:k]
    assert q.rank(index, ["retry", "policy"], 5)[0] == 2
    assert q.rank(index, ["retry", "zzz"], 5) == (0, [])


def test_response_cap_is_exactly_one_mebibyte(index: okf_sphinx.Index, monkeypatch: pytest.MonkeyPatch) -> None:
    assert q.MAX_RESPONSE_BYTES == 1048576
    answer = index.search("retry")
    size = len(fmt.canonical_json(answer, sort_keys=False).encode("utf-8"))
    monkeypatch.setattr(q, "MAX_RESPONSE_BYTES", size)
    assert index.search("retry") == answer
    monkeypatch.setattr(q, "MAX_RESPONSE_BYTES", size - 1)
    with pytest.raises(OkfError) as err:
        index.search("retry")
    assert err.value.code == "resource_limit" and err.value.details == {"limit": size - 1, "actual": size}


def test_snapshot_revision_and_files_of_the_written_index(index: okf_sphinx.Index) -> None:
    files = index.files()
    assert [f["path"] for f in files] == ["alpha.rst", "gamma.md", "index.rst"]
    assert index.snapshot_revision == fmt.snapshot_revision(files)
    assert json.loads(json.dumps(index.search("gamma")))["snapshot_revision"] == index.snapshot_revision


# -- the reading tools' rules ---------------------------------------------------------------------


def test_heading_normalisation_rules() -> None:
    from okf_sphinx.reading import norm_heading, strip_markup

    assert norm_heading("  Retry \t  POLICY ") == "retry policy"
    assert norm_heading("a \u2013 b\u2014c") == "a - b-c"
    assert norm_heading("\u201cQuoted\u201d \u2018it\u2019s\u2019") == "\"quoted\" 'it's'"
    assert norm_heading("Wait\u2026") == "wait..."
    assert norm_heading("Cafe\u0301") == norm_heading("Caf\u00e9")
    assert norm_heading("STRASSE") == norm_heading("straße")
    assert strip_markup("``code`` and *em* and **strong** and :ref:`label <target>`") == "code and em and strong and label"
    assert strip_markup("`link <https://x>`_ and [md](u) and {py:func}`f`") == "link and md and f"
    assert strip_markup("snake_case_name and a\\*b") == "snake_case_name and a*b"


def test_identifier_rule() -> None:
    from okf_sphinx.reading import _identifier, _starts_with_identifier

    assert _identifier("K11") == "k11" and _identifier("3.") == "3" and _identifier("A.") == "a"
    assert _identifier("word") is None and _identifier(".") is None and _identifier("") is None
    assert _identifier("ABCD1") is None and _identifier("K1234") is None
    assert _starts_with_identifier("k1. intro", "k1") and _starts_with_identifier("k1", "k1")
    assert not _starts_with_identifier("k10 intro", "k1")


def test_normalise_path_rules() -> None:
    from okf_sphinx.reading import normalise_path

    assert normalise_path("a/./b/../c.md") == "a/c.md"
    assert normalise_path("a//b") == "a/b"
    assert code_of(lambda: normalise_path("../x")) == "path_outside_root"
    assert code_of(lambda: normalise_path("/etc/passwd")) == "path_outside_root"
    assert code_of(lambda: normalise_path("C:\\x")) == "path_outside_root"
    assert code_of(lambda: normalise_path(None)) == "missing_path"
    assert code_of(lambda: normalise_path("  ")) == "missing_path"
    assert code_of(lambda: normalise_path("a/..")) == "missing_path"
    assert code_of(lambda: normalise_path("a\x00b")) == "schema_validation"
    assert code_of(lambda: normalise_path("x" * 4097)) == "path_too_long"
    assert normalise_path("é" * 2048) == "é" * 2048  # 4096 bytes: at the limit
    assert code_of(lambda: normalise_path("é" * 2049)) == "path_too_long"
    assert normalise_path("/".join(["d"] * 64)) == "/".join(["d"] * 64)
    assert code_of(lambda: normalise_path("/".join(["d"] * 65))) == "path_too_long"


def test_locator_parsing_rules(index: okf_sphinx.Index) -> None:
    from okf_sphinx.reading import _parse_locator

    assert _parse_locator("alpha.rst#L6-L9") == ("alpha.rst", 6, 9)
    assert _parse_locator("alpha.rst#L6") == ("alpha.rst", 6, 6)
    assert _parse_locator("a%20b%C3%A9.rst#L1-L2") == ("a bé.rst", 1, 2)
    assert code_of(lambda: _parse_locator("alpha.rst#L0-L2")) == "invalid_line_range"
    assert code_of(lambda: _parse_locator("alpha.rst#L3-L2")) == "invalid_line_range"
    assert code_of(lambda: _parse_locator("alpha.rst#L" + "9" * 17)) == "invalid_line_range"
    assert _parse_locator("alpha.rst#L" + "9" * 16) == ("alpha.rst", 10**16 - 1, 10**16 - 1)
    assert code_of(lambda: _parse_locator("alpha.rst")) == "schema_validation"
    assert code_of(lambda: _parse_locator("a%FF.rst#L1")) == "schema_validation"
    assert index.get_section(locator="alpha.rst#L6-L9")["heading"] == "Beta part"
    assert index.get_section(locator="alpha.rst#L1-L9")["heading"] == "Alpha"  # its subtree's range
    assert code_of(lambda: index.get_section(locator="alpha.rst#L1-L8")) == "section_not_found"


def test_read_lines_rules(index: okf_sphinx.Index) -> None:
    r = index.read_lines("alpha.rst", [6, 100])
    assert r["range"] == {"start": 6, "end": 9, "total_lines": 9, "truncated": True}
    assert r["content"] == "Beta part\n---------\n\nretry once\n" and r["locator"] == "alpha.rst#L6-L9"
    assert index.read_lines("alpha.rst", [1, 9])["content"].encode("utf-8") == index.file_bytes(0)
    assert index.read_lines("alpha.rst", [2, 2])["content"] == "====="
    assert code_of(lambda: index.read_lines("alpha.rst", [10, 10])) == "range_out_of_bounds"
    for bad in ([0, 1], [2, 1], [True, 2], [1.0, 2], [1], "1-2"):
        assert code_of(lambda: index.read_lines("alpha.rst", bad)) == "invalid_line_range", bad


def test_search_concepts_rules(index: okf_sphinx.Index) -> None:
    r = index.search_concepts("A")
    assert [c["concept_id"] for c in r["concepts"]] == ["alpha", "gamma"]
    assert r["concepts"][0] == {"concept_id": "alpha", "title": "Alpha", "searchable": True}
    assert [c["concept_id"] for c in index.search_concepts("home")["concepts"]] == ["index"]
    assert index.search_concepts("home")["concepts"][0]["searchable"] is False
    r = index.search_concepts("a", limit=1)
    assert r["total"] == 2 and r["truncated"] is True and len(r["concepts"]) == 1
    assert code_of(lambda: index.search_concepts("  ")) == "schema_validation"
    assert code_of(lambda: index.search_concepts("x" * 513)) == "schema_validation"
    assert index.search_concepts("x" * 512)["total"] == 0
