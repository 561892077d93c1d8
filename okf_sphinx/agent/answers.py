"""What every agent tool's answer shares (docs/agents.md, "Tool contracts"): the one JSON wire
form (:func:`answer_json`), the byte budget every answer is measured against
(:data:`MAX_ANSWER_BYTES`: an answer is paged or refused with its size, never
silently cut), the argument checks and the cap on listed candidates.

Answers are JSON-ready dicts with ``status: "ok"``; refusals raise
:class:`~okf_sphinx.core.errors.OkfError`.  No module of ``agent`` imports Sphinx
or docutils.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import canonical_json, is_int
from okf_sphinx.core.terms import valid_unicode


MAX_ANSWER_BYTES = 256_000
MAX_LIST = 50


def answer_json(answer: dict[str, Any]) -> str:
    """The one wire form of every answer and envelope: compact JSON, keys in the
    answer's own order, ``<``, ``>``, ``&``, U+2028, U+2029 escaped.  The CLI's
    ``--json`` prints it and the MCP server sends it as the text content."""
    return canonical_json(answer, sort_keys=False)


def answer_size(answer: dict[str, Any]) -> int:
    return len(answer_json(answer).encode("utf-8"))


def most_that_fit(build: Callable[[int, str], dict[str, Any]], most: int) -> int:
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


def optional_str(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise OkfError("schema_validation", f"{name} must be a string, got {type(value).__name__}", field=name)
    if not valid_unicode(value):
        raise OkfError("schema_validation", f"{name} is not valid Unicode (it holds a lone surrogate)", field=name)
    return value


def int_argument(name: str, value: Any, default: int, lo: int, hi: int) -> int:
    """An integer paging argument: non-integers are rejected, out-of-range values clamped."""
    if value is None:
        return default
    if not is_int(value):
        raise OkfError("schema_validation", f"{name} must be an integer, got {value!r}", field=name)
    return min(max(value, lo), hi)


def limited(items: list[Any], name: str) -> dict[str, Any]:
    out: dict[str, Any] = {name: items[:MAX_LIST]}
    if len(items) > MAX_LIST:
        out[f"{name}_truncated"] = True
    return out
