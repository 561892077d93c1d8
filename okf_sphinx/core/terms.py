"""Term extraction, query validation and the snippet rule (docs/contract.md: "Terms", "Queries", "Results").

``terms(text)`` is ``NFC(casefold(text))`` split into maximal runs of code
points whose general category is a letter, number or mark.  The build uses the
running Python's :mod:`unicodedata`; the index ships those tables
(``unicode.js``) so a query engine with another Unicode version — a newer
Python, or a browser — produces exactly the build's terms.  :class:`Normaliser`
is that table-driven engine; the browser runtime's twin (``okf_sphinx/js/core/terms.js``)
implements the same algorithm.

This module must not import Sphinx or docutils: the query path uses it.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from . import segment as cjk
from .errors import OkfError, json_text

MAX_QUERY_CODE_POINTS = 512
MAX_QUERY_TERMS = 32
MAX_TERM_CODE_POINTS = 4096
SNIPPET_CODE_POINTS = 512
SNIPPET_LEAD = 80

Ranges = list[tuple[int, int]]
_ASCII_WORD_RUN = re.compile("[0-9a-z]+")
_NON_ASCII = re.compile("[^\x00-\x7f]")


def _ranges_where(predicate: Any) -> Ranges:
    """Inclusive code-point ranges (surrogates excluded) where ``predicate(chr)`` holds."""
    out: Ranges = []
    start = -1
    for cp in range(sys.maxunicode + 2):
        ok = cp <= sys.maxunicode and not 0xD800 <= cp <= 0xDFFF and predicate(chr(cp))
        if ok and start < 0:
            start = cp
        elif not ok and start >= 0:
            out.append((start, cp - 1))
            start = -1
    return out


def _category_ranges(prefixes: str) -> Ranges:
    return _ranges_where(lambda c: unicodedata.category(c)[0] in prefixes)


def _char_class(ranges: Ranges) -> str:
    parts = []
    for lo, hi in ranges:
        parts.append(re.escape(chr(lo)) if lo == hi else f"{re.escape(chr(lo))}-{re.escape(chr(hi))}")
    return "[" + "".join(parts) + "]"


def _pairs(flat: Sequence[int]) -> Ranges:
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]


@functools.cache
def unicode_tables() -> dict[str, Any]:
    """The tables shipped as ``unicode.js``: everything a query engine needs to
    reproduce this build's :func:`terms` on any Unicode version.

    Scanning all code points takes most of a second, so the tables of known
    Unicode versions ship in the package (``unicode_data/<version>.json``, made
    by :func:`compute_unicode_tables` and checked by the tests).
    """
    shipped = Path(__file__).parents[1] / "unicode_data" / f"{unicodedata.unidata_version}.json"
    if shipped.is_file():
        return json.loads(shipped.read_text(encoding="utf-8"))
    return compute_unicode_tables()


def compute_unicode_tables() -> dict[str, Any]:
    """:func:`unicode_tables` computed from this Python's :mod:`unicodedata`."""
    fold = {}
    for cp in range(sys.maxunicode + 1):  # a lone surrogate folds to itself: no entry
        c = chr(cp)
        f = c.casefold()
        if f != c:
            fold[f"{cp:x}"] = f
    assigned = _ranges_where(lambda c: unicodedata.category(c) != "Cn")
    return {
        "unicode_version": unicodedata.unidata_version,
        # ranges as flat [lo, hi, lo, hi, ...] lists: compact and quick to bisect
        "word": [x for r in _category_ranges("LNM") for x in r],
        "letter_number": [x for r in _category_ranges("LN") for x in r],
        "assigned": [x for r in assigned for x in r],
        "casefold": fold,
    }


def in_ranges(flat: Sequence[int], cp: int) -> bool:
    """Is ``cp`` in one of the inclusive ranges ``flat = [lo0, hi0, lo1, hi1, …]`` (sorted)?"""
    # an odd insertion point means inside a range
    i = bisect.bisect_right(flat, cp)
    return i % 2 == 1 or (i > 0 and flat[i - 1] == cp)


