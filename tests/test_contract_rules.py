"""The contract's rules, one by one, on pure functions and a small real index.

The index here is written by the real index writer from hand-made records (no
Sphinx run), so these tests are fast: they are the test selection of the
mutation run (bench/mutation.py), and each assertion pins one rule of
docs/contract.md / docs/agents.md with values worked out by hand.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from pathlib import Path, PurePosixPath

import pytest

import okf_sphinx
from support.build import same_build
from okf_sphinx import OkfError
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.hosts import SPHINX
from okf_sphinx.core.records import CapturedFile, DocRecord, Section
from okf_sphinx.core.terms import native, terms, validate_limit
from okf_sphinx.engine import query as q
from okf_sphinx.writer.disk import write_index
from okf_sphinx.writer.index_writer import Site, build_index
from okf_sphinx.writer.limits import DEFAULT_LIMITS
from support.cli import code_of

CONTRACTS = Path(okf_sphinx.__file__).parent / "contracts"


def check(tool: str, answer: dict) -> None:
    """The answer (or envelope) against the tool's shipped JSON Schema."""
    from jsonschema import Draft202012Validator

    name = "error" if "error" in answer else f"{tool}.output"
    Draft202012Validator(json.loads((CONTRACTS / f"{name}.json").read_text(encoding="utf-8"))).validate(answer)


def envelope(fn) -> dict:  # type: ignore[no-untyped-def]
    """The refusal's wire envelope, checked against contracts/error.json."""
    with pytest.raises(OkfError) as err:
        fn()
    check("", err.value.envelope)
    return err.value.envelope["error"]


def details(fn) -> tuple[str, dict]:  # type: ignore[no-untyped-def]
    e = envelope(fn)
    return e["code"], {k: v for k, v in e.items() if k not in ("code", "message")}


# -- index_format.py ------------------------------------------------------------------------------


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
    build = "0123456789abcdef"
    data = fmt.wrap("t/1f", {"k": [1, "<"]}, build)
    assert data == b'okfLoad("t/1f","0123456789abcdef",{"k":[1,"\\u003c"]});\n'
    assert fmt.unwrap("t/1f", data) == {"k": [1, "<"]} and fmt.unwrap_file("t/1f", data) == (build, {"k": [1, "<"]})
    for bad in (data[:-1], data.replace(b"okfLoad", b"okfLoaf"), b"\xff" + data, data.replace(b"[1", b"[NaN"),
                data.replace(b'"0123456789abcdef",', b'"0123456789abcdef"')):
        assert code_of(lambda: fmt.unwrap("t/1f", bad)) == "index_corrupt"
    assert code_of(lambda: fmt.unwrap("t/1e", data)) == "index_corrupt"
    for literal in (b"NaN", b"Infinity", b"-Infinity"):
        assert code_of(lambda: fmt.unwrap("x", b'okfLoad("x","' + build.encode() + b'",' + literal + b");\n")) == "index_corrupt"
    assert fmt.unwrap("x", b'okfLoad("x","' + build.encode() + b'",1e999);\n') == math.inf  # a number: its range is the reader's check
    # a file written before format 5 names no build: its value reads, its build is None
    assert fmt.unwrap_file("x", b'okfLoad("x",{"a":1});\n') == (None, {"a": 1})
    # the build is the content's: the same files, the same identity; another file, another
    files = {"s/0": "{}", "t/0": '{"a":1}'}
    assert fmt.build_id(files) == fmt.build_id(dict(reversed(list(files.items()))))
    assert fmt.build_id(files) != fmt.build_id({**files, "t/0": '{"a":2}'}) and len(fmt.build_id(files)) == 16


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
    # t/ (format_version 7 and 8 without shard_depths): by the key's first three code points; x/: by the whole key
    assert fmt.shard_name("foobar", 4096) == f"t/{fmt.fnv1a32('foo') % 4096:x}" == fmt.shard_name("foot", 4096)
    assert fmt.shard_name("a", 16) == f"t/{0xE40C292C % 16:x}"
    assert fmt.shard_name("éèêz", 4096) == f"t/{fmt.fnv1a32('éèê') % 4096:x}"


def test_snapshot_revision_follows_the_contract_text() -> None:
    entries = [{"path": "b&<>.md", "size": 2, "sha256": "b" * 64, "extra": 1},
               {"sha256": "a" * 64, "size": 10, "path": "a\u2028\u2029.rst"}]
    payload = ('[{"path":"a\\u2028\\u2029.rst","size":10,"sha256":"' + "a" * 64 + '"},'
               '{"path":"b\\u0026\\u003c\\u003e.md","size":2,"sha256":"' + "b" * 64 + '"}]')
    assert fmt.snapshot_revision(entries) == hashlib.sha256(payload.encode("utf-8")).hexdigest()
    assert fmt.snapshot_revision([]) == hashlib.sha256(b"[]").hexdigest()


def test_bm25_part_values_and_operation_order() -> None:
    k1, b = fmt.K1, fmt.B
    assert fmt.bm25_part(1.0, 1, 10, 10.0, k1, b) == 1.0  # 2.2 / (1 + 1.2)
    assert fmt.bm25_part(2.0, 2, 20, 10.0, k1, b) == 2.0 * 4.4 / (2 + 1.2 * (0.25 + 0.75 * 2.0))
    assert fmt.bm25_part(0.5, 3, 0, 7.0, k1, b) == 0.5 * 6.6000000000000005 / (3 + 1.2 * 0.25)
    # the fixed order: idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * length / avglen)), bit for bit
    for idf, f, n, avg in ((0.1, 1, 3, 7.3), (3.7, 5, 11, 2.9), (1e-3, 9, 1000, 13.1)):
        assert fmt.bm25_part(idf, f, n, avg, k1, b) == idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * n / avg))
    # the parameters are the index's: other values give other scores, in the same order of operations
    assert fmt.bm25_part(1.5, 2, 30, 10.0, 2.0, 0.5) == 1.5 * (2 * 3.0) / (2 + 2.0 * (0.5 + 0.5 * 30 / 10.0))
    assert (fmt.K1, fmt.B, fmt.WEIGHTS) == (1.2, 0.75, {"body": 1, "heading": 3, "title": 2})



def test_smart_mode_keys_of_the_format() -> None:
    """The keys smart mode's files are named and grouped by (docs/smart.md), as every engine computes them."""
    assert fmt.identifiers("Set SECRET_KEY, url_for(), QuerySet.filter and --no-deps; e.g. 1.2.0") == [
        "secret_key", "url_for", "queryset.filter", "--no-deps", "e.g"]
    # options keep at most two leading hyphens; an option needs no connector, a word does
    assert fmt.identifiers("---verbose -ab --x") == ["--verbose", "-ab"]  # "--x": one code point
    # two code points at least; a letter and a connector; "." ":" "-" trimmed from the ends, "_" kept
    assert fmt.identifiers("-x a_ _1 1_2 x. .a.b. a-b- Xa_b plain 1.2 c::d") == [
        "a_", "a.b", "a-b", "xa_b", "c::d"]
    assert fmt.identifiers("1.2 then a_b") == ["a_b"]  # a run that is not an identifier does not end the scan
    # the build matches only runs holding a connector: the same list as checking every run
    rnd = random.Random(11)
    for _ in range(20000):
        text = "".join(rnd.choice("ab1Z_.:- (\n") for _ in range(rnd.randint(0, 14)))
        runs = [m.group() for m in re.finditer(r"[A-Za-z0-9_.:-]+", text)]
        every = [("-" * min(len(r) - len(r.lstrip("-")), 2) + r.strip(".:-")).lower() for r in runs
                 if len(r.strip(".:-")) >= 2 and re.search("[A-Za-z]", r.strip(".:-"))
                 and (r.startswith("-") or re.search("[_.:-]", r.strip(".:-")))]
        assert fmt.identifiers(text) == every, text
    assert fmt.object_name_query("  QuerySet.filter()\t") == "QuerySet.filter"
    assert fmt.object_name_query("XQuerySetX") == "XQuerySetX" and fmt.object_name_query("f()()") == "f()" and fmt.object_name_query(" () ") is None
    assert fmt.object_name_query("\u00a0f\u00a0") == "\u00a0f\u00a0"  # only ASCII white space is trimmed
    assert fmt.object_name_query("\n\r\f\vf \t") == "f" and fmt.object_name_query("") is None
    assert fmt.name_key("pkg.mod.cls") == "cls" and fmt.name_key("cls") == "cls" and fmt.name_key("a b.c d") == "c d"
    assert fmt.ascii_lower("ÀBC Ωz") == "Àbc Ωz"
    assert fmt.dict_key("été") == "ét" and fmt.dict_key("x") == "x"
    for folder, name in (("n", fmt.name_shard_name), ("d", fmt.dict_shard_name)):
        assert name("foobar", 4096) == f"{folder}/{0xBF9CF968 % 4096:x}" and name("foobar", 1) == f"{folder}/0"
    assert fmt.shard_name("foobar", 16, "x") == f"x/{0xBF9CF968 % 16:x}"
    assert fmt.idf(10, 3) == math.log(1 + (10 - 3 + 0.5) / (3 + 0.5))


# -- lines.py: the contract's line numbers and the parsers' ------------------------------------


