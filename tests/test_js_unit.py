"""Pieces of the JavaScript runtime that the parity tests reach only by chance.

- the generated separator table (non-ASCII code points an ASCII query may skip
  without loading unicode.js) is exact for the build's tables and for Node's;
- snippets of ASCII queries over texts with punctuation, emoji, ß, the Kelvin
  sign, ligatures or letters before the match: same as Python, and unicode.js
  loaded only when a letter/mark or unknown code point comes before the match;
- values quoted in messages (JSON) and the canonical JSON the size cap counts,
  the same bytes as Python's; the wrapper check of the Node loader.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support.build import same_build, sphinx_build, write_project
from support.node import PROBE, READABLE, RUNTIME, python_answer, require_node, run_node, same

pytestmark = pytest.mark.node


def test_separator_table_is_exact_for_python_and_node() -> None:
    from okf_sphinx.core.terms import in_ranges, unicode_tables
    from okf_sphinx.surfaces.browser import SEPARATOR_UNICODE, ascii_separators

    t = unicode_tables()
    proc = subprocess.run([require_node(), str(PROBE)], capture_output=True, text=True, timeout=300)
    probe = json.loads(proc.stdout)
    # this Python's tables are checked when the runtime would trust the table for its builds
    # (Unicode 14 on Python 3.11, 15.0 on 3.12, 15.1 on 3.13, ...); Node's always
    tables = [t, probe] if SEPARATOR_UNICODE.fullmatch(t["unicode_version"]) else [probe]
    assert SEPARATOR_UNICODE.fullmatch(probe["unicode"] + ".0") or SEPARATOR_UNICODE.fullmatch(t["unicode_version"]), probe["unicode"]
    ranges = ascii_separators()
    assert ranges and all(lo <= hi for lo, hi in ranges)
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:]))
    for lo, hi in ranges:
        for cp in range(lo, hi + 1):
            key = f"{cp:x}"
            assert cp > 0x7F
            for table in tables:
                assert in_ranges(table["assigned"], cp) and not in_ranges(table["word"], cp), hex(cp)
            assert key not in t["casefold"] and key not in probe["lower"], hex(cp)


SNIPPET_PAGE = """Snippets
========

Quotes
------

{pad}“Quoted” text — with an em dash… and • bullets → arrows © ™ ✓ ⚠ 😀 🚀 then the retry word.

Sharp s
-------

{pad}Die Straße has a strasse and then retry appears here.

Temperature
-----------

{pad}A \u212aelvin value then kelvin and retry.

Ligature
--------

{pad}The ﬁle and file and retry.

Letters
-------

{pad}Café naïve résumé before retry.

Astral
------

{pad}𝐀𝐁𝐂 bold maths 🙂 and 𠀀 then retry.

Adjacent
--------

{pad}An ASCII word glued to a letter: installé, then install alone.

Tail
----

{pad}retry first, then “quotes” and Straße after the match.
"""


@pytest.fixture(scope="module")
def snippet_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("snip")
    pad = "Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor. " * 3
    src = write_project(root / "src", {"index.rst": SNIPPET_PAGE.format(pad=pad)}, conf="okf_search_exclude = []\n")
    out = root / "html"
    sphinx_build(src, out, "-d", str(root / "doctrees"))
    return out


@pytest.mark.parametrize(
    ("query", "needs_tables"),
    [
        ("retry", True),  # one section has ß before "retry": tables needed
        ("quoted em dash", False),  # only separators before the match
        ("arrows", False),
        ("strasse", True),  # ß before: it folds to "ss"
        ("kelvin", True),  # the Kelvin sign folds to k
        ("file", True),  # the ﬁ ligature folds to fi
        ("bold maths", False),  # 𝐀𝐁𝐂 is a run of its own: its term is not ASCII
        ("install", True),  # "installé" could be one run: the tables decide
        ("first", False),  # non-ASCII only after the match
        ("lorem", False),
    ],
)
def test_ascii_snippets(snippet_site: Path, query: str, needs_tables: bool) -> None:
    from okf_sphinx import open_index

    index = open_index(snippet_site)
    req = {"query": query, "limit": 100}
    (answer,) = run_node(snippet_site / "_okf", [req], cold=True)
    assert same(answer["answer"], python_answer(index, req)) is None
    assert answer["answer"]["total"] > 0
    assert ("unicode" in answer["loaded"]) is needs_tables, answer["loaded"]


def _node_eval(expr: str) -> object:
    code = f"const okf = require({json.dumps(str(RUNTIME))}); process.stdout.write(JSON.stringify({expr}));"
    proc = subprocess.run([require_node(), "-e", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


JSON_VALUES = [True, False, None, 0, -0.0, 5, 1.5, 2.5e-7, 1e-5, 1e-10, 123456789.125, -0.5, 1e21, 1e20, 0.1, 1e300,
               2**53, "5", "it's", 'say "hi"', "a\\b\nc\x01\x7f", "\u2028<&>", "é\U0001F600", [3, "x", [None]],
               {"b": 1, "a": [True, {"é": 2, "E": 3}]}, {}, []]


def test_json_text_is_the_same_bytes_in_python_and_node() -> None:
    """Messages quote a request's value as JSON (core/errors.py json_text, core/errors.js jsonText);
    random doubles too, in ECMAScript's number form."""
    import random
    import struct

    from okf_sphinx.core.errors import json_text

    rng = random.Random(7)
    doubles = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(3000)]
    values = JSON_VALUES + [d for d in doubles if d == d and abs(d) != float("inf")]
    assert _node_eval(f"{json.dumps(values)}.map(okf.jsonText)") == [json_text(v) for v in values]


