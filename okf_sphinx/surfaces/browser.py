"""The browser surface: the runtime a site ships (``okf-search.js``), assembled from its
sources in ``okf_sphinx/js/``, and the constants those sources share with Python.

``okf_sphinx/js/`` mirrors the Python package module for module: ``js/engine/smart.js``
is ``engine/smart.py``'s twin, with the same function names (camelCase) and the same
steps (``tests/test_js_mirror.py`` holds each pair to one another).  Each file is one
``define("<module>", function (use, root) { … return {…}; })``; :func:`runtime_js`
puts them, in a fixed order (their paths, sorted), inside one classic script that
defines ``window.OkfSearch`` (``module.exports`` in Node).  Both hosts write it into
the site when they build it (:func:`write_runtime`), so readers load one file, with
no build step of their own, over ``http(s)://`` and from ``file://`` alike.

``js/core/constants.js`` is generated from the Python constants :data:`SHARED` names
and the separator table (:func:`ascii_separators`); after changing one, run::

    python -m okf_sphinx.surfaces.browser

``tests/test_js_mirror.py`` fails while the file is stale.  ``python -m
okf_sphinx.surfaces.browser --write DIR`` writes ``okf-search.js`` (and the stemmers it
loads in Node) to ``DIR``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parents[1]
#: The runtime's sources: one file per Python module it mirrors (and a few JavaScript only).
SOURCES = PACKAGE / "js"
CONSTANTS = SOURCES / "core" / "constants.js"
#: The file name a site serves the runtime under.
RUNTIME = "okf-search.js"

#: Python module → its constants that the browser runtime uses, by their Python names.
SHARED: dict[str, tuple[str, ...]] = {
    "okf_sphinx.core.errors": ("EXIT_CODES",),
    "okf_sphinx.core.terms": ("MAX_QUERY_CODE_POINTS", "MAX_QUERY_TERMS", "MAX_TERM_CODE_POINTS",
                              "SNIPPET_CODE_POINTS", "SNIPPET_LEAD"),
    "okf_sphinx.core.segment": ("SEGMENTER", "PART", "MAX_UNITS", "CJK_RANGES"),
    "okf_sphinx.core.index_format": ("FORMAT", "FORMAT_VERSION", "INT_DIGITS", "MAX_INT_DIGITS", "DICT_KEY_CODE_POINTS",
                                     "MAX_QUERY_IDENTIFIERS", "LINK_VIAS"),
    "okf_sphinx.engine.source": ("FILE_NAME",),
    "okf_sphinx.engine.validators": ("OBJECT_FIELDS",),
    "okf_sphinx.engine.index": ("MAX_ATTEMPTS",),
    "okf_sphinx.engine.query": ("MAX_RESPONSE_BYTES",),
    "okf_sphinx.engine.smart": ("EXACT", "STEM", "PREFIX", "MAX_COMPLETIONS", "MAX_COMPLETION_GROUPS", "MIN_PREFIX",
                                "HITS_PER_PAGE", "SUB_HIT_FLOOR", "OPTIONS"),
    "okf_sphinx.engine.filters": ("KIND",),
    "okf_sphinx.engine.spelling": ("MAX_SUGGESTIONS",),
    "okf_sphinx.engine.phrases": ("MAX_PHRASES", "MAX_PHRASE_SECTIONS"),
    "okf_sphinx.engine.expansion": ("MAX_EXPANDED",),
    "okf_sphinx.engine.object_names": ("FULL_NAME", "FULL_NAME_ANY_CASE", "TAIL_NAME", "TAIL_NAME_ANY_CASE", "UNNAMED"),
    "okf_sphinx.engine.headings": ("HEADING_IS", "HEADING_STARTS", "NO_HEADING"),
    "okf_sphinx.core.semantic": ("HEX", "KEY_CODE_POINTS"),
    "okf_sphinx.engine.semantic": ("SEMANTIC_OPTIONS", "FUSION_K", "WORDS", "MEANING", "MEANING_LONG", "MEANING_PARTIAL",
                                   "LONG_QUERY", "SEMANTIC_SETTING"),
}

#: Where the ASCII-query separators are taken from: Latin-1's supplement to CJK symbols and
#: punctuation, the vertical forms to the specials, and the symbol and emoji blocks of plane 1
#: — what English documentation holds besides ASCII.
SEPARATOR_SPANS = ((0xA0, 0x303F), (0xFE10, 0xFFFD), (0x1F000, 0x1FAFF))
#: The Unicode versions whose builds the separators hold for: those of the shipped tables
#: (``unicode_data/``, checked by :func:`ascii_separators`) and of today's browsers (checked
#: against Node's by tests/test_js_unit.py).
SEPARATOR_UNICODE = re.compile(r"^1[4-7]\..*$")


def ascii_separators() -> list[tuple[int, int]]:
    """Code-point ranges (inclusive) an ASCII query may take for separators without the
    build's tables: in :data:`SEPARATOR_SPANS`, assigned, neither letter, number nor mark,
    and unchanged by case folding in every shipped table (``unicode_data/*.json``).  A run of
    ASCII letters next to one of them is a whole term; next to any other non-ASCII code point
    the browser loads ``unicode.js`` to decide (docs/browser.md, *Exactness*)."""
    from okf_sphinx.core.terms import in_ranges

    tables = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((PACKAGE / "unicode_data").glob("*.json"))]
    out: list[tuple[int, int]] = []
    for lo, hi in SEPARATOR_SPANS:
        for cp in range(lo, hi + 1):
            if all(in_ranges(t["assigned"], cp) and not in_ranges(t["word"], cp) and f"{cp:x}" not in t["casefold"]
                   for t in tables):
                if out and out[-1][1] == cp - 1:
                    out[-1] = (out[-1][0], cp)
                else:
                    out.append((cp, cp))
    return out


def encode_ranges(ranges: list[tuple[int, int]]) -> str:
    """Ranges as ``gap.length`` hex pairs (each ``lo`` after the previous ``hi``): compact in the runtime."""
    end = 0
    out = []
    for lo, hi in ranges:
        out.append(f"{lo - end:x}.{hi - lo:x}")
        end = hi
    return ",".join(out)


def _js_value(value: Any) -> str:
    from okf_sphinx.core.errors import json_text

    if isinstance(value, re.Pattern):  # matched whole in both languages (Python: fullmatch)
        if value.flags & ~re.UNICODE or not (value.pattern.startswith("^") and value.pattern.endswith("$")):
            raise ValueError(f"{value.pattern!r}: not a pattern both languages match alike")
        return f"new RegExp({json.dumps(value.pattern)})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_js_value(v)}" for k, v in value.items()) + "}"
    if value is str:
        return json.dumps("string")  # a field's type, as typeof names it
    return json_text(list(value) if isinstance(value, tuple) else value)


def constants_js() -> str:
    """The text of ``js/core/constants.js``: every constant of :data:`SHARED`, from its module,
    and the separator table."""
    lines = [
        "/* GENERATED by `python -m okf_sphinx.surfaces.browser` from the Python constants named below:",
        " * do not edit (tests/test_js_mirror.py fails when this file is stale). */",
        "define('core/constants', function () {",
        "  'use strict';",
        "  return {",
    ]
    for module, names in SHARED.items():
        mod = importlib.import_module(module)
        lines.append(f"    // {module.replace('.', '/')}.py")
        lines += [f"    {name}: {_js_value(getattr(mod, name))}," for name in names]
    lines += [
        "    // okf_sphinx/surfaces/browser.py: the separators of an ASCII query without unicode.js",
        f"    ASCII_SEPARATORS: {json.dumps(encode_ranges(ascii_separators()))},",
        f"    ASCII_SEPARATORS_UNICODE: {_js_value(SEPARATOR_UNICODE)}",
        "  };",
        "});",
    ]
    return "\n".join(lines) + "\n"


