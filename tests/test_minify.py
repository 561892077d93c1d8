"""The minifier (okf_sphinx/surfaces/minify.py): what a site ships of okf_sphinx/js/ and
static/ answers exactly as the readable sources do.

- the minified runtime and the readable runtime give the same bytes for the same index and
  requests in Node (keyword and smart mode, generated queries and edge cases);
- a script of tricky constructs (automatic semicolons, regular expressions and divisions,
  shadowed and captured names, catch scopes, ``for … in``) prints the same when minified;
- a construct outside the minifier's subset is a named error, never a wrong file;
- the source map leads every token back to its file, line and column; every shipped
  script parses; the output depends only on the input.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from okf_sphinx.surfaces import browser, minify
from support.node import READABLE, RUNTIME, require_node, run_node

pytestmark = pytest.mark.node


def _requests(site: Path, n: int, seed: int) -> list[dict[str, Any]]:
    """Keyword and smart requests made of the site's words (section texts, normalised): single
    words, pairs, cut-short last words, phrases, limits and options, and a few errors."""
    from okf_sphinx import open_index

    index = open_index(site)
    words = sorted({w for i in range(index.section_count) for w in index.normaliser.terms(index.section(i)["text"])})
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for _ in range(n):
        q = " ".join(rng.choice(words) for _ in range(rng.choice([1, 1, 2, 3])))
        r = rng.random()
        if r < 0.15:
            q = q[: rng.randint(1, len(q))]
        elif r < 0.25:
            q = f'"{q}"'
        elif r < 0.3:
            q = q.upper() + " zzqxv"
        req: dict[str, Any] = {"query": q}
        if rng.random() < 0.5:
            req.update(mode="smart", prefix=rng.random() < 0.5, expand=rng.random() < 0.3)
        if rng.random() < 0.3:
            req["limit"] = rng.choice([1, 3, 10, 50, 0, 101, "5"])
        out.append(req)
    return out + [{"query": ""}, {"query": "a" * 513}, {"query": None}, {"query": "retry", "mode": "semantic"},
                  {"query": "retry", "mode": "fuzzy"}, {"query": "retry", "mode": "smart", "under": "guide"}]


def test_minified_runtime_answers_as_the_readable_one(example_html: Path) -> None:
    """The same requests, both runtimes, byte-identical answer lines (scores to the last bit,
    error envelopes and their messages included)."""
    requests = _requests(example_html, 1200, seed=7)
    small = run_node(example_html / "_okf", requests, runtime=RUNTIME, raw=True)
    readable = run_node(example_html / "_okf", requests, runtime=READABLE, raw=True)
    assert RUNTIME.stat().st_size < READABLE.stat().st_size * 0.7
    different = [(req, a, b) for req, a, b in zip(requests, small, readable, strict=True) if a != b]
    assert not different, different[:3]
    answers = [json.loads(line) for line in small]
    assert sum(1 for a in answers if a.get("hits") or a.get("pages")) > 300 and sum(1 for a in answers if "error" in a) > 20
    assert not any("crash" in a for a in answers)


TRICKY = r"""
var out = [];
function log(x) { out.push(typeof x === 'string' ? x : JSON.stringify(x)); }
var a = 4, b = 2, g = 1, c, d;
c = a
/ b / g
log(c)
d = a
++b
log([a, b, d])
function ret() {
  return
  42
}
log(String(ret()))
var re = /[/\]]+\/\*not a comment*\//g, s = 'a // b /* c */ d', t = "it's \" // ok";
log('x]/]y/*not a comment*/'.replace(re, '|'))
log(s + t)
log(a - -b)
log(a + +b)
log(a++ + +b)
log(a-- - -b)
log(1 .toString() + 2..toString() + (3).toFixed(1))
var name = 'outer', value = 10;
function shadow(value) {
  var name = 'inner';
  function deeper(x) { return name + ':' + value + ':' + x + ':' + typeof undeclaredThing }
  return deeper(value * 2)
}
log(shadow(3))
log(name + value)
function counter() {
  var count = 0;
  return { inc: function () { count += 1; return count }, name: name, value: value }
}
var k = counter();
k.inc(); k.inc()
log([k.inc(), k.name, k.value])
try { throw new Error('boom') } catch (e) {
  var caught = e.message;
  log(caught)
}
log(typeof e)
var o = { alpha: 1, beta: 2, 'gamma delta': 3 }, keys = [];
for (var key in o) keys.push(key + '=' + o[key])
log(keys.join(','))
var fact = function self(n) { return n <= 1 ? 1 : n * self(n - 1) };
log(fact(6))
function args() { return arguments.length + ':' + [].slice.call(arguments).join('') }
log(args(1, 2, 3))
var x = 5, y = x < 3 ? 'small' : x > 4 ? 'big' : 'middle';
log(y)
if (a) { log('block') } else log('else')
var i = 0;
do { i += 2 } while (i < 7)
log(i)
var z = 1;
;[1, 2].forEach(function (n) { z += n })
log(z)
var div = 10 / 2 / 5, notRegex = (div) / 1;
log([div, notRegex, /=/.test('a=b')])
var q;
q = 1
{
  q = 2;
}
log(q)
async function later(v) { var w = await Promise.resolve(v * 2); return w + 1 }
later(20).then(function (r) { log(r); process.stdout.write(out.join('\n') + '\n') })
"""


def test_tricky_script_prints_the_same_minified(tmp_path: Path) -> None:
    node = require_node()
    made = minify.minify([("tricky.js", TRICKY)])
    assert len(made.text) < len(TRICKY) * 0.85
    outputs = []
    for name, text in (("readable.js", TRICKY), ("small.js", made.text)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        proc = subprocess.run([node, str(tmp_path / name)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].splitlines()[:3] == ["2", "[4,3,4]", "undefined"]  # the semicolons the line breaks stood for
    # top-level names are globals and stay; local ones are shortened
    assert "function shadow(" in made.text and "function counter(" in made.text and "deeper" not in made.text


@pytest.mark.parametrize(("source", "what"), [
    ("var a = 1;\nlet b = 2;\n", "let"),
    ("var a = 1;\nconst b = 2;\n", "const"),
    ("var f = function () {\n  return [1].map((x) => x);\n};\n", "an arrow function"),
    ("var s = 'a';\nvar t = `b${s}`;\n", "a template literal"),
    ("function f(o) {\n  with (o) { return a; }\n}\n", "with"),
    ("var a = 1;\nvar b = eval('a');\n", "eval"),
    ("function f(o) {\n  return { o };\n}\n", "a shorthand property or method"),
    ("function f(x) {\n  switch (x) { case 1: return 2; }\n}\n", "switch"),
    ("var a;\nfunction f(a, ...rest) {\n  return rest;\n}\n", "a parameter that is not a plain name"),
    ("function f() {\n  outer: for (;;) { break outer; }\n}\n", "a label"),
    ("if (1) {\n  function g() {}\n}\n", "a function declared in a block"),
])
def test_a_construct_outside_the_subset_is_a_named_error(source: str, what: str) -> None:
    with pytest.raises(minify.MinifyError) as info:
        minify.minify([("okf_sphinx/js/x.js", source)])
    assert str(info.value).startswith("okf_sphinx/js/x.js:2: " if what not in ("a label",) else "okf_sphinx/js/x.js:")
    assert what in str(info.value)


_VLQ = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def _decode(mappings: str) -> list[list[list[int]]]:
    """A version-3 source map's mappings, absolute: per generated line, [col, source, line, col(, name)]."""
    lines, state = [], [0, 0, 0, 0]
    for text in mappings.split(";"):
        col, segs = 0, []
        for seg in filter(None, text.split(",")):
            values, value, shift = [], 0, 0
            for ch in seg:
                digit = _VLQ[ch]
                value += (digit & 31) << shift
                if digit & 32:
                    shift += 5
                else:
                    values.append(-(value >> 1) if value & 1 else value >> 1)
                    value, shift = 0, 0
            col += values[0]
            absolute = [col]
            for k in range(1, len(values)):
                state[k - 1] += values[k]
                absolute.append(state[k - 1])
            segs.append(absolute)
        lines.append(segs)
    return lines


