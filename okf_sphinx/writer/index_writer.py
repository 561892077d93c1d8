"""Write-phase: turn the collected records into the index files (docs/index-format.md).

:func:`build_index` is pure (records in, ``{name: value}`` out) so it is
deterministic by construction; :func:`write_index` puts the files on disk
atomically.
"""

from __future__ import annotations

import base64
import errno
import functools
import hashlib
import os
import shutil
import sys
import tempfile
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from okf_sphinx import __version__
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import BuildLimitError, NotAnIndexError, PathLimitError, SourceChangedError
from okf_sphinx.core.lines import LineMap
from okf_sphinx.core.records import CapturedFile, DocRecord, Section, decode, text_encoding
from okf_sphinx.core.terms import terms, unicode_tables

from . import smart_index
from .budget import Budget
from .smart_index import PageSpan, build_links, build_names, build_smart, structure_priors

#: Build-time caps: ten times the reference implementation's per-query caps.
DEFAULT_LIMITS = {
    "files": 100_000,
    "bytes": 640 * 1024 * 1024,
    "file_bytes": 16 * 1024 * 1024,
    "sections": 1_000_000,
    "terms": 10_000_000,
}
#: ``okf_search_limits = "reference"``: the reference implementation's exact caps.
REFERENCE_LIMITS = {
    "files": 10_000,
    "bytes": 64 * 1024 * 1024,
    "file_bytes": 16 * 1024 * 1024,
    "sections": 100_000,
    "terms": 1_000_000,
}
MAX_PATH_BYTES = 4096
MAX_PATH_COMPONENTS = 64
#: File budgets: a small site gets small files (a query reads little); a large one gets
#: larger files, so that the number of files stays about these counts whatever its size.
SECTION_FILES = 1216  # s/<k>: sections, each file ≥ SECTION_FILE_BYTES
SECTION_FILE_BYTES = 4 * 1024
POSTING_FILES = 512  # t/: posting shards plus the big lists' own files
ID_POSTING_FILES = 64  # x/: read only for a query holding an identifier
SHARD_TARGET_BYTES = 2048  # smallest aim of one posting shard, in bytes of JSON before gzip
BIG_POSTING_BYTES = 1024  # smallest size of a posting list that gets a file of its own
PAGE_FILES = 64  # p/<k>: page outlines (read by the agent tools only)
#: f/<k>: captured files the site ships no copy of, packed in runs of about this many bytes
#: (a MkDocs site would otherwise get a file per page; read by the agent tools only)
FILE_PACK_BYTES = 64 * 1024
PAGE_FILE_BYTES = 32 * 1024
MAX_SHARDS = 4096
#: A small or mid-size site gets a total file budget in proportion to its pages: about
#: FILES_PER_PAGE files per page over s/ t/ d/ n/ x/ p/ l/, shared out by these
#: fractions (each folder at least one file, at most its large-site budget above). From
#: about 811 pages on the shares reach those budgets.
#: A file never grows past its folder's largest size for the page budget's sake (a cold
#: browser query reads a few files of s/ t/ d/, so their size bounds its bytes).
FILES_PER_PAGE = 3
FILE_SHARES = {"s": 1 / 2, "t": 5 / 16, "d": 1 / 16, "n": 1 / 16, "x": 1 / 32, "p": 1 / 32, "l": 1 / 32}
SECTION_FILE_MAX_BYTES = 4608
SHARD_MAX_BYTES = 4 * 1024  # t/ shards
ID_SHARD_MAX_BYTES = 8 * 1024  # x/ shards
#: ``okf_search_index_files``: the author's factor on every folder's file counts (and a divisor
#: of the largest sizes): more files, smaller cold queries; fewer files, larger ones.
MIN_FILE_SCALE, MAX_FILE_SCALE = 0.25, 16.0


