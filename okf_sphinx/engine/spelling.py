"""The site's own words: the dictionary (``d/<shard>``), corrections and "did you mean"
(``e/<shard>``) for a word no page holds (docs/smart.md, "Misspelt words").

The dictionary groups the site's terms by their first code points
(:func:`okf_sphinx.core.index_format.dict_key`), most frequent first, so a prefix
reads one small file.  The same words are filed under each of their edit keys
(:func:`okf_sphinx.core.index_format.edit_keys`), so the words one or two edits from a
misspelt one are in three files.  The browser runtime's twin is
``okf_sphinx/js/engine/spelling.js``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from okf_sphinx.core import index_format as fmt

from .validators import check_dict, check_smart

if TYPE_CHECKING:
    from okf_sphinx.core.terms import Normaliser

    from .index import Index

#: Close spellings offered for a word no page has.
MAX_SUGGESTIONS = 3
#: Words shorter than this are never corrected: too many words are one edit from a short one.
MIN_CORRECTION = 4
#: A correction is one edit from a shorter word, at most two from a word this long or longer.
LONG_WORD = 8
#: A correction is confident when every other word as near is at most 1 / CONFIDENCE as frequent.
CONFIDENCE = 2.0


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


def filed_keys(smart: dict[str, Any], word: str) -> list[str]:
    """``word``'s edit keys that may have words filed under them: all of them, but on an
    index that lists the code points of the words its spelling files hold (``edit_chars``)
    none with a code point outside that list, since no word is filed under such a key (so a
    word in letters the site's words never use reads no ``e/`` file, and the answer is the same)."""
    held = smart.get("edit_chars")
    return [k for k in fmt.edit_keys(word) if held is None or all(c in held for c in k)]


def near(index: Index, word: str) -> list[tuple[int, int, int, str]]:
    """``(distance, -df, n, term)`` of the site's words close to ``word`` (at most one edit
    away from a word of up to 4 code points, two from a longer one), nearest first, then
    most frequent, then in the order read: the words filed under ``word``'s edit keys
    (``e/``, three files at most: :func:`filed_keys`), or on an index without them the
    dictionary's words with the same first two code points (``d/``)."""
    cap = 1 if len(word) <= 4 else 2
    smart = check_smart(index.manifest.get("smart"))
    shards = smart.get("edit_shards")
    if shards is None:
        entries = dictionary(index, fmt.dict_key(word))
    else:
        entries = []
        for key in filed_keys(smart, word):
            entries += index.load(fmt.edit_shard_name(key, shards), check_dict).get(key, [])
    seen: set[str] = set()
    scored = []
    for n, (term, df) in enumerate(entries):
        if term in seen or term == word:
            continue
        seen.add(term)
        d = osa_distance(word, term, cap)
        if d <= cap:
            scored.append((d, -df, n, term))
    scored.sort()
    return scored


def suggestions(index: Index, word: str) -> list[str]:
    """Up to :data:`MAX_SUGGESTIONS` close spellings of ``word`` from the site's own words
    (:func:`near`)."""
    return [t for _d, _f, _n, t in near(index, word)[:MAX_SUGGESTIONS]]


def correction(index: Index, word: str) -> str | None:
    """The site's word that ``word`` — a word no page holds — is confidently a misspelling
    of, or None.  Confident: ``word`` has :data:`MIN_CORRECTION` code points or more and no
    digit 0-9, the correction is one edit away (two for a word of :data:`LONG_WORD` code
    points or more), and every other word as near is at most 1 / :data:`CONFIDENCE` as
    frequent (its page count against the correction's)."""
    if len(word) < MIN_CORRECTION or not fmt.correctable(word):
        return None
    found = near(index, word)
    if not found:
        return None
    d, neg_df, _n, term = found[0]
    if d > (1 if len(word) < LONG_WORD else 2):
        return None
    if len(found) > 1 and found[1][0] == d and -neg_df < CONFIDENCE * -found[1][1]:
        return None
    return term


def corrected_query(normaliser: Normaliser, query: str, fixes: dict[str, str]) -> str:
    """``query`` with each word that is a key of ``fixes`` (a query term) written as its
    correction: every letter/number run whose term it is, replaced; the rest as typed."""
    out = []
    at = 0
    for start, run in normaliser.word_runs(query):
        found = normaliser.terms(run)
        if len(found) == 1 and found[0] in fixes:
            out.append(query[at:start])
            out.append(fixes[found[0]])
            at = start + len(run)
    out.append(query[at:])
    return "".join(out)
