"""Words of Chinese, Japanese and Korean text: character pairs (docs/smart.md, "Chinese,
Japanese and Korean").

These languages run words together: a term of the contract (a maximal letter/number
run) is often a whole clause (``本节介绍如何配置数据库连接和缓存``), so a reader's short
word (``数据库``) is no term of the site.  On a site whose language is Chinese, Japanese or
Korean, smart mode therefore splits every term that holds a CJK character into *units*:

- the term is cut where CJK characters meet others (``djangoのモデル`` → ``django``,
  ``のモデル``);
- a CJK part of one character is one unit; a longer one gives its overlapping character
  pairs (``数据库`` → ``数据``, ``据库``);
- any other part is one unit, as written (``django``).

The build adds each unit of a longer term to the keyword posting index under a *part
key*, the unit after a space (``" 数据"``): no query term holds a space, so keyword
answers never see them, and a part key sits in the stem group of its unit
(:func:`okf_sphinx.core.index_format.posting_key`), beside the term that is the unit
itself, so one posting file holds both.  A query splits its terms the same way, each
unit a smart-mode word.  Pairs need no dictionary: the browser splits a query with the
code-point ranges below, in ``okf_sphinx/js/core/segment.js`` (its twin, which takes the
constants from here through ``js/core/constants.js``).

Imports nothing from Sphinx.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping

#: The manifest's ``smart.segmenter`` of a site that splits CJK terms into units.
SEGMENTER = "cjk-pairs-1"
#: What starts a part key: a unit of a longer term (no term holds a space).
PART = " "
#: Languages (Sphinx's ``language``, MkDocs' ``theme.language``; any region suffix) whose
#: sites split CJK terms.
LANGUAGES = ("zh", "ja", "ko")
#: Units a smart query uses at most (the first ones, in query order).
MAX_UNITS = 32

#: Inclusive code-point ranges of the scripts that run words together: Han (and its
#: iteration and numeral marks), Hiragana, Katakana (half-width too), Bopomofo, Hangul.
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3031, 0x3035),
    (0x3038, 0x303C), (0x3041, 0x30FF), (0x3105, 0x318F), (0x31A0, 0x31BF), (0x31F0, 0x31FF),
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xF900, 0xFAFF),
    (0xFF66, 0xFFDC), (0x1AFF0, 0x1B16F), (0x20000, 0x323AF),
)
_STARTS = [lo for lo, _hi in CJK_RANGES]


def segmenter_for(language: str | None) -> str | None:
    """:data:`SEGMENTER` for a Chinese, Japanese or Korean site, else None."""
    base = (language or "").replace("-", "_").split("_", 1)[0].lower()
    return SEGMENTER if base in LANGUAGES else None


def is_cjk(ch: str) -> bool:
    cp = ord(ch)
    i = bisect.bisect_right(_STARTS, cp) - 1
    return i >= 0 and cp <= CJK_RANGES[i][1]


def has_cjk(term: str) -> bool:
    return not term.isascii() and any(is_cjk(c) for c in term)


def parts(term: str) -> list[tuple[int, str, bool]]:
    """``(code-point offset, part, is CJK)`` of ``term`` cut where CJK characters meet others."""
    out: list[tuple[int, str, bool]] = []
    start = 0
    for i in range(1, len(term) + 1):
        if i == len(term) or is_cjk(term[i]) != is_cjk(term[start]):
            out.append((start, term[start:i], is_cjk(term[start])))
            start = i
    return out


def units(term: str) -> list[tuple[int, str]]:
    """``(code-point offset, unit)`` of a term, in order: ``[(0, term)]`` when it holds no CJK
    character; else its parts, each CJK part of two or more characters as its pairs."""
    if not has_cjk(term):
        return [(0, term)]
    out: list[tuple[int, str]] = []
    for at, part, cjk in parts(term):
        if cjk and len(part) > 1:
            out.extend((at + i, part[i : i + 2]) for i in range(len(part) - 1))
        else:
            out.append((at, part))
    return out


def part_freqs(freqs: Mapping[str, int]) -> dict[str, int]:
    """The part keys of one section (build side): for every term that holds a CJK character
    and is not itself its one unit, its units' frequencies (the term's weighted frequency
    each time the unit occurs in it) under ``PART + unit``."""
    out: dict[str, int] = {}
    for term, f in freqs.items():
        if not has_cjk(term):
            continue
        found = units(term)
        if len(found) == 1 and found[0][1] == term:
            continue
        for _at, unit in found:
            key = PART + unit
            out[key] = out.get(key, 0) + f
    return out


def query_units(words: list[str]) -> list[tuple[int, int, str]]:
    """``(word index, offset in the word, unit)`` of a query's terms: every distinct unit,
    in query order, at most :data:`MAX_UNITS`."""
    seen: set[str] = set()
    out: list[tuple[int, int, str]] = []
    for w, word in enumerate(words):
        for at, unit in units(word):
            if unit not in seen and len(out) < MAX_UNITS:
                seen.add(unit)
                out.append((w, at, unit))
    return out


def spans(words: list[str], found: list[tuple[int, int, str]], chosen: list[int]) -> list[str]:
    """The query text the ``chosen`` units (indexes into ``found``) cover, for the answer's
    ``matched_terms`` and ``missing_terms``: a unit that is a whole query term is that term;
    units of one term that touch or overlap are joined into the part of the term they
    cover (``数据`` + ``据库`` → ``数据库``); in query order."""
    out: list[str] = []
    run: tuple[int, int, int] | None = None  # (word, start, end) of the text being joined
    for k in sorted(chosen, key=lambda k: (found[k][0], found[k][1])):
        w, at, unit = found[k]
        end = at + len(unit)
        if run is not None and run[0] == w and at <= run[2]:
            run = (w, run[1], max(run[2], end))
            continue
        if run is not None:
            out.append(words[run[0]][run[1] : run[2]])
        run = (w, at, end)
    if run is not None:
        out.append(words[run[0]][run[1] : run[2]])
    return out