def check_file_scale(value: Any, name: str = "okf_search_index_files") -> float:
    """The author's file-count factor: a number from 0.25 to 16 (1: the default sizes)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not MIN_FILE_SCALE <= value <= MAX_FILE_SCALE:
        raise ValueError(f"{name} must be a number from {MIN_FILE_SCALE:g} to {MAX_FILE_SCALE:g} "
                         f"(1 = the default file counts), got {value!r}")
    return float(value)

@dataclass
class Site:
    """What the builder knows that the records do not: where pages land."""

    builder: str
    page_url: Callable[[str], str]  # docname -> page URL relative to the site root
    anchor_ok: Callable[[tuple[str, ...]], bool]  # are sections under these `only` exprs rendered?
    search_page: str
    singlehtml: bool = False
    language: str | None = "en"  # Sphinx's ``language``: picks smart mode's stemmer
    page_prior: Callable[[str], float] = lambda docname: 1.0  # smart mode's page weight
    page_meta: Callable[[str], dict[str, Any]] = lambda docname: {}  # smart mode's `meta` filter
    project: str = ""  # conf.py's ``project``: names the site for agents (list_sites, llms.txt)
    #: the site's own cross-references, resolved (okf_sphinx/capture/sphinx/links.py):
    #: ``docname → [(from section, via, to docname, to section)]`` (section = index in the record)
    links: Callable[[], dict[str, list[tuple[int, str, str, int]]]] = lambda: {}
    root_doc: str = ""  # the toctree's root document (page priors: toctree depth)
    #: docname -> toctree depth given by the builder (MkDocs: the nav), instead of walking
    #: toctree links from ``root_doc``; pages not in it count as unreached
    page_depths: dict[str, int] | None = None
    #: captured file's path -> (path relative to the index folder, where it is now) of the copy
    #: the site ships of it (Sphinx's ``_sources/``), or None; used only when its bytes are equal
    source_copy: Callable[[str], tuple[str, Path] | None] = lambda path: None
    file_scale: float = 1.0  # okf_search_index_files: the factor on every folder's file budget


def resolve_limits(value: Any) -> dict[str, int]:
    if value in (None, "default"):
        return dict(DEFAULT_LIMITS)
    if value == "reference":
        return dict(REFERENCE_LIMITS)
    if not isinstance(value, dict) or not all(k in DEFAULT_LIMITS for k in value) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value.values()
    ):
        raise ValueError(
            f"okf_search_limits must be 'default', 'reference' or a dict of positive integers with keys "
            f"{sorted(DEFAULT_LIMITS)}; got {value!r}"
        )
    return {**DEFAULT_LIMITS, **value}


def _check(limit: str, value: int, limits: dict[str, int]) -> None:
    if value > limits[limit]:
        raise BuildLimitError(limit, value, limits[limit])


def source_root(records: list[DocRecord], srcdir: Path, configured: str | None) -> PurePosixPath:
    """The folder captured paths are relative to: ``srcdir`` unless files lie outside it."""
    if configured:
        root = Path(configured)
        base = (srcdir / root if not root.is_absolute() else root).resolve()
    else:
        base = srcdir.resolve()
    paths = [f.path for r in records for f in r.files]
    outside = [p for p in paths if not PurePosixPath(p).is_relative_to(base.as_posix())]
    if outside:
        return PurePosixPath(os.path.commonpath([base.as_posix(), *outside]))
    return PurePosixPath(base.as_posix())


def file_budgets(pages: int, scale: float = 1.0) -> dict[str, Budget]:
    """Each folder's :class:`Budget` for a site of ``pages`` pages (an aim: the packers make
    files larger rather than exceed it; depends on the index content and ``scale`` only):
    ``scale`` multiplies the page budget and the large-site budgets and divides the largest sizes."""
    caps = {"s": SECTION_FILES, "t": POSTING_FILES, "d": smart_index.DICT_FILES,
            "n": smart_index.MAX_SHARDS, "x": ID_POSTING_FILES, "p": PAGE_FILES, "l": MAX_SHARDS}
    largest = {"s": SECTION_FILE_MAX_BYTES, "t": SHARD_MAX_BYTES, "x": ID_SHARD_MAX_BYTES, "p": 0, "l": 0,
               **smart_index.LARGEST_SHARD_BYTES}
    smallest = {"s": SECTION_FILE_BYTES, "t": SHARD_TARGET_BYTES, "x": SHARD_TARGET_BYTES, "p": PAGE_FILE_BYTES,
                "l": smart_index.LINK_TARGET_BYTES, "d": smart_index.DICT_TARGET_BYTES, "n": smart_index.NAME_TARGET_BYTES}
    out = {}
    for k, share in FILE_SHARES.items():
        cap = max(1, int(caps[k] * scale))
        out[k] = Budget(max(1, min(cap, int(FILES_PER_PAGE * scale * pages * share))), cap, int(largest[k] / scale),
                        int(smallest[k] / scale))
    return out


def file_aim(total: int, budget: int, smallest: int, largest: int, cap: int) -> int:
    """The bytes one file of a folder holding ``total`` bytes aims at: ``total / budget``
    (the page budget), but at least ``smallest`` and at most ``largest``, and large enough
    that the folder has at most about ``cap`` files (the large-site budget wins over ``largest``)."""
    return max(smallest, min(largest, -(-total // max(1, budget))), -(-total // max(1, cap)))


@functools.lru_cache(maxsize=4096)  # bounded: a long-lived process (sphinx-autobuild) builds again and again
def _relative(path: str, root: PurePosixPath) -> str:
    return PurePosixPath(path).relative_to(root).as_posix()


def _check_path(rel: str) -> None:
    """A captured path must fit the format's fixed path limits (the reading tools' own)."""
    nbytes = len(rel.encode("utf-8"))
    parts = len(PurePosixPath(rel).parts)
    if nbytes > MAX_PATH_BYTES:
        raise PathLimitError(rel, "bytes in UTF-8", nbytes, MAX_PATH_BYTES)
    if parts > MAX_PATH_COMPONENTS:
        raise PathLimitError(rel, "components", parts, MAX_PATH_COMPONENTS)


def _captured(records: list[DocRecord]) -> dict[str, CapturedFile]:
    files: dict[str, CapturedFile] = {}
    for record in records:  # docname order: the first reader's bytes win, deterministically
        for f in record.files:
            files.setdefault(f.path, f)
    return files


def _check_limits(records: list[DocRecord], files: dict[str, CapturedFile], root: PurePosixPath, limits: dict[str, int]) -> None:
    """Every cap but ``terms`` (known only once sections are counted), before any byte is read."""
    _check("files", len(files), limits)
    total = 0
    for f in files.values():
        _check("file_bytes", f.size, limits)
        total += f.size
        _check_path(_relative(f.path, root))
    _check("bytes", total, limits)
    _check("sections", sum(len(r.sections) for r in records), limits)


def _read_captured(files: dict[str, CapturedFile]) -> dict[str, bytes]:
    """The bytes of every captured file, checked against the digest taken when Sphinx read it."""
    out = {}
    for path, f in files.items():
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise SourceChangedError(path, f"cannot be read any more ({exc.strerror})") from None
        if len(data) != f.size or hashlib.sha256(data).hexdigest() != f.sha256:
            raise SourceChangedError(path, "changed after Sphinx read it")
        out[path] = data
    return out


class PostingLists:
    """Posting lists built section by section in ascending sid order: ``term → [Δsid, f,
    len, …]`` (format: docs/index-format.md), as 32-bit machine integers — one Python int
    object per number would be most of a large site's build memory."""

    def __init__(self) -> None:
        self.lists: dict[str, array[int]] = {}
        self._last: dict[str, int] = {}

    def add(self, sid: int, freqs: dict[str, int], length: int) -> None:
        """Section ``sid`` (above every sid added before) with its weighted frequencies and length."""
        lists, last = self.lists, self._last
        for term, f in freqs.items():
            flat = lists.get(term)
            if flat is None:
                lists[term] = array("i", (sid, f, length))
            else:
                flat.extend((sid - last[term], f, length))
            last[term] = sid