def test_canonical_json_is_the_same_bytes_in_python_and_node() -> None:
    """The size cap counts the answer's canonical JSON (core/index_format canonical_json / canonicalJson)."""
    from okf_sphinx.core.index_format import canonical_json

    values = [v for v in JSON_VALUES if not (isinstance(v, float) and v == int(v))]  # JavaScript's 5.0 is 5
    code = f"{json.dumps(values)}.map(v => okf.canonicalJson(v, false))"
    assert _node_eval(code) == [canonical_json(v, sort_keys=False) for v in values]


def test_node_loader_refuses_foreign_files(tmp_path: Path) -> None:
    from okf_sphinx.core import index_format as fmt

    d = tmp_path / "_okf"
    (d / "t").mkdir(parents=True)
    (d / "manifest.js").write_bytes(same_build("manifest", {"format": "nope"}, (d / "manifest.js")))
    (d / "t" / "0.js").write_bytes(same_build("t/1", {}, (d / "t" / "0.js")))
    (d / "unicode.js").write_bytes(b'okfLoad("unicode",{"a":1}); alert(1);\n')
    script = f"""
const okf = require({json.dumps(str(RUNTIME))});
const load = okf.nodeLoader({json.dumps(str(d))});
const out = [];
for (const n of ["manifest", "t/0", "unicode", "s/1"]) {{
  try {{ out.push(load(n)); }} catch (e) {{ out.push(e.envelope); }}
}}
new okf.Index(load).search("x").then(r => out.push(r), e => out.push(e.envelope)).then(() => process.stdout.write(JSON.stringify(out)));
"""
    proc = subprocess.run([require_node(), "-e", script], capture_output=True, text=True, timeout=60)
    manifest, shard, uni, missing, search = json.loads(proc.stdout)
    assert manifest == ["0" * fmt.BUILD_DIGITS, {"format": "nope"}]  # [build, value]: the loader's answer
    assert shard["error"]["code"] == "index_corrupt" and "wrapper" in shard["error"]["message"]
    assert uni["error"]["code"] == "index_corrupt"
    assert missing["error"]["code"] == "index_corrupt"
    assert search["error"] == {"code": "index_corrupt", "message": "manifest.js is not an okf_sphinx index manifest; rebuild the site", "file": "manifest.js"}


def test_ascii_fast_path_assumptions_hold_in_the_build_tables() -> None:
    """What snippetAt relies on without unicode.js: NFC(casefold()) of a letter/number/mark is
    letters/numbers/marks, a composite of such is one too, and exactly these letters turn ASCII."""
    import unicodedata

    from okf_sphinx.core.terms import in_ranges, unicode_tables

    word = unicode_tables()["word"]

    def is_word(ch: str) -> bool:
        return in_ranges(word, ord(ch))

    to_ascii = []
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        folded = unicodedata.normalize("NFC", c.casefold())
        if is_word(c):
            assert all(is_word(x) for x in folded + unicodedata.normalize("NFD", c)), hex(cp)
            if folded.isascii():
                to_ascii.append(cp)
        else:
            d = unicodedata.normalize("NFD", c)
            assert d == c or not all(is_word(x) for x in d), hex(cp)
    src = READABLE.read_text(encoding="utf-8")  # the sources as written (the shipped file is minified)
    assert "c === 0xdf || c === 0x17f || c === 0x1e9e || c === 0x212a || (c >= 0xfb00 && c <= 0xfb06)" in src
    assert to_ascii == [0xDF, 0x17F, 0x1E9E, 0x212A, *range(0xFB00, 0xFB07)]


