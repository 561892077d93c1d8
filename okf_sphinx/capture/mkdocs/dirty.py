"""``mkdocs build --dirty`` (and ``serve``): the pages a build did not render, taken from the
previous index when their sources are unchanged.

MkDocs renders only the pages whose sources changed; the index must still hold every
page.  :func:`previous_records` rebuilds a record for each page whose every captured
file still has the digest the old index recorded, with its links and its front matter,
so a ``--dirty`` build writes the same index as a full one.  Only these builds read an
old index (the engine is imported when one does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.utils.meta import get_data

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.records import CapturedFile, DocRecord, ObjectInfo, Section, decode, lexical

from .links import PageLinks
from .markdown_sections import front_matter_lines, parser_lines


def previous_records(target: Path, sources: dict[str, Path]) -> tuple[
        dict[str, DocRecord], dict[str, PageLinks], dict[str, dict[str, Any]]]:
    """Records rebuilt from an existing index (for pages a ``--dirty`` build skips), keeping
    only pages whose every captured file still has the digest the index recorded, their
    links to other pages (from its link shards: each section's first link to each target, to
    the target section's anchor; links from pages excluded from search are not kept there)
    and their front matter (read from the page's file, as a rendered page's is).
    ``sources``: concept id -> the page's source file now."""
    from okf_sphinx.engine.index import Index  # noqa: PLC0415 - only --dirty builds read an old index
    from okf_sphinx.engine.source import DiskSource  # noqa: PLC0415

    if not (target / "manifest.js").is_file():
        return {}, {}, {}
    out: dict[str, DocRecord] = {}
    links: dict[str, PageLinks] = {}
    metas: dict[str, dict[str, Any]] = {}
    try:
        index = Index(DiskSource(target))
        where: dict[int, tuple[str, str]] = {}  # sid -> (concept id, anchor)
        labels: dict[int, list[str]] = {}  # sid -> the terms of its links' labels
        files = {f["path"]: f for f in index.files()}
        for concept, title, n, searchable, _paths in index.concepts():
            page = index.page(n)
            source = sources.get(concept)
            rel = page["path"]
            if source is None or not source.as_posix().endswith("/" + rel):
                continue
            root = Path(source.as_posix()[: -len(rel) - 1])  # the old index's source root
            paths = [rel] + sorted({s["path"] for s in page["sections"]} - {rel})
            captured = []
            meta: dict[str, Any] = {}
            for rel_path in paths:
                entry = files.get(rel_path)
                path = root / rel_path
                if entry is None or not path.is_file():
                    break
                now, data = CapturedFile.read(path)
                if now.sha256 != entry["sha256"]:
                    break
                if not captured:  # the page's own file: its front matter
                    meta = front_matter_lines(parser_lines(decode(data)), get_data)[2]
                captured.append(now)
            else:
                sections = [
                    Section(lexical(root / s["path"]), s["heading"], s["level"], s["line_start"],
                            s["line_end"], s["anchor"], (), s["parent"], _previous_object(index, s))
                    for s in page["sections"]
                ]
                out[concept] = DocRecord(concept, title, searchable, captured, sections)
                links[concept] = _previous_links(index, page, where, labels)
                metas[concept] = meta
    except OkfError:
        return {}, {}, {}
    return out, links, metas


def _previous_links(index: Any, page: dict[str, Any], where: dict[int, tuple[str, str]],
                    labels: dict[int, list[str]]) -> PageLinks:
    """A page's links to other pages, as an existing index's link shards hold them, and the
    terms of their labels, as its stem groups count them."""
    from okf_sphinx.engine.expansion import links  # noqa: PLC0415 - only --dirty builds read an old index

    if not where:
        for n in range(len(index.concepts())):
            for s in index.page(n)["sections"]:
                where[s["sid"]] = (index.page(n)["concept_id"], s["anchor"])
        labels.update(_previous_labels(index))
    out = PageLinks(ids={s["anchor"]: i for i, s in reversed(list(enumerate(page["sections"]))) if s["anchor"]},
                    objects={s["anchor"] for s in page["sections"] if s["anchor"] and "kind" in s})
    for i, s in enumerate(page["sections"]):
        if s["sid"] >= index.section_count:
            continue
        if s["sid"] in labels:
            out.labels.append((i, labels[s["sid"]]))
        for to, via in links(index, s["sid"]):
            concept, anchor = where[to]
            if via == "doc":
                out.refs.append((i, via, concept, ""))
            elif anchor:  # ref, or object (a ref to an object's id: object again when resolved)
                out.refs.append((i, "ref", concept, anchor))
    return out


def _previous_labels(index: Any) -> dict[int, list[str]]:
    """``sid → terms``: the terms of each searchable section's link labels, each as often as an
    existing index counts it there (engine/link_labels.py)."""
    from okf_sphinx.engine.link_labels import check_labels  # noqa: PLC0415 - only --dirty builds read an old index

    out: dict[int, list[str]] = {}
    for k in range(index.shards):
        name = f"t/{k:x}"
        for group in index.shard(name)["groups"].values():
            for term, text in (group[3].items() if len(group) > 3 else ()):
                for sid, count in check_labels(name, text, index.posting(term)).items():
                    out.setdefault(sid, []).extend([term] * count)
    return out


def _previous_object(index: Any, s: dict[str, Any]) -> ObjectInfo | None:
    """The documented object of a page outline's section in an existing index (None: none)."""
    if "kind" not in s:
        return None
    record = index.section(s["sid"])
    generated = bool(s.get("generated"))
    return ObjectInfo(s["name"], s["kind"], record.get("signature", ""), generated, record["text"] if generated else "")
