"""The checks every index file passes before an engine trusts it (docs/index-format.md).

One function per file kind: ``check_<kind>(name, value, …)`` takes the parsed JSON of
``<name>.js`` and returns what the engine keeps (the value itself, or records derived
from it), or raises ``index_corrupt`` naming the file — a tampered or truncated index
is an envelope, never a traceback.  ``Index.load(name, check)`` runs them once per file
and caches the result; a check that needs more than the file (the manifest's counts)
is made by a factory that takes them.  ``core/`` holds the format, this module the
rules a reader applies; the browser runtime's twin is ``okf_sphinx/js/engine/validators.js``.
"""

from __future__ import annotations

import math
import re
from typing import Any
from collections.abc import Callable

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import OkfError, json_text
from okf_sphinx.core.index_format import decode_ints, is_int
from okf_sphinx.core.terms import Normaliser

_HEX64 = frozenset("0123456789abcdef")
#: The object fields a section row may carry (``True``: a flag that is present only when true).
OBJECT_FIELDS: dict[str, Any] = {"kind": str, "name": str, "signature": str, "generated": True, "continued": True,
                                 "translated": True}
_DIGITS = re.compile("[0-9]+")
_HEX_KEY = re.compile("0|[1-9a-f][0-9a-f]*")  # a code point as the build writes it (f"{cp:x}")


def corrupt(name: str, what: str) -> OkfError:
    """``index_corrupt`` for ``<name>.js``: what is wrong with it, and what to do."""
    return OkfError("index_corrupt", f"index file {name}.js is corrupt: {what}; rebuild the site", file=f"{name}.js")


