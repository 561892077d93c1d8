"""The agent reading tools: get_section, read_lines and search_concepts (AGENT_TOOLS.md).

Every answer comes from the captured bytes in the index (``f/<n>``), never from
the live source tree.  Answers are JSON-ready dicts with ``status: "ok"``;
refusals raise :class:`~okf_sphinx.errors.OkfError`.  Each answer is measured
on its real UTF-8 JSON (:func:`answer_json`) against :data:`MAX_ANSWER_BYTES`:
it is paged (``get_section``) or refused with its size (``page_too_large``),
never silently cut.

This module must not import Sphinx or docutils.
"""

from __future__ import annotations

import bisect
import difflib
import re
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from .cache import footprint
from .errors import OkfError
from .object_names import candidate as object_candidate
from .object_names import find_object
from .object_names import substring as object_substring
from .format import is_int as _is_int
from .format import canonical_json
from .format import locator as make_locator
from .lines import LineMap
from .terms import valid_unicode, validate_limit

if TYPE_CHECKING:
    from .index import Index

MAX_ANSWER_BYTES = 256_000
DEFAULT_MAX_CHARS = 20_000
MAX_MAX_CHARS = 200_000
MAX_PATH_CHARS = 4096
MAX_PATH_BYTES = 4096
MAX_PATH_COMPONENTS = 64
MAX_LIST = 50
MAX_QUERY_CHARS = 512
MAX_HEADING_QUERY_CHARS = 4096
MAX_OUTLINE_LIMIT = 1000  # outline entries per answer (get_section's `limit`; also the default)
MAX_LINE_DIGITS = 16  # 2**53 has 16 digits: a longer line number names no line (and int() refuses 4300+)