def _utf16_slice(line: str, column: int, length: int) -> str:
    units = line.encode("utf-16-le")
    return units[column * 2:(column + length) * 2].decode("utf-16-le", errors="replace")


@pytest.mark.parametrize("name", ["okf-search.js", "okf-boot.js", "okf-dialog.js", "okf-search-page.js"])
def test_the_source_map_leads_every_token_back(name: str) -> None:
    made = browser.shipped(name, "en")
    smap = json.loads(made.map or "")
    assert smap["version"] == 3 and smap["file"] == name and len(smap["sources"]) == len(smap["sourcesContent"])
    assert made.text.endswith(f"\n//# sourceMappingURL={name}.map\n")
    generated = made.text.split("\n")
    sources = [text.split("\n") for text in smap["sourcesContent"]]
    checked = renamed = 0
    for gline, segs in enumerate(_decode(smap["mappings"])):
        for seg in segs:
            gcol, src, sline, scol = seg[:4]
            original = sources[src][sline]
            if len(seg) == 5:  # a shortened name: the source holds the name the map gives
                short = _utf16_slice(generated[gline], gcol, 1)
                full = smap["names"][seg[4]]
                assert _utf16_slice(original, scol, len(full)) == full and re.fullmatch(r"[A-Za-z_$]", short)
                renamed += 1
            else:  # the token is the same text at both ends
                nxt = _utf16_slice(generated[gline], gcol, 1)
                assert _utf16_slice(original, scol, 1) == nxt, (name, gline, gcol, smap["sources"][src], sline, scol)
            checked += 1
    assert checked > 500 and renamed > 50
    if name == "okf-search.js":  # the map shows okf_sphinx/js/ file by file
        assert "okf_sphinx/js/engine/smart.js" in smap["sources"]


