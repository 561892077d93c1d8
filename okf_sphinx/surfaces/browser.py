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
import hashlib
import importlib
import json
import re
from pathlib import Path
from typing import Any

from okf_sphinx.surfaces import minify

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
    "okf_sphinx.core.index_format": ("FORMAT", "FORMAT_VERSION", "BUILD_DIGITS", "INT_DIGITS", "MAX_INT_DIGITS",
                                     "DICT_KEY_CODE_POINTS", "POSTING_SHARD_CODE_POINTS", "MAX_SHARD_DEPTH", "MAX_QUERY_IDENTIFIERS", "LINK_VIAS",
                                     "MIN_EDIT_TERM", "MAX_EDIT_TERM", "IDF_SERIES_TERMS", "MAX_IDF_STEP", "MAX_FOLD_CODE_POINTS"),
    "okf_sphinx.engine.source": ("FILE_NAME",),
    "okf_sphinx.engine.validators": ("OBJECT_FIELDS",),
    "okf_sphinx.engine.index": ("MAX_ATTEMPTS",),
    "okf_sphinx.engine.query": ("MAX_RESPONSE_BYTES",),
    "okf_sphinx.engine.smart": ("EXACT", "STEM", "PREFIX", "MAX_COMPLETIONS", "MAX_COMPLETION_GROUPS", "MIN_PREFIX",
                                "HITS_PER_PAGE", "SUB_HIT_FLOOR", "OPTIONS"),
    "okf_sphinx.engine.filters": ("KIND",),
    "okf_sphinx.engine.spelling": ("MAX_SUGGESTIONS", "MIN_CORRECTION", "LONG_WORD", "CONFIDENCE"),
    "okf_sphinx.engine.words": ("STOP_WORDS", "COVERAGE_POWER", "MIN_COVERAGE"),
    "okf_sphinx.engine.phrases": ("MAX_PHRASES", "MAX_PHRASE_SECTIONS", "SENTENCE_TERMS", "SENTENCE_SECTIONS"),
    "okf_sphinx.engine.expansion": ("MAX_EXPANDED",),
    "okf_sphinx.engine.object_names": ("FULL_NAME", "FULL_NAME_ANY_CASE", "TAIL_NAME", "TAIL_NAME_ANY_CASE", "UNNAMED"),
    "okf_sphinx.engine.headings": ("HEADING_IS", "HEADING_STARTS", "NO_HEADING"),
    "okf_sphinx.engine.link_labels": ("LABEL_WEIGHT",),
    "okf_sphinx.core.semantic": ("HEX", "KEY_CODE_POINTS"),
    "okf_sphinx.engine.semantic": ("SEMANTIC_OPTIONS", "FUSION_K", "WORDS", "MEANING", "MEANING_QUESTION", "MEANING_LONG",
                                   "MEANING_PARTIAL", "LONG_QUERY", "MEANING_MARGIN", "MEANING_UNSURE", "BLEND_PROBE",
                                   "SEMANTIC_SETTING"),
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


#: The runtime's parts that a page loads only when a request needs them (engine/source.js
#: ``loadPart``): their file name → the modules they hold.  Semantic mode's code is read only
#: for an index that has vectors (or a request for ``mode="semantic"``); the filters and link
#: expansion only for a request with ``under``, ``meta``, ``kind`` or ``expand`` (and with
#: semantic mode's code, which uses them); spelling correction and suggestions only for a smart
#: query with a word no page holds (completions read the dictionary through engine/index.js) —
#: a page's cold query needs none of them.
PARTS: dict[str, tuple[str, ...]] = {"okf-semantic.js": ("core/semantic.js", "engine/semantic.js", "engine/vector_files.js"),
                                     "okf-options.js": ("engine/expansion.js", "engine/filters.js"),
                                     "okf-spelling.js": ("engine/spelling.js",)}