def _shorten(text: str, keep: int = 200) -> str:
    """``text`` for an error message: long values cut in the middle."""
    return text if len(text) <= keep else text[: keep // 2] + "…" + text[-keep // 2 :]


def answer_json(answer: dict[str, Any]) -> str:
    """The one wire form of every answer and envelope: compact JSON, keys in the
    answer's own order, ``<``, ``>``, ``&``, U+2028, U+2029 escaped.  The CLI's
    ``--json`` prints it and the MCP server sends it as the text content."""
    return canonical_json(answer, sort_keys=False)


def answer_size(answer: dict[str, Any]) -> int:
    return len(answer_json(answer).encode("utf-8"))


def _most_that_fit(build: Callable[[int, str], dict[str, Any]], most: int) -> int:
    """The largest ``n`` in ``0 … most`` whose ``build(n, "byte_budget")`` answer fits in
    MAX_ANSWER_BYTES (0 when only ``n = 0``, or none, fits): answers grow with ``n``."""
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if answer_size(build(mid, "byte_budget")) <= MAX_ANSWER_BYTES:
            lo = mid
        else:
            hi = mid - 1
    return lo


# -- argument checks ---------------------------------------------------------------


def _opt_str(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise OkfError("schema_validation", f"{name} must be a string, got {type(value).__name__}", field=name)
    if not valid_unicode(value):
        raise OkfError("schema_validation", f"{name} is not valid Unicode (it holds a lone surrogate)", field=name)
    return value


def _int_arg(name: str, value: Any, default: int, lo: int, hi: int) -> int:
    """An integer paging argument: non-integers are rejected, out-of-range values clamped."""
    if value is None:
        return default
    if not _is_int(value):
        raise OkfError("schema_validation", f"{name} must be an integer, got {value!r}", field=name)
    return min(max(value, lo), hi)


def normalise_path(path: Any, field: str = "path") -> str:
    """A captured-file path as the index spells it, or the contract's path error.

    ``path_too_long`` is decided before any other work; then the path is
    anchored to the source root, normalised (``.`` and ``..`` resolved as whole
    path units), and refused as ``path_outside_root`` if it escapes.
    """
    if isinstance(path, str) and len(path) > MAX_PATH_CHARS:
        raise OkfError(
            "path_too_long", f"{field} is {len(path)} characters long; the limit is {MAX_PATH_CHARS}",
            field=field, limit=MAX_PATH_CHARS, actual=len(path),
        )
    if path is None:
        raise OkfError("missing_path", f"{field} is missing: give a captured file's path relative to the source root", field=field)
    if not isinstance(path, str):
        raise OkfError("schema_validation", f"{field} must be a string, got {type(path).__name__}", field=field)
    if not valid_unicode(path):
        raise OkfError("schema_validation", f"{field} is not valid Unicode (it holds a lone surrogate)", field=field)
    if "\x00" in path:
        raise OkfError("schema_validation", f"{field} holds a NUL character", field=field)
    if not path.strip():
        raise OkfError("missing_path", f"{field} is empty: give a captured file's path relative to the source root", field=field)
    nbytes = len(path.encode("utf-8"))
    if nbytes > MAX_PATH_BYTES:
        raise OkfError(
            "path_too_long", f"{field} is {nbytes} bytes long in UTF-8; the limit is {MAX_PATH_BYTES}",
            field=field, limit=MAX_PATH_BYTES, actual=nbytes,
        )
    if path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path) or path.startswith("\\\\"):
        raise OkfError(
            "path_outside_root",
            f"{field} {path!r} is absolute; give it relative to the documentation source root (as hits show it)",
            field=field,
        )
    parts: list[str] = []
    raw_parts = path.split("/")
    if len(raw_parts) > MAX_PATH_COMPONENTS:
        raise OkfError(
            "path_too_long", f"{field} has {len(raw_parts)} components; the limit is {MAX_PATH_COMPONENTS}",
            field=field, limit=MAX_PATH_COMPONENTS, actual=len(raw_parts),
        )
    for part in raw_parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise OkfError(
                    "path_outside_root", f"{field} {path!r} escapes the documentation source root", field=field,
                )
            parts.pop()
            continue
        parts.append(part)
    if not parts:
        raise OkfError("missing_path", f"{field} {path!r} names the source root itself, not a file", field=field)
    return "/".join(parts)


# -- derived tables, cached (and bounded) with the index's files ---------------------------


def _file_numbers(index: Index) -> dict[str, int]:
    return index.memo("file_numbers", lambda: {e["path"]: n for n, e in enumerate(index.files())})


def _file_number(index: Index, path: str, field: str = "path") -> int:
    numbers = _file_numbers(index)
    n = numbers.get(path)
    if n is None:
        close = difflib.get_close_matches(path, list(numbers), n=10, cutoff=0.6)
        raise OkfError(
            "not_found",
            f"{path!r} is not a captured file of this site (paths are relative to the source root, "
            "as search hits show them)" + (f"; did you mean {close[0]!r}?" if close else ""),
            field=field, path=path, suggestions=close,
        )
    return n


def _file_text(index: Index, n: int) -> str:
    # Decoded as the build decoded it (Sphinx's source_encoding); an undecodable
    # byte shows as U+FFFD — content_sha256 still names the exact bytes.
    return index.file_text(n)


def _linemap(index: Index, n: int) -> LineMap:
    # the text, the line starts, and the parsers' line starts it may derive
    return index.memo(("linemap", n), lambda: LineMap(_file_text(index, n)),
                      lambda lm: footprint(lm.text) + 3 * (56 + 40 * len(lm.starts)))


# -- read_lines ----------------------------------------------------------------------


def _check_lines(lines: Any) -> tuple[int, int]:
    if not isinstance(lines, (list, tuple)) or len(lines) != 2:
        raise OkfError("invalid_line_range", f"lines must be a pair [start, end] of integers, got {lines!r}", field="lines")
    start, end = lines
    if not _is_int(start) or not _is_int(end):
        raise OkfError(
            "invalid_line_range", f"lines must be two integers (booleans and floats are not line numbers), got {list(lines)!r}",
            field="lines",
        )
    if start < 1 or end < 1:
        raise OkfError("invalid_line_range", f"line numbers start at 1, got [{start}, {end}]", field="lines")
    if start > end:
        raise OkfError("invalid_line_range", f"start {start} is after end {end}", field="lines")
    return start, end


def read_lines(index: Index, path: Any, lines: Any) -> dict[str, Any]:
    """``read_lines``: lines ``[start, end]`` (1-based, inclusive) of a captured file.

    Lines are numbered by LF in the captured bytes; each line keeps its ``\\r``.
    ``content`` is the lines joined with ``\\n``; when the range reaches the
    file's last line the file's final line break (if any) is kept too, so
    ``[1, total_lines]`` is the whole file byte for byte and two adjacent
    ranges joined with ``\\n`` restore it.
    """
    rel = normalise_path(path)
    start, end = _check_lines(lines)
    n = _file_number(index, rel)
    entry = index.files()[n]
    lm = _linemap(index, n)
    text, starts, total = lm.text, lm.starts, lm.total_lines
    if start > total:
        raise OkfError(
            "range_out_of_bounds",
            f"{rel} has {total} lines; line {start} is past its end",
            path=rel, total_lines=total,
        )
    truncated = end > total
    end = min(end, total)

    def content_for(last: int) -> str:
        stop = starts[last] - 1 if last < total else len(text)
        return text[starts[start - 1] if start > 1 else 0 : stop]  # a BOM stays in line 1: these are the bytes

    def build(last: int) -> dict[str, Any]:
        return {
            "status": "ok",
            "path": rel,
            "locator": make_locator(rel, start, last),
            "content_sha256": entry["sha256"],
            "snapshot_revision": index.snapshot_revision,
            "range": {"start": start, "end": last, "total_lines": total, "truncated": truncated,
                      **({"truncation_reason": "end_of_file"} if truncated else {})},
            "content": content_for(last),
        }

    answer = build(end)
    size = answer_size(answer)
    if size > MAX_ANSWER_BYTES:
        lo, hi = start - 1, end - 1  # find the largest end that fits (lo may be start-1: nothing fits)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if answer_size(build(mid)) <= MAX_ANSWER_BYTES:
                lo = mid
            else:
                hi = mid - 1
        details: dict[str, Any] = {"size": size, "limit": MAX_ANSWER_BYTES, "path": rel}
        hint = "a single line of it is too large to return"
        if lo >= start:
            details["max_end"] = lo
            hint = f"ask for [{start}, {lo}] or less, then continue from line {lo + 1}"
        raise OkfError(
            "page_too_large",
            f"lines [{start}, {end}] of {rel} make a {size}-byte answer; the limit is {MAX_ANSWER_BYTES} bytes: {hint}",
            **details,
        )
    return answer


# -- heading matching -------------------------------------------------------------------

_DASHES = re.compile("[\u002d\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                         "\u00ab": '"', "\u00bb": '"'})
_IDENT_QUERY = re.compile(r"^([A-Za-z]{0,3}\d{0,3})(\.?)$")
_IDENT_HEAD = re.compile(r"^([a-z]{0,3}\d{1,3}\.?|[a-z]{1,3}\.)(?=[\s.]|$)")


def norm_heading(text: str) -> str:
    """Equality key: trimmed, inner whitespace collapsed, dash forms unified, case folded."""
    text = unicodedata.normalize("NFC", text).replace("\u2026", "...").translate(_QUOTES)
    text = _DASHES.sub("-", " ".join(text.split()))
    return text.casefold()


_MARKUP_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?::[\w+.:-]+:|\{[\w+.:-]+\})`([^`]*?)(?:\s*<[^<>`]*>)?`"), r"\1"),   # roles (RST / MyST)
    (re.compile(r"``(.+?)``"), r"\1"),                                                  # RST literal
    (re.compile(r"`([^`<]+?)\s*<[^<>`]*>`__?"), r"\1"),                                 # RST link `text <url>`_
    (re.compile(r"`([^`]+?)`__?"), r"\1"),                                              # RST reference `x`_
    (re.compile(r"`([^`]+?)`"), r"\1"),                                                 # interpreted / MD code
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),                                    # MD link / image
    (re.compile(r"\*\*(.+?)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])__(.+?)__(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])"), r"\1"),
    (re.compile(r"\\(.)"), r"\1"),                                                      # backslash escapes
]