def test_physical_lines_are_counted_by_lf_only() -> None:
    from okf_sphinx.core.lines import LineMap, is_blank

    lm = LineMap("a\nb\r\nc\rd\u2028e\n")  # CRLF is one break; a lone CR and U+2028 are none
    assert lm.total_lines == 3 and lm.body_start == 0
    assert [lm.line_text(i) for i in (1, 2, 3)] == ["a", "b", "c\rd\u2028e"]  # the CR of a CRLF is not line text
    assert lm.range_text(1, 2) == "a\nb" and lm.range_text(2, 3) == "b\r\nc\rd\u2028e"
    assert [lm.line_of(i) for i in (0, 1, 2, 4, 5, 10)] == [1, 1, 2, 2, 3, 3]
    assert [LineMap(t).total_lines for t in ("", "a", "a\n", "a\n\n", "\n", "a\nb")] == [0, 1, 1, 2, 1, 2]
    assert LineMap("\nab\r").line_text(1) == "" and LineMap("\nab\r").line_text(2) == "ab\r"  # a last CR is no CRLF
    assert LineMap("\r\n\r\n").line_text(2) == ""
    bom = LineMap("\ufeffa\nb")
    assert LineMap("\ufeffa").line_text(1) == "a" and LineMap("\ufeff").line_text(1) == ""  # one line, no LF
    assert bom.body_start == 1 and bom.line_text(1) == "a" and bom.range_text(1, 2) == "a\nb" and bom.total_lines == 2
    assert is_blank("") and is_blank(" \t\u3000\u2028\xa0") and not is_blank("\u200b") and not is_blank(" x")


def test_parser_line_models_map_to_physical_lines() -> None:
    from okf_sphinx.core.lines import LineMap

    lm = LineMap("a\nb\r\nc\rd\u2028e\n")
    # docutils breaks at CR and the Unicode line separators too; Markdown (universal newlines) at CR
    assert [lm.parser_line_text("rst", i) for i in range(0, 8)] == [None, "a", "b", "c", "d", "e", "", None]
    assert [lm.parser_line_text("md", i) for i in range(0, 7)] == [None, "a", "b", "c", "d\u2028e", "", None]
    assert [lm.physical_line("rst", i) for i in range(1, 6)] == [1, 2, 3, 3, 3]
    assert [lm.physical_line("md", i) for i in range(1, 5)] == [1, 2, 3, 3]
    assert lm.physical_line("md", 5) == 4 and lm.physical_line("rst", 5) == 3  # "" after the last LF / "e"
    assert lm.physical_line("rst", 0) == 1 and lm.physical_line("rst", 99) == lm.physical_line("rst", 6)  # clamped
    bom = LineMap("\ufeffa\x1cb\n\x85c")
    assert [bom.parser_line_text("rst", i) for i in (1, 2, 3, 4)] == ["a", "b", "", "c"]
    assert [bom.parser_line_text("md", i) for i in (1, 2, 3)] == ["a\x1cb", "\x85c", None]
    assert [bom.physical_line("rst", i) for i in (1, 2, 3, 4)] == [1, 1, 2, 2]

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
        with pytest.raises(OkfError) as err:
            validate_limit(bad)
        assert err.value.code == "schema_validation" and "from 1 to 100" in err.value.message, bad  # what to give


def test_snippet_rule() -> None:
    n = native()
    text = "x" * 100 + " retry " + "y" * 600
    assert n.snippet(text, ["retry"]) == text[21:533]  # 80 code points before the run, 512 long
    assert n.snippet("retry now", ["retry"]) == "retry now"
    assert n.snippet("a" * 600, ["zzz"]) == "a" * 512  # no match: the first 512
    assert n.snippet("préretry retry", ["retry"]) == "préretry retry"  # a run must be the whole term
    assert n.snippet("é" * 90 + " Straße", ["strasse"]) == ("é" * 90 + " Straße")[11:]


# -- query.py on a real index written from hand-made records ---------------------------------


RULES = (
    "Rules\n=====\n\nIntro words.\n\n"                        # 1-5
    "K1 First rule\n-------------\n\nfirst body\n\n"           # 6-10
    "K10 Tenth rule\n--------------\n\ntenth body\n\n"         # 11-15
    "Same\n----\n\none\n\n"                                    # 16-20
    "Same\n----\n\ntwo\n\n"                                    # 21-25
    "``code`` and *em*\n-----------------\n\nmarked body\n\n"  # 26-30
    "Deep\n~~~~\n\ndeep body\n"                                 # 31-34
)
BIG_LINES = 2002
BIG = "Big\n===\n" + "".join("é" * 99 + "\n" for _ in range(BIG_LINES - 2))  # ~400 KB of UTF-8


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
        "rules.rst": RULES,
        "big.rst": BIG,
        "tiny.md": "\nx\n",
    }
    records = []
    for name, text in sources.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    a, g, i, r, b, t = (CapturedFile.read((src / n).resolve())[0] for n in sources)
    records.append(DocRecord("alpha", "Alpha", True, [a], [_section(a.path, "Alpha", 1, 1, 5),
                                                          _section(a.path, "Beta part", 2, 6, 9, 0)]))
    records.append(DocRecord("big", "Big", False, [b], [_section(b.path, "Big", 1, 1, BIG_LINES)]))
    records.append(DocRecord("gamma", "Gamma", True, [g], [_section(g.path, "Gamma", 1, 1, 3)]))
    records.append(DocRecord("index", "Home", False, [i], [_section(i.path, "Home", 1, 1, 4)]))
    records.append(DocRecord("rules", "Rules", False, [r], [
        _section(r.path, "Rules", 1, 1, 5), _section(r.path, "K1 First rule", 2, 6, 10, 0),
        _section(r.path, "K10 Tenth rule", 2, 11, 15, 0), _section(r.path, "Same", 2, 16, 20, 0),
        _section(r.path, "Same", 2, 21, 25, 0), _section(r.path, "code and em", 2, 26, 30, 0),
        _section(r.path, "Deep", 3, 31, 34, 5)]))
    records.append(DocRecord("tiny", "", False, [t], [_section(t.path, "", 0, 1, 2)]))
    site = Site(host=SPHINX, builder="html", page_url=lambda d: f"{d}.html", anchor_ok=lambda exprs: True, search_page="search.html")
    files = build_index(records, PurePosixPath(src.resolve().as_posix()), site, dict(DEFAULT_LIMITS))
    write_index(root / "out" / "_okf", files, SPHINX)
    return okf_sphinx.open_index(root / "out")


def _idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def test_search_scores_are_the_contract_bm25(index: okf_sphinx.Index) -> None:
    r = index.search("retry")
    # searchable sections: alpha 1-5, alpha 6-9, gamma 1-3 (index, big, rules are not); the range
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
    assert details(lambda: index.search("retry")) == ("resource_limit", {"limit": size - 1, "actual": size})


def test_snapshot_revision_and_files_of_the_written_index(index: okf_sphinx.Index) -> None:
    files = index.files()
    assert [f["path"] for f in files] == ["alpha.rst", "big.rst", "gamma.md", "index.rst", "rules.rst", "tiny.md"]
    assert index.snapshot_revision == fmt.snapshot_revision(files)
    assert json.loads(json.dumps(index.search("gamma")))["snapshot_revision"] == index.snapshot_revision


# -- the reading tools' rules ---------------------------------------------------------------------


def test_heading_normalisation_rules() -> None:
    from okf_sphinx.agent.headings import norm_heading, strip_markup

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
    from okf_sphinx.agent.headings import _identifier, _starts_with_identifier

    assert _identifier("K11") == "k11" and _identifier("3.") == "3" and _identifier("A.") == "a"
    assert _identifier("word") is None and _identifier(".") is None and _identifier("") is None
    assert _identifier("ABCD1") is None and _identifier("K1234") is None
    assert _starts_with_identifier("k1. intro", "k1") and _starts_with_identifier("k1", "k1")
    assert not _starts_with_identifier("k10 intro", "k1")


def test_normalise_path_rules() -> None:
    from okf_sphinx.core.locators import normalise_path

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
    from okf_sphinx.core.locators import parse_locator

    assert parse_locator("alpha.rst#L6-L9") == ("alpha.rst", 6, 9)
    assert parse_locator("alpha.rst#L6") == ("alpha.rst", 6, 6)
    assert parse_locator("a%20b%C3%A9.rst#L1-L2") == ("a bé.rst", 1, 2)
    assert code_of(lambda: parse_locator("alpha.rst#L0-L2")) == "invalid_line_range"
    assert code_of(lambda: parse_locator("alpha.rst#L3-L2")) == "invalid_line_range"
    assert code_of(lambda: parse_locator("alpha.rst#L" + "9" * 17)) == "invalid_line_range"
    assert parse_locator("alpha.rst#L" + "9" * 16) == ("alpha.rst", 10**16 - 1, 10**16 - 1)
    assert code_of(lambda: parse_locator("alpha.rst")) == "schema_validation"
    assert code_of(lambda: parse_locator("a%FF.rst#L1")) == "schema_validation"
    assert index.get_section(locator="alpha.rst#L6-L9")["heading"] == "Beta part"
    assert index.get_section(locator="alpha.rst#L1-L9")["heading"] == "Alpha"  # its subtree's range
    assert code_of(lambda: index.get_section(locator="alpha.rst#L1-L8")) == "section_not_found"


def test_read_lines_rules(index: okf_sphinx.Index) -> None:
    r = index.read_lines("alpha.rst", [6, 100])
    assert r["range"] == {"start": 6, "end": 9, "total_lines": 9, "truncated": True, "truncation_reason": "end_of_file"}
    assert r["content"] == "Beta part\n---------\n\nretry once\n" and r["locator"] == "alpha.rst#L6-L9"
    assert index.read_lines("alpha.rst", [1, 9])["content"].encode("utf-8") == index.file_bytes(0)
    assert index.read_lines("alpha.rst", [2, 2])["content"] == "====="
    assert code_of(lambda: index.read_lines("alpha.rst", [10, 10])) == "range_out_of_bounds"
    for bad in ([0, 1], [2, 1], [True, 2], [1.0, 2], [1], "1-2"):
        assert code_of(lambda: index.read_lines("alpha.rst", bad)) == "invalid_line_range", bad


