"""A built index opened for querying: manifest checks and cached, validated file loads.

``open_index(location)`` is the entry point of the Python API.  Every file is
loaded on first use, validated (a tampered or truncated file is
``index_corrupt``, never a traceback) and cached, so a warm query touches no
I/O.  Thread-safe: the MCP server calls it from many tasks at once.
"""

from __future__ import annotations

import math
import os
import threading
from typing import Any, Callable, TypeVar

from . import format as fmt
from .errors import OkfError
from .source import Source, check_name, open_source
from .terms import Normaliser

T = TypeVar("T")

_HEX64 = frozenset("0123456789abcdef")


def corrupt(name: str, what: str) -> OkfError:
    return OkfError("index_corrupt", f"index file {name}.js is corrupt: {what}; rebuild the site", file=f"{name}.js")


def is_int(v: Any) -> bool:
    """An int that is not a bool (JSON true must never count as 1)."""
    return isinstance(v, int) and not isinstance(v, bool)



def is_finite(v: int | float) -> bool:
    """A JSON number that is a finite float (JSON.parse turns 1e999 into Infinity)."""
    try:
        return math.isfinite(v)
    except OverflowError:  # an int too large for a float: Infinity in JavaScript
        return False


def _is_hex64(v: Any) -> bool:
    return isinstance(v, str) and len(v) == 64 and set(v) <= _HEX64


class Posting:
    """One term's decoded postings: parallel tuples of sid, weighted f and length.

    ``parts`` (the term's BM25 contribution per section) and ``positions``
    (sid → index) are derived once, on first use, so a warm query only sums.
    """

    __slots__ = ("idf", "df", "sids", "freqs", "lengths", "_parts", "_positions", "_ranked")

    def __init__(self, idf: float, df: int, sids: tuple[int, ...], freqs: tuple[int, ...], lengths: tuple[int, ...]):
        self.idf = idf
        self.df = df
        self.sids = sids
        self.freqs = freqs
        self.lengths = lengths
        self._parts: tuple[float, ...] | None = None
        self._positions: dict[int, int] | None = None
        self._ranked: list[tuple[float, int]] | None = None

    def parts(self, avglen: float) -> tuple[float, ...]:
        if self._parts is None:
            self._parts = tuple(fmt.bm25_part(self.idf, f, n, avglen) for f, n in zip(self.freqs, self.lengths))
        return self._parts

    def ranked(self, avglen: float) -> list[tuple[float, int]]:
        """``(-score, sid)`` of every section as a one-term query ranks them, best first."""
        if self._ranked is None:
            self._ranked = sorted(zip((-x for x in self.parts(avglen)), self.sids))
        return self._ranked

    @property
    def positions(self) -> dict[int, int]:
        if self._positions is None:
            self._positions = {sid: i for i, sid in enumerate(self.sids)}
        return self._positions


