"""One folder's file budget (the index writer sizes every sharded folder with one)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """How many files one folder aims at, and how large they may grow."""

    files: int  # the page budget's share: the aim (≥ 1, ≤ cap)
    cap: int  # the large-site budget: past it, files grow instead of multiplying
    largest: int  # bytes of JSON a file grows to for the page budget's sake (0: no such limit)
    smallest: int  # bytes of JSON a file aims at, at least (a small site's files)