def sources() -> list[Path]:
    """The runtime's source files in the order :func:`runtime_js` assembles them."""
    return sorted(SOURCES.rglob("*.js"), key=lambda p: p.relative_to(SOURCES).as_posix())


_HEAD = """/* okf_sphinx browser runtime: exact BM25 section search over the sharded _okf/ index, the
 * twin of okf_sphinx's Python engine. Assembled by okf_sphinx/surfaces/browser.py from the
 * files of okf_sphinx/js/ (each names the Python module it mirrors): edit those, not this.
 * A plain script: window.OkfSearch in a page, module.exports in Node. */
(function (root, factory) {
  var api = factory(root);
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.OkfSearch = api;
})(this, function (root) {
  'use strict';
  var factories = {}, modules = {};
  function define(name, factory) { factories[name] = factory; }
  function use(name) {
    if (!Object.prototype.hasOwnProperty.call(modules, name)) modules[name] = factories[name](use, root);
    return modules[name];
  }
"""
_TAIL = """  return use('api');
});
"""


#: Comments that fill a line (``//`` …, or a ``/* … */`` block starting a line): the sources
#: hold no template literal, so such a line is never inside a string.
_COMMENT_LINES = re.compile(r"^[ \t]*(?://[^\n]*|/\*.*?\*/[ \t]*)\n", re.M | re.S)


def runtime_js() -> str:
    """``okf-search.js``: the runtime's sources inside one classic script, without the lines
    that are only comments (they document the sources; a reader's browser needs none)."""
    return _HEAD + "".join(_COMMENT_LINES.sub("", p.read_text(encoding="utf-8")) for p in sources()) + _TAIL


def write_runtime(folder: str | Path) -> Path:
    """Write ``okf-search.js`` into ``folder`` (created if needed), unless it holds it already."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / RUNTIME
    text = runtime_js().encode("utf-8")
    if not target.is_file() or target.read_bytes() != text:
        target.write_bytes(text)
    return target


def write_for_node(folder: str | Path) -> Path:
    """:func:`write_runtime`, and beside it every stemmer, which the runtime loads from its
    own folder in Node (a site ships only its language's)."""
    target = write_runtime(folder)
    for stemmer in (PACKAGE / "static").glob("okf-stemmer*.js"):  # okf-stemmer.js and each language's
        shutil.copyfile(stemmer, target.parent / stemmer.name)
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m okf_sphinx.surfaces.browser", description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", metavar="DIR", type=Path,
                    help="write okf-search.js (and the stemmers, which it loads in Node) to DIR instead")
    args = ap.parse_args(argv)
    if args.write:
        print(write_for_node(args.write))
        return 0
    text = constants_js()
    if CONSTANTS.is_file() and CONSTANTS.read_text(encoding="utf-8") == text:
        print(f"{CONSTANTS} is up to date")
    else:
        CONSTANTS.write_text(text, encoding="utf-8")
        print(f"wrote {CONSTANTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
