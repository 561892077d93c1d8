"""``read_batch``: several reads in one tool call (docs/agents.md, issue 12).

A batch holds up to :data:`MAX_BATCH_ITEMS` items, each a ``get_section``,
``read_lines`` or ``search_sections`` request.  Every item goes through the
same dispatch as the single tool, so its answer is byte for byte what that tool
gives — its result, or its ``{"error": …}`` envelope; one item's refusal is not
the batch's.  The whole answer is measured on its real UTF-8 JSON
(:func:`~okf_sphinx.agent.answers.answer_json`) against :data:`BATCH_BYTE_BUDGET`:
items are kept whole or not at all, in request order, and the first item that
does not fit stops the batch — it and every later item are listed in
``unread`` with ``unread_reason: "byte_budget"``, so ``unread`` is always a
suffix of the request and the client's rule is simply "send the unread items
again".  A deadline (:data:`DEADLINE_SECONDS` from the call's start) is checked
between items (``unread_reason: "timeout"``).  An item that could never fit in
any batch is answered ``item_too_large`` (read it with its own tool) so a batch
always makes progress.

Memory: items are read one after the other and an item that does not fit is
dropped at once, so a batch holds at most the budget's worth of kept answers
plus the one item being read — about its largest item, not the sum.

Imports nothing from the MCP SDK, Sphinx or docutils.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from okf_sphinx.core.errors import OkfError

from .answers import MAX_ANSWER_BYTES, answer_json, answer_size

MAX_BATCH_ITEMS = 20
DEADLINE_SECONDS = 10.0
BATCH_BYTE_BUDGET = MAX_ANSWER_BYTES
BATCH_TOOLS = ("get_section", "read_lines", "search_sections")
_ITEM_KEYS = ("tool", "arguments")

#: ``answer(tool, arguments)`` → the single tool's answer or its error envelope (never raises
#: for a refusal): the MCP server's dispatch, or :func:`answer_of` over one index.
Answer = Callable[[str, dict[str, Any]], dict[str, Any]]


def answer_of(call: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Answer:
    """An :data:`Answer` from a dispatch that raises :class:`OkfError` on refusal."""

    def answer(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            return call(tool, arguments)
        except OkfError as err:
            return err.envelope

    return answer


def check_items(arguments: Any, *, site_key: bool = False) -> list[Any]:
    """The batch's item list, or the refusal of the whole call: ``missing_items`` for an
    empty (or absent) list, ``too_many_items`` (with ``max``) for more than
    :data:`MAX_BATCH_ITEMS` — refused, never cut."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise OkfError("schema_validation", "read_batch arguments must be a JSON object {\"items\": [...]}")
    allowed = ("items", "site") if site_key else ("items",)
    unknown = sorted(k for k in arguments if k not in allowed)
    if unknown:
        raise OkfError("schema_validation", f"read_batch does not take {', '.join(map(repr, unknown))}; it takes "
                       f"{', '.join(allowed)}", field=unknown[0])
    items = arguments.get("items")
    if items is None or items == []:
        raise OkfError("missing_items", "read_batch needs items: a list of 1-20 {\"tool\": …, \"arguments\": {…}} "
                       f"requests ({', '.join(BATCH_TOOLS)})", field="items", max=MAX_BATCH_ITEMS)
    if not isinstance(items, list):
        raise OkfError("schema_validation", f"items must be a list, got {type(items).__name__}", field="items")
    if len(items) > MAX_BATCH_ITEMS:
        raise OkfError("too_many_items", f"read_batch takes at most {MAX_BATCH_ITEMS} items, got {len(items)}: "
                       "split the list into several batches (nothing was read)",
                       field="items", max=MAX_BATCH_ITEMS, actual=len(items))
    return items


def _item_request(item: Any, position: int) -> tuple[str, dict[str, Any]]:
    """``(tool, arguments)`` of one item, or the schema_validation refusal of that item."""
    where = f"items[{position}]"
    if not isinstance(item, dict):
        raise OkfError("schema_validation", f"{where} must be an object {{\"tool\": …, \"arguments\": {{…}}}}",
                       field=where)
    unknown = sorted(k for k in item if k not in _ITEM_KEYS)
    if unknown:
        raise OkfError("schema_validation", f"{where} has unknown key(s) {', '.join(map(repr, unknown))}; an item "
                       "is {\"tool\", \"arguments\"}", field=where)
    tool = item.get("tool")
    if tool not in BATCH_TOOLS:
        shown = repr(tool) if isinstance(tool, str) and len(tool) <= 64 else "missing or not a string"
        raise OkfError("schema_validation", f"{where}.tool is {shown}; a batch item is one of "
                       f"{', '.join(BATCH_TOOLS)}", field=f"{where}.tool")
    arguments = item.get("arguments", {})
    if not isinstance(arguments, dict):
        raise OkfError("schema_validation", f"{where}.arguments must be a JSON object", field=f"{where}.arguments")
    return tool, arguments


def _reserve(n: int) -> int:
    """Bytes of the answer around its items in the worst case: every index unread,
    the longer reason — kept back first, so the real envelope never displaces an item."""
    return answer_size({"status": "ok", "count": n, "items": [], "unread": list(range(n)),
                        "unread_reason": "byte_budget"})


def read_batch(
    answer: Answer,
    arguments: Any,
    *,
    site_key: bool = False,
    defaults: dict[str, Any] | None = None,
    budget: int = BATCH_BYTE_BUDGET,
    deadline: float = DEADLINE_SECONDS,
    clock: Callable[[], float] = time.monotonic,
    started: float | None = None,
) -> dict[str, Any]:
    """Answer a ``read_batch`` call ``{"items": [...]}``.

    ``answer`` runs one item (see :data:`Answer`).  ``defaults`` are arguments every
    item gets unless it gives them itself (the server's batch-wide ``site``).
    ``deadline`` seconds are counted by ``clock`` from ``started`` (default: now);
    both can be injected, so a test decides when time is up.
    """
    if started is None:
        started = clock()
    items = check_items(arguments, site_key=site_key)
    room = budget - _reserve(len(items))
    kept: list[dict[str, Any]] = []
    used = 0
    unread_from: int | None = None
    reason = ""
    for position, item in enumerate(items):
        if clock() - started >= deadline:
            unread_from, reason = position, "timeout"
            break
        try:
            tool, args = _item_request(item, position)
        except OkfError as err:
            result = err.envelope
        else:
            if defaults:
                args = {**{k: v for k, v in defaults.items() if k not in args}, **args}
            result = answer(tool, args)
        size = len(answer_json(result).encode("utf-8"))
        if size > room:  # could never fit in any batch: say so, and let the batch go on
            result = OkfError(
                "item_too_large",
                f"items[{position}]'s answer is {size} bytes; a batch of {len(items)} leaves {room} bytes per item: "
                f"read it with {item.get('tool') if isinstance(item, dict) else 'its own tool'} itself "
                "(or lower its max_chars / narrow its lines)",
                item=position, size=size, max=room,
                read_with=item.get("tool") if isinstance(item, dict) and item.get("tool") in BATCH_TOOLS else None,
            ).envelope
            if result["error"]["read_with"] is None:
                del result["error"]["read_with"]
            size = len(answer_json(result).encode("utf-8"))
        cost = size + (1 if kept else 0)  # the comma between items
        if used + cost > room:
            unread_from, reason = position, "byte_budget"
            break
        kept.append(result)
        used += cost
    out: dict[str, Any] = {"status": "ok", "count": len(kept), "items": kept}
    if unread_from is not None:
        out["unread"] = list(range(unread_from, len(items)))
        out["unread_reason"] = reason
    return out