def test_integer_lists_are_read_alike(example_html: Path, tmp_path: Path) -> None:
    """Posting lists are integer lists written as text (format 4): random well-formed lists give
    the same answers in Python and Node, and malformed text or a malformed list is the same
    ``index_corrupt`` in both (index_format.decode_ints and core/index_format.js decodeInts)."""
    import random
    import shutil

    import okf_sphinx
    from okf_sphinx.core import index_format as fmt

    site = tmp_path / "site"
    shutil.copytree(example_html, site, ignore=shutil.ignore_patterns(".doctrees"))
    n = okf_sphinx.open_index(site).section_count
    folder = site / "_okf" / "t"
    path = max((f for f in folder.glob("*.js") if "-" not in f.stem),
               key=lambda f: len(fmt.unwrap(f"t/{f.stem}", f.read_bytes())["terms"]))
    name = f"t/{path.stem}"
    shard = fmt.unwrap(name, path.read_bytes())
    terms = sorted(t for t, e in shard["terms"].items() if isinstance(e, str) and t.isascii() and t.isalpha())[:45]
    assert len(terms) >= 30, "the example's largest shard must hold enough plain words"
    rng = random.Random(4)

    def postings() -> list[int]:
        flat, prev = [], None
        for sid in sorted(rng.sample(range(n), rng.randint(1, 6))):
            flat += [sid if prev is None else sid - prev, rng.randint(1, 40), rng.choice([0, 7, 31, 32, 1023, 1024, 40000])]
            prev = sid
        return flat

    kinds = []
    for i, term in enumerate(terms):
        flat = postings()
        digits = fmt.encode_ints(flat)
        if i % 3 == 1:  # not canonical text: a foreign character, a zero last digit, a cut integer, 8 digits
            digits = rng.choice([digits + "=", digits[:-1] + "\u00e9", "gA" + digits, digits + "g", "gggggggB" + digits,
                                 digits + " "])
        elif i % 3 == 2:  # well-formed text, a malformed list: a missing integer, a repeated sid, f = 0, a sid past the sections
            bad = rng.choice([flat[:-1], flat[:3] + [0, 1, 1], flat[:1] + [0] + flat[2:], [n] + flat[1:]])
            digits = fmt.encode_ints(bad)
        kinds.append(i % 3)
        shard["terms"][term] = digits
    path.write_bytes(same_build(name, shard, path))
    requests = [{"query": t} for t in terms]
    index = okf_sphinx.open_index(site)
    answers = run_node(site / "_okf", requests)
    codes = []
    for req, kind, js in zip(requests, kinds, answers):
        py = python_answer(index, req)
        assert same(js, py) is None, (req, same(js, py))
        codes.append((kind, py.get("error", {}).get("code") if "error" in py else "ok"))
    assert {c for k, c in codes if k == 0} == {"ok"}
    assert {c for k, c in codes if k == 1} == {"index_corrupt"}
    assert {c for k, c in codes if k == 2} == {"index_corrupt"}