def test_search_concepts_rules(index: okf_sphinx.Index) -> None:
    r = index.search_concepts("A")
    assert [c["concept_id"] for c in r["concepts"]] == ["alpha", "gamma"]
    assert r["status"] == "ok" and r["query"] == "A" and r["snapshot_revision"] == index.snapshot_revision
    check("search_concepts", r)
    assert r["concepts"][0] == {"concept_id": "alpha", "title": "Alpha", "searchable": True}
    assert [c["concept_id"] for c in index.search_concepts("home")["concepts"]] == ["index"]
    assert index.search_concepts("home")["concepts"][0]["searchable"] is False
    r = index.search_concepts("a", limit=1)
    assert r["total"] == 2 and r["truncated"] is True and len(r["concepts"]) == 1
    r = index.search_concepts("a", limit=2)
    assert r["total"] == 2 and r["truncated"] is False
    assert code_of(lambda: index.search_concepts("  ")) == "schema_validation"
    assert code_of(lambda: index.search_concepts("x" * 513)) == "schema_validation"
    assert index.search_concepts("x" * 512)["total"] == 0


def test_argument_envelopes_name_the_field_and_numbers(index: okf_sphinx.Index) -> None:
    rl, sc = index.read_lines, index.search_concepts
    assert details(lambda: rl("alpha.rst", [0, 1])) == ("invalid_line_range", {"field": "lines"})
    assert details(lambda: rl("alpha.rst", [2, 1])) == ("invalid_line_range", {"field": "lines"})
    assert details(lambda: rl("alpha.rst", [1])) == ("invalid_line_range", {"field": "lines"})
    assert details(lambda: rl("alpha.rst", [1, True])) == ("invalid_line_range", {"field": "lines"})
    assert details(lambda: rl("alpha.rst", [10, 12])) == ("range_out_of_bounds", {"path": "alpha.rst", "total_lines": 9})
    assert details(lambda: rl("alpha.rsx", [1, 1])) == (
        "not_found", {"field": "path", "path": "alpha.rsx", "suggestions": ["alpha.rst"]})
    assert details(lambda: sc(5)) == ("schema_validation", {"field": "query"})
    assert details(lambda: sc("\ud800")) == ("schema_validation", {"field": "query"})
    assert details(lambda: sc(" ")) == ("schema_validation", {"field": "query"})
    assert details(lambda: sc("x" * 513)) == ("schema_validation", {"field": "query", "limit": 512, "actual": 513})
    assert details(lambda: index.get_section(concept_id="alpah")) == (
        "not_found", {"field": "concept_id", "concept_id": "alpah", "suggestions": ["alpha"]})


def test_read_lines_over_the_byte_budget_names_the_largest_end_that_fits(index: okf_sphinx.Index) -> None:
    from okf_sphinx.agent.answers import MAX_ANSWER_BYTES, answer_size

    assert MAX_ANSWER_BYTES == 256_000
    code, d = details(lambda: index.read_lines("big.rst", [2, 5000]))
    assert code == "page_too_large" and d["limit"] == MAX_ANSWER_BYTES and d["path"] == "big.rst"
    end = d["max_end"]
    assert answer_size(index.read_lines("big.rst", [2, end])) <= MAX_ANSWER_BYTES
    code, over = details(lambda: index.read_lines("big.rst", [2, end + 1]))
    assert code == "page_too_large" and over["max_end"] == end
    assert over["size"] > MAX_ANSWER_BYTES
    whole = index.read_lines("big.rst", [1, end])
    check("read_lines", whole)
    assert whole["range"] == {"start": 1, "end": end, "total_lines": BIG_LINES, "truncated": False}
    assert whole["content"] == "Big\n===\n" + "\n".join(["é" * 99] * (end - 2))
    assert (whole["status"], whole["path"], whole["locator"]) == ("ok", "big.rst", f"big.rst#L1-L{end}")
    assert whole["content_sha256"] == index.files()[1]["sha256"]


def test_get_section_pages_on_the_byte_budget(index: okf_sphinx.Index) -> None:
    from okf_sphinx.agent.answers import MAX_ANSWER_BYTES, answer_size

    first = index.get_section(locator=f"big.rst#L1-L{BIG_LINES}", max_chars=200_000)
    check("get_section", first)
    assert first["truncated"] is True and first["truncation_reason"] == "byte_budget"
    assert answer_size(first) <= MAX_ANSWER_BYTES
    n = first["next_offset"]
    assert n == len(first["content"]) and answer_size({**first, "content": first["content"] + "é"}) > MAX_ANSWER_BYTES - 2
    parts = [first["content"]]
    offset = n
    while True:
        page = index.get_section(locator=f"big.rst#L1-L{BIG_LINES}", max_chars=200_000, offset=offset)
        parts.append(page["content"])
        if not page["truncated"]:
            break
        offset = page["next_offset"]
    assert "".join(parts) == BIG[:-1] and page["content_chars"] == len(BIG) - 1
    small = index.get_section(locator=f"big.rst#L1-L{BIG_LINES}", max_chars=10, offset=3)
    assert (small["content"], small["truncated"], small["truncation_reason"], small["next_offset"]) == ("\n===\nééééé", True, "max_chars", 13)
    assert (small["offset"], small["max_chars"]) == (3, 10)
    assert index.get_section(locator="alpha.rst#L6-L9", max_chars=0)["max_chars"] == 1  # clamped
    assert index.get_section(locator="alpha.rst#L6-L9", max_chars=10**9)["max_chars"] == 200_000
    assert index.get_section(locator="alpha.rst#L6-L9", offset=10**9)["content"] == ""


def test_outline_and_section_answers(index: okf_sphinx.Index) -> None:
    out = index.get_section(concept_id="rules")
    check("get_section", out)
    assert (out["status"], out["kind"], out["concept_id"], out["title"], out["path"], out["url"], out["searchable"],
            out["total"], out["snapshot_revision"]) == ("ok", "outline", "rules", "Rules", "rules.rst", "rules.html", False,
                                                      7, index.snapshot_revision)
    assert out["outline"][1] == {"heading": "K1 First rule", "level": 2, "locator": "rules.rst#L6-L10", "parent": 0}
    assert [o["parent"] for o in out["outline"]] == [None, 0, 0, 0, 0, 0, 5]
    sec = index.get_section(locator="rules.rst#L26-L30")
    check("get_section", sec)
    assert sec["breadcrumb"] == ["Rules"] and sec["heading"] == "code and em" and sec["level"] == 2
    assert sec["subsections"] == [{"heading": "Deep", "locator": "rules.rst#L31-L34"}]
    assert sec["previous"] == {"heading": "Same", "locator": "rules.rst#L21-L25"} and sec["next"]["heading"] == "Deep"
    assert sec["content_locator"] == "rules.rst#L26-L34" and sec["content"].endswith("deep body")
    assert sec["url"] == "rules.html#code-and-em" and sec["include_subsections"] is True
    own = index.get_section(locator="rules.rst#L26-L30", include_subsections=False)
    assert own["content_locator"] == "rules.rst#L26-L30" and own["content"] == "``code`` and *em*\n-----------------\n\nmarked body\n"
    deep = index.get_section(locator="rules.rst#L31-L34")
    assert deep["breadcrumb"] == ["Rules", "code and em"] and deep["next"] is None
    assert index.get_section(locator="rules.rst#L1-L5")["previous"] is None
    assert index.get_section(locator="rules.rst#L1-L34")["content_chars"] == len(RULES) - 1


def test_heading_matching_rules(index: okf_sphinx.Index) -> None:
    gs = index.get_section
    assert gs(concept_id="rules", heading="k1 first RULE")["locator"] == "rules.rst#L6-L10"
    assert gs(concept_id="rules", heading="K1")["locator"] == "rules.rst#L6-L10"  # identifier
    assert gs(concept_id="rules", heading="K10")["locator"] == "rules.rst#L11-L15"
    assert gs(concept_id="rules", heading="``code`` and *em*")["locator"] == "rules.rst#L26-L30"  # source form
    assert gs(concept_id="rules", heading="CODE AND EM")["locator"] == "rules.rst#L26-L30"
    code, d = details(lambda: gs(concept_id="rules", heading="same"))
    assert code == "ambiguous_section" and d == {"concept_id": "rules", "heading": "same", "candidates": [
        {"heading": "Same", "locator": "rules.rst#L16-L20"}, {"heading": "Same", "locator": "rules.rst#L21-L25"}]}
    code, d = details(lambda: gs(concept_id="rules", heading="K1 First rul"))
    assert code == "section_not_found" and d["suggestions"][0] == {"heading": "K1 First rule", "locator": "rules.rst#L6-L10"}
    assert d["concept_id"] == "rules" and d["heading"] == "K1 First rul"
    code, d = details(lambda: gs(concept_id="rules", heading="zzzzzz qqqq"))
    assert code == "section_not_found" and [x["heading"] for x in d["suggestions"]] == ["K1 First rule", "K10 Tenth rule"]
    assert details(lambda: gs(concept_id="rules", heading="First"))[0] == "section_not_found"  # no partial match
    assert details(lambda: gs(concept_id="rules", heading="K2"))[0] == "section_not_found"
    assert details(lambda: gs(concept_id="rules", heading=" \t "))[1] == {"field": "heading"}
    assert details(lambda: gs(concept_id="rules", heading="x" * 4097))[1] == {"field": "heading"}
    assert gs(concept_id="rules", heading="Rules")["level"] == 1