def _section_stats(text: str, heading: str, title_terms: list[str]) -> tuple[dict[str, int], int, int]:
    """``(weighted frequencies, weighted length, unweighted term count)``: body terms weigh 1,
    heading terms 3, page-title terms 2 (SEARCH_CONTRACT.md §4); the count is for the ``terms`` cap."""
    body = terms(text)
    head = terms(heading)
    freqs: Counter[str] = Counter(body)
    for t in head:
        freqs[t] += 3
    for t in title_terms:
        freqs[t] += 2
    return dict(freqs), len(body) + 3 * len(head) + 2 * len(title_terms), len(body) + len(head) + len(title_terms)


def _identifier_freqs(text: str, heading: str, title_idents: list[str]) -> dict[str, int]:
    """Smart mode's identifier frequencies of one section, weighted like terms."""
    freqs: Counter[str] = Counter(fmt.identifiers(text))
    for ident in fmt.identifiers(heading):
        freqs[ident] += 3
    for ident in title_idents:
        freqs[ident] += 2
    return dict(freqs)


def _page_base(site: Site, docname: str) -> str:
    """The URL of a page's sections that have no anchor of their own ("" when the builder
    renders no page for the document): the page, or on a single page the document's start."""
    page = site.page_url(docname)
    return f"{page}#document-{docname}" if page and site.singlehtml else page


def _anchor(site: Site, docname: str, sections: list[Section], i: int, shared: set[str]) -> str:
    """Section ``i``'s anchor: its own when rendered, else the nearest rendered ancestor's
    ("" when none is, or no page is rendered); on a single page an id that several documents
    use is ambiguous there, so none.  Its URL is :func:`fmt.section_url` of the page base."""
    if not site.page_url(docname):
        return ""
    j: int | None = i
    while j is not None:
        s = sections[j]
        if s.anchor and site.anchor_ok(s.only) and s.anchor not in shared:
            return s.anchor
        j = s.parent
    return ""


