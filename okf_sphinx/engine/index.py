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

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import is_int
from okf_sphinx.core.terms import Normaliser

from .cache import ByteLRU, footprint
from .source import Source, check_name, open_source

T = TypeVar("T")

_HEX64 = frozenset("0123456789abcdef")


def corrupt(name: str, what: str) -> OkfError:
    return OkfError("index_corrupt", f"index file {name}.js is corrupt: {what}; rebuild the site", file=f"{name}.js")



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

    def footprint(self) -> int:
        """Estimated bytes, counting the derived tables (parts, positions, ranking) it may grow."""
        n = len(self.sids)
        return 400 + 3 * (56 + 8 * n) + 32 * 2 * n + (56 + 32 * n) + (100 * n) + (64 + 96 * n)

    @property
    def positions(self) -> dict[int, int]:
        if self._positions is None:
            self._positions = {sid: i for i, sid in enumerate(self.sids)}
        return self._positions


#: Default memory bound of one Index's caches (estimated bytes; see :mod:`okf_sphinx.engine.cache`).
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
#: Bytes CPython holds per byte of file for the many small files (measured with
#: tracemalloc on the PEPs index): walking each parsed shard to size it would cost
#: more than parsing it.  Other files are sized by :func:`~okf_sphinx.engine.cache.footprint`.
_MEMORY_PER_BYTE = {"t": 5.0, "s": 3.0, "p": 4.0}
#: How often one request is answered again when the index is rebuilt under it.
MAX_ATTEMPTS = 4


class _Changed(Exception):
    """The index was rebuilt while a request was reading it (internal: the request is retried)."""


class _State:
    """One build of the index as this reader knows it: its manifest and its cache."""

    __slots__ = ("stamp", "manifest_bytes", "manifest", "cache")

    def __init__(self, stamp: Any, manifest_bytes: bytes, manifest: dict[str, Any], cache_bytes: int) -> None:
        self.stamp = stamp  # the source's cheap identity of manifest.js, taken before reading it (or None)
        self.manifest_bytes = manifest_bytes
        self.manifest = manifest
        self.cache = ByteLRU(cache_bytes)


class _Request:
    """What one request (a tool call) has seen: the state it started from and the
    files it read that the cache did not hold — kept aside until the manifest
    confirms they all belong to that state's build."""

    __slots__ = ("state", "pending", "read")

    def __init__(self, state: _State) -> None:
        self.state = state
        self.pending: dict[Any, tuple[Any, int]] = {}
        self.read = False  # did it read (or try to read) anything the cache did not hold?