def test_call_tool_dispatch_and_strictness(index: okf_sphinx.Index) -> None:
    from okf_sphinx.agent.dispatch import TOOL_ARGUMENTS, call_tool

    assert list(TOOL_ARGUMENTS) == ["search_sections", "get_section", "read_lines", "search_concepts"]
    assert call_tool(index, "search_sections", {"query": "retry"}) == index.search("retry")
    assert call_tool(index, "search_sections", {"query": "retry", "limit": 1}) == index.search("retry", 1)
    assert call_tool(index, "get_section", {"locator": "alpha.rst#L6-L9"}) == index.get_section(locator="alpha.rst#L6-L9")
    assert call_tool(index, "read_lines", {"path": "alpha.rst", "lines": [1, 2]}) == index.read_lines("alpha.rst", [1, 2])
    assert call_tool(index, "search_concepts", {"query": "a", "limit": 1}) == index.search_concepts("a", 1)
    assert details(lambda: call_tool(index, "nope", {})) == ("schema_validation", {})
    assert details(lambda: call_tool(index, "read_lines", [])) == ("schema_validation", {})
    assert details(lambda: call_tool(index, "read_lines", {"path": "a", "lines": [1, 1], "x": 1, "b": 2})) == (
        "schema_validation", {"field": "b"})
    assert details(lambda: call_tool(index, "search_concepts", {"query": None})) == ("schema_validation", {"field": "query"})
    assert details(lambda: call_tool(index, "read_lines", {"lines": [1, 1]})) == ("missing_path", {"field": "path"})
    assert details(lambda: call_tool(index, "search_sections", {})) == ("schema_validation", {"field": "query"})
    assert details(lambda: call_tool(index, "search_concepts", {"limit": 3})) == ("schema_validation", {"field": "query"})
    assert details(lambda: call_tool(index, "get_section", None)) == ("schema_validation", {"field": "locator"})
    assert details(lambda: call_tool(index, "get_section", {"heading": "x"})) == ("schema_validation", {"field": "heading"})


def test_posting_to_a_non_searchable_section_is_index_corrupt(index: okf_sphinx.Index, tmp_path: Path) -> None:
    import shutil

    site = tmp_path / "site"
    shutil.copytree(Path(index.source.location), site / "_okf")
    sid = index.search("policy")["hits"][0]
    n = next(i for i in range(index.section_count) if index.section(i)["locator"] == sid["locator"])
    starts = fmt.section_starts(index.manifest["section_files"])
    k = fmt.section_file_of(starts, n)
    chunk = fmt.unwrap(f"s/{k}", (site / "_okf" / "s" / f"{k}.js").read_bytes())
    chunk["pages"][chunk["sections"][n - starts[k]][0]][2] = False  # the page of section n: not searchable
    (site / "_okf" / "s" / f"{k}.js").write_bytes(same_build(f"s/{k}", chunk, (site / "_okf" / "s" / f"{k}.js")))
    assert details(lambda: okf_sphinx.open_index(site).search("policy")) == ("index_corrupt", {})


def test_table_driven_normaliser_equals_the_native_one() -> None:
    from okf_sphinx.core.terms import Normaliser, unicode_tables

    tables = unicode_tables()
    own = Normaliser(tables)
    assert own.native is True and own.unicode_version == tables["unicode_version"]
    other = Normaliser({**tables, "unicode_version": "0.0.0"})  # another Unicode version: the table path
    assert other.native is False and other.unicode_version == "0.0.0"
    for text in ("Straße ΣΊΣΥΦΟΣ ﬁle \u212aelvin İstanbul Ǆ", "Cafe\u0301 x\u0301y 日本語 \U0001d400bc", "plain ascii WORDS_2"):
        assert other.terms(text) == own.terms(text) == terms(text), text
        assert other.snippet(text, own.terms(text)[1:2]) == own.snippet(text, own.terms(text)[1:2])
    assert other.query_terms("Straße ΣΊΣΥΦΟΣ retry") == own.query_terms("Straße ΣΊΣΥΦΟΣ retry") == ["strasse", "σίσυφοσ", "retry"]
    assert other.is_word("é") and not other.is_word(" ") and other.has_letter_number("…a") and not other.has_letter_number("…")
    assert list(other.word_runs("ab, c\u0301d")) == [(0, "ab"), (4, "c\u0301d")]


def test_term_characters_are_exactly_letters_numbers_and_marks() -> None:
    """The word table answers the contract's L/N/M rule for every code point, range ends included."""
    import sys
    import unicodedata

    from okf_sphinx.core.terms import Normaliser, unicode_tables

    for engine in (native(), Normaliser({**unicode_tables(), "unicode_version": "0.0.0"})):
        for cp in [*range(0, 0x3100), *range(0x10FF00, sys.maxunicode + 1)]:
            if 0xD800 <= cp <= 0xDFFF:
                continue
            ch = chr(cp)
            assert engine.is_word(ch) is (unicodedata.category(ch)[0] in "LNM"), hex(cp)
            assert engine.has_letter_number(ch) is (unicodedata.category(ch)[0] in "LN"), hex(cp)


def test_an_engine_with_older_unicode_refuses_a_code_point_only_the_build_knows() -> None:
    from okf_sphinx.core.terms import Normaliser, unicode_tables

    tables = unicode_tables()
    assigned = list(tables["assigned"])
    assert not any(lo <= 0x378 <= hi for lo, hi in zip(assigned[::2], assigned[1::2]))  # unassigned here
    newer = {**tables, "unicode_version": "99.0.0", "assigned": sorted([*assigned, 0x378, 0x378])}
    build = Normaliser(newer)
    assert build.query_terms("caf\u00e9 retry") == ["café", "retry"]  # what this engine knows: the build's terms
    assert details(lambda: build.query_terms("retry \u0378x")) == (
        "index_version_unsupported", {"unicode_version": "99.0.0", "code_point": "U+0378"})
    # the engine of this Python's own Unicode (the build's) has nothing to refuse: U+0378 separates
    assert native().query_terms("retry \u0378x") == ["retry", "x"]



def test_shorten_keeps_messages_readable() -> None:
    from okf_sphinx.core.locators import _shorten

    assert _shorten("x" * 200) == "x" * 200
    assert _shorten("a" * 150 + "b" * 51) == "a" * 100 + "…" + "a" * 49 + "b" * 51
    assert _shorten("abcdef", keep=4) == "ab…ef"


def test_a_wrong_locator_suggests_the_overlapping_sections(tmp_path: Path, index: okf_sphinx.Index) -> None:
    fresh = okf_sphinx.open_index(Path(index.source.location))
    code, d = details(lambda: fresh.get_section(locator="alpha.rst#L5-L6"))
    assert code == "section_not_found" and d["locator"] == "alpha.rst#L5-L6"
    assert d["suggestions"] == [{"heading": "Alpha", "locator": "alpha.rst#L1-L5"},
                                {"heading": "Beta part", "locator": "alpha.rst#L6-L9"}]
    assert details(lambda: fresh.get_section(locator="alpha.rst#L7-L8"))[1]["suggestions"] == [
        {"heading": "Beta part", "locator": "alpha.rst#L6-L9"}]
    assert details(lambda: fresh.get_section(locator="alpha.rst#L99-L100"))[1]["suggestions"] == []


def test_query_refusals_are_complete_envelopes() -> None:
    n = native()
    assert n.query_terms("a") == ["a"] and n.query_terms("é") == ["é"]
    assert details(lambda: n.query_terms(3)) == ("schema_validation", {})
    assert details(lambda: n.query_terms("\ud800")) == ("schema_validation", {})
    assert details(lambda: n.query_terms("")) == ("schema_validation", {})
    assert details(lambda: n.query_terms("a" * 513)) == ("schema_validation", {"limit": 512, "actual": 513})
    assert details(lambda: n.query_terms("!?")) == ("schema_validation", {})
    assert details(lambda: n.query_terms("\u0301")) == ("schema_validation", {})  # a mark alone: no term
    assert details(lambda: n.query_terms(" ".join(f"w{i}" for i in range(40)))) == (
        "resource_limit", {"limit": 32, "actual": 40})


def test_search_defaults_to_twenty_hits(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    text = "".join(f"S{i:02d}\n===\n\nzebu\n\n" for i in range(25))
    (src / "many.rst").write_text(text, encoding="utf-8")
    f = CapturedFile.read((src / "many.rst").resolve())[0]
    sections = [_section(f.path, f"S{i:02d}", 1, 5 * i + 1, 5 * i + 5) for i in range(25)]
    site = Site(host=SPHINX, builder="html", page_url=lambda d: f"{d}.html", anchor_ok=lambda exprs: True, search_page="search.html")
    write_index(tmp_path / "out" / "_okf", build_index([DocRecord("many", "Many", True, [f], sections)],
                                                        PurePosixPath(src.resolve().as_posix()), site, dict(DEFAULT_LIMITS)), SPHINX)
    index = okf_sphinx.open_index(tmp_path / "out")
    r = index.search("zebu")
    assert r["total"] == 25 and len(r["hits"]) == 20 and r["truncated"] is True
    assert [h["heading"] for h in r["hits"]] == [f"S{i:02d}" for i in range(20)]  # equal scores: sid order
    assert len(index.search_concepts("many")["concepts"]) == 1
    assert details(lambda: okf_sphinx.open_index(tmp_path / "out").search("zebu", 101)) == ("schema_validation", {})


def test_read_lines_boundaries(index: okf_sphinx.Index, monkeypatch: pytest.MonkeyPatch) -> None:
    from okf_sphinx.agent import answers, get_section, read_lines, search_concepts

    tiny = index.read_lines("tiny.md", [1, 5])  # a file that starts with a line break
    assert tiny["range"] == {"start": 1, "end": 2, "total_lines": 2, "truncated": True,
                             "truncation_reason": "end_of_file"} and tiny["content"] == "\nx\n"
    assert index.read_lines("tiny.md", [1, 1])["content"] == ""
    assert index.read_lines("tiny.md", [2, 2])["content"] == "x\n"
    last = index.read_lines("alpha.rst", [9, 9])
    assert last["range"] == {"start": 9, "end": 9, "total_lines": 9, "truncated": False} and last["content"] == "retry once\n"
    assert index.read_lines("alpha.rst", [1, 9])["range"]["truncated"] is False
    one = index.read_lines("alpha.rst", [2, 2])
    size = answers.answer_size(one)
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size)
    assert index.read_lines("alpha.rst", [2, 2]) == one  # exactly at the budget
    code, d = details(lambda: index.read_lines("alpha.rst", [2, 3]))
    assert code == "page_too_large" and d["max_end"] == 2 and d["limit"] == size
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size - 1)
    code, d = details(lambda: index.read_lines("alpha.rst", [2, 3]))
    assert code == "page_too_large" and "max_end" not in d  # not even one line fits