def test_every_shipped_script_parses_and_is_smaller(tmp_path: Path) -> None:
    node = require_node()
    names = browser.site_scripts("fr")
    assert {"okf-boot.js", "okf-search.js", "okf-semantic.js", "okf-dialog.js", "okf-stemmer-french.js"} <= set(names)
    for name in names:
        made = browser.shipped(name, "fr")
        (tmp_path / name).write_text(made.text, encoding="utf-8")
        proc = subprocess.run([node, "--check", str(tmp_path / name)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, (name, proc.stderr)
        readable = browser.runtime_js(name) if name in (browser.RUNTIME, *browser.PARTS) else \
            (browser.PACKAGE / "static" / name).read_text(encoding="utf-8")
        assert len(made.text) < len(readable), name


def test_the_output_depends_only_on_the_input() -> None:
    first = browser.shipped("okf-search.js")
    minify._minify.cache_clear()
    again = browser.shipped("okf-search.js")
    assert first == again and first is not again


STEM_NODE = r"""
const path = require('path');
const words = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = {};
for (const dir of process.argv.slice(2)) {
  const S = require(path.join(dir, 'okf-stemmer.js'));
  out[dir] = {};
  for (const lang of S.supportedLanguages()) out[dir][lang] = words[lang].map(S.forLanguage(lang));
}
process.stdout.write(JSON.stringify(Object.values(out)));
"""
def _unescape(literal: str) -> str:
    """A JavaScript string literal's value (\\uXXXX escapes read); "" when it holds other escapes."""
    try:
        return json.loads('"' + literal + '"')
    except ValueError:
        return ""


BASES = ["arbeit", "kata", "nation", "lov", "lugar", "hus", "kitap", "книг", "работ", "szab", "talo", "casa", "a", ""]


def test_minified_stemmers_stem_as_the_readable_ones(tmp_path: Path) -> None:
    """Every language's stemmer, minified as a site ships it, gives the readable one's stems
    for words made of its own suffix tables (every string literal of its file) after a few bases."""
    from okf_sphinx.core.stemmer import stemmer_script, supported_languages

    node = require_node()
    words: dict[str, list[str]] = {}
    for language in supported_languages():
        text = (browser.PACKAGE / "static" / str(stemmer_script(language))).read_text(encoding="utf-8")
        literals = sorted({w for a, b in re.findall(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"", text)
                           if (w := _unescape(a or b)) and " " not in w})
        words[language] = [base + s for base in BASES for s in literals] + [b + s + t for b in BASES[:3] for s in literals[:40]
                                                                         for t in literals[-40:]]
    script = tmp_path / "stem.js"
    script.write_text(STEM_NODE, encoding="utf-8")
    proc = subprocess.run([node, str(script), str(RUNTIME.parent), str(READABLE.parent)], input=json.dumps(words),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    small, readable = json.loads(proc.stdout)
    assert set(small) == set(words) and len(small) >= 15
    for language in small:
        assert small[language] == readable[language], language
        assert sum(1 for w, s in zip(words[language], small[language]) if w != s) > 100, language  # the rules ran
