"""The site's own words (``d/<shard>``): the dictionary, and "did you mean" for a word it lacks.

The dictionary groups the site's terms by their first code points
(:func:`okf_sphinx.core.index_format.dict_key`), most frequent first, so a prefix
or a misspelling reads one small file.  The browser runtime's twin is
``okf_sphinx/js/engine/spelling.js``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from okf_sphinx.core import index_format as fmt

from .validators import check_dict, check_smart

if TYPE_CHECKING:
    from .index import Index

#: Close spellings offered for a word no page has.
MAX_SUGGESTIONS = 3


def dictionary(index: Index, key: str) -> list[list[Any]]:
    """``[term, df]`` of the site's terms that start with ``key``, most frequent first."""
    shard = index.load(fmt.dict_shard_name(key, check_smart(index.manifest.get("smart"))["dict_shards"]), check_dict)
    return shard.get(key, [])


def osa_distance(a: str, b: str, cap: int) -> int:
    """Optimal-string-alignment edit distance over code points; ``cap + 1`` once it exceeds ``cap``."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
        if min(cur) > cap:
            return cap + 1
        prev2, prev = prev, cur
    return prev[len(b)]


def suggestions(index: Index, word: str) -> list[str]:
    """Up to :data:`MAX_SUGGESTIONS` close spellings of ``word`` from the index's own
    dictionary: the closest first, then the dictionary's order (most frequent first)."""
    cap = 1 if len(word) <= 4 else 2
    scored = []
    for n, (term, _df) in enumerate(dictionary(index, fmt.dict_key(word))):
        d = osa_distance(word, term, cap)
        if d <= cap:
            scored.append((d, n, term))
    scored.sort()
    return [t for _d, _n, t in scored[:MAX_SUGGESTIONS]]
