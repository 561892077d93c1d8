"""Write-phase: turn the collected records into the index files (docs/index-format.md).

:func:`build_index` is pure (records in, ``{name: value}`` out) so it is
deterministic by construction: it reads the captured files (checked against the
digests the host took), orders the sections (their sids), builds each section's
row and statistics, then has every table of the format made by its own helper —
each returns its files, nothing fills a shared dict.  :mod:`.disk` puts the
files on disk atomically; :mod:`.packing` cuts the tables into files of the
sizes :mod:`.sizing` gives.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from okf_sphinx import __version__
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core import segment
from okf_sphinx.core.errors import SourceChangedError
from okf_sphinx.core.hosts import Host
from okf_sphinx.core.records import CapturedFile, DocRecord, Section, decode, lexical, text_encoding
from okf_sphinx.core.lines import LineMap
from okf_sphinx.core.terms import terms, unicode_tables

from .limits import check_cap, check_captured
from .link_labels import attach_labels, label_counts
from .packing import (
    PostingLists,
    SectionRow,
    file_record,
    pack_files,
    pack_pages,
    pack_sections,
    posting_shards,
    shared_parts,
)
from .sizing import FILE_PACK_BYTES, file_budgets
from .smart_index import PageSpan, build_headings, build_links, build_names, build_smart, structure_priors


@dataclass(kw_only=True)
class Site:
    """What the builder knows that the records do not: where pages land."""

    host: Host  # the generator, as build errors name its settings
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
    #: the terms of the labels of links to the site's other pages: ``docname → [(section, terms)]``
    #: (a label's words describe the target page; smart mode weighs them less where they stand)
    link_labels: Callable[[], dict[str, list[tuple[int, list[str]]]]] = lambda: {}
    root_doc: str = ""  # the toctree's root document (page priors: toctree depth)
    #: docname -> toctree depth given by the builder (MkDocs: the nav), instead of walking
    #: toctree links from ``root_doc``; pages not in it count as unreached
    page_depths: dict[str, int] | None = None
    #: captured file's path -> (path relative to the index folder, where it is now) of the copy
    #: the site ships of it (Sphinx's ``_sources/``), or None; used only when its bytes are equal
    source_copy: Callable[[str], tuple[str, Path] | None] = lambda path: None
    file_scale: float = 1.0  # okf_search_index_files: the factor on every folder's file budget


#: Where a captured file from outside the project is published: ``_outside/<digest>/<name>``
#: (the first 12 hex digits of its SHA-256), a path that names no folder of the build machine.
OUTSIDE_DIR = "_outside"
#: What marks a project's folder (a repository, a Python project): captured paths may climb
#: to it from the source folder, never above it.
PROJECT_MARKERS = (".git", ".hg", ".svn", ".bzr", "pyproject.toml", "setup.py", "setup.cfg")


class SourceRoot:
    """The folder captured paths are relative to, and the published path of every file:
    its path below ``root``, or — for a file outside it — ``_outside/<digest>/<name>``
    (:data:`OUTSIDE_DIR`), so that no published path names a folder of the build machine
    and such a file never moves the other files' paths."""

    def __init__(self, root: PurePosixPath | str, files: dict[str, CapturedFile] | None = None) -> None:
        self.root = PurePosixPath(root)
        self._sha = {path: f.sha256 for path, f in (files or {}).items()}
        self._paths: dict[str, str] = {}

    def relative(self, path: str) -> str:
        """``path`` (a captured file's, :func:`~okf_sphinx.core.records.lexical`) as published."""
        found = self._paths.get(path)
        if found is None:
            p = PurePosixPath(path)
            if p.is_relative_to(self.root):
                found = p.relative_to(self.root).as_posix()
            else:
                found = f"{OUTSIDE_DIR}/{self._sha[path][:12]}/{p.name}"
            self._paths[path] = found
        return found


def project_folder(start: Path | str, fallback: Path | str) -> PurePosixPath:
    """The project a site's sources belong to: the nearest folder at or above ``start`` that
    holds one of :data:`PROJECT_MARKERS`, else ``fallback`` (never the file system's root)."""
    folder = PurePosixPath(lexical(start))
    for candidate in (folder, *folder.parents):
        if candidate == candidate.parent:
            break
        if any(os.path.lexists(os.path.join(candidate, marker)) for marker in PROJECT_MARKERS):
            return candidate
    found = PurePosixPath(lexical(fallback))
    return folder if found == found.parent else found