def test_outline_budget_and_unknown_concepts(index: okf_sphinx.Index, monkeypatch: pytest.MonkeyPatch) -> None:
    from okf_sphinx.agent import answers, get_section, read_lines, search_concepts

    out = index.get_section(concept_id="rules")
    size = answers.answer_size(out)
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size)
    assert index.get_section(concept_id="rules") == out
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size - 1)
    paged = index.get_section(concept_id="rules")  # an outline over the budget is paged, never refused
    assert paged["truncated"] is True and paged["truncation_reason"] == "byte_budget"
    assert paged["outline"] == out["outline"][: len(paged["outline"])] and paged["next_offset"] == len(paged["outline"])
    assert answers.answer_size(paged) <= size - 1
    monkeypatch.undo()
    assert details(lambda: index.get_section(concept_id="zzz"))[0] == "not_found"  # sorts after every id
    assert details(lambda: index.get_section(concept_id="0"))[1]["suggestions"] == []
    assert index.get_section(concept_id="tiny")["outline"] == [{"heading": "", "level": 0, "locator": "tiny.md#L1-L2", "parent": None}]


def test_path_and_argument_refusals_carry_their_details(index: okf_sphinx.Index) -> None:
    from okf_sphinx.core.locators import normalise_path

    rl, gs = index.read_lines, index.get_section
    assert details(lambda: rl("x" * 4097, [1, 1])) == ("path_too_long", {"field": "path", "limit": 4096, "actual": 4097})
    assert details(lambda: rl("é" * 2049, [1, 1])) == ("path_too_long", {"field": "path", "limit": 4096, "actual": 4098})
    assert details(lambda: rl("/".join("d" * 65), [1, 1])) == ("path_too_long", {"field": "path", "limit": 64, "actual": 65})
    assert details(lambda: rl(None, [1, 1])) == ("missing_path", {"field": "path"})
    assert details(lambda: rl(" ", [1, 1])) == ("missing_path", {"field": "path"})
    assert details(lambda: rl("a/..", [1, 1])) == ("missing_path", {"field": "path"})
    assert details(lambda: rl(3, [1, 1])) == ("schema_validation", {"field": "path"})
    assert details(lambda: rl("\ud800", [1, 1])) == ("schema_validation", {"field": "path"})
    assert details(lambda: rl("a\x00", [1, 1])) == ("schema_validation", {"field": "path"})
    assert details(lambda: rl("/abs", [1, 1])) == ("path_outside_root", {"field": "path"})
    assert details(lambda: rl("\\\\server\\x", [1, 1])) == ("path_outside_root", {"field": "path"})
    assert details(lambda: rl("c:/x", [1, 1])) == ("path_outside_root", {"field": "path"})
    assert details(lambda: rl("a/../../x", [1, 1])) == ("path_outside_root", {"field": "path"})
    assert details(lambda: gs(locator="../x#L1-L2")) == ("path_outside_root", {"field": "locator"})
    assert details(lambda: gs(locator="x" * 13000)) == ("path_too_long", {"field": "locator", "limit": 4096})
    assert details(lambda: gs(locator="nope.rst#L1-L2")) == (
        "not_found", {"field": "locator", "path": "nope.rst", "suggestions": ["index.rst"]})
    assert details(lambda: gs(locator="a%FFb#L1")) == ("schema_validation", {"field": "locator"})
    assert details(lambda: gs(locator="alpha.rst#Lx")) == ("schema_validation", {"field": "locator"})
    assert details(lambda: gs(locator=5)) == ("schema_validation", {"field": "locator"})
    assert details(lambda: gs(concept_id=5)) == ("schema_validation", {"field": "concept_id"})
    assert details(lambda: gs(concept_id="\ud800")) == ("schema_validation", {"field": "concept_id"})
    assert details(lambda: gs(concept_id="alpha", heading=5)) == ("schema_validation", {"field": "heading"})
    assert details(lambda: gs(locator="alpha.rst#L6-L9", include_subsections=1)) == (
        "schema_validation", {"field": "include_subsections"})
    assert details(lambda: gs(locator="alpha.rst#L6-L9", max_chars=1.5)) == ("schema_validation", {"field": "max_chars"})
    assert details(lambda: gs(locator="alpha.rst#L6-L9", offset=True)) == ("schema_validation", {"field": "offset"})
    assert details(lambda: gs(locator="alpha.rst#L6-L9", offset="1")) == ("schema_validation", {"field": "offset"})
    assert gs(locator="alpha.rst#L6-L9", offset=-5)["offset"] == 0
    assert gs(locator="alpha.rst#L6-L9", max_chars=None)["max_chars"] == 20_000
    assert normalise_path("./a", field="locator") == "a"


def test_unwrap_refusals_name_the_file() -> None:
    data = fmt.wrap("t/1f", [1], "0123456789abcdef")
    for bad in (b"\xff" + data, data[:-1], data.replace(b"[1]", b"[NaN]")):
        assert details(lambda: fmt.unwrap("t/1f", bad)) == ("index_corrupt", {"file": "t/1f.js"})
    assert fmt.canonical_json(["é\u2028"]) == '["é' + "\\" + 'u2028"]'  # é stays UTF-8 (ensure_ascii off)
    with pytest.raises(ValueError):
        fmt.canonical_json([math.inf])


SNIPPET_CASES = [
    ("éretry then retry", ["retry"]), ("retryé then retry", ["retry"]), ("retry at the start", ["retry"]),
    ("ß retry", ["retry"]), ("ßretry xretry retry", ["retry"]), ("Straße and strasse", ["strasse"]),
    ("x Straße y", ["strasse"]), ("éé ß Straße", ["strasse", "zzz"]), ("ab\u0301 retry", ["retry"]),
    ("retry\u0301 retry", ["retry"]), ("\u0301retry retry", ["retry"]), ("日本retry retry", ["retry"]),
    ("é" * 100 + " retry", ["retry"]), ("é" * 100 + " café", ["café"]), ("café" + " x" * 300 + " retry", ["retry"]),
    ("Kelvin \u212aelvin kelvin", ["kelvin"]), ("a-retry_b", ["retry"]), ("xé retry", ["é"]),
]


#: texts where a match the shortcut wrongly takes or misses early (within the 80-point lead)
#: shows only because a later match, far enough on, is then the snippet's anchor
_FAR = " " + "x " * 60
SNIPPET_EDGE_CASES = [
    ("retry" + _FAR + "retry é", ["retry"]),        # a match at 0: the text's last character is no neighbour
    ("éretry" + _FAR + "retry", ["retry"]),         # a non-ASCII letter right before: not a run of its own
    ("éx" + _FAR + "x", ["x"]),                     # a one-letter term: the neighbour is the character before
    ("retry…" + _FAR + "retry", ["retry"]),         # a non-ASCII non-letter after: a boundary
    ("x…retry" + _FAR + "retry", ["retry"]),        # a non-ASCII non-letter before: a boundary
    ("é" + _FAR + "é", ["é"]),                      # a non-ASCII term at offset 0
    ("aé" + _FAR + "aé", ["aé"]),                   # a run that starts with ASCII before its first non-ASCII letter
    ("éa", ["éa"]), ("é", ["é"]), ("aé", ["aé"]),   # the whole text is the run
]


@pytest.mark.parametrize(("text", "query"), SNIPPET_EDGE_CASES)
def test_snippet_anchor_at_the_edges_of_runs(text: str, query: list[str]) -> None:
    from support.reference import straightforward_snippet

    assert native().snippet(text, query) == straightforward_snippet(text, query)


@pytest.mark.parametrize(("text", "query"), SNIPPET_CASES)
def test_snippet_shortcuts_on_fixed_tricky_texts(text: str, query: list[str]) -> None:
    from support.reference import straightforward_snippet

    for padded in (text, "x " * 50 + text, "w" * 150 + " " + text + " " + "y" * 600):  # the 80-point lead must tell
        assert native().snippet(padded, query) == straightforward_snippet(padded, query), padded[:40]


# -- get_section on a page with a documented object, and a captured file without sections ---------

API = "API\n===\n\n.. py:function:: f(x)\n\n   Does f.\n\nMore about the API.\n"  # 1-8