def is_finite(v: Any) -> bool:
    """A JSON number (not a bool) that is a finite float (JSON.parse turns 1e999 into Infinity)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:  # an int too large for a float: Infinity in JavaScript
        return False


def is_hex64(v: Any) -> bool:
    """A SHA-256 in lower-case hex."""
    return isinstance(v, str) and len(v) == 64 and set(v) <= _HEX64


# -- the manifest and the Unicode tables ------------------------------------------------------

def is_build(v: Any) -> bool:
    """A build identity (format 5): :data:`~okf_sphinx.core.index_format.BUILD_DIGITS` lower-case hex digits."""
    return isinstance(v, str) and len(v) == fmt.BUILD_DIGITS and set(v) <= _HEX64


def check_manifest(name: str, m: Any) -> dict[str, Any]:
    """``manifest.js``: the format and its version, the counts, BM25's ``avglen``, ``k1``
    and ``b`` (the parameters both engines score with), the revisions, the build identity
    every file names, the section files."""
    if not isinstance(m, dict) or m.get("format") != fmt.FORMAT:
        raise OkfError("index_corrupt", "manifest.js is not an okf_sphinx index manifest; rebuild the site", file="manifest.js")
    if m.get("format_version") != fmt.FORMAT_VERSION:
        raise OkfError(
            "index_version_unsupported",
            f"index format_version {json_text(m.get('format_version'))} is not supported by this okf_sphinx "
            f"(it reads version {fmt.FORMAT_VERSION}); rebuild the site or upgrade okf_sphinx",
            found=m.get("format_version"), supported=[fmt.FORMAT_VERSION],
        )
    ints = ("sections", "sections_all", "concepts", "files", "shards")
    if not all(is_int(m.get(k)) and m[k] >= 0 for k in ints) or m["shards"] < 1 or m["sections_all"] < m["sections"]:
        raise corrupt(name, "counts are missing or invalid")
    if not is_finite(m.get("avglen")) or not m["avglen"] > 0:
        raise corrupt(name, "avglen is missing or invalid")
    if not (is_finite(m.get("k1")) and m["k1"] >= 0 and is_finite(m.get("b")) and 0 <= m["b"] <= 1):
        raise corrupt(name, "the BM25 parameters k1 and b are missing or invalid")
    if not is_hex64(m.get("snapshot_revision")) or not isinstance(m.get("unicode_version"), str):
        raise corrupt(name, "snapshot_revision or unicode_version is invalid")
    if not is_hex64(m.get("index_revision")):
        raise corrupt(name, "index_revision is missing or invalid")
    if not is_build(m.get("build")):
        raise corrupt(name, "build is missing or invalid")
    counts = decode_ints(m.get("section_files"))
    if not (counts is not None and all(x >= 1 for x in counts) and sum(counts) == m["sections_all"]):
        raise corrupt(name, "section_files is missing or invalid")
    if not (is_int(m.get("pages_per_file")) and m["pages_per_file"] >= 1):
        raise corrupt(name, "pages_per_file is missing or invalid")
    if fmt.read_idf_steps(m.get("idf_steps")) is None:
        raise corrupt(name, "idf_steps is missing or invalid")
    if "bundles" in m and bundle_map(m["bundles"]) is None:
        raise corrupt(name, "bundles is invalid")
    if "shard_depths" in m and not is_shard_depths(m["shard_depths"]):
        raise corrupt(name, "shard_depths is invalid")
    return m


def is_shard_depths(depths: Any) -> bool:
    """The manifest's ``shard_depths`` (format_version 8): ``{start: code points}``, each start
    :data:`~okf_sphinx.core.index_format.POSTING_SHARD_CODE_POINTS` code points long, each
    depth longer than that and at most :data:`~okf_sphinx.core.index_format.MAX_SHARD_DEPTH`."""
    return isinstance(depths, dict) and all(
        len(k) == fmt.POSTING_SHARD_CODE_POINTS and is_int(d) and fmt.POSTING_SHARD_CODE_POINTS < d <= fmt.MAX_SHARD_DEPTH
        for k, d in depths.items())


def bundle_map(bundles: Any) -> dict[str, str] | None:
    """The manifest's ``bundles`` (format_version 7: ``[[name, …], …]``, bundle ``k`` is the file
    ``b/<k>``) as ``{name: "b/<k>"}``; None when it is not a list of non-empty lists of
    distinct names (never the manifest, a bundle or the Unicode tables)."""
    if not isinstance(bundles, list):
        return None
    out: dict[str, str] = {}
    for k, names in enumerate(bundles):
        if not isinstance(names, list) or not names:
            return None
        for n in names:
            if not isinstance(n, str) or n in out or n in ("manifest", "unicode") or n.startswith("b/"):
                return None
            out[n] = f"b/{k}"
    return out


def check_unicode(name: str, t: Any) -> Normaliser:
    """``unicode.js``: the build's Unicode tables (sorted code-point ranges and the
    case-folding map, each an integer list: ``index_format.read_unicode_file``), as the
    :class:`~okf_sphinx.core.terms.Normaliser` they make."""
    t = fmt.read_unicode_file(t)
    ok = t is not None
    for k in ("word", "letter_number", "assigned"):
        flat = t.get(k) if ok else None
        ok = ok and isinstance(flat, list) and len(flat) % 2 == 0 and all(
            is_int(x) and 0 <= x <= 0x10FFFF and (i == 0 or flat[i - 1] <= x) for i, x in enumerate(flat))
    if not ok or not all(_HEX_KEY.fullmatch(k) and isinstance(v, str) for k, v in t["casefold"].items()):
        raise corrupt(name, "the Unicode tables are invalid")
    return Normaliser(t)


def check_stemmer_block(m: Any) -> dict[str, Any]:
    """The manifest's ``smart`` block as far as reading posting lists needs it: which
    stemmer (if any) placed them."""
    if not (isinstance(m, dict) and isinstance(m.get("stemmer"), bool) and isinstance(m.get("language"), str)
            and isinstance(m.get("stemmer_version"), str)):
        raise corrupt("manifest", "the smart block is missing or invalid")
    return m


def check_smart(m: Any) -> dict[str, Any]:
    """The manifest's ``smart`` block (smart mode's shard counts, pages, language, stemmer,
    page ``avglen``); a manifest without one was written before smart mode."""
    if m is None:
        raise OkfError(
            "index_version_unsupported",
            "this index has no smart-mode data (built by an older okf_sphinx): rebuild the site, or use mode='keyword'",
        )
    if not (isinstance(m, dict) and all(is_int(m.get(k)) and m[k] >= 1 for k in ("dict_shards", "id_shards"))
            and all(m.get(k) is None or (is_int(m[k]) and m[k] >= 1) for k in ("name_shards", "edit_shards", "heading_shards"))
            and is_int(m.get("pages")) and m["pages"] >= 0 and isinstance(m.get("language"), str)
            and isinstance(m.get("stemmer"), bool) and isinstance(m.get("stemmer_version"), str)
            and is_finite(m.get("pavglen")) and m["pavglen"] > 0 and isinstance(m.get("idf_steps"), str)
            and (m.get("edit_chars") is None or increasing_code_points(m["edit_chars"]))):
        raise corrupt("manifest", "the smart block is missing or invalid")
    return m


def increasing_code_points(text: Any) -> bool:
    """Is ``text`` a string of distinct code points in increasing order (``smart.edit_chars``)?"""
    return isinstance(text, str) and all(a < b for a, b in zip(text, text[1:]))


def check_link_firsts(firsts: Any) -> list[int]:
    """The manifest's ``smart.link_firsts``: the first sid of each link shard, increasing."""
    if firsts is None:
        raise OkfError("index_version_unsupported",
                       "this index has no link data (built by an older okf_sphinx): rebuild the site, or leave out expand")
    if not isinstance(firsts, list) or not all(is_int(f) and f >= 0 and (i == 0 or firsts[i - 1] < f)
                                               for i, f in enumerate(firsts)):
        raise corrupt("manifest", "smart.link_firsts is invalid")
    return firsts


