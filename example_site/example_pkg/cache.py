"""Cache store: an in-memory cache whose entries expire.

The docstrings here are Google style; ``sphinx.ext.napoleon`` turns their
``Args:`` and ``Returns:`` blocks into fields.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from math import sqrt  # noqa: F401 - a C builtin, re-exported and documented with autofunction

__all__ = ["CacheError", "CacheStore", "evict_expired"]


class CacheError(Exception):
    """Raised when an entry cannot be stored (the store is full) or is missing."""


class CacheStore:
    """An in-memory cache of values that expire after a time to live.

    Args:
        capacity: the most entries the store keeps at once.
    """

    #: Seconds an entry lives when ``put`` is not given a ``ttl``.
    default_ttl = 300.0

    def __init__(self, capacity: int = 128) -> None:
        self.capacity = capacity
        self._entries: dict[str, tuple[object, float]] = {}

    def put(self, key: str, value: object, ttl: float | None = None) -> None:
        """Store ``value`` under ``key`` until its time to live runs out.

        Args:
            key: the entry's name.
            value: any object.
            ttl: seconds until the entry expires; ``default_ttl`` when omitted.

        Raises:
            CacheError: the store already holds ``capacity`` entries.
        """
        if key not in self._entries and len(self._entries) >= self.capacity:
            raise CacheError(f"the store is full ({self.capacity} entries)")
        self._entries[key] = (value, time.monotonic() + (self.default_ttl if ttl is None else ttl))

    def filter(self, predicate: Callable[[object], bool]) -> list[str]:
        """Return the keys whose values satisfy ``predicate``, in insertion order.

        Args:
            predicate: called with each live value.

        Returns:
            The matching keys.
        """
        return [k for k, (v, _) in self._entries.items() if predicate(v)]

    @property
    def size(self) -> int:
        """The number of entries held, expired ones included until evicted."""
        return len(self._entries)

    @classmethod
    def from_mapping(cls, mapping: dict[str, object]) -> CacheStore:
        """Build a store pre-filled from ``mapping``, one entry per item."""
        store = cls(capacity=max(len(mapping), 1))
        for key, value in mapping.items():
            store.put(key, value)
        return store


def evict_expired(store: CacheStore, now: float | None = None) -> int:
    """Drop every expired entry of ``store``.

    Args:
        store: the cache to clean.
        now: the clock reading to compare with; ``time.monotonic()`` when omitted.

    Returns:
        How many entries were dropped.
    """
    now = time.monotonic() if now is None else now
    gone = [k for k, (_, expiry) in store._entries.items() if expiry <= now]
    for key in gone:
        del store._entries[key]
    return len(gone)