@pytest.fixture(scope="module")
def api_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from okf_sphinx.core.records import ObjectInfo

    src = tmp_path_factory.mktemp("api") / "src"
    src.mkdir()
    lists = {"topics.rst": [f"Topic {i:02d}" for i in range(60)], "same.rst": ["Same"] * 50,
             "ids.rst": ["A1 One", "A1. Two", "Plain"]}  # one heading per line
    for name, text in (("api.rst", API), ("other.rst", "Other\n=====\n\nText.\n"), ("snippet.txt", "no heading\n"),
                       *((n, "".join(h + "\n" for h in hs)) for n, hs in lists.items())):
        (src / name).write_text(text, encoding="utf-8")
    api, other, snippet = (CapturedFile.read((src / n).resolve())[0] for n in ("api.rst", "other.rst", "snippet.txt"))
    listed = {n: CapturedFile.read((src / n).resolve())[0] for n in lists}
    records = [
        DocRecord("api", "API", True, [api, snippet], [  # snippet.txt: included, but holds no section
            _section(api.path, "API", 1, 1, 3),
            Section(api.path, "pkg.f", 2, 4, 7, "pkg.f", (), 0, ObjectInfo("pkg.f", "py:function", "f(x)")),
            Section(api.path, "API", 1, 8, 8, "api", (), 0, None, True)]),  # the page's text after the object
        DocRecord("other", "Other", True, [other], [
            _section(other.path, "Other", 1, 1, 2),
            Section(other.path, "other.pkg_g", 2, 3, 4, "other.pkg_g", (), 0, ObjectInfo("other.pkg_g", "py:data", ""))]),
        *(DocRecord(n[:-4], n, True, [f], [_section(f.path, h, 1, i + 1, i + 1) for i, h in enumerate(lists[n])])
          for n, f in listed.items()),
    ]
    extra = {"gen.rst": "Gen\n===\n\n.. autofunction:: math.sqrt\n", "bom.rst": "\ufeffBom\n===\n\nText.\n",
             "empty.md": "", "euro.rst": "Euro\n====\n\n€€€€€€\n"}
    for name, text in extra.items():
        (src / name).write_text(text, encoding="utf-8")
    gen, bom, empty, euro = (CapturedFile.read((src / n).resolve())[0] for n in extra)
    records += [
        DocRecord("gen", "Gen", True, [gen], [  # an object no source holds the words of: its rendering
            _section(gen.path, "Gen", 1, 1, 3),
            Section(gen.path, "math.sqrt", 2, 4, 4, "math.sqrt", (), 0,
                    ObjectInfo("math.sqrt", "py:function", "sqrt(x)", True, "math.sqrt(x) Return the square root."))]),
        DocRecord("bom", "Bom", True, [bom], [_section(bom.path, "Bom", 1, 1, 4)]),
        DocRecord("empty", "", True, [empty], [_section(empty.path, "", 0, 1, 1)]),
        DocRecord("euro", "Euro", True, [euro], [_section(euro.path, "Euro", 1, 1, 4)]),
    ]
    (src / "shared.rst").write_text("Shared\n======\n\nBody.\n", encoding="utf-8")
    shared = CapturedFile.read((src / "shared.rst").resolve())[0]
    for n in ("inc1", "inc2"):  # two pages that include shared.rst: the same section, once per page
        (src / f"{n}.rst").write_text(f"{n}\n====\n\n.. include:: shared.rst\n", encoding="utf-8")
        own = CapturedFile.read((src / f"{n}.rst").resolve())[0]
        records.append(DocRecord(n, n, True, [own, shared], [_section(own.path, n, 1, 1, 3),
                                                              _section(shared.path, "Shared", 2, 1, 4, 0)]))
    for i in range(24):  # pages with near names
        (src / f"page{i:02d}.rst").write_text(f"P{i}\n", encoding="utf-8")
        f = CapturedFile.read((src / f"page{i:02d}.rst").resolve())[0]
        records.append(DocRecord(f"page{i:02d}", f"P{i}", True, [f], [_section(f.path, f"P{i}", 1, 1, 1)]))
    records.sort(key=lambda r: r.docname)  # the collector's order: concept ids sorted
    site = Site(host=SPHINX, builder="html", page_url=lambda d: f"{d}.html", anchor_ok=lambda exprs: True, search_page="search.html")
    write_index(src.parent / "out" / "_okf", build_index(records, PurePosixPath(src.resolve().as_posix()), site,
                                                         dict(DEFAULT_LIMITS)), SPHINX)
    return src.parent / "out"


def test_a_heading_names_the_section_not_its_continuation(api_site: Path) -> None:
    index = okf_sphinx.open_index(api_site)
    own = index.get_section(concept_id="api", heading="API", include_subsections=False)
    assert own["locator"] == "api.rst#L1-L3" and own["content"] == "API\n===\n"
    assert index.get_section(concept_id="api", heading="pkg.f")["object"] == {
        "name": "pkg.f", "kind": "py:function", "signature": "f(x)"}
    # the continuation is still its own section, reached by its locator
    assert index.get_section(locator="api.rst#L8-L8")["content"] == "More about the API."


def test_heading_lookups_on_several_pages_of_one_index(api_site: Path) -> None:
    index = okf_sphinx.open_index(api_site)  # one Index: whatever it caches per page stays per page
    for concept, heading, locator in (("api", "api", "api.rst#L1-L8"), ("other", "other", "other.rst#L1-L4"),
                                      ("api", "pkg.f", "api.rst#L4-L7")):
        assert index.get_section(concept_id=concept, heading=heading)["content_locator"] == locator


def test_a_captured_file_without_sections_is_read_not_sectioned(api_site: Path) -> None:
    index = okf_sphinx.open_index(api_site)
    assert index.read_lines("snippet.txt", [1, 1])["content"] == "no heading\n"
    code, d = details(lambda: index.get_section(locator="snippet.txt#L1-L1"))
    assert code == "section_not_found" and d == {"locator": "snippet.txt#L1-L1", "suggestions": []}


def test_tool_calls_pass_every_argument_and_refuse_nulls(index: okf_sphinx.Index) -> None:
    from okf_sphinx.agent.dispatch import call_tool

    smart = call_tool(index, "search_sections", {"query": "retry", "mode": "smart"})
    assert smart == index.search("retry", mode="smart") and smart != index.search("retry")
    assert call_tool(index, "search_sections", {"query": "retry", "mode": "smart", "limit": 1}) == index.search(
        "retry", 1, mode="smart")
    assert details(lambda: call_tool(index, "get_section", {"locator": "alpha.rst#L6-L9", "max_chars": None})) == (
        "schema_validation", {"field": "max_chars"})  # null is not "the default": leave it out
    assert details(lambda: call_tool(index, "search_sections", {"query": "retry", "limit": None})) == (
        "schema_validation", {"field": "limit"})


def test_heading_refusals_list_candidates_and_suggestions_up_to_fifty(api_site: Path) -> None:
    gs = okf_sphinx.open_index(api_site).get_section
    code, d = details(lambda: gs(concept_id="same", heading="same"))
    assert code == "ambiguous_section" and len(d["candidates"]) == 50 and "candidates_truncated" not in d
    code, d = details(lambda: gs(concept_id="topics", heading="topic"))  # every heading holds the word
    assert code == "section_not_found" and len(d["suggestions"]) == 50 and d["suggestions_truncated"] is True
    assert d["suggestions"][0] == {"heading": "Topic 00", "locator": "topics.rst#L1-L1"}  # document order
    code, d = details(lambda: gs(concept_id="topics", heading="topic 0x"))  # close headings: all 60 are
    assert code == "section_not_found" and len(d["suggestions"]) == 50 and d["suggestions_truncated"] is True


def test_heading_refusals_say_why_and_what_to_do(api_site: Path, index: okf_sphinx.Index) -> None:
    gs = okf_sphinx.open_index(api_site).get_section
    with pytest.raises(OkfError) as err:
        gs(concept_id="ids", heading="a1")
    assert err.value.code == "ambiguous_section" and "by identifier" in err.value.message
    assert [c["heading"] for c in err.value.details["candidates"]] == ["A1 One", "A1. Two"]
    with pytest.raises(OkfError) as err:
        gs(concept_id="same", heading="same")
    assert "by identifier" not in err.value.message and "one of the candidates' locators" in err.value.message
    with pytest.raises(OkfError) as err:
        gs(concept_id="other", heading="zzzz")  # nothing close: the outline is the way on
    assert err.value.details["suggestions"] == [] and "with only concept_id" in err.value.message
    with pytest.raises(OkfError) as err:
        index.get_section(concept_id="rules", heading="Tenht rule")
    assert "see suggestions" in err.value.message
    # words of the heading in any order first; then headings close in spelling; else the page's identifiers
    for heading in ("tenth", "rule tenth", "*tenth*", "Tenht rule"):
        assert details(lambda: index.get_section(concept_id="rules", heading=heading))[1]["suggestions"] == [
            {"heading": "K10 Tenth rule", "locator": "rules.rst#L11-L15"}], heading