def strip_markup(text: str) -> str:
    """Inline RST / MyST markup removed, roughly as a reader sees the heading."""
    for pattern, repl in _MARKUP_RULES:
        text = pattern.sub(repl, text)
    return text


def _identifier(query: str) -> str | None:
    q = query.strip()
    m = _IDENT_QUERY.match(q)
    if not m or not q or q == ".":
        return None
    if not any(ch.isdigit() for ch in q) and not m.group(2):
        return None  # bare letters are a word, not an identifier
    return m.group(1).casefold()


def _starts_with_identifier(key: str, ident: str) -> bool:
    if not key.startswith(ident):
        return False
    rest = key[len(ident) :]
    return rest == "" or rest[0] in ". "


# -- pages and sections ---------------------------------------------------------------------


def _concept_ids(index: Index) -> list[str]:
    """The sorted concept ids (``concepts.js`` order), built once per index build."""
    return index.memo("concept_ids", lambda: [e[0] for e in index.concepts()])


def _concept(index: Index, concept_id: str) -> list[Any]:
    concepts = index.concepts()
    ids = _concept_ids(index)
    i = bisect.bisect_left(ids, concept_id)
    if i < len(ids) and ids[i] == concept_id:
        return concepts[i]
    close = difflib.get_close_matches(concept_id, ids, n=10, cutoff=0.6)
    raise OkfError(
        "not_found",
        f"no concept {concept_id!r} in this site (concept ids are docnames such as 'usage/install'; "
        "find them with search_concepts)" + (f"; did you mean {close[0]!r}?" if close else ""),
        field="concept_id", concept_id=concept_id, suggestions=close,
    )