class Normaliser:
    """Table-driven ``terms`` that reproduces a build made with another Unicode version.

    Code points the build did not know (unassigned there) are separators and,
    as starters without decompositions in the build's NFC, hard normalisation
    boundaries: each run between them is normalised on its own, so a newer
    engine cannot compose or reorder across them.
    """

    def __init__(self, tables: dict[str, Any]) -> None:
        self.unicode_version: str = tables["unicode_version"]
        self._word: list[int] = list(tables["word"])
        self._ln: list[int] = list(tables["letter_number"])
        self._assigned: list[int] = list(tables["assigned"])
        self._fold: dict[int, str] = {int(k, 16): v for k, v in tables["casefold"].items()}
        # Same Unicode version as this Python: str.casefold + unicodedata NFC are the
        # build's own functions, and a regex over the shipped ranges splits fastest.
        self.native = self.unicode_version == unicodedata.unidata_version
        self._word_run = re.compile(_char_class(_pairs(self._word)) + "+")
        self._letter_number = re.compile(_char_class(_pairs(self._ln)))

    def is_word(self, ch: str) -> bool:
        return in_ranges(self._word, ord(ch))

    def _normalise(self, text: str) -> str:
        folded = "".join(self._fold.get(ord(c), c) for c in text)
        out: list[str] = []
        segment: list[str] = []
        for c in folded:
            if in_ranges(self._assigned, ord(c)):
                segment.append(c)
            else:
                out.append(unicodedata.normalize("NFC", "".join(segment)))
                out.append(c)
                segment = []
        out.append(unicodedata.normalize("NFC", "".join(segment)))
        return "".join(out)

    def terms(self, text: str) -> list[str]:
        if text.isascii():
            # ASCII: casefold is lower(), NFC the identity, and L/N/M is [0-9A-Za-z]
            return _ASCII_WORD_RUN.findall(text.lower())
        if self.native:
            return self._word_run.findall(unicodedata.normalize("NFC", text.casefold()))
        return self._word_run.findall(self._normalise(text))

    def word_runs(self, text: str) -> Iterable[tuple[int, str]]:
        """``(code-point offset, run)`` for each maximal letter/number/mark run of raw text."""
        for m in self._word_run.finditer(text):
            yield m.start(), m.group()

    def has_letter_number(self, text: str) -> bool:
        return self._letter_number.search(text) is not None

    # -- the contract's query rules ------------------------------------------------

    def query_terms(self, query: Any) -> list[str]:
        """Validate ``query`` (:func:`check_query` first, then the rules that need the
        tables) and return its distinct terms in first-occurrence order."""
        check_query(query)
        if not self.has_letter_number(query):
            raise OkfError("schema_validation", "query has no letter or number: add at least one word")
        if not self.native:
            self.check_known(query)
        seen: set[str] = set()
        result: list[str] = []
        for word in self.terms(query):
            if len(word) > MAX_TERM_CODE_POINTS:
                raise OkfError(
                    "resource_limit",
                    f"a query term is {len(word)} characters after normalisation; the limit is {MAX_TERM_CODE_POINTS}",
                    limit=MAX_TERM_CODE_POINTS, actual=len(word),
                )
            if word not in seen:
                seen.add(word)
                result.append(word)
        if not result:
            raise OkfError("schema_validation", "query has no searchable term: add a word")
        if len(result) > MAX_QUERY_TERMS:
            raise OkfError(
                "resource_limit",
                f"query has {len(result)} distinct terms; the limit is {MAX_QUERY_TERMS}: remove some words",
                limit=MAX_QUERY_TERMS, actual=len(result),
            )
        return result

    def check_known(self, query: str) -> None:
        """Refuse a query holding a code point the build's Unicode assigned but this
        engine's does not: its NFC (decomposition, combining class, composition) is
        unknown here, so the terms could differ from the build's.  Code points this
        engine knows normalise exactly as at build time (Unicode's normalisation
        stability), so every other query gets the build's terms."""
        if query.isascii():
            return
        for ch in query:
            cp = ord(ch)
            if cp > 0x7F and unicodedata.category(ch) == "Cn" and in_ranges(self._assigned, cp):
                raise unknown_code_point(cp, self.unicode_version)

    def snippet(self, text: str, query_terms: Sequence[str]) -> str:
        """The exact snippet of a range's text for these query terms (contract §5).

        The rule scans every letter/number/mark run; done run by run in Python
        that dominates a warm query, so it is split in two exact searches: a
        run of ASCII characters is one term, its lower case, so one regex finds
        the first ASCII run equal to an ASCII query term; the (rare) runs with
        a non-ASCII character go through the full rule, only up to that point.
        """
        start = self.snippet_start(text, query_terms)
        return text[start : start + SNIPPET_CODE_POINTS]

    def snippet_start(self, text: str, query_terms: Sequence[str]) -> int:
        """Where the snippet starts, in code points: :data:`SNIPPET_LEAD` before the first
        run whose first term is a query term (0 when none is)."""
        found = self._first_match(text, tuple(query_terms))
        return 0 if found is None else max(0, found - SNIPPET_LEAD)

    def _first_match(self, text: str, query_terms: tuple[str, ...]) -> int | None:
        # a part key (" 数据", okf_sphinx/core/segment.py: cjk) matches a run holding CJK text that
        # has its unit among its units
        units = {t[1:] for t in query_terms if t[:1] == cjk.PART}
        if units:
            query_terms = tuple(t for t in query_terms if t[:1] != cjk.PART)
        pattern = self._ascii_pattern(query_terms)
        first = None
        if pattern is not None:
            for m in pattern.finditer(text):
                # the ASCII lookarounds are cheap; a non-ASCII neighbour is checked here
                a, b = m.start(), m.end()
                if (a == 0 or text[a - 1].isascii() or not self.is_word(text[a - 1])) and (
                    b == len(text) or text[b].isascii() or not self.is_word(text[b])
                ):
                    first = a
                    break
        if text.isascii():
            return first
        wanted = set(query_terms)
        done = 0  # end of the last run examined
        # a plain [^\x00-\x7f] scan is far quicker than the 781-range class; few hits remain
        for m in _NON_ASCII.finditer(text, 0, len(text) if first is None else first):
            if m.start() < done or not self.is_word(m.group()):
                continue  # inside the run just examined, or not a letter/number/mark
            start = m.start()
            while start > 0 and self.is_word(text[start - 1]):
                start -= 1
            run = self._word_run.match(text, start)
            assert run is not None
            done = run.end()
            candidate = self.terms(run.group())
            if candidate and (candidate[0] in wanted or (units and cjk.has_cjk(candidate[0]) and any(
                    u in units for _at, u in cjk.units(candidate[0])))):
                return start
        return first

    @functools.lru_cache(maxsize=256)  # noqa: B019 - one Normaliser per index, kept for its life
    def _ascii_pattern(self, query_terms: tuple[str, ...]) -> re.Pattern[str] | None:
        ascii_terms = sorted((t for t in query_terms if t.isascii()), key=len, reverse=True)
        if not ascii_terms:
            return None
        alternatives = "|".join(re.escape(t) for t in ascii_terms)
        return re.compile(f"(?<![0-9A-Za-z])(?:{alternatives})(?![0-9A-Za-z])", re.ASCII | re.IGNORECASE)