#: The files of ``static/`` a site ships as they are: CSS.
STYLES = ("okf-dialog.css", "okf-search.css")
#: The page-side snippet (``static/okf-boot.js``): on every page but the search page (which has
#: no dialog), and all a page loads of okf until the reader reaches for search; the build writes
#: into it the files it then loads.
BOOT = "okf-boot.js"
_BOOT_FILES = re.compile(r"/\*okf:files\*/\[\]")


def sources(part: str = RUNTIME) -> list[Path]:
    """The source files of ``part`` (``okf-search.js`` or a name of :data:`PARTS`) in the order
    they are assembled (their paths, sorted)."""
    held = {m for mods in PARTS.values() for m in mods}
    files = sorted(SOURCES.rglob("*.js"), key=lambda p: p.relative_to(SOURCES).as_posix())
    if part == RUNTIME:
        return [p for p in files if p.relative_to(SOURCES).as_posix() not in held]
    return [p for p in files if p.relative_to(SOURCES).as_posix() in PARTS[part]]


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
_TAIL = """  var api = use('api');
  api.define = define;  // for the parts (okf-semantic.js) loaded later
  return api;
});
"""
_PART_HEAD = """/* okf_sphinx browser runtime, a part okf-search.js loads when a request needs it
 * (engine/source.js loadPart). Assembled by okf_sphinx/surfaces/browser.py. */
(function (root) {
  'use strict';
  var define = (root && root.OkfSearch ? root.OkfSearch : require('./okf-search.js')).define;
"""
_PART_TAIL = """})(this);
"""

#: Comments that fill a line (``//`` …, or a ``/* … */`` block starting a line): the sources
#: hold no template literal, so such a line is never inside a string.
_COMMENT_LINES = re.compile(r"^[ \t]*(?://[^\n]*|/\*.*?\*/[ \t]*)\n", re.M | re.S)


def _pieces(part: str) -> list[tuple[str, str]]:
    """``part`` as (name, text) pieces: its wrapper's head, its sources, its wrapper's tail."""
    head, tail = (_HEAD, _TAIL) if part == RUNTIME else (_PART_HEAD, _PART_TAIL)
    wrapper = f"okf_sphinx/surfaces/browser.py ({part})"
    return [(wrapper, head), *[(p.relative_to(PACKAGE.parent).as_posix(), p.read_text(encoding="utf-8"))
                               for p in sources(part)], (wrapper + " ", tail)]


def runtime_js(part: str = RUNTIME) -> str:
    """``part`` readable: its sources inside its wrapper, without the lines that are only
    comments (what :func:`shipped` minifies; the source map shows the files themselves)."""
    pieces = _pieces(part)
    return pieces[0][1] + "".join(_COMMENT_LINES.sub("", text) for _, text in pieces[1:-1]) + pieces[-1][1]


def _banner(name: str, maps: bool) -> str:
    from okf_sphinx import __version__

    where = f"the readable sources are in {name}.map" if maps else "the readable sources are in the okf_sphinx package"
    return f"/* {name}, okf_sphinx {__version__} (minified: {where}) */\n"


def shipped(name: str, language: str | None = None, maps: bool = True) -> minify.Minified:
    """The file ``name`` as a site ships it, minified with its source map (``maps=False``:
    without one, and naming none): the runtime (``okf-search.js``), a part of :data:`PARTS`,
    or a script of ``static/`` (the boot with the files it loads written in, for a site of
    ``language``)."""
    if name == RUNTIME or name in PARTS:
        pieces = _pieces(name)
    else:
        text = (PACKAGE / "static" / name).read_text(encoding="utf-8")
        if name == BOOT:
            files = [f"{n}?v={version(n, language, maps)}" for n in lazy_scripts(language)]
            text, found = _BOOT_FILES.subn(json.dumps(files), text)
            if found != 1:
                raise ValueError(f"{name} must hold /*okf:files*/[] once")
        pieces = [(f"okf_sphinx/static/{name}", text)]
    return minify.minify(pieces, map_file=name + ".map" if maps else None, head=_banner(name, maps))


