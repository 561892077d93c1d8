"""TEMPORARY development stand-in for the pinned Snowball stemmer (branch `stemmer`).

Replaced by the real module when that branch is merged; same interface.
"""

from __future__ import annotations

from collections.abc import Callable

STEMMER_VERSION = "dev-0"


def _english(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def stemmer_for(language: str) -> Callable[[str], str] | None:
    lang = (language or "en").lower().replace("-", "_").split("_")[0]
    return _english if lang == "en" else None
