"""Write-phase: turn the collected records into the index files (docs/index-format.md).

:func:`build_index` is pure (records in, ``{name: value}`` out) so it is
deterministic by construction; :func:`write_index` puts the files on disk
atomically.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import math
import os
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from . import __version__
from . import format as fmt
from .errors import BuildLimitError, NotAnIndexError, PathLimitError, SourceChangedError
from .lines import LineMap
from .sections import CapturedFile, DocRecord, Section, decode, text_encoding
from .terms import terms, unicode_tables

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
SHARD_TARGET_BYTES = 2048  # aim: one posting shard ≈ 2 KB of JSON before gzip
BIG_POSTING_BYTES = 1024  # a posting list larger than this gets a file of its own


@dataclass
class Site:
    """What the builder knows that the records do not: where pages land."""

    builder: str
    page_url: Callable[[str], str]  # docname -> page URL relative to the site root
    anchor_ok: Callable[[tuple[str, ...]], bool]  # are sections under these `only` exprs rendered?
    search_page: str
    singlehtml: bool = False


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


@functools.lru_cache(maxsize=None)
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


@dataclass
class _Stats:
    freqs: dict[str, int]  # weighted term frequencies
    length: int  # weighted length
    tokens: int  # unweighted term count (the ``terms`` cap)


def _section_stats(text: str, heading: str, title_terms: list[str]) -> _Stats:
    """Body terms weigh 1, heading terms 3, page-title terms 2 (SEARCH_CONTRACT.md §4)."""
    body = terms(text)
    head = terms(heading)
    freqs: Counter[str] = Counter(body)
    for t in head:
        freqs[t] += 3
    for t in title_terms:
        freqs[t] += 2
    return _Stats(dict(freqs), len(body) + 3 * len(head) + 2 * len(title_terms), len(body) + len(head) + len(title_terms))


def _url(site: Site, docname: str, sections: list[Section], i: int, shared: set[str]) -> tuple[str, str]:
    """(url, anchor) for section ``i``: its own anchor when rendered, else the nearest
    rendered ancestor's; on a single page, an id that several documents use is
    ambiguous there, so the document's own start is used instead."""
    page = site.page_url(docname)
    if not page:
        return "", ""  # the builder renders no page for this document
    j: int | None = i
    while j is not None:
        s = sections[j]
        if s.anchor and site.anchor_ok(s.only) and s.anchor not in shared:
            return f"{page}#{s.anchor}", s.anchor
        j = s.parent
    if site.singlehtml:
        return f"{page}#document-{docname}", ""
    return page, ""


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
    for e in entries:
        data = captured[by_rel[e["path"]].path]
        out[f"f/{file_no[e['path']]}"] = _file_record(e["path"], data, codec)

    # sids: searchable sections in (concept_id, line_start, path) order, then the rest
    keyed = [(r, i, s, _relative(s.file, root)) for r in records for i, s in enumerate(r.sections)]
    searchable = sorted((k for k in keyed if k[0].searchable), key=lambda k: (k[0].docname, k[2].line_start, k[3]))
    others = sorted((k for k in keyed if not k[0].searchable), key=lambda k: (k[0].docname, k[2].line_start, k[3]))
    n_search = len(searchable)
    sid_of = {(k[0].docname, k[1]): sid for sid, k in enumerate(searchable + others)}

    shared = _shared_anchors(records) if site.singlehtml else set()
    stats: list[_Stats] = []
    title_terms: dict[str, list[str]] = {}
    for sid, (record, i, s, rel) in enumerate(searchable + others):
        url, anchor = _url(site, record.docname, record.sections, i, shared)
        text = maps[s.file].range_text(s.line_start, s.line_end)
        out[f"s/{sid}"] = {
            "sid": sid, "concept_id": record.docname, "title": record.title, "path": rel,
            "heading": s.heading, "level": s.level, "line_start": s.line_start, "line_end": s.line_end,
            "locator": fmt.locator(rel, s.line_start, s.line_end), "content_sha256": files[s.file].sha256,
            "url": url, "anchor": anchor, "searchable": record.searchable, "text": text,
        }
        if sid < len(searchable):
            if record.docname not in title_terms:
                title_terms[record.docname] = terms(record.title)
            stats.append(_section_stats(text, s.heading, title_terms[record.docname]))
    _check("terms", sum(st.tokens for st in stats), limits)

    concepts = []
    for n, record in enumerate(progress(records)):
        paths = sorted({_relative(f.path, root) for f in record.files} & {_relative(s.file, root) for s in record.sections})
        concepts.append([record.docname, record.title, n, record.searchable, paths])
        out[f"p/{n}"] = {
            "concept_id": record.docname, "title": record.title, "url": site.page_url(record.docname),
            "path": _relative(record.files[0].path, root), "searchable": record.searchable,
            "sections": [
                {"sid": sid_of[(record.docname, i)], "heading": s.heading, "level": s.level, "parent": s.parent,
                 "path": _relative(s.file, root), "line_start": s.line_start, "line_end": s.line_end,
                 "anchor": out[f"s/{sid_of[(record.docname, i)]}"]["anchor"]}
                for i, s in enumerate(record.sections)
            ],
        }
    out["concepts"] = concepts

    total_len = sum(st.length for st in stats)
    avglen = total_len / n_search if n_search and total_len else 1.0
    shards = _write_postings(out, stats, n_search)
    tables = unicode_tables()
    out["unicode"] = tables
    out["manifest"] = {
        "format": fmt.FORMAT, "format_version": fmt.FORMAT_VERSION,
        "snapshot_revision": fmt.snapshot_revision(entries), "unicode_version": tables["unicode_version"],
        "sections": n_search, "sections_all": len(keyed), "concepts": len(records), "files": len(entries),
        "avglen": avglen, "k1": fmt.K1, "b": fmt.B, "weights": fmt.WEIGHTS, "shards": shards,
        "builder": site.builder, "search_page": site.search_page, "generator": f"okf_sphinx {__version__}",
    }
    return out