def source_root(records: list[DocRecord], srcdir: Path, configured: str | None,
                project: PurePosixPath | None = None) -> SourceRoot:
    """Where captured paths are relative to: ``configured`` (relative to ``srcdir``) when
    given, else ``srcdir`` — widened to the nearest folder that also holds the files read
    from outside it, as long as they lie in the ``project`` folder (default: ``srcdir``'s
    :func:`project_folder`, else its parent).  Every path is where the generator sees the
    file (:func:`~okf_sphinx.core.records.lexical`: a symbolic link keeps its own path); a
    file beyond that is published as ``_outside/<digest>/<name>`` and moves no other path."""
    files = _captured(records)
    if configured:
        return SourceRoot(lexical(Path(srcdir) / configured), files)
    base = PurePosixPath(lexical(srcdir))
    if project is None:
        project = project_folder(base, Path(base).parent)
    outside = [p for p in files if not PurePosixPath(p).is_relative_to(base) and PurePosixPath(p).is_relative_to(project)]
    if outside:
        return SourceRoot(os.path.commonpath([base.as_posix(), *outside]), files)
    return SourceRoot(base, files)


def _relative(path: str, root: SourceRoot) -> str:
    return root.relative(path)


def _captured(records: list[DocRecord]) -> dict[str, CapturedFile]:
    files: dict[str, CapturedFile] = {}
    for record in records:  # docname order: the first reader's bytes win, deterministically
        for f in record.files:
            files.setdefault(f.path, f)
    return files


def _read_captured(files: dict[str, CapturedFile], host: Host) -> dict[str, bytes]:
    """The bytes of every captured file, checked against the digest taken when the host read it."""
    out = {}
    for path, f in files.items():
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise SourceChangedError(path, f"cannot be read any more ({exc.strerror})", host) from None
        if len(data) != f.size or hashlib.sha256(data).hexdigest() != f.sha256:
            raise SourceChangedError(path, f"changed after {host.name} read it", host)
        out[path] = data
    return out


def _section_stats(text: str, heading: str, title_terms: list[str]) -> tuple[dict[str, int], int, int]:
    """``(weighted frequencies, weighted length, unweighted term count)``: body terms weigh 1,
    heading terms 3, page-title terms 2 (docs/contract.md, "Ranking"); the count is for the ``terms`` cap."""
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


class Placed(NamedTuple):
    """A section of a record, at its place in sid order."""

    record: DocRecord
    position: int  # in record.sections
    section: Section
    path: str  # its captured file's path relative to the source root


def _sid_order(records: list[DocRecord], root: SourceRoot) -> tuple[list[Placed], int]:
    """Every section in sid order — searchable ones by (concept id, first line, path), then
    the rest in the same order — and how many are searchable."""
    placed = [Placed(r, i, s, _relative(s.file, root)) for r in records for i, s in enumerate(r.sections)]
    searchable = sorted((p for p in placed if p.record.searchable), key=lambda p: (p.record.docname, p.section.line_start, p.path))
    others = sorted((p for p in placed if not p.record.searchable), key=lambda p: (p.record.docname, p.section.line_start, p.path))
    return searchable + others, len(searchable)


def _file_table(files: dict[str, CapturedFile], captured: dict[str, bytes], root: SourceRoot, site: Site,
                codec: str) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], dict[str, Any]]]]:
    """``files.js`` (every captured file by path: size, SHA-256, and the site's ``copy`` of it
    when it ships one) and the records of the files it does not ship (for the ``f/<k>`` packs)."""
    by_rel: dict[str, CapturedFile] = {}
    for f in files.values():  # two files from outside with equal names and bytes are published once
        by_rel.setdefault(_relative(f.path, root), f)
    entries = sorted(({"path": rel, "size": f.size, "sha256": f.sha256} for rel, f in by_rel.items()),
                     key=lambda e: e["path"])
    unshipped = []
    for e in entries:
        path = by_rel[e["path"]].path
        copy = _verified_copy(site, path, captured[path], codec)
        if copy is not None:
            e["copy"] = copy
        else:
            unshipped.append((e, file_record(e["path"], captured[path], codec)))
    return entries, unshipped


