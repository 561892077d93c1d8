"""A memory bound for a long-lived reader: an LRU cache sized in (estimated) bytes.

An :class:`~okf_sphinx.engine.index.Index` keeps what it loaded and derived (index
files, decoded posting lists with their score tables, line maps, heading keys)
here, so a warm query touches no I/O; the least recently used entries are
dropped once the total passes the bound, and are simply loaded again when
needed.  Sizes are estimates of what CPython holds for the value
(:func:`footprint`), charged once when an entry is stored.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from typing import Any

_SMALL_INT = range(-5, 257)  # CPython shares these objects: they cost a pointer only
_INT_LIST_ITEM = 12


def footprint(value: Any) -> int:
    """Approximate bytes CPython holds for a JSON-like value (str, bytes, numbers,
    lists, tuples, dicts), shared small ints and singletons counted as pointers."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str or t is bytes:
            total += sys.getsizeof(v)
        elif t is int:
            if v not in _SMALL_INT:
                total += 32
        elif t is float:
            total += 24
        elif t is list or t is tuple:
            total += sys.getsizeof(v)
            if len(v) > 16 and type(v[0]) is int and type(v[-1]) is int:
                # a posting list: not walked item by item (that would cost more than parsing it);
                # about one in three of its numbers is past the shared small ints
                total += _INT_LIST_ITEM * len(v)
            else:
                stack.extend(v)
        elif t is dict:
            total += sys.getsizeof(v)
            stack.extend(v.keys())
            stack.extend(v.values())
        elif v is None or t is bool:
            pass
        else:
            size = getattr(v, "footprint", None)
            total += size() if callable(size) else sys.getsizeof(v)
    return total


class ByteLRU:
    """``key → value`` with a total cost of at most ``limit`` bytes (thread-safe).

    A value costing more than the whole limit is not kept.  ``limit = 0`` keeps
    nothing (every request reads its files again).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Any) -> Any:
        """The value of ``key`` (now the most recently used), or None."""
        # no lock: each OrderedDict operation is atomic; an entry dropped meanwhile is still returned
        item = self._items.get(key)
        if item is None:
            return None
        try:
            self._items.move_to_end(key)
        except KeyError:
            pass
        return item[0]

    def put(self, key: Any, value: Any, cost: int) -> None:
        if cost > self.limit:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.size -= old[1]
            self._items[key] = (value, cost)
            self.size += cost
            while self.size > self.limit:
                _, (_, dropped) = self._items.popitem(last=False)
                self.size -= dropped