def test_outline_pages_by_offset_limit_and_the_exact_byte_budget(index: okf_sphinx.Index,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from okf_sphinx.agent import answers, get_section, read_lines, search_concepts

    gs = index.get_section
    whole = gs(concept_id="rules")
    assert whole["truncated"] is False and "next_offset" not in whole and "truncation_reason" not in whole
    rest = gs(concept_id="rules", offset=2)
    assert (rest["offset"], rest["truncated"], rest["outline"]) == (2, False, whole["outline"][2:])
    assert "next_offset" not in rest
    two = gs(concept_id="rules", offset=1, limit=2)
    assert (two["outline"], two["truncated"], two["next_offset"], two["truncation_reason"], two["limit"]) == (
        whole["outline"][1:3], True, 3, "limit", 2)
    assert gs(concept_id="rules", offset=7)["outline"] == [] and gs(concept_id="rules", offset=99)["offset"] == 7
    # the byte budget: exactly the size of the first k entries' answer gives k entries, one byte less k - 1
    sizes = [answers.answer_size({**gs(concept_id="rules", limit=k), "limit": 1000, "truncation_reason": "byte_budget"})
             for k in range(1, 7)]
    for k, size in enumerate(sizes, 1):
        for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
            monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size)
        assert gs(concept_id="rules")["outline"] == whole["outline"][:k], k
        if k > 1:
            for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
                monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size - 1)
            assert gs(concept_id="rules")["outline"] == whole["outline"][: k - 1], k
    # not even one entry fits: refused with the size of a one-entry answer, never an empty page
    one = sizes[0]
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", one - 1)
    with pytest.raises(OkfError) as err:
        gs(concept_id="rules")
    assert err.value.code == "page_too_large" and err.value.details == {"size": one, "limit": one - 1}
    assert f"one outline entry of 'rules' makes a {one}-byte answer" in err.value.message


def test_unknown_names_suggest_the_ten_closest(api_site: Path) -> None:
    index = okf_sphinx.open_index(api_site)
    with pytest.raises(OkfError) as err:
        index.get_section(concept_id="page1")
    assert err.value.code == "not_found" and len(err.value.details["suggestions"]) == 10
    assert f"did you mean {err.value.details['suggestions'][0]!r}?" in err.value.message
    with pytest.raises(OkfError) as err:
        index.read_lines("page1.rst", [1, 1])
    assert err.value.code == "not_found" and len(err.value.details["suggestions"]) == 10
    assert f"did you mean {err.value.details['suggestions'][0]!r}?" in err.value.message
    with pytest.raises(OkfError) as err:
        index.get_section(concept_id="qqqqqqqq")
    assert err.value.details["suggestions"] == [] and "did you mean" not in err.value.message
    assert "search_concepts" in err.value.message  # where to find the ids instead


def test_locator_length_and_line_number_refusals(index: okf_sphinx.Index) -> None:
    gs = index.get_section
    # the longest path (4096 bytes, every byte percent-encoded) with the longest line numbers is still
    # judged on its path, not refused for its length
    longest = "%C3%A9" * 2048 + "#L" + "9" * 16 + "-L" + "9" * 16
    assert details(lambda: gs(locator=longest))[0] == "not_found"
    # past 3 x 4096 + 64 characters a locator is refused before any decoding, as path_too_long
    at = "x" * (3 * 4096 + 64 - 6) + "#L1-L1"
    assert details(lambda: gs(locator=at)) == ("path_too_long", {"field": "locator", "limit": 4096, "actual": 12346})
    assert details(lambda: gs(locator="x" + at)) == ("path_too_long", {"field": "locator", "limit": 4096})
    for bad in ("alpha.rst#L" + "1" * 17, "alpha.rst#L0-L1", "alpha.rst#L5-L4"):
        with pytest.raises(OkfError) as err:
            gs(locator=bad)
        assert err.value.code == "invalid_line_range" and err.value.details == {"field": "locator"}, bad
        assert bad[:40] in err.value.message
    assert "over 16 digits" in envelope(lambda: gs(locator="alpha.rst#L" + "1" * 17))["message"]


def test_search_concepts_defaults_to_twenty_on_every_surface(api_site: Path) -> None:
    from okf_sphinx.agent.dispatch import call_tool

    index = okf_sphinx.open_index(api_site)
    r = call_tool(index, "search_concepts", {"query": "page"})
    assert r == index.search_concepts("page") and r["total"] == 24 and len(r["concepts"]) == 20
    assert r["truncated"] is True and r["truncation_reason"] == "limit"
    assert [c["concept_id"] for c in r["concepts"]] == [f"page{i:02d}" for i in range(20)]


def test_search_concepts_lists_objects_and_keeps_to_the_byte_budget(api_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from okf_sphinx.agent import answers, get_section, read_lines, search_concepts

    index = okf_sphinx.open_index(api_site)
    r = index.search_concepts("PKG")
    check("search_concepts", r)
    assert (r["total"], r["objects_total"], r["objects_truncated"]) == (0, 2, False)
    assert r["objects"] == [
        {"heading": "other.pkg_g", "locator": "other.rst#L3-L4", "kind": "py:data", "concept_id": "other"},
        {"heading": "pkg.f", "locator": "api.rst#L4-L7", "kind": "py:function", "concept_id": "api"}]
    assert index.search_concepts("pkg", limit=2)["objects_truncated"] is False
    one = index.search_concepts("pkg", limit=1)
    assert (one["objects_total"], one["objects_truncated"], len(one["objects"])) == (2, True, 1)
    size = answers.answer_size(r)
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size)
    assert index.search_concepts("PKG") == r
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size - 1)
    assert details(lambda: index.search_concepts("PKG")) == ("page_too_large", {"size": size, "limit": size - 1})


def test_corrupt_parent_links_neither_hang_nor_crash_the_reading_tools(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "loop.rst").write_text("A\n=\n\nB\n-\n\nC\n~\n", encoding="utf-8")
    f = CapturedFile.read((src / "loop.rst").resolve())[0]
    # A and B name each other as parent (a cycle); C names a parent past the page's last section
    sections = [Section(f.path, "A", 1, 1, 3, "a", (), 1), Section(f.path, "B", 2, 4, 6, "b", (), 0),
                Section(f.path, "C", 3, 7, 8, "c", (), 3)]
    site = Site(host=SPHINX, builder="html", page_url=lambda d: f"{d}.html", anchor_ok=lambda exprs: True, search_page="search.html")
    write_index(tmp_path / "out" / "_okf", build_index([DocRecord("loop", "A", True, [f], sections)],
                                                        PurePosixPath(src.resolve().as_posix()), site, dict(DEFAULT_LIMITS)), SPHINX)
    index = okf_sphinx.open_index(tmp_path / "out")
    b = index.get_section(locator="loop.rst#L4-L6")
    assert b["heading"] == "B" and sorted(b["breadcrumb"]) == ["A", "B"]  # each section once, then the walk stops
    c = index.get_section(locator="loop.rst#L7-L8")
    assert c["breadcrumb"] == [] and c["content"] == "C\n~"


def test_generated_objects_bom_and_empty_files_in_section_answers(api_site: Path, index: okf_sphinx.Index) -> None:
    api = okf_sphinx.open_index(api_site)
    gen = api.get_section(object="math.sqrt")
    check("get_section", gen)
    assert gen["content"] == "math.sqrt(x) Return the square root." and gen["content_locator"] == "gen.rst#L4-L4"
    assert gen["object"] == {"name": "math.sqrt", "kind": "py:function", "signature": "sqrt(x)", "generated": True}
    assert gen["previous"] == {"heading": "Gen", "locator": "gen.rst#L1-L3"} and gen["breadcrumb"] == ["Gen"]
    # a section never holds the BOM (it belongs to no line); read_lines returns the bytes, BOM included
    bom = api.get_section(concept_id="bom", heading="Bom")
    assert bom["content"] == "Bom\n===\n\nText." and bom["content_chars"] == len(bom["content"])
    assert api.read_lines("bom.rst", [1, 1])["content"] == "\ufeffBom"
    empty = api.get_section(locator="empty.md#L1-L1")
    assert (empty["content"], empty["content_chars"], empty["truncated"]) == ("", 0, False)
    second = index.get_section(locator="alpha.rst#L6-L9")
    assert second["previous"] == {"heading": "Alpha", "locator": "alpha.rst#L1-L5"} and second["next"] is None


def test_section_pages_meet_the_byte_budget_exactly(index: okf_sphinx.Index, monkeypatch: pytest.MonkeyPatch) -> None:
    from okf_sphinx.agent import answers, get_section, read_lines, search_concepts

    gs = index.get_section
    beta = gs(locator="alpha.rst#L6-L9")
    assert beta["truncated"] is False and "next_offset" not in beta
    last = gs(locator="alpha.rst#L6-L9", offset=10)  # the last page of a section read from an offset
    assert (last["content"], last["truncated"], last["offset"]) == (beta["content"][10:], False, 10)
    assert "next_offset" not in last

    loc = "rules.rst#L1-L5"  # the Rules section and its subsections: 250-odd ASCII characters
    whole = gs(locator=loc)

    def page_of(n: int) -> dict:  # the answer holding the first n characters, paged by the byte budget
        return {**gs(locator=loc, max_chars=n), "max_chars": 20_000, "truncation_reason": "byte_budget"}

    pages = {n: page_of(n) for n in (1, 2, 50, 100)}
    empty = {**pages[1], "content": "", "next_offset": 0}
    size = answers.answer_size(whole)
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size)
    assert gs(locator=loc) == whole  # exactly at the budget
    for n, page in pages.items():  # a budget of exactly n characters' page gives those n characters
        budget = answers.answer_size(page)
        for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
            monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", budget)
        assert gs(locator=loc) == page, n
    for budget in (answers.answer_size(empty), answers.answer_size(pages[1]) - 1):
        # not one character fits: refused, with the size of the smallest page that would make progress
        for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
            monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", budget)
        code, d = details(lambda: gs(locator=loc))
        assert code == "page_too_large" and d == {"size": answers.answer_size(pages[1]), "limit": budget,
                                                  "locator": "rules.rst#L1-L34"}


