"""Captured paths and locators as requests name them: the format's path limits, a requested
path normalised against the source root, and a locator read back into its path and lines.

A locator is ``path#L<start>-L<end>``, the path percent-escaped as
:func:`~okf_sphinx.core.index_format.locator` writes it into every section record; the
reading tools take it back here.  The build holds captured paths to the same limits
(writer/limits.py), so every path the index names can be asked for.  Refusals are the
contract's :class:`~okf_sphinx.core.errors.OkfError` codes.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from .errors import OkfError
from .terms import valid_unicode

#: The longest path a request may give, in characters and in bytes of UTF-8, and its most
#: components; a captured file's path (relative to the source root) is held to the same.
MAX_PATH_CHARS = 4096
MAX_PATH_BYTES = 4096
MAX_PATH_COMPONENTS = 64
#: A longer locator's path is over the limit however it is escaped (``%XX`` is three characters a byte).
MAX_LOCATOR_CHARS = 3 * MAX_PATH_BYTES + 64
MAX_LINE_DIGITS = 16  # 2**53 has 16 digits: a longer line number names no line (and int() refuses 4300+)


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


_LOCATOR = re.compile(r"^(?P<path>.*)#L(?P<start>[0-9]+)(?:-L(?P<end>[0-9]+))?$", re.S)


def parse_locator(locator: str) -> tuple[str, int, int]:
    """``(path, start, end)`` a locator names (the path percent-decoded and normalised), or the
    contract's refusal: ``path_too_long``, ``schema_validation``, ``invalid_line_range``."""
    if len(locator) > MAX_LOCATOR_CHARS:
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


def _shorten(text: str, keep: int = 200) -> str:
    """``text`` for an error message: long values cut in the middle."""
    return text if len(text) <= keep else text[: keep // 2] + "…" + text[-keep // 2 :]