def _ref(page: dict[str, Any], i: int) -> dict[str, str]:
    s = page["sections"][i]
    return {"heading": s["heading"], "locator": make_locator(s["path"], s["line_start"], s["line_end"])}


def _ancestors(page: dict[str, Any], i: int) -> list[int]:
    out = []
    seen = set()
    p = page["sections"][i].get("parent")
    while p is not None and p not in seen and 0 <= p < len(page["sections"]):
        seen.add(p)
        out.append(p)
        p = page["sections"][p].get("parent")
    return out[::-1]


def _subtree_end(page: dict[str, Any], i: int) -> int:
    """Last line of section ``i`` and its descendants in the section's own file."""
    secs = page["sections"]
    own = secs[i]
    end = own["line_end"]
    for j in range(i + 1, len(secs)):
        if i not in _ancestors(page, j):
            break
        if secs[j]["path"] == own["path"]:
            end = max(end, secs[j]["line_end"])
    return end


def _path_pages(index: Index) -> dict[str, list[int]]:
    """Captured path → the concepts (positions in concepts.js) whose sections it holds."""

    def compute() -> dict[str, list[int]]:
        mapping: dict[str, list[int]] = {}
        for ci, concept in enumerate(index.concepts()):
            for p in concept[4]:
                mapping.setdefault(p, []).append(ci)
        return mapping

    return index.memo("path_pages", compute)


def _sections_at(index: Index, path: str, line_start: int) -> list[tuple[dict[str, Any], int]]:
    """Every (page, position) whose section of ``path`` starts at ``line_start``, in
    concept-id order: more than one when pages include the same file."""
    concepts = index.concepts()
    out = []
    # concepts.js lists each page's files that hold its sections: exactly the pages to look in
    for ci in _path_pages(index).get(path, []):
        page = index.page(concepts[ci][2])
        out.extend((page, k) for k, s in enumerate(page["sections"]) if s["path"] == path and s["line_start"] == line_start)
    return out