# -- posting lists ----------------------------------------------------------------------------

def check_shard(name: str, shard: Any) -> dict[str, Any]:
    """A ``t/`` shard: ``{"groups": {stem: [section df, page df, [terms], {term: label counts}?]},
    "terms": {term: entry}}`` (the label counts, engine/link_labels.py, are checked when read; a df
    against the index's counts when its idf is, ``Index.idf``).  A group's ``[]`` is ``[stem]``:
    the shard is returned with it written out."""
    if not (isinstance(shard, dict) and set(shard) == {"groups", "terms"} and isinstance(shard["groups"], dict)):
        raise corrupt(name, "a posting shard must be an object of groups and terms")
    for stem, g in shard["groups"].items():
        if isinstance(g, list) and len(g) in (3, 4) and g[2] == []:
            g[2] = [stem]
        if not (isinstance(g, list) and len(g) in (3, 4) and is_int(g[0]) and is_int(g[1])
                and isinstance(g[2], list) and all(isinstance(t, str) for t in g[2])
                and (len(g) == 3 or (isinstance(g[3], dict) and all(t in g[2] and isinstance(c, str) for t, c in g[3].items())))):
            raise corrupt(name, "a stem-group shard is malformed")
    check_entries(name, shard["terms"])
    return shard


def check_entries(name: str, shard: Any) -> dict[str, Any]:
    """``{term: postings or [df, [file]]}``: an ``x/`` shard, or a ``t/`` shard's ``terms``
    (``postings``: the integer list as text, whose length / 3 is the df; ``[file]`` names the
    file that holds a large one)."""
    if not isinstance(shard, dict):
        raise corrupt(name, "a shard must be an object")
    for term, entry in shard.items():  # every entry: both engines refuse the same files
        if not (isinstance(entry, str) or (isinstance(entry, list) and len(entry) == 2 and is_int(entry[0])
                                           and isinstance(entry[1], list) and len(entry[1]) == 1 and isinstance(entry[1][0], str))):
            raise corrupt(name, f"the entry of term {json_text(term)} is malformed")
    return shard


def check_flat(name: str, flat: Any) -> str:
    """``t/<shard>-<i>``: one posting list of its own, as text."""
    if not isinstance(flat, str):
        raise corrupt(name, "a posting file must hold a string")
    return flat