def _share_texts(unshipped: list[tuple[dict[str, Any], dict[str, Any]]], rows: list[SectionRow],
                 file_no: dict[str, int]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The pack records of ``unshipped`` with each file's text written as ``parts`` where its
    sections' rows (``s/``) already hold it: a section's exact range text is named by its sid,
    not stored twice (index format 6; the reader joins the parts and checks the SHA-256)."""
    spans: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    wanted = {file_no[e["path"]] for e, record in unshipped if "text" in record}
    for sid, r in enumerate(rows):
        if r.file in wanted:
            spans[r.file].append((r.row[2], sid, r.row[5]))
    out = []
    for entry, record in unshipped:
        n = file_no[entry["path"]]
        if n in spans:
            starts = LineMap(record["text"]).starts
            placed = sorted((starts[line - 1], sid, text) for line, sid, text in spans[n] if 0 < line <= len(starts))
            parts = shared_parts(record["text"], placed)
            if parts is not None:
                record = {"path": record["path"], "parts": parts}
        out.append((entry, record))
    return out


@dataclass
class _Sections:
    """What one pass over the sections in sid order gives: each section's row and anchor, and
    the searchable ones' posting lists and lengths."""

    rows: list[SectionRow]
    anchors: list[str]  # by sid
    terms: PostingLists
    identifiers: PostingLists
    lengths: list[int]  # weighted lengths of the searchable sections
    tokens: int  # unweighted term count (the ``terms`` cap)


def _section_rows(order: list[Placed], searchable: int, records: list[DocRecord], site: Site,
                  maps: dict[str, LineMap], file_no: dict[str, int]) -> _Sections:
    shared = _shared_anchors(records) if site.singlehtml else set()
    segmenter = segment.segmenter_for(site.language)
    page_no = {r.docname: n for n, r in enumerate(records)}
    title_terms: dict[str, tuple[list[str], list[str]]] = {}
    out = _Sections([], [], PostingLists(), PostingLists(), [], 0)
    for sid, (record, i, s, rel) in enumerate(order):
        anchor = _anchor(site, record.docname, record.sections, i, shared)
        out.anchors.append(anchor)
        text = _section_text(s, maps)
        row = [s.heading, s.level, s.line_start, s.line_end, anchor, text]
        extra = _object_fields(s, full=True)
        if extra:
            row.append(extra)
        out.rows.append(SectionRow(page_no[record.docname], file_no[rel], row))
        if sid < searchable:
            if record.docname not in title_terms:
                title_terms[record.docname] = (terms(record.title), fmt.identifiers(record.title))
            title, title_idents = title_terms[record.docname]
            freqs, length, count = _section_stats(text, s.heading, title)
            if segmenter:
                freqs.update(segment.part_freqs(freqs))
            out.terms.add(sid, freqs, length)
            out.identifiers.add(sid, _identifier_freqs(text, s.heading, title_idents), length)
            out.lengths.append(length)
            out.tokens += count
    return out


def _pages(records: list[DocRecord], root: SourceRoot, site: Site, sid_of: dict[tuple[str, int], int],
           anchors: list[str], progress: Callable[[list[DocRecord]], Iterable[DocRecord]]) -> tuple[list[list[Any]], list[dict[str, Any]]]:
    """``concepts.js`` (``[concept id, title, page number, searchable, paths]``) and every page's outline."""
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
    return concepts, pages


def build_index(
    records: list[DocRecord],
    root: SourceRoot | PurePosixPath,
    site: Site,
    limits: dict[str, int],
    progress: Callable[[list[DocRecord]], Iterable[DocRecord]] = iter,
    encoding: str = "utf-8",
    vectors: bool = False,
) -> dict[str, Any]:
    """Every index file, as ``{name: JSON value}``; ``progress`` wraps the per-page loop;
    sources are decoded as ``encoding`` (Sphinx's ``source_encoding``); ``vectors``: semantic
    vectors will be added (writer/semantic_index.py), so ``t/`` is sized for questions
    (:data:`~okf_sphinx.writer.sizing.VECTOR_POSTING_SCALE`)."""
    files = _captured(records)
    if not isinstance(root, SourceRoot):
        root = SourceRoot(root, files)
    check_captured(records, files, lambda path: _relative(path, root), limits, site.host)
    captured = _read_captured(files, site.host)
    codec = text_encoding(encoding)
    maps = {path: LineMap(decode(data, codec)) for path, data in captured.items()}
    out: dict[str, Any] = {}

    entries, unshipped = _file_table(files, captured, root, site, codec)
    out["files"] = entries

    order, n_search = _sid_order(records, root)
    sid_of = {(p.record.docname, p.position): sid for sid, p in enumerate(order)}
    file_no = {e["path"]: n for n, e in enumerate(entries)}
    table = _section_rows(order, n_search, records, site, maps, file_no)
    check_cap("terms", table.tokens, limits, site.host)
    out.update(pack_files(_share_texts(unshipped, table.rows, file_no), int(FILE_PACK_BYTES / site.file_scale)))
    del captured, maps  # every text the index needs is in `table.rows` now: free the sources' bytes and line maps

    out["concepts"], pages = _pages(records, root, site, sid_of, table.anchors, progress)
    budgets = file_budgets(len(records), site.file_scale, vectors)
    page_rows = [[r.docname, r.title, r.searchable, _page_base(site, r.docname), _relative(r.files[0].path, root)]
                 for r in records]
    section_files, starts = pack_sections(table.rows, page_rows, entries, budgets["s"])
    out.update(section_files)
    outlines, pages_per_file = pack_pages(pages, budgets["p"])
    out.update(outlines)
    objects = _objects(records, sid_of)
    if objects:  # a site without documented objects gets no objects.js (and no manifest key)
        out["objects"] = objects

    total_len = sum(table.lengths)
    avglen = total_len / n_search if n_search and total_len else 1.0
    spans = _page_spans(order[:n_search], root, site)
    resolved = site.links()
    structure_priors(spans, resolved, site.root_doc, site.page_depths)
    smart_files, smart, groups = build_smart(table.terms.lists, table.lengths, spans, site.language, budgets)
    attach_labels(groups, label_counts(site.link_labels(), sid_of, n_search, lambda sid: table.rows[sid].row[5]))
    out.update(smart_files)
    term_shards, shards, depths = posting_shards(table.terms, "t", budgets["t"], groups=groups)
    out.update(term_shards)
    # the section dfs the index stores (terms, identifiers, stem groups), whose idfs the manifest steps
    section_dfs = {len(flat) // 3 for built in (table.terms, table.identifiers) for flat in built.lists.values()}
    section_dfs.update(g[0] for g in groups.values())
    del table.terms  # written: the shards' JSON values hold the lists from here on
    id_shards, smart["id_shards"], _ = posting_shards(table.identifiers, "x", budgets["x"])
    out.update(id_shards)
    link_files, smart["link_firsts"] = build_links(_section_links(resolved, sid_of, n_search), budgets["l"])
    out.update(link_files)
    anchored = {sid_of[(r.docname, i)] for r in records for i, s in enumerate(r.sections) if s.obj is not None and s.anchor}
    name_files, names = build_names([row for row in objects if row[4] in anchored], n_search, budgets["n"])
    out.update(name_files)
    if names:  # an index without searchable objects stays what it was
        smart["name_shards"] = names
    heading_files, headings = build_headings(
        ((sid, list(dict.fromkeys(terms(p.section.heading)))) for sid, p in enumerate(order[:n_search])), budgets["h"])
    out.update(heading_files)
    if headings:
        smart["heading_shards"] = headings
    tables = unicode_tables()
    out["unicode"] = fmt.unicode_file(tables)
    out["manifest"] = {
        "format": fmt.FORMAT, "format_version": fmt.FORMAT_VERSION,
        "snapshot_revision": fmt.snapshot_revision(entries), "unicode_version": tables["unicode_version"],
        "sections": n_search, "sections_all": len(order), "concepts": len(records), "files": len(entries),
        "avglen": avglen, "k1": fmt.K1, "b": fmt.B, "weights": fmt.WEIGHTS, "shards": shards,
        "idf_steps": fmt.idf_steps(n_search, section_dfs),
        "section_files": fmt.encode_ints(b - a for a, b in zip(starts, [*starts[1:], len(order)])),
        "pages_per_file": pages_per_file,
        "builder": site.builder, "search_page": site.search_page, "generator": f"okf_sphinx {__version__}",
        "smart": smart,
        "project": site.project,
        **({"objects": len(objects)} if objects else {}),
        **({"shard_depths": depths} if depths else {}),
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


def _section_text(s: Section, maps: dict[str, LineMap]) -> str:
    """What a section's record holds as its ``text``: the range text, or the words the reader
    sees when no source line holds them (a generated object's rendering, a translation)."""
    if s.text is not None:
        return s.text
    if s.obj is not None and s.obj.generated:
        return s.obj.text
    return maps[s.file].range_text(s.line_start, s.line_end)


def _object_fields(s: Section, full: bool) -> dict[str, Any]:
    """The documented-object fields of a section record (none for an ordinary section,
    so an index without objects is what it was before objects were sections)."""
    fields: dict[str, Any] = {}
    if s.continued:
        fields["continued"] = True
    if full and s.text is not None:
        fields["translated"] = True
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
    documented object's own section (not its continuations), one row per name (a glossary
    entry's further terms name the same section), by name then sid."""
    rows = [
        [name, s.obj.kind, n, i, sid_of[(record.docname, i)]]
        for n, record in enumerate(records)
        for i, s in enumerate(record.sections)
        if s.obj is not None and not s.continued
        for name in (s.obj.name, *s.obj.aliases)
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


def _page_spans(searchable: list[Placed], root: SourceRoot, site: Site) -> list[PageSpan]:
    """The searchable pages in sid order: each page's sections are consecutive sids."""
    spans: list[PageSpan] = []
    for sid, placed in enumerate(searchable):
        if spans and searchable[spans[-1].first].record is placed.record:
            spans[-1].count += 1
        else:
            d = placed.record.docname
            spans.append(PageSpan(sid, 1, _relative(placed.record.files[0].path, root), d, site.page_prior(d),
                                  site.page_meta(d)))
    return spans