_LOCATOR = re.compile(r"^(?P<path>.*)#L(?P<start>[0-9]+)(?:-L(?P<end>[0-9]+))?$", re.S)


def _parse_locator(locator: str) -> tuple[str, int, int]:
    if len(locator) > 3 * MAX_PATH_BYTES + 64:
        raise OkfError("path_too_long", f"locator is {len(locator)} characters long; its path is over the limit",
                       field="locator", limit=MAX_PATH_CHARS)
    m = _LOCATOR.match(locator)
    if not m:
        raise OkfError(
            "schema_validation",
            f"locator {locator!r} is not of the form path#L<start>-L<end> (as search hits give it)",
            field="locator",
        )
    raw = m.group("path")
    try:
        raw = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise OkfError("schema_validation", f"locator {locator!r} holds percent-escapes that are not UTF-8",
                       field="locator") from None
    path = normalise_path(raw, "locator")
    digits = (m.group("start"), m.group("end") or m.group("start"))
    if any(len(d.lstrip("0")) > MAX_LINE_DIGITS for d in digits):
        raise OkfError(
            "invalid_line_range",
            f"locator {_shorten(locator)!r} has a line number over {MAX_LINE_DIGITS} digits; "
            "no captured file has that many lines (locators come from search hits)",
            field="locator",
        )
    start, end = (int(d) for d in digits)
    if start < 1 or end < start:
        raise OkfError("invalid_line_range", f"locator {locator!r} has an invalid line range", field="locator")
    return path, start, end


def _heading_keys(index: Index, page: dict[str, Any], page_no: int) -> list[set[str]]:
    """Per section: the keys a heading query may equal — the heading Sphinx reports and
    that heading with inline markup removed.  A query in source form (``foo``, *em*)
    matches through the same markup removal; nothing else (a body line that merely
    opens the section, as under front matter's myst_title_to_header) ever matches."""
    return index.memo(("heading_keys", page_no), lambda: _compute_heading_keys(page))


def _compute_heading_keys(page: dict[str, Any]) -> list[set[str]]:
    keys = []
    for s in page["sections"]:
        k = {norm_heading(s["heading"]), norm_heading(strip_markup(s["heading"]))} if s["heading"] else set()
        k.discard("")
        keys.append(k)
    return keys


def _limited(items: list[Any], name: str) -> dict[str, Any]:
    out: dict[str, Any] = {name: items[:MAX_LIST]}
    if len(items) > MAX_LIST:
        out[f"{name}_truncated"] = True
    return out


def _match_heading(index: Index, page: dict[str, Any], page_no: int, heading: str) -> int:
    keys = _heading_keys(index, page, page_no)
    wanted = {norm_heading(heading), norm_heading(strip_markup(heading))}
    wanted.discard("")
    if not wanted:
        raise OkfError("schema_validation", "heading is empty: give the heading text, or omit it for the page outline",
                       field="heading")
    matches = [i for i, k in enumerate(keys) if k & wanted]
    how = "equal"
    if not matches:
        ident = _identifier(heading)
        if ident is not None:
            how = "identifier"
            matches = [i for i, k in enumerate(keys) if any(_starts_with_identifier(x, ident) for x in k)]
    if len(matches) > 1:
        # a section continued after an object's directive block: the heading names the section itself
        own = [i for i in matches if not page["sections"][i].get("continued")]
        if len(own) == 1:
            matches = own
    if len(matches) == 1:
        return matches[0]
    if matches:
        cands = [_ref(page, i) for i in matches]
        raise OkfError(
            "ambiguous_section",
            f"{len(matches)} sections of {page['concept_id']!r} match heading {heading!r}"
            + (" by identifier" if how == "identifier" else "")
            + "; ask again with one of the candidates' locators",
            concept_id=page["concept_id"], heading=heading, **_limited(cands, "candidates"),
        )
    # not found: headings holding every asked word first (document order), then close
    # headings, else the page's identifiers
    words = [w for w in re.split(r"[^\w]+", " ".join(sorted(wanted))) if w]
    close: list[int] = [i for i, k in enumerate(keys) if words and any(
        all(re.search(rf"(?<!\w){re.escape(w)}", x) for w in words) for x in k)]
    by_key: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        for x in k:
            by_key.setdefault(x, []).append(i)
    for q in sorted(wanted):
        for key in difflib.get_close_matches(q, list(by_key), n=MAX_LIST + 1, cutoff=0.6):
            for i in by_key[key]:
                if i not in close:
                    close.append(i)
    if not close:
        close = [i for i, k in enumerate(keys) if any(_IDENT_HEAD.match(x) for x in k)]
    suggestions = [_ref(page, i) for i in close]
    raise OkfError(
        "section_not_found",
        f"no section of {page['concept_id']!r} has the heading {heading!r}"
        + ("; see suggestions" if suggestions else "; call get_section with only concept_id for the page's headings"),
        concept_id=page["concept_id"], heading=heading, **_limited(suggestions, "suggestions"),
    )