class Index:
    """An okf_sphinx index, on disk or at a URL.

    Each request sees one build: the files it reads are checked against the
    manifest it started from (the manifest is read again after a request that
    read files; a rebuilt index makes the request start over on the new build),
    and only then join the cache, whose size is bounded by ``cache_bytes``.
    """

    def __init__(self, source: Source, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        if not is_int(cache_bytes) or cache_bytes < 0:
            raise OkfError("schema_validation", f"cache_bytes must be a non-negative integer, got {cache_bytes!r}")
        self.source = source
        self.cache_bytes = cache_bytes
        self._local = threading.local()
        self._lock = threading.Lock()
        self._state = _State(*self._read_manifest(), cache_bytes)

    # -- one build per request ------------------------------------------------------

    def _stamp(self) -> Any:
        stamp = getattr(self.source, "stamp", None)
        return stamp() if stamp is not None else None

    def _read_manifest(self) -> tuple[Any, bytes, dict[str, Any]]:
        stamp = self._stamp()  # before the read: a swap in between makes the two disagree, never agree wrongly
        data = self.source.read("manifest")
        return stamp, data, self._check_manifest("manifest", fmt.unwrap("manifest", data))

    def _view(self) -> _State:
        request = getattr(self._local, "request", None)
        return request.state if request is not None else self._state

    @property
    def manifest(self) -> dict[str, Any]:
        return self._view().manifest

    @property
    def snapshot_revision(self) -> str:
        return self._view().manifest["snapshot_revision"]

    @property
    def index_revision(self) -> str:
        return self._view().manifest["index_revision"]

    @property
    def section_count(self) -> int:
        """How many sections are searchable (sids ``0 … N-1``, the BM25 collection): a count,
        not a list — :meth:`concepts` is the list of pages."""
        return self._view().manifest["sections"]

    @property
    def sections_all(self) -> int:
        return self._view().manifest["sections_all"]

    @property
    def avglen(self) -> float:
        return float(self._view().manifest["avglen"])

    @property
    def shards(self) -> int:
        return self._view().manifest["shards"]

    @property
    def cache(self) -> ByteLRU:
        """The cache of the build this reader currently answers from."""
        return self._state.cache

    def consistent(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` answered from one build of the index.

        When files read during the call turn out to come from another build
        than the manifest the call started from (the site was rebuilt under
        it), this reader moves to the new build and the call is made again.
        """
        local = self._local
        if getattr(local, "request", None) is not None:
            return fn(*args, **kwargs)  # already inside a request
        try:
            for _ in range(MAX_ATTEMPTS):
                state = self._state
                request = local.request = _Request(state)
                try:
                    result = fn(*args, **kwargs)
                except _Changed:
                    continue  # another request moved this reader to a new build
                except Exception:
                    # files of two builds can fail the checks (or trip the code that trusts
                    # them): that is a rebuild, not corruption
                    if request.read and self._moved(state):
                        continue
                    raise
                if request.pending:
                    if self._moved(state):
                        continue
                    for key, (value, cost) in request.pending.items():
                        state.cache.put(key, value, cost)
                return result
        finally:
            local.request = None
        raise OkfError(
            "source_unavailable",
            f"the index at {self.source.location} was rebuilt {MAX_ATTEMPTS} times while answering; ask again",
        )

    def _moved(self, state: _State) -> bool:
        """Has the manifest changed since ``state`` was read?  If so, move to the new build."""
        stamp = self._stamp()
        if stamp is not None and stamp == state.stamp:
            return False  # the very file read then (a file is never rewritten in place)
        try:
            data = self.source.read("manifest")
        except OkfError as err:
            if err.code in ("index_not_found", "index_corrupt"):
                raise OkfError(err.code, f"the index changed while answering: {err.message}", **err.details) from None
            raise
        if data == state.manifest_bytes:
            state.stamp = stamp
            return False
        self._move_on(state, stamp, data)
        return True

    def _move_on(self, state: _State, stamp: Any, data: bytes) -> None:
        manifest = self._check_manifest("manifest", fmt.unwrap("manifest", data))
        with self._lock:
            if self._state is state:
                self._state = _State(stamp, data, manifest, self.cache_bytes)

    # -- loading ------------------------------------------------------------------

    def memo(self, key: Any, compute: Callable[[], T], cost: Callable[[T], int] = footprint) -> T:
        """A value derived from index files, cached (and bounded) with them."""
        request = getattr(self._local, "request", None)
        if request is not None:
            if self._state is not request.state:
                raise _Changed
            hit = request.pending.get(key)
            if hit is not None:
                return hit[0]
            cache = request.state.cache
        else:
            cache = self._state.cache
        value = cache.get(key)
        if value is not None:
            return value
        if request is not None:
            request.read = True
        value = compute()
        size = cost(value)
        if request is not None:
            request.pending[key] = (value, size)
        else:
            cache.put(key, value, size)
        return value

    def _load(self, name: str, check: Callable[[str, Any], T]) -> T:
        size = 0

        def compute() -> T:
            nonlocal size
            data = self.source.read(name)
            size = len(data)
            return check(name, fmt.unwrap(name, data))

        ratio = _MEMORY_PER_BYTE.get(name.partition("/")[0])
        return self.memo(name, compute, footprint if ratio is None else lambda value: int(size * ratio) + 64)

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
        if not _is_hex64(m.get("index_revision")):
            raise corrupt(name, "index_revision is missing or invalid")
        counts = fmt.decode_ints(m.get("section_files"))
        if not (counts is not None and all(x >= 1 for x in counts) and sum(counts) == m["sections_all"]):
            raise corrupt(name, "section_files is missing or invalid")
        if not (is_int(m.get("pages_per_file")) and m["pages_per_file"] >= 1):
            raise corrupt(name, "pages_per_file is missing or invalid")
        return m

    @property
    def normaliser(self) -> Normaliser:
        def load() -> Normaliser:
            return self._check_unicode("unicode", fmt.unwrap("unicode", self.source.read("unicode")))

        # its lists and fold map as the tables hold them, plus compiled patterns
        return self.memo("unicode", load, lambda n: footprint([n._word, n._ln, n._assigned, n._fold]) + 64 * 1024)

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

    @property
    def stem(self) -> Callable[[str], str] | None:
        """The build's stemmer, when the build stemmed: a term's posting list sits in the shard
        of its stem (format_version 3), so reading the index needs exactly that stemmer."""
        return self.memo("stemmer", self._stemmer, lambda _v: 256)[0]

    def _stemmer(self) -> tuple[Callable[[str], str] | None]:
        from okf_sphinx.core.stemmer import STEMMER_VERSION, stemmer_for

        m = self.manifest.get("smart")
        if not (isinstance(m, dict) and isinstance(m.get("stemmer"), bool) and isinstance(m.get("language"), str)
                and isinstance(m.get("stemmer_version"), str)):
            raise corrupt("manifest", "the smart block is missing or invalid")
        if not m["stemmer"]:
            return (None,)
        stem = stemmer_for(m["language"]) if m["stemmer_version"] == STEMMER_VERSION else None
        if stem is None:
            raise OkfError(
                "index_version_unsupported",
                f"this index was built with the {m['stemmer_version']} stemmer for {m['language']!r}, which this "
                f"okf_sphinx does not have (it has {STEMMER_VERSION}): rebuild the site or use the okf_sphinx that built it",
                found=m["stemmer_version"], supported=[STEMMER_VERSION],
            )
        return (stem,)

    def shard_of(self, term: str) -> str:
        """The posting shard ``t/<hex>`` that holds ``term`` (and its stem group)."""
        return fmt.shard_name(fmt.posting_key(term, self.stem), self.shards)

    def shard(self, name: str) -> dict[str, Any]:
        """A ``t/`` shard: ``{"groups": {stem: [section idf, page idf, [terms]]}, "terms": {term: entry}}``."""
        return self._load(name, self._check_shard)

    def posting(self, term: str, folder: str = "t", shards: int | None = None) -> Posting | None:
        """The decoded posting list of ``term``, or None when no searchable section has it
        (``folder="x"``: smart mode's identifier postings, in ``shards`` shards)."""
        if folder == "t":
            shard_name = self.shard_of(term)
            entry = self.shard(shard_name)["terms"].get(term)
        else:
            shard_name = fmt.shard_name(term, shards or 1, folder)
            entry = self._load(shard_name, self._check_entries).get(term)
        if entry is None:
            return None
        idf, df, postings = entry

        def decode() -> Posting:
            digits = postings if isinstance(postings, str) else self._load(check_name(postings[0]), self._check_flat)
            return self._decode(shard_name, idf, df, digits)

        key = f"posting:{term}" if folder == "t" else f"posting:{folder}:{term}"
        return self.memo(key, decode, Posting.footprint)

    @classmethod
    def _check_shard(cls, name: str, shard: Any) -> dict[str, Any]:
        if not (isinstance(shard, dict) and set(shard) == {"groups", "terms"} and isinstance(shard["groups"], dict)):
            raise corrupt(name, "a posting shard must be an object of groups and terms")
        for stem, g in shard["groups"].items():
            if not (isinstance(g, list) and len(g) == 3 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                                and is_finite(v) for v in g[:2])
                    and isinstance(g[2], list) and all(isinstance(t, str) for t in g[2])):
                raise corrupt(name, "a stem-group shard is malformed")
        cls._check_entries(name, shard["terms"])
        return shard

    @staticmethod
    def _check_entries(name: str, shard: Any) -> dict[str, Any]:
        """``{term: [idf, df, postings]}``: an ``x/`` shard, or a ``t/`` shard's ``terms``."""
        if not isinstance(shard, dict):
            raise corrupt(name, "a shard must be an object")
        for term, entry in shard.items():
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], (int, float))
                    and not isinstance(entry[0], bool) and is_finite(entry[0])
                    and is_int(entry[1]) and (isinstance(entry[2], str) or (
                        isinstance(entry[2], list) and len(entry[2]) == 1 and isinstance(entry[2][0], str)))):
                raise corrupt(name, f"the entry of term {term!r} is malformed")
        return shard

    @staticmethod
    def _check_flat(name: str, flat: Any) -> str:
        if not isinstance(flat, str):
            raise corrupt(name, "a posting file must hold a string")
        return flat

    def _decode(self, name: str, idf: float, df: int, text: str) -> Posting:
        flat = fmt.decode_ints(text)
        if flat is None or len(flat) % 3 or len(flat) // 3 != df:
            raise corrupt(name, "a posting list is malformed")
        sids = []
        sid = -1
        sections = self.section_count
        for i in range(0, len(flat), 3):
            sid = flat[i] if i == 0 else sid + flat[i]
            if (i and flat[i] == 0) or sid >= sections or flat[i + 1] == 0:
                raise corrupt(name, "a posting list is out of order or out of range")
            sids.append(sid)
        return Posting(float(idf), df, tuple(sids), tuple(flat[1::3]), tuple(flat[2::3]))

    def section(self, sid: int) -> dict[str, Any]:
        """The record of section ``sid`` (metadata and exact range text), from the
        section file ``s/<k>`` that holds it."""
        if not is_int(sid) or not 0 <= sid < self.sections_all:
            raise OkfError("not_found", f"no section {sid!r} in this index")
        starts = self.memo("section_starts", lambda: fmt.section_starts(self.manifest["section_files"]))
        k = fmt.section_file_of(starts, sid)
        end = starts[k + 1] if k + 1 < len(starts) else self.sections_all
        records = self._load(f"s/{k}", lambda name, chunk: self._check_sections(name, chunk, starts[k], end))
        return records[sid - starts[k]]

    @staticmethod
    def _check_sections(name: str, chunk: Any, first: int, end: int) -> list[dict[str, Any]]:
        """A section file holds sids ``first … end − 1``, each row well formed; its records."""
        if not (isinstance(chunk, dict) and chunk.get("first") == first and is_int(chunk.get("first"))
                and isinstance(chunk.get("pages"), list) and isinstance(chunk.get("files"), list)
                and isinstance(chunk.get("sections"), list) and len(chunk["sections"]) == end - first):
            raise corrupt(name, "a section file is malformed")
        pages, files = chunk["pages"], chunk["files"]
        if not all(isinstance(p, list) and len(p) == 5 and isinstance(p[0], str) and isinstance(p[1], str)
                   and isinstance(p[2], bool) and isinstance(p[3], str) and isinstance(p[4], str) for p in pages) or not all(
                isinstance(f, list) and len(f) in (2, 3) and isinstance(f[0], str) and _is_hex64(f[1])
                and (len(f) == 2 or (isinstance(f[2], str) and f[2] != f[0])) for f in files):
            raise corrupt(name, "a section file's page or file table is malformed")
        for row in chunk["sections"]:
            if not (isinstance(row, list) and len(row) in (8, 9) and is_int(row[0]) and 0 <= row[0] < len(pages)
                    and is_int(row[1]) and 0 <= row[1] < len(files) and isinstance(row[2], str) and is_int(row[3])
                    and is_int(row[4]) and is_int(row[5]) and 1 <= row[4] <= row[5]
                    and isinstance(row[6], str) and isinstance(row[7], str)
                    and (len(row) == 8 or (isinstance(row[8], dict) and _object_fields_ok(row[8])))):
                raise corrupt(name, "a section record is malformed")
        return fmt.section_records(chunk)

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

    def objects(self) -> list[list[Any]]:
        """``objects.js``: ``[name, kind, page number, position in the page, sid]`` by name;
        ``[]`` when the manifest counts no objects (then there is no such file)."""
        if "objects" not in self.manifest:
            return []
        return self._load("objects", self._check_objects)

    def _check_objects(self, name: str, rows: Any) -> list[list[Any]]:
        count = self.manifest["objects"]
        if not is_int(count) or not isinstance(rows, list) or len(rows) != count or not all(
            isinstance(r, list) and len(r) == 5 and isinstance(r[0], str) and isinstance(r[1], str)
            and is_int(r[2]) and is_int(r[3]) and is_int(r[4]) and 0 <= r[4] < self.sections_all for r in rows
        ):
            raise corrupt(name, "the object list is malformed")
        return rows

    def page(self, n: int) -> dict[str, Any]:
        """Page ``n``'s outline: entry ``n mod P`` of ``p/<n div P>`` (P: the manifest's
        ``pages_per_file``)."""
        per = self.manifest["pages_per_file"]
        count = self.manifest["concepts"]
        if not is_int(n) or not 0 <= n < count:
            raise corrupt("concepts", f"a concept refers to page {n!r}, past the {count} pages")
        k = n // per
        want = min(per, count - k * per)
        return self._load(f"p/{k}", lambda name, ps: self._check_pages(name, ps, want))[n % per]

    @staticmethod
    def _check_pages(name: str, pages: Any, count: int) -> list[dict[str, Any]]:
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

    def files(self) -> list[dict[str, Any]]:
        return self._load("files", self._check_files)

    def _check_files(self, name: str, files: Any) -> list[dict[str, Any]]:
        if not isinstance(files, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and is_int(e.get("size")) and _is_hex64(e.get("sha256"))
            and (isinstance(e.get("copy"), str) and fmt.COPY_PATH.match(e["copy"]) is not None and "pack" not in e
                 if "copy" in e else is_int(e.get("pack")) and e["pack"] >= 0)
            for e in files
        ):
            raise corrupt(name, "the captured-file list is malformed")
        if fmt.snapshot_revision(files) != self.snapshot_revision:
            raise corrupt(name, "the captured-file list does not match the manifest's snapshot_revision")
        return files

    def file_bytes(self, n: int) -> bytes:
        """The exact captured bytes of file ``n`` of :meth:`files`, checked against its SHA-256."""
        return self._captured(n)[0]

    def file_text(self, n: int) -> str:
        """File ``n`` decoded as the build decoded it (its ``encoding``, else UTF-8);
        undecodable bytes show as U+FFFD, while :meth:`file_bytes` stays exact."""
        data, encoding = self._captured(n)
        return data.decode(encoding, errors="replace")

    def _captured(self, n: int) -> tuple[bytes, str]:
        """``(bytes, encoding)`` of captured file ``n``: from the site's copy (``copy``,
        ``_sources/``) or from its pack ``f/<pack>``, checked against its size and SHA-256 either way."""
        entry = self.files()[n]
        copy = entry.get("copy")
        if copy is None:
            name = f"f/{entry['pack']}"
            pack = self._load(name, _check_pack)
            record = next((r for r in pack if r.get("path") == entry["path"]), None)
            if record is None:
                raise corrupt(name, f"the pack does not hold {entry['path']}")
            return self.memo(f"file:{n}", lambda: self._check_file(name, n, record), lambda v: len(v[0]) + 64)

        def read() -> tuple[bytes, str]:
            import hashlib

            data = self.source.read_copy(copy)
            if len(data) != entry["size"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
                raise OkfError("index_corrupt", f"the site's copy {copy} of {entry['path']} does not match its SHA-256; "
                               "rebuild the site", file=copy)
            return data, "utf-8"

        return self.memo(f"copy:{n}", read, lambda v: len(v[0]) + 64)

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

    def search(self, query: Any, limit: Any = 20, mode: Any = "keyword", **options: Any) -> dict[str, Any]:
        """``search_sections``: in ``keyword`` mode (the default) the contract's result
        dict (SEARCH_CONTRACT.md §5); in ``smart`` mode the page-grouped answer of
        docs/smart.md, which takes the options :data:`okf_sphinx.engine.smart.OPTIONS`."""
        from . import smart
        from .query import search

        if mode == "keyword":
            if options:
                name = sorted(options)[0]
                raise OkfError("schema_validation", f"{name} applies to mode 'smart' only; add mode='smart' or leave it out",
                               field=name)
            return self.consistent(search, self, query, limit)
        if mode == "smart":
            unknown = sorted(k for k in options if k not in smart.OPTIONS)
            if unknown:
                raise OkfError("schema_validation", f"search does not take {unknown[0]!r}; smart mode takes "
                               f"{', '.join(smart.OPTIONS)}", field=unknown[0])
            return self.consistent(smart.search, self, query, limit, **options)
        raise OkfError("schema_validation", f"mode must be 'keyword' or 'smart', got {mode!r}", field="mode")

    def get_section(self, **request: Any) -> dict[str, Any]:
        from okf_sphinx.agent.get_section import get_section

        return self.consistent(get_section, self, **request)

    def read_lines(self, path: Any, lines: Any) -> dict[str, Any]:
        from okf_sphinx.agent.read_lines import read_lines

        return self.consistent(read_lines, self, path, lines)

    def search_concepts(self, query: Any, limit: Any = 20) -> dict[str, Any]:
        from okf_sphinx.agent.search_concepts import search_concepts

        return self.consistent(search_concepts, self, query, limit)

    def read_batch(self, items: Any, **options: Any) -> dict[str, Any]:
        """``read_batch``: up to 20 ``{"tool", "arguments"}`` requests (get_section, read_lines,
        search_sections) answered in one call, each item exactly as its tool answers.
        ``options`` (``deadline``, ``clock``, ``started``, ``budget``) are those of
        :func:`okf_sphinx.agent.batch.read_batch`; a test can inject the clock."""
        from okf_sphinx.agent.batch import answer_of, read_batch
        from okf_sphinx.agent.dispatch import call_tool

        request = {"items": items} if isinstance(items, list) else items
        return read_batch(answer_of(lambda tool, arguments: call_tool(self, tool, arguments)), request, **options)


def _check_pack(name: str, v: Any) -> list[dict[str, Any]]:
    """``f/<k>``: ``{"files": [record, …]}``, each record an object naming its ``path``."""
    files = v.get("files") if isinstance(v, dict) else None
    if not isinstance(files, list) or not files or not all(isinstance(r, dict) and isinstance(r.get("path"), str) for r in files):
        raise corrupt(name, "a captured-file pack is malformed")
    return files


def _object_fields_ok(fields: dict[str, Any]) -> bool:
    """The object fields of a section row: strings ``kind``/``name``/``signature``, flags true."""
    allowed = {"kind": str, "name": str, "signature": str, "generated": bool, "continued": bool}
    return all(k in allowed and isinstance(v, allowed[k]) and (allowed[k] is not bool or v is True) for k, v in fields.items())


def open_index(location: str | os.PathLike[str], cache_bytes: int = DEFAULT_CACHE_BYTES) -> Index:
    """Open the index of a built site: its folder, its ``_okf`` folder, or an http(s) URL.
    ``cache_bytes`` bounds the memory its caches may hold (estimated bytes)."""
    return Index(open_source(location), cache_bytes)
