"""A built index opened for querying: one build per request, and cached, checked file loads.

``open_index(location)`` opens one (the Python API's :func:`okf_sphinx.open_index` adds
the reading tools on top).  Every file is loaded on first use through :meth:`Index.load`,
checked by its :mod:`~okf_sphinx.engine.validators` function (a tampered or truncated
file is ``index_corrupt``, never a traceback) and cached, so a warm query touches no
I/O.  Thread-safe: the MCP server calls it from many tasks at once.  The browser
runtime's twin is ``okf_sphinx/js/engine/index.js``.
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar
from collections.abc import Callable

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import OkfError, json_text
from okf_sphinx.core.index_format import is_int
from okf_sphinx.core.terms import Normaliser

from . import validators
from .cache import ByteLRU, footprint
from .source import Source, check_name

T = TypeVar("T")


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

    def parts(self, avglen: float, k1: float, b: float) -> tuple[float, ...]:
        """The term's BM25 part in each of its sections (the index's ``avglen``, ``k1``, ``b``)."""
        if self._parts is None:
            bm25_part = fmt.bm25_part
            idf = self.idf
            self._parts = tuple(bm25_part(idf, f, n, avglen, k1, b) for f, n in zip(self.freqs, self.lengths))
        return self._parts

    def ranked(self, avglen: float, k1: float, b: float) -> list[tuple[float, int]]:
        """``(-score, sid)`` of every section as a one-term query ranks them, best first."""
        if self._ranked is None:
            self._ranked = sorted(zip((-x for x in self.parts(avglen, k1, b)), self.sids))
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
        self.manifest = manifest  # its "build" is the identity every file of this build carries
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

    Each request sees one build: every file it reads is checked against the
    build the manifest it started from names (a rebuilt index makes the request
    start over on the new build), and only then joins the cache, whose size is
    bounded by ``cache_bytes``.
    """

    def __init__(self, source: Source, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        if not is_int(cache_bytes) or cache_bytes < 0:
            raise OkfError("schema_validation", f"cache_bytes must be a non-negative integer, got {json_text(cache_bytes)}")
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
        return stamp, data, self._manifest_of(data)

    @staticmethod
    def _manifest_of(data: bytes) -> dict[str, Any]:
        build, manifest = fmt.unwrap_file("manifest", data)
        manifest = validators.check_manifest("manifest", manifest)  # an older index: index_version_unsupported
        if manifest["build"] != build:
            raise validators.corrupt("manifest", "its build is not the one its wrapper names")
        return manifest

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

    def idf(self, df: int, pages: bool = False) -> float:
        """BM25's idf of a section df (``pages``: of a page df, smart mode's page idf) exactly as
        the build computed it: ``core/index_format.stored_idf`` with the manifest's idf steps."""
        if pages:
            block = validators.check_smart(self.manifest.get("smart"))
            n, key, text = block["pages"], "idf_steps:pages", block["idf_steps"]
        else:
            n, key, text = self.section_count, "idf_steps", self.manifest["idf_steps"]
        steps = self.memo(key, lambda: fmt.read_idf_steps(text))
        if steps is None or not (is_int(df) and 1 <= df <= n):
            raise validators.corrupt("manifest", "a document frequency or the idf steps are out of range")
        return fmt.stored_idf(n, df, steps)

    @property
    def bm25(self) -> tuple[float, float]:
        """``(k1, b)``: the BM25 parameters the build chose (the checked manifest's), which
        every score of this index uses (:func:`okf_sphinx.core.index_format.bm25_part`)."""
        m = self._view().manifest
        return float(m["k1"]), float(m["b"])

    @property
    def cache(self) -> ByteLRU:
        """The cache of the build this reader currently answers from."""
        return self._state.cache

    def consistent(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` answered from one build of the index.

        Every file a call reads must name the manifest's build (:meth:`_read_value`).
        When one names another (the site was rebuilt or redeployed under the call,
        or a cache serves files of two builds), the manifest is read again past any
        cache: if it moved on, this reader moves to the new build and the call is
        made again; if not, the call answers ``index_changed``.
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
                except Exception as exc:
                    # files of two builds can fail the checks (or trip the code that trusts
                    # them): that is a rebuild, not corruption
                    changed = isinstance(exc, OkfError) and exc.code == "index_changed"
                    if request.read and self._moved(state, fresh=changed):
                        continue
                    self._keep(state, request)  # a refusal's files are as good as an answer's
                    raise
                # every file the request read named the manifest's build (format 5): they are that
                # build's, with no second look at the manifest
                self._keep(state, request)
                return result
        finally:
            local.request = None
        raise OkfError(
            "source_unavailable",
            f"the index at {self.source.location} was rebuilt {MAX_ATTEMPTS} times while answering; ask again",
        )

    @staticmethod
    def _keep(state: _State, request: _Request) -> None:
        """Cache what ``request`` read, once the manifest confirmed its build."""
        for key, (value, cost) in request.pending.items():
            state.cache.put(key, value, cost)

    def _moved(self, state: _State, fresh: bool = False) -> bool:
        """Has the manifest changed since ``state`` was read?  If so, move to the new build.
        ``fresh``: read it past any cache between here and the site (a file of another build
        was met: the manifest read before may be the stale one)."""
        stamp = self._stamp()
        if stamp is not None and stamp == state.stamp:
            return False  # the very file read then (a file is never rewritten in place)
        try:
            data = self.source.read("manifest", fresh=True) if fresh else self.source.read("manifest")
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
        manifest = self._manifest_of(data)
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

    def load(self, name: str, check: Callable[[str, Any], T]) -> T:
        """Index file ``name`` (``<name>.js``), read once, unwrapped and passed through
        ``check`` (a :mod:`~okf_sphinx.engine.validators` function), cached with this build."""
        size = 0

        def compute() -> T:
            nonlocal size
            data, value = self._read_value(name)
            size = len(data)
            return check(name, value)

        ratio = _MEMORY_PER_BYTE.get(name.partition("/")[0])
        return self.memo(name, compute, footprint if ratio is None else lambda value: int(size * ratio) + 64)

    def _read_value(self, name: str) -> tuple[bytes, Any]:
        """The bytes and value of index file ``name`` of the build this request answers from:
        its own file, or its part of the bundle ``b/<k>`` the manifest's ``bundles`` puts it in
        (read once for all its parts)."""
        bundles = self.memo("bundles", lambda: validators.bundle_map(self.manifest.get("bundles", [])) or {},
                            lambda m: 64 + 64 * len(m))
        bundle = bundles.get(name)
        if bundle is None:
            return self._read_file(name)
        data, value = self.memo(bundle, lambda: self._read_file(bundle), lambda got: 2 * len(got[0]) + 64)
        if not isinstance(value, dict) or name not in value:
            raise validators.corrupt(bundle, f"it does not hold {name}")
        return data, value[name]

    def _read_file(self, name: str) -> tuple[bytes, Any]:
        """The bytes and value of the file ``<name>.js`` of the build this request answers from.
        A file of another build (a CDN or cache serving a mix of two deployments, a rebuild
        under the request) is read once more past any cache; then it is ``index_changed``,
        which :meth:`consistent` turns into a new attempt when the manifest moved on."""
        want = self._view().manifest["build"]
        data = self.source.read(name)
        build, value = fmt.unwrap_file(name, data)
        if build != want:
            data = self.source.read(name, fresh=True)
            build, value = fmt.unwrap_file(name, data)
        if build != want:
            raise OkfError(
                "index_changed",
                f"index file {name}.js belongs to another build ({build or 'none'}) than manifest.js ({want}): the site was "
                "rebuilt or is being deployed, or a cache serves files of two builds; ask again",
                file=f"{name}.js", build=build, manifest_build=want,
            )
        return data, value

    @property
    def normaliser(self) -> Normaliser:
        def load() -> Normaliser:
            return validators.check_unicode("unicode", self._read_value("unicode")[1])

        # its lists and fold map as the tables hold them, plus compiled patterns
        return self.memo("unicode", load, lambda n: footprint([n._word, n._ln, n._assigned, n._fold]) + 64 * 1024)

    @property
    def stem(self) -> Callable[[str], str] | None:
        """The build's stemmer, when the build stemmed: a term's posting list sits in the shard
        of its stem (format_version 3), so reading the index needs exactly that stemmer."""
        return self.memo("stemmer", self._stemmer, lambda _v: 256)[0]

    def _stemmer(self) -> tuple[Callable[[str], str] | None]:
        from okf_sphinx.core.stemmer import STEMMER_VERSION, stemmer_for

        m = validators.check_stemmer_block(self.manifest.get("smart"))
        if not m["stemmer"]:
            return (None,)
        stem = stemmer_for(m["language"]) if m["stemmer_version"] == STEMMER_VERSION else None
        if stem is None:
            raise OkfError(
                "index_version_unsupported",
                f"this index was built with the {m['stemmer_version']} stemmer for {json_text(m['language'])}, which this "
                f"okf_sphinx does not have (it has {STEMMER_VERSION}): rebuild the site or use the okf_sphinx that built it",
                found=m["stemmer_version"], supported=[STEMMER_VERSION],
            )
        return (stem,)

    def shard_of(self, term: str) -> str:
        """The posting shard ``t/<hex>`` that holds ``term`` (and its stem group)."""
        return self.key_shard(fmt.posting_key(term, self.stem))

    def key_shard(self, key: str) -> str:
        """The posting shard ``t/<hex>`` of posting key ``key`` (a stem group's stem)."""
        m = self._view().manifest
        return fmt.shard_name(key, m["shards"], depths=m.get("shard_depths"))

    def shard(self, name: str) -> dict[str, Any]:
        """A ``t/`` shard: ``{"groups": {stem: [section df, page df, [terms]]}, "terms": {term: postings or [df, [file]]}}``."""
        return self.load(name, validators.check_shard)

    def posting(self, term: str, folder: str = "t", shards: int | None = None) -> Posting | None:
        """The decoded posting list of ``term``, or None when no searchable section has it
        (``folder="x"``: smart mode's identifier postings, in ``shards`` shards)."""
        if folder == "t":
            shard_name = self.shard_of(term)
            entry = self.shard(shard_name)["terms"].get(term)
        else:
            shard_name = fmt.shard_name(term, shards or 1, folder)
            entry = self.load(shard_name, validators.check_entries).get(term)
        if entry is None:
            return None
        def decode() -> Posting:
            digits = entry if isinstance(entry, str) else self.load(check_name(entry[1][0]), validators.check_flat)
            sids, freqs, lengths = validators.check_postings(shard_name, digits, None if isinstance(entry, str) else entry[0],
                                                             self.section_count)
            return Posting(self.idf(len(sids)), len(sids), tuple(sids), tuple(freqs), tuple(lengths))

        key = f"posting:{term}" if folder == "t" else f"posting:{folder}:{term}"
        return self.memo(key, decode, Posting.footprint)

    def section(self, sid: int) -> dict[str, Any]:
        """The record of section ``sid`` (metadata and exact range text), from the
        section file ``s/<k>`` that holds it."""
        if not is_int(sid) or not 0 <= sid < self.sections_all:
            raise OkfError("not_found", f"no section {json_text(sid)} in this index")
        starts = self.memo("section_starts", lambda: fmt.section_starts(self.manifest["section_files"]))
        k = fmt.section_file_of(starts, sid)
        end = starts[k + 1] if k + 1 < len(starts) else self.sections_all
        records = self.load(f"s/{k}", lambda name, chunk: validators.check_sections(name, chunk, starts[k], end))
        return records[sid - starts[k]]

    def concepts(self) -> list[list[Any]]:
        return self.load("concepts", validators.check_concepts)

    def objects(self) -> list[list[Any]]:
        """``objects.js``: ``[name, kind, page number, position in the page, sid]`` by name;
        ``[]`` when the manifest counts no objects (then there is no such file)."""
        if "objects" not in self.manifest:
            return []
        return self.load("objects", validators.check_objects(self.manifest["objects"], self.sections_all))

    def page(self, n: int) -> dict[str, Any]:
        """Page ``n``'s outline: entry ``n mod P`` of ``p/<n div P>`` (P: the manifest's
        ``pages_per_file``)."""
        per = self.manifest["pages_per_file"]
        count = self.manifest["concepts"]
        if not is_int(n) or not 0 <= n < count:
            raise validators.corrupt("concepts", f"a concept refers to page {json_text(n)}, past the {count} pages")
        k = n // per
        want = min(per, count - k * per)
        return self.load(f"p/{k}", validators.check_pages(want))[n % per]

    def files(self) -> list[dict[str, Any]]:
        return self.load("files", validators.check_files(self.snapshot_revision))

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
        ``_sources/``) or from its pack ``f/<pack>`` (its ``parts`` joined with the texts of the
        sections they name), checked against its size and SHA-256 either way."""
        entry = self.files()[n]
        copy = entry.get("copy")
        if copy is None:
            name = f"f/{entry['pack']}"
            pack = self.load(name, validators.check_pack)
            record = next((r for r in pack if r.get("path") == entry["path"]), None)
            if record is None:
                raise validators.corrupt(name, f"the pack does not hold {entry['path']}")

            def joined() -> tuple[bytes, str]:
                if "parts" not in record:
                    return validators.check_file(name, entry, record)
                parts = validators.check_parts(name, record["parts"], self.sections_all)
                text = "".join(p if isinstance(p, str) else self.section(p)["text"] for p in parts)
                return validators.check_file(name, entry, {"path": record["path"], "text": text})

            return self.memo(f"file:{n}", joined, lambda v: len(v[0]) + 64)

        def read() -> tuple[bytes, str]:
            import hashlib

            data = self.source.read_copy(copy)
            if len(data) != entry["size"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
                raise OkfError("index_corrupt", f"the site's copy {copy} of {entry['path']} does not match its SHA-256; "
                               "rebuild the site", file=copy)
            return data, "utf-8"

        return self.memo(f"copy:{n}", read, lambda v: len(v[0]) + 64)

    # -- search_sections ----------------------------------------------------------

    def search(self, query: Any, limit: Any = 20, mode: Any = "keyword", **options: Any) -> dict[str, Any]:
        """``search_sections``: in ``keyword`` mode (the default) the contract's result
        dict (docs/contract.md, "Results"); in ``smart`` mode the page-grouped answer of
        docs/smart.md, which takes the options :data:`okf_sphinx.engine.smart.OPTIONS` (on an
        index with semantic vectors, words and meaning blended); in ``semantic`` mode pages by
        meaning alone (:data:`okf_sphinx.engine.semantic.SEMANTIC_OPTIONS`)."""
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
                raise OkfError("schema_validation", f"search does not take {json_text(unknown[0])}; smart mode takes "
                               f"{', '.join(smart.OPTIONS)}", field=unknown[0])
            if "semantic" in self.manifest:  # words and meaning (engine/semantic.py)
                from . import semantic

                return self.consistent(semantic.blend, self, query, limit, **options)
            return self.consistent(smart.search, self, query, limit, **options)
        if mode == "semantic":
            from . import semantic

            unknown = sorted(k for k in options if k not in semantic.SEMANTIC_OPTIONS)
            if unknown:
                raise OkfError("schema_validation", f"search does not take {json_text(unknown[0])}; semantic mode takes "
                               f"{', '.join(semantic.SEMANTIC_OPTIONS)}", field=unknown[0])
            return self.consistent(semantic.search, self, query, limit, **options)
        raise OkfError("schema_validation", f"mode must be 'keyword', 'smart' or 'semantic', got {json_text(mode)}",
                       field="mode")
