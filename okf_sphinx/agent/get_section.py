"""The ``get_section`` tool: one section by ``locator``, by ``concept_id`` +
``heading`` or by documented ``object``, paged by ``max_chars``/``offset``; or a
page's outline (``concept_id`` alone), paged by ``offset``/``limit``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import locator as make_locator
from okf_sphinx.core.locators import MAX_LOCATOR_CHARS, parse_locator
from okf_sphinx.engine.object_names import find_object

from .answers import MAX_ANSWER_BYTES, answer_size, int_argument, limited, most_that_fit, optional_str
from .files import file_number, line_map
from .headings import match_heading
from .pages import Concept, ancestors, concept, overlapping, section_ref, sections_at, subtree_end

if TYPE_CHECKING:
    from okf_sphinx.engine.index import Index


DEFAULT_MAX_CHARS = 20_000
MAX_MAX_CHARS = 200_000
MAX_HEADING_QUERY_CHARS = 4096
MAX_OUTLINE_LIMIT = 1000  # outline entries per answer (get_section's `limit`; also the default)


def _outline(index: Index, page_concept: Concept, offset: int, limit: int) -> dict[str, Any]:
    """The page's outline, entries ``offset`` … ``offset + limit - 1`` (``parent`` stays an
    index into the whole outline); cut at ``limit`` or at the byte budget, with ``next_offset``."""
    page = index.page(page_concept.page)
    secs = page["sections"]
    total = len(secs)
    offset = min(offset, total)

    def entry(s: dict[str, Any]) -> dict[str, Any]:
        return {"heading": s["heading"], "level": s["level"],
                "locator": make_locator(s["path"], s["line_start"], s["line_end"]), "parent": s.get("parent")}

    def build(count: int, reason: str) -> dict[str, Any]:
        answer: dict[str, Any] = {
            "status": "ok",
            "kind": "outline",
            "concept_id": page_concept.concept_id,
            "title": page_concept.title,
            "path": page.get("path", ""),
            "url": page.get("url", ""),
            "searchable": page_concept.searchable,
            "snapshot_revision": index.snapshot_revision,
            "total": total,
            "offset": offset,
            "limit": limit,
            "truncated": offset + count < total,
        }
        if answer["truncated"]:
            answer["next_offset"] = offset + count
            answer["truncation_reason"] = reason
        answer["outline"] = [entry(s) for s in secs[offset : offset + count]]
        return answer

    count = min(limit, total - offset)
    answer = build(count, "limit")
    if answer_size(answer) <= MAX_ANSWER_BYTES:
        return answer
    lo = most_that_fit(build, count - 1)  # the most entries that fit
    if lo == 0:
        size = answer_size(build(1, "byte_budget"))
        raise OkfError(
            "page_too_large",
            f"one outline entry of {page_concept.concept_id!r} makes a {size}-byte answer; the limit is {MAX_ANSWER_BYTES}: "
            "search for a heading with search_sections instead",
            size=size, limit=MAX_ANSWER_BYTES,
        )
    return build(lo, "byte_budget")


def get_section(
    index: Index,
    locator: Any = None,
    concept_id: Any = None,
    heading: Any = None,
    include_subsections: Any = True,
    max_chars: Any = DEFAULT_MAX_CHARS,
    offset: Any = 0,
    limit: Any = None,
    object: Any = None,  # noqa: A002 - the tool's argument name
) -> dict[str, Any]:
    """``get_section``: one section by ``locator``, or by ``concept_id`` + ``heading``,
    or a documented object's section by ``object`` (its full name or a dotted tail);
    ``concept_id`` alone gives the page's outline (its heading tree), paged by
    ``offset`` (first entry) and ``limit`` (entries, 1-1000)."""
    if isinstance(locator, str) and len(locator) > MAX_LOCATOR_CHARS:
        parse_locator(locator)  # path_too_long before anything else
    locator = optional_str("locator", locator)
    concept_id = optional_str("concept_id", concept_id)
    heading = optional_str("heading", heading)
    if not isinstance(include_subsections, bool):
        raise OkfError("schema_validation", f"include_subsections must be true or false, got {include_subsections!r}",
                       field="include_subsections")
    max_chars = int_argument("max_chars", max_chars, DEFAULT_MAX_CHARS, 1, MAX_MAX_CHARS)
    offset = int_argument("offset", offset, 0, 0, 2**53)
    outline_only = locator is None and concept_id is not None and heading is None
    if limit is not None and not outline_only:
        raise OkfError("schema_validation", "limit pages an outline (concept_id alone); a section is paged with "
                       "max_chars and offset", field="limit")
    limit = int_argument("limit", limit, MAX_OUTLINE_LIMIT, 1, MAX_OUTLINE_LIMIT)
    if heading is not None and len(heading) > MAX_HEADING_QUERY_CHARS:
        raise OkfError("schema_validation", f"heading is {len(heading)} characters; the limit is {MAX_HEADING_QUERY_CHARS}",
                       field="heading")

    object_name = optional_str("object", object)
    if object_name is not None:
        if locator is not None or concept_id is not None or heading is not None:
            raise OkfError("schema_validation", "give either object, locator (+ concept_id), or concept_id (+ heading), "
                           "not several", field="object")
        page, i = find_object(index, object_name)
    elif locator is not None:
        if heading is not None:
            raise OkfError("schema_validation", "give either locator (+ concept_id), or concept_id + heading, "
                           "not both locator and heading", field="locator")
        path, start, end = parse_locator(locator)
        file_number(index, path, "locator")
        if concept_id is not None:
            concept(index, concept_id)
        found = [(p, i) for p, i in sections_at(index, path, start)
                 if end in (p["sections"][i]["line_end"], subtree_end(p, i))
                 and (concept_id is None or p["concept_id"] == concept_id)]
        if not found:
            raise OkfError(
                "section_not_found",
                f"no section of {path} spans lines {start}-{end}"
                + (f" in {concept_id!r}" if concept_id is not None else "")
                + "; locators come from search hits, "
                "get_section outlines or subsections (use read_lines for arbitrary line ranges)",
                locator=locator, **limited(overlapping(index, path, start, end), "suggestions"),
            )
        if len(found) > 1:
            # one included file, several including pages: never answer for one of them by chance
            cands = [{"concept_id": p["concept_id"], **section_ref(p, i)} for p, i in found]
            raise OkfError(
                "ambiguous_section",
                f"{len(found)} pages include {path} and have a section at lines {start}-{end} "
                f"({', '.join(repr(c['concept_id']) for c in cands[:5])}{' …' if len(cands) > 5 else ''}); "
                "ask again with locator and one candidate's concept_id",
                locator=locator, **limited(cands, "candidates"),
            )
        page, i = found[0]
    elif concept_id is not None:
        found = concept(index, concept_id)
        if heading is None:
            return _outline(index, found, offset, limit)
        page = index.page(found.page)
        i = match_heading(index, page, found.page, heading)
    else:
        if heading is not None:
            raise OkfError("schema_validation", "heading needs concept_id (the page to look in)", field="heading")
        raise OkfError("schema_validation", "give locator, concept_id (+ heading), or object", field="locator")
    return _section_answer(index, page, i, include_subsections, max_chars, offset)


def _section_answer(index: Index, page: dict[str, Any], i: int, subtree: bool, max_chars: int, offset: int) -> dict[str, Any]:
    secs = page["sections"]
    sec = secs[i]
    record = index.section(sec["sid"])
    n = file_number(index, sec["path"])
    entry = index.files()[n]
    lm = line_map(index, n)
    end = subtree_end(page, i) if subtree else sec["line_end"]
    end = min(end, lm.total_lines)
    if record.get("generated"):  # no source holds its words: the rendered text, at its directive's line
        end = sec["line_end"]
        full = record["text"]
    else:
        # a BOM belongs to no line: LineMap's first line starts after it
        full = lm.range_text(sec["line_start"], end) if sec["line_start"] <= lm.total_lines else ""
    offset = min(offset, len(full))
    above = ancestors(page, i)

    def build(count: int, reason: str | None) -> dict[str, Any]:
        piece = full[offset : offset + count]
        answer: dict[str, Any] = {
            "status": "ok",
            "kind": "section",
            "concept_id": page["concept_id"],
            "title": record.get("title", page.get("title", "")),
            "path": sec["path"],
            "heading": sec["heading"],
            "level": sec["level"],
            "line_start": sec["line_start"],
            "line_end": sec["line_end"],
            "locator": make_locator(sec["path"], sec["line_start"], sec["line_end"]),
            "content_sha256": entry["sha256"],
            "snapshot_revision": index.snapshot_revision,
            "url": record.get("url", ""),
            "breadcrumb": [secs[a]["heading"] for a in above if secs[a]["heading"]],
            "subsections": [section_ref(page, j) for j in range(len(secs)) if secs[j].get("parent") == i],
            "previous": section_ref(page, i - 1) if i > 0 else None,
            "next": section_ref(page, i + 1) if i + 1 < len(secs) else None,
            "include_subsections": subtree,
            "content_locator": make_locator(sec["path"], sec["line_start"], end),
            "content_chars": len(full),
            "offset": offset,
            "max_chars": max_chars,
            "truncated": offset + len(piece) < len(full),
        }
        if answer["truncated"]:
            answer["next_offset"] = offset + len(piece)
            answer["truncation_reason"] = reason
        if "kind" in record:
            answer["object"] = object_fields(record)
        answer["content"] = piece
        return answer

    count = min(max_chars, len(full) - offset)
    answer = build(count, "max_chars")
    if answer_size(answer) <= MAX_ANSWER_BYTES:
        return answer
    lo = most_that_fit(build, count - 1)
    if lo == 0:  # a page without a character would make no progress: the smallest useful page is too large
        size = answer_size(build(1, "byte_budget"))
        raise OkfError(
            "page_too_large",
            f"the section's metadata and one character make a {size}-byte answer; the limit is {MAX_ANSWER_BYTES}: "
            "read it with read_lines",
            size=size, limit=MAX_ANSWER_BYTES, locator=answer["content_locator"],
        )
    return build(lo, "byte_budget")


def object_fields(record: dict[str, Any]) -> dict[str, Any]:
    """A documented object's fields of a section record (``object`` in get_section answers)."""
    out = {"name": record["name"], "kind": record["kind"], "signature": record["signature"]}  # the writer writes all three
    if record.get("generated"):
        out["generated"] = True
    return out