def _file_record(path: str, data: bytes, codec: str) -> dict[str, str]:
    """``f/<n>``: the bytes as UTF-8 text when that is what they are, else base64
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


def _write_postings(out: dict[str, Any], sections: Iterable[_Stats], n: int) -> int:
    """Posting shards into ``out``; returns the shard count."""
    postings: dict[str, list[int]] = defaultdict(list)
    last: dict[str, int] = {}
    for sid, s in enumerate(sections):
        for term, f in s.freqs.items():
            flat = postings[term]
            flat.extend((sid - last.get(term, 0) if flat else sid, f, s.length))
            last[term] = sid
    size = sum(len(t) + 24 + 6 * min(len(p), BIG_POSTING_BYTES // 6) for t, p in postings.items())
    shards = 1
    while size / shards > SHARD_TARGET_BYTES and shards < 4096:
        shards *= 2
    content: dict[str, dict[str, Any]] = defaultdict(dict)
    big: dict[str, int] = defaultdict(int)
    for term in sorted(postings):
        flat = postings[term]
        df = len(flat) // 3
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        name = fmt.shard_name(term, shards)
        if len(fmt.canonical_json(flat)) > BIG_POSTING_BYTES:
            ref = f"{name}-{big[name]}"
            big[name] += 1
            out[ref] = flat
            content[name][term] = [idf, df, ref]
        else:
            content[name][term] = [idf, df, flat]
    for k in range(shards):
        out[f"t/{k:x}"] = content.get(f"t/{k:x}", {})
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
    """Write ``files`` as ``target/<name>.js`` atomically; returns the bytes written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".okf-", dir=target.parent))
    written = 0
    try:
        dirs: set[Path] = set()
        for name in sorted(files):
            path = tmp / f"{name}.js"
            if path.parent not in dirs:
                path.parent.mkdir(parents=True, exist_ok=True)
                dirs.add(path.parent)
            data = fmt.wrap(name, files[name])
            path.write_bytes(data)
            written += len(data)
        os.chmod(tmp, 0o755)
        remove_index(target)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return written
