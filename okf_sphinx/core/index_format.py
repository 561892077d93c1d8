"""The on-disk index format (docs/index-format.md): names, wrapper, hashing, BM25's formula.

Shared by the index writer (build side) and every reader; imports nothing from
Sphinx.  The browser runtime's twin (what a reader needs of it) is
``okf_sphinx/js/core/index_format.js``.
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from .errors import OkfError, json_text

FORMAT = "okf-sphinx-index"
FORMAT_VERSION = 8
#: Hex digits of a build's identity (:func:`build_id`), which every index file carries.
BUILD_DIGITS = 16
#: Name prefix of the folders an index is staged in, next to the index folder, while it is swapped in.
STAGING_PREFIX = ".okf-"
#: BM25's parameters as the build writes them into the manifest (``k1``, ``b``); engines
#: score with the manifest's values (:func:`bm25_part`), never with these.
K1 = 1.2
B = 0.75
WEIGHTS = {"body": 1, "heading": 3, "title": 2}

_PREFIX = "okfLoad("
_SUFFIX = ");\n"
_HTML_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def is_int(v: Any) -> bool:
    """An int that is not a bool (JSON true must never count as 1)."""
    return isinstance(v, int) and not isinstance(v, bool)


def canonical_json(value: Any, *, sort_keys: bool = True) -> str:
    """Compact JSON with the HTML-unsafe characters escaped (Go's encoding/json style)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys, allow_nan=False)
    for ch, esc in _HTML_UNSAFE.items():
        if ch in text:
            text = text.replace(ch, esc)
    return text


#: How every manifest starts, whatever its build (a folder holding one is an okf_sphinx index).
MANIFEST_HEAD = (_PREFIX + '"manifest",').encode("utf-8")
_BUILD = re.compile(f'"([0-9a-f]{{{BUILD_DIGITS}}})",')


def wrap(name: str, value: Any, build: str) -> bytes:
    """The bytes of index file ``name`` of build ``build`` (:func:`build_id`) holding ``value``."""
    return wrap_json(name, canonical_json(value), build)


def wrap_json(name: str, text: str, build: str) -> bytes:
    """:func:`wrap` of a value already written as canonical JSON ``text``."""
    return (_PREFIX + json.dumps(name) + ',"' + build + '",' + text + _SUFFIX).encode("utf-8")


def build_id(files: dict[str, str]) -> str:
    """The identity of a build (format_version 5): the first :data:`BUILD_DIGITS` hex digits of
    the SHA-256 over every file's canonical JSON but the manifest's (``files``: name → JSON
    text), in name order, each as ``<name>\n<byte length>\n<bytes>``.  The same sources give
    the same identity; other files, another.  (Two builds whose files are all equal answer
    alike whichever manifest a reader holds: the manifest's own fields — the generator that
    wrote it, say — need no identity of their own.)"""
    digest = hashlib.sha256()
    for name in sorted(files):
        data = files[name].encode("utf-8")
        digest.update(f"{name}\n{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()[:BUILD_DIGITS]


def unwrap(name: str, data: bytes) -> Any:
    """Parse index file ``name``; anything but the exact expected shape is ``index_corrupt``."""
    return unwrap_file(name, data)[1]


def unwrap_file(name: str, data: bytes) -> tuple[str | None, Any]:
    """``(build, value)`` of index file ``name``: the identity of the build that wrote it
    (``None`` for a file written before format_version 5, which names none) and its JSON
    value; anything but the exact expected shape is ``index_corrupt``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise OkfError("index_corrupt", f"index file {name}.js is not UTF-8; rebuild the site", file=f"{name}.js") from None
    head = _PREFIX + json.dumps(name) + ","
    if not text.startswith(head) or not text.endswith(_SUFFIX):
        raise OkfError(
            "index_corrupt",
            f"index file {name}.js does not have the okfLoad wrapper for {json_text(name)} (truncated or foreign); rebuild the site",
            file=f"{name}.js",
        )
    build = _BUILD.match(text, len(head))
    try:
        # NaN and Infinity are not JSON: refused here as JSON.parse refuses them in the browser
        value = json.loads(text[build.end() if build else len(head) : -len(_SUFFIX)], parse_constant=_not_json)
        return (build.group(1) if build else None), value
    except (ValueError, RecursionError):
        raise OkfError("index_corrupt", f"index file {name}.js holds invalid JSON; rebuild the site", file=f"{name}.js") from None


def _not_json(literal: str) -> Any:
    raise ValueError(f"{literal} is not JSON")


def fnv1a32(term: str) -> int:
    h = 0x811C9DC5
    for byte in term.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


#: Code points of a posting key that pick its ``t/`` shard (format_version 7): the stem groups
#: that start alike share a file, so a typed prefix's completions are mostly read from one.
POSTING_SHARD_CODE_POINTS = 3
#: The most code points a start of the manifest's ``shard_depths`` may key its stems by
#: (format_version 8; a stem shorter than its depth is keyed whole).
MAX_SHARD_DEPTH = 16


def shard_key(key: str, depths: dict[str, int] | None = None) -> str:
    """What picks the ``t/`` shard of posting key ``key``: its first
    :data:`POSTING_SHARD_CODE_POINTS` code points, or more when the manifest's
    ``shard_depths`` (``depths``) names that start: a start with more stems than a shard
    holds (``con``, ``pro`` on a large site) spreads them over the shards by their first
    ``depths[start]`` code points (format_version 8)."""
    start = key[:POSTING_SHARD_CODE_POINTS]
    return key[:depths[start]] if depths and start in depths else start


def shard_name(key: str, shards: int, folder: str = "t", depths: dict[str, int] | None = None) -> str:
    """The posting shard of ``key``: ``t/<hex>`` (a term's stem group: the stem, or the term
    itself when the site has no stemmer, see :func:`posting_key`), by :func:`shard_key`
    (``depths``: the manifest's ``shard_depths``), or ``x/<hex>`` (smart mode's identifiers,
    keyed as written, by the whole key)."""
    return f"{folder}/{fnv1a32(shard_key(key, depths) if folder == 't' else key) % shards:x}"


def posting_key(term: str, stem: Callable[[str], str] | None) -> str:
    """What places ``term``'s posting list (format_version 3): its stem when the build
    stemmed, so a word's forms and its stem group share one shard; else the term.  A part
    key (a unit of a longer CJK term, ``" 数据"``: okf_sphinx/core/segment.py) is placed by
    its unit, beside the term that is the unit itself."""
    if term[:1] == " ":
        term = term[1:]
    return stem(term) if stem is not None else term


# -- integer lists as text (format_version 4) ----------------------------------------------

#: The digits of an integer list written as text (:func:`encode_ints`): base64url's alphabet.
INT_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
#: At most this many digits per integer (35 bits), so every value is exact in JavaScript too.
MAX_INT_DIGITS = 7
_DIGIT_VALUE = bytes(INT_DIGITS.index(chr(c)) if chr(c) in INT_DIGITS else 255 for c in range(256))
_SHORT: list[str] = []


def _encode_int(n: int) -> str:
    out = []
    while n >= 32:
        out.append(INT_DIGITS[32 + (n & 31)])
        n >>= 5
    out.append(INT_DIGITS[n])
    return "".join(out)


def encode_ints(values: Any) -> str:
    """Non-negative integers as one string: each integer least significant 5 bits first,
    one digit of :data:`INT_DIGITS` per 5 bits, every digit but an integer's last one
    holding 32 more (docs/index-format.md, *integer lists*).  Posting lists and the
    manifest's ``section_files`` are written so: smaller than JSON numbers, gzip included
    (the PEPs' ``t/``: 9 %), and quick to read in both runtimes."""
    values = values if isinstance(values, (list, array)) else list(values)
    if not _SHORT:
        _SHORT.extend(_encode_int(n) for n in range(1 << 15))
    short = _SHORT
    try:
        return "".join([short[n] for n in values])
    except IndexError:
        return "".join([short[n] if n < len(short) else _encode_int(n) for n in values])


def decode_ints(text: Any) -> list[int] | None:
    """The integers :func:`encode_ints` wrote, or None unless ``text`` is exactly such a
    string in its one canonical form (no leading zero digits, at most :data:`MAX_INT_DIGITS`
    per integer, nothing left over)."""
    if not isinstance(text, str) or not text.isascii():
        return None
    digits = text.encode("ascii").translate(_DIGIT_VALUE)
    if 255 in digits:
        return None
    if max(digits, default=0) < 32:
        return list(digits)  # every integer is below 32: one digit each
    out: list[int] = []
    n = shift = 0
    for d in digits:
        if d < 32:
            if shift and not d:
                return None  # a zero last digit after others: not canonical
            out.append(n + (d << shift))
            n = shift = 0
        elif shift == 5 * (MAX_INT_DIGITS - 1):
            return None
        else:
            n += (d - 32) << shift
            shift += 5
    return out if not shift else None


def locator(path: str, line_start: int, line_end: int) -> str:
    return f"{quote_path(path)}#L{line_start}-L{line_end}"


# -- sections and page outlines, packed (format_version 2) ------------------------------------

#: The fields of one row of a section file's ``sections`` (the object fields, when any, follow).
SECTION_ROW = ("page", "file", "heading", "level", "line_start", "line_end", "anchor", "text")


def quote_path(path: str) -> str:
    """A captured file's path as the contract's locators write it (the reference's escaping)."""
    return quote(path, safe="/$&+,:;=@")


def file_row(path: str, sha256: str) -> list[str]:
    """A section file's ``files`` row: the path, its SHA-256 and, only when escaping changes
    it, the path as locators write it."""
    quoted = quote_path(path)
    return [path, sha256] if quoted == path else [path, sha256, quoted]


def section_url(base: str, anchor: str) -> str:
    """A section's URL from its page's base (a section file's page row) and its anchor."""
    return f"{base.split('#', 1)[0]}#{anchor}" if anchor else base


#: A captured file's ``copy`` in ``files.js``: a path relative to the index folder that
#: climbs to the site root and goes down into ``_sources/``, without ``.``/``..`` parts there.
COPY_PATH = re.compile(r"^(?:\.\./){1,64}_sources/(?!(?:.*/)?\.\.?(?:/|$))[^\x00\\]{1,4096}$")


def section_starts(section_files: str) -> list[int]:
    """The first sid of each section file, from the manifest's (checked) ``section_files``:
    how many sections each file holds, in order, as an integer list (:func:`encode_ints`)."""
    import itertools

    counts = decode_ints(section_files) or []
    return [0, *itertools.accumulate(counts)][:-1] if counts else []


def section_file_of(starts: list[int], sid: int) -> int:
    """The number ``k`` of the section file ``s/<k>`` holding ``sid`` (``starts``: the first
    sid of each file, :func:`section_starts`)."""
    import bisect

    return bisect.bisect_right(starts, sid) - 1


def section_records(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    """The section records (docs/index-format.md, *section record*) a checked section
    file holds, in sid order."""
    pages, files, first = chunk["pages"], chunk["files"], chunk["first"]
    out = []
    for i, row in enumerate(chunk["sections"]):
        concept_id, title, searchable, base, page_path = pages[row[0]]
        file = files[row[1]]
        path, sha256 = file[0], file[1]
        quoted = file[2] if len(file) == 3 else path  # the path as locators write it (file_row)
        record = {
            "sid": first + i, "concept_id": concept_id, "title": title, "path": path, "heading": row[2],
            "level": row[3], "line_start": row[4], "line_end": row[5], "locator": f"{quoted}#L{row[4]}-L{row[5]}",
            "content_sha256": sha256, "url": section_url(base, row[6]), "anchor": row[6], "searchable": searchable,
            "text": row[7], "page_path": page_path,
        }
        if len(row) > 8:
            record.update(row[8])
        out.append(record)
    return out


def snapshot_revision(entries: list[dict[str, Any]]) -> str:
    """SHA-256 of the canonical JSON of ``[{"path","size","sha256"}]`` sorted by path."""
    ordered = sorted(entries, key=lambda e: e["path"])
    payload = canonical_json([{"path": e["path"], "size": e["size"], "sha256": e["sha256"]} for e in ordered], sort_keys=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def bm25_part(idf: float, f: int | float, length: int, avglen: float, k1: float, b: float) -> float:
    """One term's score in one section: BM25 with the index's parameters (the manifest's
    ``k1`` and ``b``, which the build chose: :data:`K1`, :data:`B`), in the fixed operation
    order every engine uses — ``idf * (f * (k1 + 1)) / (f + k1 * ((1 - b) + b * length / avglen))``.
    The one place of the formula in Python (``core/index_format.js`` ``bm25Part`` in the browser)."""
    return idf * (f * (k1 + 1)) / (f + k1 * ((1 - b) + b * length / avglen))


# -- smart mode's extra files (docs/smart.md) ------------------------------------------------

#: Code points of a term that pick its dictionary group (``d/<shard>``): prefixes read one file.
DICT_KEY_CODE_POINTS = 2


#: How a section links to another (a link shard's ``via``; docs/smart.md, "Link expansion").
LINK_VIAS = ("ref", "doc", "toctree", "object")


def dict_key(term: str) -> str:
    """The dictionary group of ``term``: its first :data:`DICT_KEY_CODE_POINTS` code points."""
    return term[:DICT_KEY_CODE_POINTS]


def dict_shard_name(key: str, shards: int) -> str:
    return f"d/{fnv1a32(key) % shards:x}"


#: The site's words that corrections may lead to (``e/``): at least this many code points …
MIN_EDIT_TERM = 3
#: … at most this many, with no digit 0-9 (docs/index-format.md, "Smart mode files").
MAX_EDIT_TERM = 40
_DIGIT = re.compile("[0-9]")


def edit_keys(term: str) -> list[str]:
    """The keys a word is filed under for corrections (``e/``), distinct, in this order: its
    first two code points, its second and third, its first and third.  A word one edit
    (deletion, insertion, substitution, transposition) away from another shares a key with
    it, wherever the edit is: so a misspelt word finds its correction in three files."""
    keys = [term[:2], term[1:3], term[:1] + term[2:3]]
    return [k for i, k in enumerate(keys) if k and k not in keys[:i]]


def edit_shard_name(key: str, shards: int) -> str:
    return f"e/{fnv1a32(key) % shards:x}"


def correctable(term: str) -> bool:
    """Is ``term`` a word corrections may lead to, or be asked for?  Of :data:`MIN_EDIT_TERM`
    to :data:`MAX_EDIT_TERM` code points, with no digit 0-9 (numbers, versions and hashes are
    not misspelt words).  (The build leaves out terms with CJK text too: those are not corrected.)"""
    return MIN_EDIT_TERM <= len(term) <= MAX_EDIT_TERM and _DIGIT.search(term) is None


def name_shard_name(key: str, shards: int) -> str:
    return f"n/{fnv1a32(key) % shards:x}"


def heading_shard_name(key: str, shards: int) -> str:
    """``h/<k>``: the heading shard of a :func:`dict_key` of a heading's first term."""
    return f"h/{fnv1a32(key) % shards:x}"


_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """``text`` with ASCII letters lower-cased only (every engine lower-cases the same way)."""
    return text.translate(_ASCII_UPPER)


def object_name_query(query: str) -> str | None:
    """The object name a whole query may be (smart mode's exact-name boost): the query
    without ASCII white space at its ends and a trailing ``()``, as written (engines
    compare it ASCII-lower-cased, and as written for the case tiers); ``None`` when
    nothing is left."""
    q = query.strip(" \t\n\r\f\v")
    if q.endswith("()"):
        q = q[:-2]
    return q or None


def name_key(name: str) -> str:
    """The name-table group of a lower-cased object name: its last ``.``-separated part."""
    return name.rpartition(".")[2]


def idf(n: int, df: int) -> float:
    """BM25's idf, ``ln(1 + (n − df + 0.5) / (df + 0.5))`` as the build computes it (``math.log``);
    engines get the same bits from :func:`stored_idf`."""
    import math

    return math.log(1 + (n - df + 0.5) / (df + 0.5))


# -- word lists: the dictionary and the edit keys (format_version 7) --------------------------

def encode_word_list(entries: list[list[Any]]) -> list[str]:
    """A ``d/`` or ``e/`` entry ``[[term, df], …]`` as written: the terms joined by one space (no
    term holds one) and their dfs as an integer list."""
    return [" ".join(t for t, _df in entries), encode_ints([df for _t, df in entries])]


def decode_word_list(value: Any) -> list[list[Any]] | None:
    """``[[term, df], …]`` from :func:`encode_word_list`'s pair, or None when it is not one."""
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
        return None
    terms, dfs = value[0].split(" "), decode_ints(value[1])
    if dfs is None or len(terms) != len(dfs) or "" in terms:
        return None
    return [[t, df] for t, df in zip(terms, dfs)]


# -- unicode.js (format_version 7) --------------------------------------------------------------
#: The most code points one case folding writes (Unicode's fold to three; room to spare).
MAX_FOLD_CODE_POINTS = 8
_RANGE_TABLES = ("word", "letter_number", "assigned")


def _zigzag(v: int) -> int:
    return 2 * v if v >= 0 else -2 * v - 1


def unicode_file(tables: dict[str, Any]) -> dict[str, Any]:
    """``unicode.js`` of the build's tables (``core/terms.unicode_tables``), each an integer list:
    a range table's flat ``[lo, hi, lo, hi, …]`` as its first value then the gaps between
    neighbours; the case folding as ``Δcp, count, zigzag(target − cp) …`` per code point that
    folds, in code-point order (docs/index-format.md, *unicode.js*)."""
    out: dict[str, Any] = {"unicode_version": tables["unicode_version"]}
    for k in _RANGE_TABLES:
        flat = tables[k]
        out[k] = encode_ints([flat[0], *(b - a for a, b in zip(flat, flat[1:]))] if flat else [])
    fold: list[int] = []
    last = 0
    for cp, text in sorted((int(k, 16), v) for k, v in tables["casefold"].items()):
        fold += [cp - last, len(text), *(_zigzag(ord(c) - cp) for c in text)]
        last = cp
    out["casefold"] = encode_ints(fold)
    return out


def read_unicode_file(value: Any) -> dict[str, Any] | None:
    """The tables :func:`unicode_file` wrote, in ``unicode_tables``' shape, or None when
    ``value`` is not such a file (the ranges' order and bounds are the validator's)."""
    if not (isinstance(value, dict) and set(value) == {"unicode_version", "casefold", *_RANGE_TABLES}
            and isinstance(value["unicode_version"], str)):
        return None
    out: dict[str, Any] = {"unicode_version": value["unicode_version"]}
    for k in _RANGE_TABLES:
        gaps = decode_ints(value[k])
        if gaps is None:
            return None
        flat, at = [], 0
        for g in gaps:
            at += g
            flat.append(at)
        out[k] = flat
    flat = decode_ints(value["casefold"])
    if flat is None:
        return None
    fold: dict[str, str] = {}
    i = cp = 0
    while i < len(flat):
        if i + 2 > len(flat) or (i and not flat[i]) or not 1 <= flat[i + 1] <= MAX_FOLD_CODE_POINTS or i + 2 + flat[i + 1] > len(flat):
            return None
        cp += flat[i]
        targets = [cp + (z // 2 if z % 2 == 0 else -(z + 1) // 2) for z in flat[i + 2:i + 2 + flat[i + 1]]]
        if cp > 0x10FFFF or not all(0 <= c <= 0x10FFFF for c in targets):
            return None
        fold[f"{cp:x}"] = "".join(map(chr, targets))
        i += 2 + flat[i + 1]
    out["casefold"] = fold
    return out


# -- idf from df (format_version 7) ------------------------------------------------------------
# An index stores document frequencies, not idf floats: every engine computes :func:`idf_base`
# with + − × ÷ only (each correctly rounded, so the same bits in every runtime), then steps it
# the few units in the last place the build recorded where it differs from the build's log.
_SQRT2 = 1.4142135623730951
_LN2_HI = 0.6931471803691238
_LN2_LO = 1.9082149292705877e-10
#: Terms of the series of ``log((1 + s) / (1 − s))`` :func:`idf_base` sums.
IDF_SERIES_TERMS = 12
#: The largest step (units in the last place) an index may record.
MAX_IDF_STEP = 64


def idf_base(n: int, df: int) -> float:
    """:func:`idf` to within a unit or two in the last place, by IEEE-754 arithmetic alone: the
    argument halved ``k`` times into (√2/2, √2], then ``log(1 + f) = f − f²/2 + s·(f²/2 + R)``
    with ``s = f / (2 + f)`` and ``R`` the series in ``s²``, plus ``k·ln 2`` in two parts."""
    x = 1 + (n - df + 0.5) / (df + 0.5)
    k = 0
    while x > _SQRT2:
        x = x / 2
        k += 1
    f = x - 1
    s = f / (2 + f)
    z = s * s
    r = 0.0
    for j in range(IDF_SERIES_TERMS, 0, -1):
        r = z * (2 / (2 * j + 1) + r)
    hf = 0.5 * f * f
    return k * _LN2_HI - ((hf - (s * (hf + r) + k * _LN2_LO)) - f)


def _bits(x: float) -> int:
    """The IEEE-754 bits of the double ``x``, as an unsigned integer (positive doubles order as their bits)."""
    import struct

    return struct.unpack(">Q", struct.pack(">d", x))[0]


def step_ulps(x: float, steps: int) -> float:
    """The double ``steps`` units in the last place above (below, when negative) positive ``x``."""
    import struct

    return struct.unpack(">d", struct.pack(">Q", _bits(x) + steps))[0]


def idf_steps(n: int, dfs: Any) -> str:
    """The build's record of where :func:`idf` differs from :func:`idf_base` among ``dfs``: an
    integer list of pairs ``Δdf, step`` in ascending df (``Δdf`` from the previous pair's df),
    ``step`` zigzagged (``2s − 1`` above, ``−2s`` below); a df it does not name has step 0."""
    out: list[int] = []
    last = 0
    for df in sorted(set(dfs)):
        step = _bits(idf(n, df)) - _bits(idf_base(n, df))
        if step:
            out += [df - last, 2 * step - 1 if step > 0 else -2 * step]
            last = df
    return encode_ints(out)


def read_idf_steps(text: Any) -> dict[int, int] | None:
    """``{df: step}`` from :func:`idf_steps`'s list, or None when it is not one."""
    flat = decode_ints(text)
    if flat is None or len(flat) % 2:
        return None
    steps: dict[int, int] = {}
    df = 0
    for i in range(0, len(flat), 2):
        if flat[i] == 0 or flat[i + 1] == 0 or flat[i + 1] > 2 * MAX_IDF_STEP:
            return None
        df += flat[i]
        z = flat[i + 1]
        steps[df] = (z + 1) // 2 if z % 2 else -(z // 2)
    return steps


def stored_idf(n: int, df: int, steps: dict[int, int]) -> float:
    """The build's :func:`idf` of ``df`` among ``n``, from :func:`idf_base` and the recorded steps."""
    step = steps.get(df, 0)
    base = idf_base(n, df)
    return step_ulps(base, step) if step else base


# a maximal run of identifier characters that holds a connector (a run without one is never an
# identifier: matching only those keeps the per-run checks below off most of a text's words)
_IDENT_RUN = re.compile(r"(?<![A-Za-z0-9_.:-])(?=[A-Za-z0-9]*[_.:-])[A-Za-z0-9_.:-]+")
_HAS_LETTER = re.compile(r"[A-Za-z]")
_CONNECTOR = re.compile(r"[_.:-]")
MAX_QUERY_IDENTIFIERS = 8


def identifiers(text: str) -> list[str]:
    """Identifiers as written (``SECRET_KEY``, ``url_for``, ``QuerySet.filter``, ``--no-deps``), lower-cased.

    A maximal run of ASCII letters, digits and ``_ . : -``, without ``.``, ``:``
    or ``-`` at its ends (but up to two leading hyphens of an option kept), that
    holds a letter and a connector (or is an option). Smart mode ranks a section
    that holds the query's identifier whole above one that only holds its words.
    """
    out = []
    for token in _IDENT_RUN.findall(text):
        lead = len(token) - len(token.lstrip("-"))
        core = token.strip(".:-")
        if len(core) < 2 or not _HAS_LETTER.search(core) or not (lead or _CONNECTOR.search(core)):
            continue
        out.append(("-" * min(lead, 2) + core).lower())
    return out