def _outline(index: Index, concept: list[Any], offset: int, limit: int) -> dict[str, Any]:
    """The page's outline, entries ``offset`` … ``offset + limit - 1`` (``parent`` stays an
    index into the whole outline); cut at ``limit`` or at the byte budget, with ``next_offset``."""
    page = index.page(concept[2])
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
            "concept_id": concept[0],
            "title": concept[1],
            "path": page.get("path", ""),
            "url": page.get("url", ""),
            "searchable": concept[3],
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
    lo = _most_that_fit(build, count - 1)  # the most entries that fit
    if lo == 0:
        size = answer_size(build(1, "byte_budget"))
        raise OkfError(
            "page_too_large",
            f"one outline entry of {concept[0]!r} makes a {size}-byte answer; the limit is {MAX_ANSWER_BYTES}: "
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
    if isinstance(locator, str) and len(locator) > 3 * MAX_PATH_BYTES + 64:
        _parse_locator(locator)  # path_too_long before anything else
    locator = _opt_str("locator", locator)
    concept_id = _opt_str("concept_id", concept_id)
    heading = _opt_str("heading", heading)
    if not isinstance(include_subsections, bool):
        raise OkfError("schema_validation", f"include_subsections must be true or false, got {include_subsections!r}",
                       field="include_subsections")
    max_chars = _int_arg("max_chars", max_chars, DEFAULT_MAX_CHARS, 1, MAX_MAX_CHARS)
    offset = _int_arg("offset", offset, 0, 0, 2**53)
    outline_only = locator is None and concept_id is not None and heading is None
    if limit is not None and not outline_only:
        raise OkfError("schema_validation", "limit pages an outline (concept_id alone); a section is paged with "
                       "max_chars and offset", field="limit")
    limit = _int_arg("limit", limit, MAX_OUTLINE_LIMIT, 1, MAX_OUTLINE_LIMIT)
    if heading is not None and len(heading) > MAX_HEADING_QUERY_CHARS:
        raise OkfError("schema_validation", f"heading is {len(heading)} characters; the limit is {MAX_HEADING_QUERY_CHARS}",
                       field="heading")

    object_name = _opt_str("object", object)
    if object_name is not None:
        if locator is not None or concept_id is not None or heading is not None:
            raise OkfError("schema_validation", "give either object, locator (+ concept_id), or concept_id (+ heading), "
                           "not several", field="object")
        page, i = find_object(index, object_name)
    elif locator is not None:
        if heading is not None:
            raise OkfError("schema_validation", "give either locator (+ concept_id), or concept_id + heading, "
                           "not both locator and heading", field="locator")
        path, start, end = _parse_locator(locator)
        _file_number(index, path, "locator")
        if concept_id is not None:
            _concept(index, concept_id)
        found = [(p, i) for p, i in _sections_at(index, path, start)
                 if end in (p["sections"][i]["line_end"], _subtree_end(p, i))
                 and (concept_id is None or p["concept_id"] == concept_id)]
        if not found:
            raise OkfError(
                "section_not_found",
                f"no section of {path} spans lines {start}-{end}"
                + (f" in {concept_id!r}" if concept_id is not None else "")
                + "; locators come from search hits, "
                "get_section outlines or subsections (use read_lines for arbitrary line ranges)",
                locator=locator, **_limited(_overlapping(index, path, start, end), "suggestions"),
            )
        if len(found) > 1:
            # one included file, several including pages: never answer for one of them by chance
            cands = [{"concept_id": p["concept_id"], **_ref(p, i)} for p, i in found]
            raise OkfError(
                "ambiguous_section",
                f"{len(found)} pages include {path} and have a section at lines {start}-{end} "
                f"({', '.join(repr(c['concept_id']) for c in cands[:5])}{' …' if len(cands) > 5 else ''}); "
                "ask again with locator and one candidate's concept_id",
                locator=locator, **_limited(cands, "candidates"),
            )
        page, i = found[0]
    elif concept_id is not None:
        concept = _concept(index, concept_id)
        if heading is None:
            return _outline(index, concept, offset, limit)
        page = index.page(concept[2])
        i = _match_heading(index, page, concept[2], heading)
    else:
        if heading is not None:
            raise OkfError("schema_validation", "heading needs concept_id (the page to look in)", field="heading")
        raise OkfError("schema_validation", "give locator, concept_id (+ heading), or object", field="locator")
    return _section_answer(index, page, i, include_subsections, max_chars, offset)


def _overlapping(index: Index, path: str, start: int, end: int) -> list[dict[str, str]]:
    """Sections of ``path`` overlapping lines ``start``-``end`` (for a wrong locator)."""
    out = []
    concepts = index.concepts()
    for ci in _path_pages(index).get(path, []):
        page = index.page(concepts[ci][2])
        for i, s in enumerate(page["sections"]):
            if s["path"] == path and s["line_start"] <= end and s["line_end"] >= start:
                out.append(_ref(page, i))
    return out


def _section_answer(index: Index, page: dict[str, Any], i: int, subtree: bool, max_chars: int, offset: int) -> dict[str, Any]:
    secs = page["sections"]
    sec = secs[i]
    record = index.section(sec["sid"])
    n = _file_number(index, sec["path"])
    entry = index.files()[n]
    lm = _linemap(index, n)
    end = _subtree_end(page, i) if subtree else sec["line_end"]
    end = min(end, lm.total_lines)
    if record.get("generated"):  # no source holds its words: the rendered text, at its directive's line
        end = sec["line_end"]
        full = record["text"]
    else:
        # a BOM belongs to no line: LineMap's first line starts after it
        full = lm.range_text(sec["line_start"], end) if sec["line_start"] <= lm.total_lines else ""
    offset = min(offset, len(full))
    ancestors = _ancestors(page, i)

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
            "breadcrumb": [secs[a]["heading"] for a in ancestors if secs[a]["heading"]],
            "subsections": [_ref(page, j) for j in range(len(secs)) if secs[j].get("parent") == i],
            "previous": _ref(page, i - 1) if i > 0 else None,
            "next": _ref(page, i + 1) if i + 1 < len(secs) else None,
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
    lo = _most_that_fit(build, count - 1)
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


# -- search_concepts ------------------------------------------------------------------------


def search_concepts(index: Index, query: Any, limit: Any = None) -> dict[str, Any]:
    """``search_concepts``: literal, case-insensitive substring search over concept ids
    and titles, in concept-id order."""
    if not isinstance(query, str):
        raise OkfError("schema_validation", "query must be a string", field="query")
    if not valid_unicode(query):
        raise OkfError("schema_validation", "query is not valid Unicode (it holds a lone surrogate)", field="query")
    if not query.strip():
        raise OkfError("schema_validation", "query is empty: give part of a concept id or title", field="query")
    if len(query) > MAX_QUERY_CHARS:
        raise OkfError("schema_validation", f"query is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}",
                       field="query", limit=MAX_QUERY_CHARS, actual=len(query))
    limit = validate_limit(limit)
    needle = unicodedata.normalize("NFC", query.strip()).casefold()
    matches = []
    for cid, title, _page, searchable, _paths in index.concepts():
        if needle in unicodedata.normalize("NFC", cid).casefold() or needle in unicodedata.normalize("NFC", title).casefold():
            matches.append({"concept_id": cid, "title": title, "searchable": searchable})
    answer = {
        "status": "ok",
        "query": query,
        "snapshot_revision": index.snapshot_revision,
        "total": len(matches),
        "truncated": len(matches) > limit,
    }
    if answer["truncated"]:
        answer["truncation_reason"] = "limit"
    answer["concepts"] = matches[:limit]
    rows = index.objects()
    if rows:  # a site with documented objects also lists those whose name holds the query
        found = object_substring(rows, query.strip())
        answer["objects_total"] = len(found)
        answer["objects_truncated"] = len(found) > limit
        answer["objects"] = [object_candidate(index, r) for r in found[:limit]]
    size = answer_size(answer)
    if size > MAX_ANSWER_BYTES:
        raise OkfError("page_too_large", f"the answer is {size} bytes; the limit is {MAX_ANSWER_BYTES}: lower limit",
                       size=size, limit=MAX_ANSWER_BYTES)
    return answer


# -- one dispatch for every surface ------------------------------------------------------------

#: Tool name → (arguments it takes, arguments it requires).
TOOL_ARGUMENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "search_sections": (("query", "limit", "mode", "prefix", "under", "meta", "kind", "expand"), ("query",)),
    "get_section": (("locator", "concept_id", "heading", "include_subsections", "max_chars", "offset", "limit", "object"), ()),
    "read_lines": (("path", "lines"), ("lines",)),
    "search_concepts": (("query", "limit"), ("query",)),
}