def check_query(query: Any) -> None:
    """The contract's query rules that need no Unicode tables (a string, well formed, 1 to
    :data:`MAX_QUERY_CODE_POINTS` code points), checked first, in this order."""
    if not isinstance(query, str):
        raise OkfError("schema_validation", "query must be a string")
    if not valid_unicode(query):
        raise OkfError("schema_validation", "query is not valid Unicode (it holds a lone surrogate)")
    n = len(query)
    if n < 1:
        raise OkfError("schema_validation", "query is empty: give 1 to 512 characters with at least one letter or number")
    if n > MAX_QUERY_CODE_POINTS:
        raise OkfError(
            "schema_validation",
            f"query is {n} characters long; the limit is {MAX_QUERY_CODE_POINTS}: shorten it",
            limit=MAX_QUERY_CODE_POINTS, actual=n,
        )


def unknown_code_point(cp: int, build_version: str) -> OkfError:
    """The envelope every engine (Python, Node, browser) gives for :meth:`Normaliser.check_known`."""
    return OkfError(
        "index_version_unsupported",
        f"the query holds U+{cp:04X}, which the index's Unicode {build_version} assigns but this "
        f"engine's Unicode tables do not know, so it cannot normalise the query as the build did: "
        f"query with a newer Python or browser (Unicode {build_version} or later), or leave the character out",
        unicode_version=build_version, code_point=f"U+{cp:04X}",
    )


def valid_unicode(text: str) -> bool:
    """False for a str holding a lone surrogate (what JSON's \\ud800 decodes to)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def validate_limit(limit: Any, default: int = 20, maximum: int = 100) -> int:
    """``limit``: an int (not bool, float or numeric string) in 1..maximum."""
    if limit is None:
        return default
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise OkfError("schema_validation", f"limit must be an integer from 1 to {maximum}, got {json_text(limit)}")
    if not 1 <= limit <= maximum:
        raise OkfError("schema_validation", f"limit must be from 1 to {maximum}, got {json_text(limit)}")
    return limit


@functools.cache
def native() -> Normaliser:
    """The engine for this Python's own tables: what the build uses."""
    return Normaliser(unicode_tables())


def terms(text: str) -> list[str]:
    """The contract's ``terms(text)`` with this Python's Unicode tables (build side)."""
    return native().terms(text)