class Index:
    """An okf_sphinx index, on disk or at a URL."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.manifest = self._load("manifest", self._check_manifest)
        self.snapshot_revision: str = self.manifest["snapshot_revision"]
        self.sections: int = self.manifest["sections"]
        self.sections_all: int = self.manifest["sections_all"]
        self.avglen: float = float(self.manifest["avglen"])
        self.shards: int = self.manifest["shards"]

    # -- loading ------------------------------------------------------------------

    def _load(self, name: str, check: Callable[[str, Any], T]) -> T:
        cached = self._cache.get(name)
        if cached is not None:
            return cached
        value = check(name, fmt.unwrap(name, self.source.read(name)))
        with self._lock:
            self._cache.setdefault(name, value)
        return value

    @staticmethod
    def _check_manifest(name: str, m: Any) -> dict[str, Any]:
        if not isinstance(m, dict) or m.get("format") != fmt.FORMAT:
            raise OkfError("index_corrupt", "manifest.js is not an okf_sphinx index manifest; rebuild the site", file="manifest.js")
        if m.get("format_version") != fmt.FORMAT_VERSION:
            raise OkfError(
                "index_version_unsupported",
                f"index format_version {m.get('format_version')!r} is not supported by this okf_sphinx "
                f"(it reads version {fmt.FORMAT_VERSION}); rebuild the site or upgrade okf_sphinx",
                found=m.get("format_version"), supported=[fmt.FORMAT_VERSION],
            )
        ints = ("sections", "sections_all", "concepts", "files", "shards")
        if not all(is_int(m.get(k)) and m[k] >= 0 for k in ints) or m["shards"] < 1 or m["sections_all"] < m["sections"]:
            raise corrupt(name, "counts are missing or invalid")
        if not isinstance(m.get("avglen"), (int, float)) or isinstance(m.get("avglen"), bool) or not is_finite(m["avglen"]) or not m["avglen"] > 0:
            raise corrupt(name, "avglen is missing or invalid")
        if not _is_hex64(m.get("snapshot_revision")) or not isinstance(m.get("unicode_version"), str):
            raise corrupt(name, "snapshot_revision or unicode_version is invalid")
        return m

    @property
    def normaliser(self) -> Normaliser:
        return self._load("unicode", self._check_unicode)

    @staticmethod
    def _check_unicode(name: str, t: Any) -> Normaliser:
        try:
            if not isinstance(t, dict) or not all(isinstance(t.get(k), list) for k in ("word", "letter_number", "assigned")):
                raise ValueError("tables missing")
            if not isinstance(t.get("casefold"), dict) or not isinstance(t.get("unicode_version"), str):
                raise ValueError("tables missing")
            for k in ("word", "letter_number", "assigned"):
                flat = t[k]
                if len(flat) % 2 or not all(is_int(x) and 0 <= x <= 0x10FFFF for x in flat) or flat != sorted(flat):
                    raise ValueError(f"{k} ranges are invalid")
            if not all(isinstance(v, str) for v in t["casefold"].values()):
                raise ValueError("casefold map is invalid")
            return Normaliser(t)
        except (ValueError, TypeError, KeyError) as exc:
            raise corrupt(name, str(exc)) from None

    def posting(self, term: str) -> Posting | None:
        """The decoded posting list of ``term``, or None when no searchable section has it."""
        shard_name = fmt.shard_name(term, self.shards)
        shard = self._load(shard_name, self._check_shard)
        entry = shard.get(term)
        if entry is None:
            return None
        key = f"posting:{term}"
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        idf, df, postings = entry
        if isinstance(postings, str):
            postings = self._load(check_name(postings), self._check_flat)
        posting = self._decode(shard_name, idf, df, postings)
        with self._lock:
            self._cache.setdefault(key, posting)
        return posting

    @staticmethod
    def _check_shard(name: str, shard: Any) -> dict[str, Any]:
        if not isinstance(shard, dict):
            raise corrupt(name, "a shard must be an object")
        for term, entry in shard.items():
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], (int, float))
                    and not isinstance(entry[0], bool) and is_finite(entry[0])
                    and is_int(entry[1]) and isinstance(entry[2], (list, str))):
                raise corrupt(name, f"the entry of term {term!r} is malformed")
        return shard

    @staticmethod
    def _check_flat(name: str, flat: Any) -> list[int]:
        if not isinstance(flat, list):
            raise corrupt(name, "a posting file must hold an array")
        return flat

    def _decode(self, name: str, idf: float, df: int, flat: list[Any]) -> Posting:
        if len(flat) % 3 or len(flat) // 3 != df or not all(is_int(x) and x >= 0 for x in flat):
            raise corrupt(name, "a posting list is malformed")
        sids = []
        sid = -1
        for i in range(0, len(flat), 3):
            sid = flat[i] if i == 0 else sid + flat[i]
            if (i and flat[i] == 0) or sid >= self.sections or flat[i + 1] == 0:
                raise corrupt(name, "a posting list is out of order or out of range")
            sids.append(sid)
        return Posting(float(idf), df, tuple(sids), tuple(flat[1::3]), tuple(flat[2::3]))

    def section(self, sid: int) -> dict[str, Any]:
        """Section record ``s/<sid>`` (metadata and exact range text)."""
        if not is_int(sid) or not 0 <= sid < self.sections_all:
            raise OkfError("not_found", f"no section {sid!r} in this index")
        return self._load(f"s/{sid}", self._check_section)

    @staticmethod
    def _check_section(name: str, s: Any) -> dict[str, Any]:
        strings = ("concept_id", "title", "path", "heading", "locator", "url", "anchor", "text")
        ints = ("sid", "level", "line_start", "line_end")
        if (not isinstance(s, dict) or not all(isinstance(s.get(k), str) for k in strings)
                or not all(is_int(s.get(k)) for k in ints) or not _is_hex64(s.get("content_sha256"))
                or not isinstance(s.get("searchable"), bool) or f"s/{s['sid']}" != name
                or not 1 <= s["line_start"] <= s["line_end"]):
            raise corrupt(name, "a section record is malformed")
        return s

    def concepts(self) -> list[list[Any]]:
        return self._load("concepts", self._check_concepts)

    @staticmethod
    def _check_concepts(name: str, c: Any) -> list[list[Any]]:
        if not isinstance(c, list) or not all(
            isinstance(e, list) and len(e) == 5 and isinstance(e[0], str) and isinstance(e[1], str)
            and is_int(e[2]) and isinstance(e[3], bool) and isinstance(e[4], list)
            and all(isinstance(p, str) for p in e[4]) for e in c
        ):
            raise corrupt(name, "the concept list is malformed")
        return c

    def page(self, n: int) -> dict[str, Any]:
        return self._load(f"p/{n}", self._check_page)

    @staticmethod
    def _check_page(name: str, p: Any) -> dict[str, Any]:
        if not isinstance(p, dict) or not isinstance(p.get("concept_id"), str) or not isinstance(p.get("sections"), list):
            raise corrupt(name, "a page outline is malformed")
        for s in p["sections"]:
            if not (isinstance(s, dict) and is_int(s.get("sid")) and isinstance(s.get("heading"), str)
                    and is_int(s.get("level")) and is_int(s.get("line_start")) and is_int(s.get("line_end"))
                    and isinstance(s.get("path"), str) and (s.get("parent") is None or is_int(s.get("parent")))):
                raise corrupt(name, "a page outline entry is malformed")
        return p

    def files(self) -> list[dict[str, Any]]:
        return self._load("files", self._check_files)

    def _check_files(self, name: str, files: Any) -> list[dict[str, Any]]:
        if not isinstance(files, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and is_int(e.get("size")) and _is_hex64(e.get("sha256"))
            for e in files
        ):
            raise corrupt(name, "the captured-file list is malformed")
        if fmt.snapshot_revision(files) != self.snapshot_revision:
            raise corrupt(name, "the captured-file list does not match the manifest's snapshot_revision")
        return files

    def file_bytes(self, n: int) -> bytes:
        """The exact captured bytes of file ``n`` of :meth:`files`, checked against its SHA-256."""
        return self._load(f"f/{n}", lambda name, f: self._check_file(name, n, f))[0]

    def file_text(self, n: int) -> str:
        """File ``n`` decoded as the build decoded it (its ``encoding``, else UTF-8);
        undecodable bytes show as U+FFFD, while :meth:`file_bytes` stays exact."""
        data, encoding = self._load(f"f/{n}", lambda name, f: self._check_file(name, n, f))
        return data.decode(encoding, errors="replace")

    def _check_file(self, name: str, n: int, f: Any) -> tuple[bytes, str]:
        import base64
        import binascii
        import hashlib

        entry = self.files()[n]
        if not isinstance(f, dict) or f.get("path") != entry["path"]:
            raise corrupt(name, "a captured file record is malformed")
        encoding = f.get("encoding", "utf-8")
        try:
            if not isinstance(encoding, str):
                raise LookupError(encoding)
            b"".decode(encoding)  # LookupError for an unknown or bytes-to-bytes codec
        except LookupError:
            raise corrupt(name, f"a captured file record names an unknown text encoding {encoding!r}") from None
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

    # -- the four tools -------------------------------------------------------------

    def search(self, query: Any, limit: Any = 20) -> dict[str, Any]:
        """``search_sections``: the contract's result dict (SEARCH_CONTRACT.md §5)."""
        from .query import search

        return search(self, query, limit)

    def get_section(self, **request: Any) -> dict[str, Any]:
        from .reading import get_section

        return get_section(self, **request)

    def read_lines(self, path: Any, lines: Any) -> dict[str, Any]:
        from .reading import read_lines

        return read_lines(self, path, lines)

    def search_concepts(self, query: Any, limit: Any = 20) -> dict[str, Any]:
        from .reading import search_concepts

        return search_concepts(self, query, limit)


def open_index(location: str | os.PathLike[str]) -> Index:
    """Open the index of a built site: its folder, its ``_okf`` folder, or an http(s) URL."""
    return Index(open_source(location))