def check_postings(name: str, text: str, df: int | None, sections: int) -> tuple[list[int], list[int], list[int]]:
    """A posting list's integers (``encode_ints``): triples of sid gap, weighted frequency and
    section length (``df`` of them when the entry names it), sids increasing below ``sections``,
    frequencies above 0; ``(sids, freqs, lengths)``."""
    flat = decode_ints(text)
    if flat is None or len(flat) % 3 or (df is not None and len(flat) // 3 != df):
        raise corrupt(name, "a posting list is malformed")
    sids = []
    sid = -1
    for i in range(0, len(flat), 3):
        sid = flat[i] if i == 0 else sid + flat[i]
        if (i and flat[i] == 0) or sid >= sections or flat[i + 1] == 0:
            raise corrupt(name, "a posting list is out of order or out of range")
        sids.append(sid)
    return sids, flat[1::3], flat[2::3]


# -- sections, pages, files -------------------------------------------------------------------

def check_sections(name: str, chunk: Any, first: int, end: int) -> list[dict[str, Any]]:
    """A section file ``s/<k>`` holds sids ``first … end − 1``, each row well formed; its records."""
    if not (isinstance(chunk, dict) and chunk.get("first") == first and is_int(chunk.get("first"))
            and isinstance(chunk.get("pages"), list) and isinstance(chunk.get("files"), list)
            and isinstance(chunk.get("sections"), list) and len(chunk["sections"]) == end - first):
        raise corrupt(name, "a section file is malformed")
    pages, files = chunk["pages"], chunk["files"]
    if not all(isinstance(p, list) and len(p) == 5 and isinstance(p[0], str) and isinstance(p[1], str)
               and isinstance(p[2], bool) and isinstance(p[3], str) and isinstance(p[4], str) for p in pages) or not all(
            isinstance(f, list) and len(f) in (2, 3) and isinstance(f[0], str) and is_hex64(f[1])
            and (len(f) == 2 or (isinstance(f[2], str) and f[2] != f[0])) for f in files):
        raise corrupt(name, "a section file's page or file table is malformed")
    for row in chunk["sections"]:
        if not (isinstance(row, list) and len(row) in (8, 9) and is_int(row[0]) and 0 <= row[0] < len(pages)
                and is_int(row[1]) and 0 <= row[1] < len(files) and isinstance(row[2], str) and is_int(row[3])
                and is_int(row[4]) and is_int(row[5]) and 1 <= row[4] <= row[5]
                and isinstance(row[6], str) and isinstance(row[7], str)
                and (len(row) == 8 or (isinstance(row[8], dict) and object_fields_ok(row[8])))):
            raise corrupt(name, "a section record is malformed")
    return fmt.section_records(chunk)


def object_fields_ok(fields: dict[str, Any]) -> bool:
    """The object fields of a section row: strings ``kind``/``name``/``signature``, flags true."""
    for k, v in fields.items():
        want = OBJECT_FIELDS.get(k)
        if not (v is True if want is True else want is not None and isinstance(v, want) and not isinstance(v, bool)):
            return False
    return True


def check_concepts(name: str, c: Any) -> list[list[Any]]:
    """``concepts.js``: ``[concept_id, title, page number, searchable, [paths]]`` per page."""
    if not isinstance(c, list) or not all(
        isinstance(e, list) and len(e) == 5 and isinstance(e[0], str) and isinstance(e[1], str)
        and is_int(e[2]) and isinstance(e[3], bool) and isinstance(e[4], list)
        and all(isinstance(p, str) for p in e[4]) for e in c
    ):
        raise corrupt(name, "the concept list is malformed")
    return c


def check_pages(count: int) -> Callable[[str, Any], list[dict[str, Any]]]:
    """The check of an outline file ``p/<k>``, which holds ``count`` page outlines."""
    def check(name: str, pages: Any) -> list[dict[str, Any]]:
        if not isinstance(pages, list) or len(pages) != count:
            raise corrupt(name, "an outline file does not hold the pages it should")
        for p in pages:
            if not isinstance(p, dict) or not isinstance(p.get("concept_id"), str) or not isinstance(p.get("sections"), list):
                raise corrupt(name, "a page outline is malformed")
            for s in p["sections"]:
                if not (isinstance(s, dict) and is_int(s.get("sid")) and isinstance(s.get("heading"), str)
                        and is_int(s.get("level")) and is_int(s.get("line_start")) and is_int(s.get("line_end"))
                        and isinstance(s.get("path"), str) and (s.get("parent") is None or is_int(s.get("parent")))):
                    raise corrupt(name, "a page outline entry is malformed")
        return pages

    return check


def check_objects(count: Any, sections_all: int) -> Callable[[str, Any], list[list[Any]]]:
    """The check of ``objects.js``: ``count`` rows ``[name, kind, page number, position in
    the page, sid]`` (the manifest's ``objects``)."""
    def check(name: str, rows: Any) -> list[list[Any]]:
        if not is_int(count) or not isinstance(rows, list) or len(rows) != count or not all(
            isinstance(r, list) and len(r) == 5 and isinstance(r[0], str) and isinstance(r[1], str)
            and is_int(r[2]) and is_int(r[3]) and is_int(r[4]) and 0 <= r[4] < sections_all for r in rows
        ):
            raise corrupt(name, "the object list is malformed")
        return rows

    return check


def check_files(snapshot_revision: str) -> Callable[[str, Any], list[dict[str, Any]]]:
    """The check of ``files.js``: the captured files (path, size, SHA-256, and where their
    bytes are: a pack ``f/<k>`` or the site's ``_sources/`` copy), whose digest is the
    manifest's ``snapshot_revision``."""
    def check(name: str, files: Any) -> list[dict[str, Any]]:
        if not isinstance(files, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and is_int(e.get("size")) and is_hex64(e.get("sha256"))
            and (isinstance(e.get("copy"), str) and fmt.COPY_PATH.match(e["copy"]) is not None and "pack" not in e
                 if "copy" in e else is_int(e.get("pack")) and e["pack"] >= 0)
            for e in files
        ):
            raise corrupt(name, "the captured-file list is malformed")
        if fmt.snapshot_revision(files) != snapshot_revision:
            raise corrupt(name, "the captured-file list does not match the manifest's snapshot_revision")
        return files

    return check


def check_pack(name: str, v: Any) -> list[dict[str, Any]]:
    """``f/<k>``: ``{"files": [record, …]}``, each record an object naming its ``path``."""
    files = v.get("files") if isinstance(v, dict) else None
    if not isinstance(files, list) or not files or not all(isinstance(r, dict) and isinstance(r.get("path"), str) for r in files):
        raise corrupt(name, "a captured-file pack is malformed")
    return files


def check_parts(name: str, parts: Any, sections: int) -> list[str | int]:
    """A pack record's ``parts`` (format 6): a list of literal strings and sids (each below
    ``sections``, the manifest's ``sections_all``) whose texts, joined, are the file's text."""
    if not isinstance(parts, list) or not all(
            isinstance(p, str) or (is_int(p) and 0 <= p < sections) for p in parts):
        raise corrupt(name, "a captured file record's parts are malformed")
    return parts


def check_file(name: str, entry: dict[str, Any], f: Any) -> tuple[bytes, str]:
    """A pack's record of captured file ``entry`` (of ``files.js``): its exact bytes (text or
    base64) matching the entry's size and SHA-256, and the encoding the build read it with."""
    import base64
    import binascii
    import hashlib

    if not isinstance(f, dict) or f.get("path") != entry["path"]:
        raise corrupt(name, "a captured file record is malformed")
    encoding = f.get("encoding", "utf-8")
    try:
        if not isinstance(encoding, str):
            raise LookupError(encoding)
        b"".decode(encoding)  # LookupError for an unknown or bytes-to-bytes codec
    except LookupError:
        raise corrupt(name, f"a captured file record names an unknown text encoding {json_text(encoding)}") from None
    if isinstance(f.get("text"), str):
        data = f["text"].encode("utf-8", "surrogatepass")
    elif isinstance(f.get("base64"), str):
        try:
            data = base64.b64decode(f["base64"], validate=True)
        except (binascii.Error, ValueError):
            raise corrupt(name, "a captured file record holds invalid base64") from None
    else:
        raise corrupt(name, "a captured file record has no content")
    if len(data) != entry["size"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise corrupt(name, f"the bytes of {entry['path']} do not match their SHA-256")
    return data, encoding


# -- smart mode's files (docs/smart.md) ---------------------------------------------------------

def check_page_table(sections: int) -> Callable[[str, Any], dict[str, Any]]:
    """The check of ``smart.js``, the page table: integer lists ``counts`` (each > 0, adding
    up to ``sections``) and ``lengths``, and ``priors`` (each > 0), one per page; the columns
    the engine reads come back by name: each page's ``firsts`` (first sid), ``lengths`` and ``priors``."""
    def check(name: str, v: Any) -> dict[str, Any]:
        counts = decode_ints(v.get("counts")) if isinstance(v, dict) else None
        lengths = decode_ints(v.get("lengths")) if isinstance(v, dict) else None
        priors = v.get("priors") if isinstance(v, dict) else None
        if counts is None or lengths is None or not isinstance(priors, list) or not (
                len(counts) == len(lengths) == len(priors)) or not all(c > 0 for c in counts) or not all(
                is_finite(p) and p > 0 for p in priors):
            raise corrupt(name, "the page table is malformed")
        firsts = []
        at = 0
        for count in counts:
            firsts.append(at)
            at += count
        if at != sections:
            raise corrupt(name, "the page table does not cover the sections in order")
        return {"firsts": firsts, "lengths": lengths, "priors": priors}

    return check


def check_paths(pages: int) -> Callable[[str, Any], list[str]]:
    """The check of ``paths.js``: one source path per page of the page table."""
    def check(name: str, v: Any) -> list[str]:
        if not (isinstance(v, list) and len(v) == pages and all(isinstance(p, str) for p in v)):
            raise corrupt(name, "the page paths are malformed")
        return v

    return check


def check_meta(name: str, v: Any) -> dict[str, Any]:
    """``meta.js``: per page number, its metadata fields (text, or a list of texts)."""
    if not isinstance(v, dict) or not all(
        isinstance(m, dict) and all(isinstance(x, str) or (isinstance(x, list) and all(isinstance(y, str) for y in x))
                                    for x in m.values())
        for m in v.values()
    ):
        raise corrupt(name, "the page metadata is malformed")
    return v


def check_dict(name: str, v: Any) -> dict[str, Any]:
    """A dictionary shard ``d/<k>`` (or an edit-key shard ``e/<k>``): per key, its word list
    (``index_format.decode_word_list``), read into ``[term, df]`` pairs."""
    out = {k: fmt.decode_word_list(e) for k, e in v.items()} if isinstance(v, dict) else None
    if out is None or None in out.values():
        raise corrupt(name, "a dictionary shard is malformed")
    return out


def check_names(name: str, v: Any) -> dict[str, Any]:
    """An object-name shard ``n/<k>``: per name key, ``[name, kind, sid]`` rows."""
    if not isinstance(v, dict) or not all(
        isinstance(e, list) and all(isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and isinstance(x[1], str)
                                    and is_int(x[2]) and x[2] >= 0 for x in e)
        for e in v.values()
    ):
        raise corrupt(name, "an object-name shard is malformed")
    return v


def check_headings(name: str, v: Any) -> dict[str, Any]:
    """A heading shard ``h/<k>``: per key, ``[terms, sid]`` rows."""
    if not isinstance(v, dict) or not all(
        isinstance(e, list) and all(isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and is_int(x[1]) and x[1] >= 0
                                    for x in e)
        for e in v.values()
    ):
        raise corrupt(name, "a heading shard is malformed")
    return v


def check_links(name: str, v: Any) -> dict[str, Any]:
    """A link shard ``l/<k>``: per sid (as text), its ``[to sid, via]`` links in document order."""
    if not isinstance(v, dict) or not all(
        isinstance(k, str) and _DIGITS.fullmatch(k) is not None and isinstance(e, list) and all(
            isinstance(x, list) and len(x) == 2 and is_int(x[0]) and x[0] >= 0 and x[1] in fmt.LINK_VIAS for x in e)
        for k, e in v.items()
    ):
        raise corrupt(name, "a link shard is malformed")
    return v