def call_tool(index: Index, name: str, arguments: Any) -> dict[str, Any]:
    """Run tool ``name`` with a JSON ``arguments`` object; the CLI and the MCP server
    both come through here, so their answers (and refusals) are the same bytes."""
    if name not in TOOL_ARGUMENTS:
        raise OkfError("schema_validation", f"unknown tool {name!r}; the tools are {', '.join(TOOL_ARGUMENTS)}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise OkfError("schema_validation", "tool arguments must be a JSON object")
    allowed, required = TOOL_ARGUMENTS[name]
    unknown = sorted(k for k in arguments if k not in allowed)
    if unknown:
        raise OkfError(
            "schema_validation", f"{name} does not take {', '.join(map(repr, unknown))}; it takes {', '.join(allowed)}",
            field=unknown[0],
        )
    nulls = sorted(k for k, v in arguments.items() if v is None)
    if nulls:
        raise OkfError("schema_validation", f"{nulls[0]} must not be null: leave it out for its default", field=nulls[0])
    if name == "read_lines" and "path" not in arguments:
        raise OkfError("missing_path", "read_lines needs path: a captured file's path relative to the source root", field="path")
    for key in required:
        if key not in arguments:
            raise OkfError("schema_validation", f"{name} needs {key!r}", field=key)
    return index.consistent(_dispatch, index, name, arguments)


def _dispatch(index: Index, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    # the arguments are checked against TOOL_ARGUMENTS: each is a parameter of its tool, and
    # one left out takes the tool's own default (one place for every default)
    if name == "search_sections":
        return index.search(**arguments)
    if name == "get_section":
        return get_section(index, **arguments)
    if name == "read_lines":
        return read_lines(index, **arguments)
    return search_concepts(index, **arguments)