def test_rank_pages_stops_at_the_same_page_in_both_engines() -> None:
    """smart.py's page loop scores pages in bound order and stops once no bound can reach the
    limit-th score; its twin takes the same steps: the same pages scored, the same ranking."""
    import random

    from okf_sphinx.engine import smart

    rng = random.Random(11)
    pages, sids_per_page = 60, 3
    firsts = [p * sids_per_page for p in range(pages)]
    priors = [rng.choice([0.5, 1.0, 1.5]) for _ in range(pages)]
    ev = []
    for _word in range(2):
        sec = {sid: rng.uniform(0.1, 9) for sid in rng.sample(range(pages * sids_per_page), 120)}
        by_page: dict[int, list[int]] = {}
        for sid in sorted(sec):
            by_page.setdefault(sid // sids_per_page, []).append(sid)
        ev.append({"acc": {s: 1.0 for s in sec}, "sec": sec, "by_page": by_page,
                   "page_part": {p: rng.uniform(0.1, 5) for p in by_page},
                   "page_best": {p: max(sec[s] for s in ss) for p, ss in by_page.items()}})
    names = {3 * sids_per_page: smart.UNNAMED - 1}
    weights = [1.5, 0.25]  # the words' page idfs: coverage weighs each page's score (engine/words.py)
    heads = {5 * sids_per_page + 1: smart.NO_HEADING - 1}  # a section whose heading starts with the query
    found = smart.candidates(ev, [], names, heads, firsts, None, weights)
    for limit in (1, 3, 10, 60):
        ranked, scored = smart.rank_pages(ev, [], [], found, priors, limit)
        want = {"ranked": [list(r) for r in ranked], "scored": sorted(scored)}
        code = f"""(() => {{
  const smart = okf.module('engine/smart'), data = {json.dumps({"ev": ev, "firsts": firsts, "priors": priors, "names": names, "heads": heads, "weights": weights})};
  const m = (o) => new Map(Object.entries(o).map(([k, v]) => [+k, v]));
  const ev = data.ev.map((e) => ({{ acc: m(e.acc), sec: m(e.sec), byPage: m(e.by_page), pagePart: m(e.page_part), pageBest: m(e.page_best) }}));
  const found = smart.candidates(ev, [], m(data.names), m(data.heads), data.firsts, null, data.weights);
  const got = smart.rankPages(ev, [], [], found, data.priors, {limit});
  return {{ ranked: got[0], scored: Array.from(got[1].keys()).sort((a, b) => a - b) }};
}})()"""
        assert _node_eval(code) == want, limit
        if limit < 10:
            assert len(scored) < len(found.pages)  # it stopped early


def test_idf_from_df_is_the_builds_log_in_both_engines() -> None:
    """Format 7 stores dfs: idf_base (+ − × ÷ alone) moved by the build's recorded steps is
    math.log's double for every df of collections of many sizes, in Python and in Node (JSON
    carries each double exactly: the shortest digits that round-trip)."""
    import math

    from okf_sphinx.core import index_format as fmt

    cases = []
    for n in (1, 2, 3, 28, 279, 1000, 4999):
        dfs = range(1, n + 1)
        text = fmt.idf_steps(n, dfs)
        steps = fmt.read_idf_steps(text)
        assert steps is not None and all(abs(s) <= 2 for s in steps.values())
        assert [fmt.stored_idf(n, df, steps) for df in dfs] == [math.log(1 + (n - df + 0.5) / (df + 0.5)) for df in dfs]
        cases.append([n, text])
    js = _node_eval(f"{json.dumps(cases)}.map(([n, text]) => {{ const f = okf.module('core/index_format'), s = f.readIdfSteps(text);"
                    " return Array.from({length: n}, (_, i) => f.storedIdf(n, i + 1, s)); })")
    assert js == [[fmt.idf(n, df) for df in range(1, n + 1)] for n, _t in cases]


def test_unicode_file_is_read_alike() -> None:
    """unicode.js's integer lists (format 7) give the build's tables back in both engines, and
    both refuse the same damaged files."""
    from okf_sphinx.core import index_format as fmt
    from okf_sphinx.core.terms import unicode_tables

    tables = unicode_tables()
    good = fmt.unicode_file(tables)
    assert fmt.read_unicode_file(good) == tables
    bad = [{**good, "word": good["word"] + "="}, {**good, "casefold": "BA"}, {**good, "casefold": "BBCABC"},
           {**good, "casefold": "BJ"}, {**good, "casefold": "_____BBC"}, {**good, "extra": ""}, {**good, "assigned": None}, []]
    assert [fmt.read_unicode_file(v) for v in bad] == [None] * len(bad)
    js = _node_eval(f"[{json.dumps(good)}, ...{json.dumps(bad)}].map(v => okf.module('core/index_format').readUnicodeFile(v))")
    assert js == [tables] + [None] * len(bad)


def test_word_lists_are_read_alike() -> None:
    """d/ and e/ entries (format 7): the terms joined by one space and their dfs as an integer
    list; both engines read them back and refuse the same damaged ones."""
    from okf_sphinx.core import index_format as fmt

    entries = [["configuration", 31], ["config", 7], ["conf", 1], ["été", 40000]]
    good = fmt.encode_word_list(entries)
    assert fmt.decode_word_list(good) == entries
    bad = [["a b", "B"], ["a  b", "BBB"], ["", ""], ["a", "B", "x"], ["a", "="], [1, "B"], "a", None]
    assert [fmt.decode_word_list(v) for v in bad] == [None] * len(bad)
    js = _node_eval(f"[{json.dumps(good)}, ...{json.dumps(bad)}].map(v => okf.module('core/index_format').decodeWordList(v))")
    assert js == [entries] + [None] * len(bad)