def _shared_anchors(records: list[DocRecord]) -> set[str]:
    """Section ids that more than one document uses."""
    owners: dict[str, str] = {}
    shared: set[str] = set()
    for record in records:
        for s in record.sections:
            if s.anchor and owners.setdefault(s.anchor, record.docname) != record.docname:
                shared.add(s.anchor)
    return shared


def build_index(
    records: list[DocRecord],
    root: PurePosixPath,
    site: Site,
    limits: dict[str, int],
    progress: Callable[[list[DocRecord]], Iterable[DocRecord]] = iter,
    encoding: str = "utf-8",
) -> dict[str, Any]:
    """Every index file, as ``{name: JSON value}``; ``progress`` wraps the per-page loop;
    sources are decoded as ``encoding`` (Sphinx's ``source_encoding``)."""
    files = _captured(records)
    _check_limits(records, files, root, limits)
    captured = _read_captured(files)
    codec = text_encoding(encoding)
    maps = {path: LineMap(decode(data, codec)) for path, data in captured.items()}
    out: dict[str, Any] = {}

    entries = sorted(
        ({"path": _relative(f.path, root), "size": f.size, "sha256": f.sha256} for f in files.values()),
        key=lambda e: e["path"],
    )
    file_no = {e["path"]: n for n, e in enumerate(entries)}
    out["files"] = entries
    by_rel = {_relative(f.path, root): f for f in files.values()}
    unshipped = []
    for e in entries:
        path = by_rel[e["path"]].path
        copy = _verified_copy(site, path, captured[path], codec)
        if copy is not None:
            e["copy"] = copy
        else:
            unshipped.append((e, _file_record(e["path"], captured[path], codec)))
    _pack_files(out, unshipped, int(FILE_PACK_BYTES / site.file_scale))

    # sids: searchable sections in (concept_id, line_start, path) order, then the rest
    keyed = [(r, i, s, _relative(s.file, root)) for r in records for i, s in enumerate(r.sections)]
    searchable = sorted((k for k in keyed if k[0].searchable), key=lambda k: (k[0].docname, k[2].line_start, k[3]))
    others = sorted((k for k in keyed if not k[0].searchable), key=lambda k: (k[0].docname, k[2].line_start, k[3]))
    n_search = len(searchable)
    sid_of = {(k[0].docname, k[1]): sid for sid, k in enumerate(searchable + others)}

    shared = _shared_anchors(records) if site.singlehtml else set()
    term_postings, id_postings = PostingLists(), PostingLists()
    lengths: list[int] = []
    tokens = 0
    title_terms: dict[str, tuple[list[str], list[str]]] = {}
    page_no = {r.docname: n for n, r in enumerate(records)}
    sections: list[tuple[int, int, list[Any]]] = []  # (page number, file number, row) by sid
    anchors: dict[int, str] = {}
    for sid, (record, i, s, rel) in enumerate(searchable + others):
        anchors[sid] = anchor = _anchor(site, record.docname, record.sections, i, shared)
        text = s.obj.text if s.obj is not None and s.obj.generated else maps[s.file].range_text(s.line_start, s.line_end)
        row = [s.heading, s.level, s.line_start, s.line_end, anchor, text]
        extra = _object_fields(s, full=True)
        if extra:
            row.append(extra)
        sections.append((page_no[record.docname], file_no[rel], row))
        if sid < n_search:
            if record.docname not in title_terms:
                title_terms[record.docname] = (terms(record.title), fmt.identifiers(record.title))
            title, title_idents = title_terms[record.docname]
            freqs, length, count = _section_stats(text, s.heading, title)
            term_postings.add(sid, freqs, length)
            id_postings.add(sid, _identifier_freqs(text, s.heading, title_idents), length)
            lengths.append(length)
            tokens += count
    _check("terms", tokens, limits)
    del captured, maps  # every text the index needs is in `sections` now: free the sources' bytes and line maps

    concepts = []
    pages: list[dict[str, Any]] = []
    for n, record in enumerate(progress(records)):
        paths = sorted({_relative(f.path, root) for f in record.files} & {_relative(s.file, root) for s in record.sections})
        concepts.append([record.docname, record.title, n, record.searchable, paths])
        pages.append({
            "concept_id": record.docname, "title": record.title, "url": site.page_url(record.docname),
            "path": _relative(record.files[0].path, root), "searchable": record.searchable,
            "sections": [
                {"sid": sid_of[(record.docname, i)], "heading": s.heading, "level": s.level, "parent": s.parent,
                 "path": _relative(s.file, root), "line_start": s.line_start, "line_end": s.line_end,
                 "anchor": anchors[sid_of[(record.docname, i)]], **_object_fields(s, full=False)}
                for i, s in enumerate(record.sections)
            ],
        })
    out["concepts"] = concepts
    budgets = file_budgets(len(records), site.file_scale)
    page_rows = [[r.docname, r.title, r.searchable, _page_base(site, r.docname), _relative(r.files[0].path, root)]
                 for r in records]
    section_files = _pack_sections(out, sections, page_rows, entries, budgets["s"])
    pages_per_file = _pack_pages(out, pages, budgets["p"])
    objects = _objects(records, sid_of)
    if objects:  # a site without documented objects gets no objects.js (and no manifest key)
        out["objects"] = objects

    total_len = sum(lengths)
    avglen = total_len / n_search if n_search and total_len else 1.0
    spans = _page_spans(searchable, root, site)
    resolved = site.links()
    outgoing = _section_links(resolved, sid_of, n_search)
    structure_priors(spans, resolved, site.root_doc, site.page_depths)
    smart, groups = build_smart(out, term_postings.lists, lengths, spans, site.language, budgets)
    shards = _write_postings(out, term_postings, n_search, "t", budgets["t"], groups=groups)
    del term_postings  # written: the shards' JSON values hold the lists from here on
    smart["id_shards"] = _write_postings(out, id_postings, n_search, "x", budgets["x"])
    smart["link_firsts"] = build_links(out, outgoing, budgets["l"])
    anchored = {sid_of[(r.docname, i)] for r in records for i, s in enumerate(r.sections) if s.obj is not None and s.anchor}
    names = build_names(out, [row for row in out.get("objects", []) if row[4] in anchored], n_search, budgets["n"])
    if names:  # an index without searchable objects stays what it was
        smart["name_shards"] = names
    tables = unicode_tables()
    out["unicode"] = tables
    out["manifest"] = {
        "format": fmt.FORMAT, "format_version": fmt.FORMAT_VERSION,
        "snapshot_revision": fmt.snapshot_revision(entries), "unicode_version": tables["unicode_version"],
        "sections": n_search, "sections_all": len(keyed), "concepts": len(records), "files": len(entries),
        "avglen": avglen, "k1": fmt.K1, "b": fmt.B, "weights": fmt.WEIGHTS, "shards": shards,
        "section_files": fmt.encode_ints(b - a for a, b in zip(section_files, [*section_files[1:], len(keyed)])),
        "pages_per_file": pages_per_file,
        "builder": site.builder, "search_page": site.search_page, "generator": f"okf_sphinx {__version__}",
        "smart": smart,
        "project": site.project,
        **({"objects": len(out["objects"])} if "objects" in out else {}),
    }
    return out