def test_read_lines_names_the_exact_largest_end_that_fits(index: okf_sphinx.Index, monkeypatch: pytest.MonkeyPatch) -> None:
    from okf_sphinx.agent import answers, get_section, read_lines, search_concepts

    sizes = {k: answers.answer_size(index.read_lines("rules.rst", [3, k])) for k in range(3, 20)}
    for k, size in sizes.items():
        for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
            monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", size)
        with pytest.raises(OkfError) as err:
            index.read_lines("rules.rst", [3, 34])
        assert err.value.details["max_end"] == k, k
        assert f"ask for [3, {k}] or less, then continue from line {k + 1}" in err.value.message
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", sizes[3] - 1)
    with pytest.raises(OkfError) as err:
        index.read_lines("rules.rst", [3, 34])
    assert "max_end" not in err.value.details and "a single line of it is too large" in err.value.message


def test_argument_type_refusals_name_the_type_given(index: okf_sphinx.Index) -> None:
    for kwargs, said in (({"locator": 5}, "locator must be a string, got int"),
                         ({"concept_id": ["a"]}, "concept_id must be a string, got list")):
        with pytest.raises(OkfError) as err:
            index.get_section(**kwargs)
        assert said in err.value.message


def test_an_overlong_locator_is_refused_before_any_other_argument(index: okf_sphinx.Index) -> None:
    long = "x" * (3 * 4096 + 64 - 6) + "#L1-L1"
    for kwargs in ({"include_subsections": "yes"}, {"max_chars": "many"}, {"heading": "Alpha"}, {"limit": 3}):
        assert details(lambda: index.get_section(locator="x" + long, **kwargs))[0] == "path_too_long", kwargs
        assert details(lambda: index.get_section(locator=long, **kwargs))[0] == "schema_validation", kwargs
    assert index.get_section(locator="alpha.rst#L6-L9", offset=None)["offset"] == 0  # None: the default


def test_get_section_argument_combinations(api_site: Path) -> None:
    gs = okf_sphinx.open_index(api_site).get_section
    # a file two pages include: the locator alone is ambiguous, concept_id picks the page
    code, d = details(lambda: gs(locator="shared.rst#L1-L4"))
    assert code == "ambiguous_section" and d == {"locator": "shared.rst#L1-L4", "candidates": [
        {"concept_id": "inc1", "heading": "Shared", "locator": "shared.rst#L1-L4"},
        {"concept_id": "inc2", "heading": "Shared", "locator": "shared.rst#L1-L4"}]}
    two = gs(locator="shared.rst#L1-L4", concept_id="inc2")
    assert (two["concept_id"], two["heading"], two["breadcrumb"]) == ("inc2", "Shared", ["inc2"])
    assert details(lambda: gs(locator="shared.rst#L1-L4", concept_id="nope"))[1]["field"] == "concept_id"
    with pytest.raises(OkfError) as err:
        gs(locator="shared.rst#L1-L4", concept_id="other")  # a page that does not include it
    assert err.value.code == "section_not_found" and "shared.rst spans lines 1-4 in 'other'" in err.value.message
    with pytest.raises(OkfError) as err:
        gs(locator="shared.rst#L2-L4")
    assert "spans lines 2-4;" in err.value.message
    # object stands alone; a locator takes no heading
    assert gs(object="pkg.f")["locator"] == "api.rst#L4-L7"
    assert details(lambda: gs(object=5)) == ("schema_validation", {"field": "object"})
    for other in ({"locator": "api.rst#L4-L7"}, {"concept_id": "api"}, {"heading": "pkg.f"}):
        assert details(lambda: gs(object="pkg.f", **other)) == ("schema_validation", {"field": "object"}), other
    assert details(lambda: gs(locator="api.rst#L4-L7", heading="pkg.f")) == ("schema_validation", {"field": "locator"})
    # limit pages outlines only, clamped to 1-1000; a heading may be 4096 characters long
    assert gs(concept_id="topics", limit=0)["limit"] == 1 and len(gs(concept_id="topics", limit=0)["outline"]) == 1
    assert gs(concept_id="topics", limit=5000)["limit"] == 1000
    assert details(lambda: gs(locator="api.rst#L4-L7", limit=3)) == ("schema_validation", {"field": "limit"})
    assert details(lambda: gs(concept_id="api", heading="x" * 4096))[0] == "section_not_found"


def test_a_page_one_multibyte_character_shorter_fits_a_budget_one_byte_under(api_site: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from okf_sphinx.agent import answers, get_section, read_lines, search_concepts

    gs = okf_sphinx.open_index(api_site).get_section
    text = gs(locator="euro.rst#L1-L4")["content"]
    assert text.endswith("€€€€€€")
    page = gs(locator="euro.rst#L1-L4", max_chars=len(text) - 1)  # cut by max_chars
    budget = answers.answer_size(page) - 1
    for patched in (answers, search_concepts, read_lines, get_section):  # each module reads its own MAX_ANSWER_BYTES
        monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", budget)
    # one 3-byte character less and "byte_budget" (2 bytes longer than "max_chars"): 1 byte smaller
    cut = gs(locator="euro.rst#L1-L4", max_chars=len(text) - 1)
    assert (cut["content"], cut["truncation_reason"]) == (text[:-2], "byte_budget")


def test_the_wire_form_keeps_the_answers_key_order(index: okf_sphinx.Index) -> None:
    from okf_sphinx.agent.answers import answer_json

    for answer in (index.read_lines("alpha.rst", [1, 2]), index.get_section(locator="alpha.rst#L6-L9"),
                   index.search_concepts("a")):
        text = answer_json(answer)
        assert list(json.loads(text)) == list(answer) and text.startswith('{"status":"ok",')


def test_limit_and_path_length_edges(api_site: Path) -> None:
    index = okf_sphinx.open_index(api_site)
    gs = index.get_section
    assert details(lambda: gs(object="pkg.f", limit=3)) == ("schema_validation", {"field": "limit"})  # outlines only
    assert details(lambda: gs(concept_id="api", limit="3")) == ("schema_validation", {"field": "limit"})
    # a path of exactly 4096 characters (and bytes) is a path; one more is too long
    assert details(lambda: index.read_lines("x" * 4096, [1, 1]))[0] == "not_found"
    assert details(lambda: index.read_lines("x" * 4097, [1, 1]))[0] == "path_too_long"


def test_path_suggestions_look_at_a_bounded_set_of_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a site of 20,000 captured files (the real writer; Sphinx would take minutes), an
    unknown path's suggestions compare it with at most MAX_SUGGESTION_CANDIDATES paths —
    those in its folder or with its file name or stem — and still find the file meant
    (issue 20, point 13: every path was compared, about a second a call)."""
    import difflib

    from okf_sphinx.agent import files as agent_files

    src = tmp_path / "src"
    records = []
    for i in range(20_000):
        path = src / f"sec{i // 100:03d}" / f"page-{i:05d}.rst"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x\n")
        f = CapturedFile.read(path.resolve())[0]
        records.append(DocRecord(f"p{i:05d}", "", True, [f], [_section(f.path, "", 0, 1, 1)]))
    site = Site(host=SPHINX, builder="html", page_url=lambda d: f"{d}.html", anchor_ok=lambda exprs: True,
                search_page="search.html")
    write_index(tmp_path / "out" / "_okf", build_index(records, PurePosixPath(src.resolve().as_posix()), site,
                                                        dict(DEFAULT_LIMITS)), SPHINX)
    index = okf_sphinx.open_index(tmp_path / "out")
    compared: list[str] = []
    real = difflib.SequenceMatcher.set_seq1
    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", lambda self, a: (compared.append(a), real(self, a))[1])
    for typo, meant in [("sec045/page-04523.rts", "sec045/page-04523.rst"),  # the stem
                        ("sec046/page-04523.rst", "sec045/page-04523.rst"),  # the file name
                        ("sec045/page-0452.rst", "sec045/"),   # the folder
                        ("SEC045/Page-04523.rst", "sec045/page-04523.rst")]:  # the name, case folded
        compared.clear()
        with pytest.raises(OkfError) as info:
            index.read_lines(typo, [1, 1])
        close = info.value.details["suggestions"]
        assert info.value.code == "not_found" and close, typo
        assert (all(p.startswith(meant) for p in close) if meant.endswith("/") else meant in close), (typo, close)
        assert 0 < len(compared) <= agent_files.MAX_SUGGESTION_CANDIDATES, (typo, len(compared))
    compared.clear()
    with pytest.raises(OkfError) as info:
        index.read_lines("elsewhere/entirely.md", [1, 1])
    assert info.value.details["suggestions"] == [] and len(compared) <= agent_files.MAX_SUGGESTION_CANDIDATES


def test_path_suggestions_compare_every_path_up_to_the_bound(index: okf_sphinx.Index, monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to MAX_SUGGESTION_CANDIDATES files every path is compared (a typo in another folder
    finds its file); past it only those sharing the folder, file name or stem (its part
    before the first dot) are — what _keys_of gives a path, case folded."""
    from okf_sphinx.agent import files as agent_files

    n = len(index.files())
    assert agent_files._keys_of("Docs/Guide/Install.Part.RST") == ("ddocs/guide", "ninstall.part.rst", "sinstall")
    monkeypatch.setattr(agent_files, "MAX_SUGGESTION_CANDIDATES", n)
    assert "alpha.rst" in details(lambda: index.read_lines("docs/alpah.rst", [1, 1]))[1]["suggestions"]
    monkeypatch.setattr(agent_files, "MAX_SUGGESTION_CANDIDATES", n - 1)
    assert details(lambda: index.read_lines("docs/alpah.rst", [1, 1]))[1]["suggestions"] == []
    assert "alpha.rst" in details(lambda: index.read_lines("alpah.rst", [1, 1]))[1]["suggestions"]  # its folder
