"""The ``read_lines`` tool: lines ``[start, end]`` of a captured file, byte for
byte, with the file's SHA-256 (docs/agents.md, "read_lines")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import is_int, locator as make_locator
from okf_sphinx.core.locators import normalise_path

from .answers import MAX_ANSWER_BYTES, answer_size
from .files import file_number, line_map

if TYPE_CHECKING:
    from okf_sphinx.engine.index import Index


# -- read_lines ----------------------------------------------------------------------


def _check_lines(lines: Any) -> tuple[int, int]:
    if not isinstance(lines, (list, tuple)) or len(lines) != 2:
        raise OkfError("invalid_line_range", f"lines must be a pair [start, end] of integers, got {lines!r}", field="lines")
    start, end = lines
    if not is_int(start) or not is_int(end):
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
    n = file_number(index, rel)
    entry = index.files()[n]
    lm = line_map(index, n)
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