def lazy_scripts(language: str | None) -> list[str]:
    """What the boot loads, in order, when the reader reaches for search: the stemmer of the
    site's ``language`` (none for a language without one), the runtime and the dialog."""
    from okf_sphinx.core.stemmer import stemmer_script

    own = stemmer_script(language or "en")
    return ([STEMMER, own] if own else []) + [RUNTIME, "okf-dialog.js"]


STEMMER = "okf-stemmer.js"


def version(name: str, language: str | None = None, maps: bool = True) -> str:
    """A short digest of what the site ships as ``name`` (a ``?v=`` that changes with it)."""
    data = (shipped(name, language, maps).text if name.endswith(".js")
            else (PACKAGE / "static" / name).read_text(encoding="utf-8"))
    if name == RUNTIME:  # the parts it loads change with it
        data += "".join(shipped(part, maps=maps).text for part in PARTS)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:8]


def site_scripts(language: str | None) -> list[str]:
    """Every script a site of ``language`` ships (the stemmer of its language only)."""
    from okf_sphinx.core.stemmer import stemmer_script

    own = stemmer_script(language or "en")
    static = [p.name for p in sorted((PACKAGE / "static").glob("*.js"))
              if not p.name.startswith("okf-stemmer") or (own and p.name in (STEMMER, own))]
    return [RUNTIME, *PARTS, *static]


def write_site_files(folder: str | Path, language: str | None, skip: tuple[str, ...] = (),
                     maps: bool = True) -> list[Path]:
    """Write what a site of ``language`` ships into ``folder``: every script of
    :func:`site_scripts` minified with its source map beside it (``maps=False``: no map, and
    a map an earlier build left there is removed), and the CSS; a file that already holds
    those bytes is left alone.  ``skip``: script names the host does not use."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in site_scripts(language):
        if name in skip:
            continue
        made = shipped(name, language, maps)
        out.append(_write(folder / name, made.text))
        if maps:
            out.append(_write(folder / (name + ".map"), made.map or ""))
        else:
            remove_map(folder, name)
    for name in STYLES:
        out.append(_write(folder / name, (PACKAGE / "static" / name).read_text(encoding="utf-8")))
    return out


def remove_map(folder: Path, name: str) -> None:
    """Remove the source map of script ``name`` from ``folder`` (one an earlier build wrote)."""
    stale = folder / (name + ".map")
    if stale.is_file() and not stale.is_symlink():
        stale.unlink()


def _write(target: Path, text: str) -> Path:
    data = text.encode("utf-8")
    if not target.is_file() or target.read_bytes() != data:
        target.write_bytes(data)
    return target


def write_runtime(folder: str | Path, minified: bool = True) -> Path:
    """Write ``okf-search.js`` and its parts (:data:`PARTS`) into ``folder`` (created if
    needed): minified with their source maps, as a site ships them, or (``minified=False``)
    readable (:func:`runtime_js`), to hold the minifier to the sources' answers."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name in (RUNTIME, *PARTS):
        if minified:
            made = shipped(name)
            _write(folder / name, made.text)
            _write(folder / (name + ".map"), made.map or "")
        else:
            _write(folder / name, runtime_js(name))
    return folder / RUNTIME


def write_for_node(folder: str | Path, minified: bool = True) -> Path:
    """:func:`write_runtime`, and beside it every stemmer (minified as a site ships them, or
    as they are), which the runtime loads from its own folder in Node (a site ships only its
    language's)."""
    target = write_runtime(folder, minified)
    for stemmer in sorted((PACKAGE / "static").glob("okf-stemmer*.js")):  # okf-stemmer.js and each language's
        text = shipped(stemmer.name).text if minified else stemmer.read_text(encoding="utf-8")
        _write(target.parent / stemmer.name, text)
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m okf_sphinx.surfaces.browser", description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", metavar="DIR", type=Path,
                    help="write okf-search.js (and the stemmers, which it loads in Node) to DIR instead")
    ap.add_argument("--readable", action="store_true", help="with --write: the readable sources, not minified")
    args = ap.parse_args(argv)
    if args.write:
        print(write_for_node(args.write, minified=not args.readable))
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