def _verified_copy(site: Site, path: str, data: bytes, codec: str) -> str | None:
    """The copy of a captured file the site ships (``_sources/``), as a path relative to the
    index folder, when its bytes are exactly the captured ones (and UTF-8 is how the build
    decoded them); else None (the index then holds the file in an ``f/<k>`` pack)."""
    if codec != "utf-8":
        return None
    found = site.source_copy(path)
    if found is None:
        return None
    rel, where = found
    try:
        if not where.is_file() or where.is_symlink() or where.stat().st_size != len(data) or where.read_bytes() != data:
            return None
    except OSError:
        return None
    return rel if fmt.COPY_PATH.match(rel) else None


def _page_aligned_starts(costs: list[int], page_of: list[int], target: int) -> list[int]:
    """The first sid of each section file: whole pages while they fit in a file of about
    ``target`` bytes, a page larger than that in files of its own of about equal size — so
    the hits a smart answer shows of one page mostly share a file.  As many files as
    filling each file up to ``target``, cutting anywhere, would make: the size grows until
    the count is that low."""
    runs: list[tuple[int, int, int]] = []  # (first sid, end sid, bytes) of each page's run of sections
    for sid, cost in enumerate(costs):
        if runs and page_of[sid] == page_of[runs[-1][0]]:
            first, _end, size = runs[-1]
            runs[-1] = (first, sid + 1, size + cost)
        else:
            runs.append((sid, sid + 1, cost))

    def cuts(limit: int, exact: bool) -> list[int]:
        """The first sid of each file for files of about ``limit`` bytes (``exact=False``: a
        larger page's parts all named by its first sid, enough to count them)."""
        starts: list[int] = []
        room = 0
        for first, end, size in runs:
            if size > limit:  # cut into n parts of about size / n bytes
                n = -(-size // limit)
                if exact:
                    part, acc = size / n, 0
                    starts.append(first)
                    for sid in range(first, end):
                        if acc >= part:
                            starts.append(sid)
                            acc = 0
                        acc += costs[sid]
                else:
                    starts += [first] * n
                room = 0
            elif size > room:
                starts.append(first)
                room = limit - size
            else:
                room -= size
        return starts

    aim, size = 0, target
    for cost in costs:  # as many files as filling each up to `target`, cutting anywhere, would make
        if size + cost > target and (size or not aim):
            aim += 1
            size = 0
        size += cost
    lo, hi = target, max(target, sum(costs))
    while lo < hi:  # the smallest size whose files are at most `aim`
        mid = (lo + hi) // 2
        if len(cuts(mid, False)) > aim:
            lo = mid + 1
        else:
            hi = mid
    return cuts(lo, True)


def _pack_sections(out: dict[str, Any], sections: list[tuple[int, int, list[Any]]], page_rows: list[list[Any]],
                   entries: list[dict[str, Any]], budget: Budget | None = None) -> list[int]:
    """``s/<k>``: consecutive sids, about :data:`SECTION_FILE_BYTES` of JSON each (more when
    that would make more than about ``budget`` files), with the rows of the pages
    (``[concept_id, title, searchable, base URL, path]``) and files they refer to; returns
    the first sid of each file."""
    costs = [48 + sum(len(v) for v in row[:6] if isinstance(v, str)) + (len(str(row[6])) if len(row) > 6 else 0)
             for _page, _file, row in sections]
    b = budget or Budget(SECTION_FILES, SECTION_FILES, SECTION_FILE_MAX_BYTES, SECTION_FILE_BYTES)
    starts = _page_aligned_starts(costs, [page for page, _file, _row in sections],
                                  file_aim(sum(costs), b.files, b.smallest, b.largest, b.cap))
    for k, first in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(sections)
        pages: dict[int, int] = {}
        files: dict[int, int] = {}
        rows = []
        for page, file, row in sections[first:end]:
            rows.append([pages.setdefault(page, len(pages)), files.setdefault(file, len(files)), *row])
        out[f"s/{k}"] = {
            "first": first,
            "pages": [page_rows[p] for p in pages],
            "files": [fmt.file_row(entries[f]["path"], entries[f]["sha256"]) for f in files],
            "sections": rows,
        }
    return starts


def _pack_pages(out: dict[str, Any], pages: list[dict[str, Any]], budget: Budget | None = None) -> int:
    """``p/<k>``: the outlines of pages ``k·P … k·P + P − 1``; returns P, chosen so a file
    holds about :data:`PAGE_FILE_BYTES` of JSON (more, past about ``budget`` files)."""
    size = sum(200 + sum(80 + len(s["heading"]) + len(s["path"]) + len(s["anchor"]) for s in p["sections"]) for p in pages)
    b = budget or Budget(PAGE_FILES, PAGE_FILES, 0, PAGE_FILE_BYTES)
    target = max(b.smallest, -(-size // max(1, b.files)))
    per_file = max(1, len(pages) * target // max(size, 1))
    for k in range(0, len(pages), per_file):
        out[f"p/{k // per_file}"] = pages[k : k + per_file]
    return per_file


def _pack_files(out: dict[str, Any], unshipped: list[tuple[dict[str, Any], dict[str, str]]], target: int) -> None:
    """``f/<k>``: ``{"files": [record, …]}`` for runs of consecutive captured files (in
    ``files.js`` order) of about ``target`` bytes, each entry of ``files.js`` naming its
    file as ``"pack": k`` (a file larger than ``target`` has a file of its own)."""
    k, size = -1, target
    for entry, record in unshipped:
        cost = 32 + len(record["path"]) + len(record.get("text") or record.get("base64") or "")
        if size + cost > target and size:
            k += 1
            size = 0
            out[f"f/{k}"] = {"files": []}
        out[f"f/{k}"]["files"].append(record)
        entry["pack"] = k
        size += cost


def _file_record(path: str, data: bytes, codec: str) -> dict[str, str]:
    """One captured file in an ``f/<k>`` pack: the bytes as UTF-8 text when that is what they are, else base64
    (with the project's ``encoding`` when it is not UTF-8, so readers decode as Sphinx did)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and (codec == "utf-8" or data.decode(codec, "replace") == text):
        return {"path": path, "text": text}
    record = {"path": path, "base64": base64.b64encode(data).decode("ascii")}
    if codec != "utf-8":
        record["encoding"] = codec
    return record


def _object_fields(s: Section, full: bool) -> dict[str, Any]:
    """The documented-object fields of a section record (none for an ordinary section,
    so an index without objects is what it was before objects were sections)."""
    fields: dict[str, Any] = {}
    if s.continued:
        fields["continued"] = True
    if s.obj is None:
        return fields
    fields.update({"kind": s.obj.kind, "name": s.obj.name})
    if full:
        fields["signature"] = s.obj.signature
    if s.obj.generated:
        fields["generated"] = True
    return fields


def _objects(records: list[DocRecord], sid_of: dict[tuple[str, int], int]) -> list[list[Any]]:
    """``objects.js``: ``[name, kind, page number, position in the page, sid]`` of every
    documented object's own section (not its continuations), by name then sid."""
    rows = [
        [s.obj.name, s.obj.kind, n, i, sid_of[(record.docname, i)]]
        for n, record in enumerate(records)
        for i, s in enumerate(record.sections)
        if s.obj is not None and not s.continued
    ]
    rows.sort(key=lambda r: (r[0], r[4]))
    return rows


def _section_links(resolved: dict[str, list[tuple[int, str, str, int]]], sid_of: dict[tuple[str, int], int],
                   n: int) -> list[list[list[Any]]]:
    """``[[to sid, via], …]`` per searchable sid: links between searchable sections, in document
    order, the first link to each target kept, none to the section itself."""
    out: list[list[list[Any]]] = [[] for _ in range(n)]
    for docname in sorted(resolved):
        for i, via, to_doc, j in resolved[docname]:
            a, b = sid_of.get((docname, i)), sid_of.get((to_doc, j))
            if a is None or b is None or a >= n or b >= n or a == b or any(e[0] == b for e in out[a]):
                continue
            out[a].append([b, via])
    return out


def _page_spans(searchable: list[tuple[DocRecord, int, Section, str]], root: PurePosixPath, site: Site) -> list[PageSpan]:
    """The searchable pages in sid order: each page's sections are consecutive sids."""
    spans: list[PageSpan] = []
    for sid, (record, _i, _s, _rel) in enumerate(searchable):
        if spans and searchable[spans[-1].first][0] is record:
            spans[-1].count += 1
        else:
            d = record.docname
            spans.append(PageSpan(sid, 1, _relative(record.files[0].path, root), d, site.page_prior(d), site.page_meta(d)))
    return spans


def _write_postings(out: dict[str, Any], built: PostingLists, n: int, folder: str = "t",
                    budget: Budget | None = None, groups: dict[str, list[Any]] | None = None) -> int:
    """Posting shards (``t/`` terms, ``x/`` identifiers) into ``out``; returns the shard count.

    ``t/`` shards hold ``{"groups": {stem: group}, "terms": {term: entry}}``: a term sits in
    the shard of the stem group that lists it (:func:`fmt.posting_key`), beside that group,
    so one file holds every form of a word; ``x/`` shards are ``{identifier: entry}``."""
    postings = built.lists
    group_of = {term: g for g, e in (groups or {}).items() for term in e[2]}
    encoded = {t: fmt.encode_ints(p) for t, p in postings.items()}
    sizes = {t: len(e) + 2 for t, e in encoded.items()}
    group_sizes = {g: len(g) + 48 + sum(len(t) + 3 for t in e[2]) for g, e in (groups or {}).items()}
    # about `budget` files: shards of `target` bytes, lists over half of that in files of their own
    b = budget or (Budget(ID_POSTING_FILES, ID_POSTING_FILES, ID_SHARD_MAX_BYTES, SHARD_TARGET_BYTES) if folder == "x"
                   else Budget(POSTING_FILES, POSTING_FILES, SHARD_MAX_BYTES, SHARD_TARGET_BYTES))
    whole = sum(len(t) + 32 + p for t, p in sizes.items()) + sum(group_sizes.values())
    target = file_aim(whole, b.files, b.smallest, b.largest, b.cap)
    big_bytes = max(BIG_POSTING_BYTES, target // 2)
    size = sum(len(t) + 32 + p for t, p in sizes.items() if p <= big_bytes) + sum(group_sizes.values())
    shards = min(max(1, -(-size // target)), MAX_SHARDS)
    content: dict[str, dict[str, Any]] = defaultdict(dict)
    big: dict[str, int] = defaultdict(int)
    keyed = folder == "t"
    for term in sorted(postings):
        df = len(postings[term]) // 3
        idf = fmt.idf(n, df)
        name = fmt.shard_name(group_of.get(term, term), shards, folder)
        if sizes[term] > big_bytes:
            ref = f"{name}-{big[name]}"
            big[name] += 1
            out[ref] = encoded[term]
            entry = [idf, df, [ref]]
        else:
            entry = [idf, df, encoded[term]]
        (content[name].setdefault("terms", {}) if keyed else content[name])[term] = entry
    for g in sorted(groups or {}):
        content[fmt.shard_name(g, shards, folder)].setdefault("groups", {})[g] = groups[g]  # type: ignore[index]
    for k in range(shards):
        shard = content.get(f"{folder}/{k:x}", {})
        out[f"{folder}/{k:x}"] = {"groups": shard.get("groups", {}), "terms": shard.get("terms", {})} if keyed else shard
    return shards


def is_index_folder(target: Path) -> bool:
    """Is ``target`` a folder this extension wrote (an empty one, or one whose
    ``manifest.js`` has the okfLoad wrapper)?  Links are never followed."""
    if target.is_symlink() or not target.is_dir():
        return False
    manifest = target / "manifest.js"
    if manifest.is_symlink() or not manifest.is_file():
        return not any(target.iterdir())
    with manifest.open("rb") as f:
        return f.read(len(_MANIFEST_HEAD)) == _MANIFEST_HEAD


_MANIFEST_HEAD = fmt.wrap("manifest", None)[: -len(b"null);\n")]


def remove_index(target: Path) -> None:
    """Remove an index folder (stale or partial) without following links.

    Only what this extension wrote is removed: a link is unlinked (its target
    untouched); a file, or a folder that is not an okf_sphinx index, is left as
    it is and refused with :class:`NotAnIndexError`.
    """
    if target.is_symlink():
        target.unlink()
    elif is_index_folder(target):
        shutil.rmtree(target)
    elif target.exists():
        raise NotAnIndexError(target)


def write_index(target: Path, files: dict[str, Any]) -> int:
    """Write ``files`` as ``target/<name>.js`` and swap them in atomically; returns the
    bytes written.

    The files go to a temporary sibling folder, the manifest last with the
    ``index_revision`` of the others; then that folder takes ``target``'s place
    in one step (``renameat2(RENAME_EXCHANGE)`` on Linux), so a reader sees the
    old index or the new one, never none or a mix.  Where the exchange is not
    available the old folder is renamed aside and the new one renamed in: two
    steps, between which readers wait for the manifest (see DiskSource).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and not target.is_symlink() and not is_index_folder(target):
        raise NotAnIndexError(target)  # never swap out (and then delete) a folder okf did not write
    tmp = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=target.parent))
    written = 0
    try:
        dirs: set[Path] = set()
        revision = hashlib.sha256()
        for name in sorted(files):
            if name == "manifest":
                continue
            path = tmp / f"{name}.js"
            if path.parent not in dirs:
                path.parent.mkdir(parents=True, exist_ok=True)
                dirs.add(path.parent)
            data = fmt.wrap(name, files[name])
            revision.update(f"{name}\n{len(data)}\n".encode())
            revision.update(data)
            path.write_bytes(data)
            written += len(data)
        manifest = {**files["manifest"], "index_revision": revision.hexdigest()}
        files["manifest"] = manifest
        data = fmt.wrap("manifest", manifest)
        (tmp / "manifest.js").write_bytes(data)
        written += len(data)
        os.chmod(tmp, 0o755)
        _swap_in(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return written


def index_revision(index_dir: Path) -> str:
    """The ``index_revision`` of the files under ``index_dir`` (all but the manifest),
    as :func:`write_index` computes it."""
    names = sorted(
        p.relative_to(index_dir).as_posix()[: -len(".js")]
        for p in index_dir.rglob("*.js") if p.is_file()
    )
    revision = hashlib.sha256()
    for name in names:
        if name == "manifest":
            continue
        data = (index_dir / f"{name}.js").read_bytes()
        revision.update(f"{name}\n{len(data)}\n".encode())
        revision.update(data)
    return revision.hexdigest()


STAGING_PREFIX = fmt.STAGING_PREFIX
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two folders (Linux ``renameat2``); False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # noqa: PLC0415

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # the file system (or kernel) cannot exchange
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(new: Path, target: Path) -> None:
    if target.is_dir() and not target.is_symlink():
        if _exchange(new, target):
            shutil.rmtree(new)  # now the old index
            return
        old = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=target.parent))
        os.rename(target, old / "old")  # the window: readers wait for the manifest
        os.rename(new, target)
        shutil.rmtree(old)
        return
    remove_index(target)
    os.replace(new, target)
