"""Matching ``get_section``'s ``heading`` against a page's headings: equal after
normalising (whitespace, dashes, quotes, case) and after removing inline markup,
or by a leading identifier (``2.1``, ``a.``); otherwise ``section_not_found``
with the headings that hold the asked words first.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import TYPE_CHECKING, Any

from okf_sphinx.core.errors import OkfError

from .answers import MAX_LIST, limited
from .pages import section_ref

if TYPE_CHECKING:
    from okf_sphinx.engine.index import Index


# -- heading matching -------------------------------------------------------------------

_DASHES = re.compile("[\u002d\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                         "\u00ab": '"', "\u00bb": '"'})
_IDENT_QUERY = re.compile(r"^([A-Za-z]{0,3}\d{0,3})(\.?)$")
_IDENT_HEAD = re.compile(r"^([a-z]{0,3}\d{1,3}\.?|[a-z]{1,3}\.)(?=[\s.]|$)")


def norm_heading(text: str) -> str:
    """Equality key: trimmed, inner whitespace collapsed, dash forms unified, case folded."""
    text = unicodedata.normalize("NFC", text).replace("\u2026", "...").translate(_QUOTES)
    text = _DASHES.sub("-", " ".join(text.split()))
    return text.casefold()


_MARKUP_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?::[\w+.:-]+:|\{[\w+.:-]+\})`([^`]*?)(?:\s*<[^<>`]*>)?`"), r"\1"),   # roles (RST / MyST)
    (re.compile(r"``(.+?)``"), r"\1"),                                                  # RST literal
    (re.compile(r"`([^`<]+?)\s*<[^<>`]*>`__?"), r"\1"),                                 # RST link `text <url>`_
    (re.compile(r"`([^`]+?)`__?"), r"\1"),                                              # RST reference `x`_
    (re.compile(r"`([^`]+?)`"), r"\1"),                                                 # interpreted / MD code
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),                                    # MD link / image
    (re.compile(r"\*\*(.+?)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])__(.+?)__(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])"), r"\1"),
    (re.compile(r"\\(.)"), r"\1"),                                                      # backslash escapes
]


def strip_markup(text: str) -> str:
    """Inline RST / MyST markup removed, roughly as a reader sees the heading."""
    for pattern, repl in _MARKUP_RULES:
        text = pattern.sub(repl, text)
    return text


def _identifier(query: str) -> str | None:
    q = query.strip()
    m = _IDENT_QUERY.match(q)
    if not m or not q or q == ".":
        return None
    if not any(ch.isdigit() for ch in q) and not m.group(2):
        return None  # bare letters are a word, not an identifier
    return m.group(1).casefold()


def _starts_with_identifier(key: str, ident: str) -> bool:
    if not key.startswith(ident):
        return False
    rest = key[len(ident) :]
    return rest == "" or rest[0] in ". "


def _heading_keys(index: Index, page: dict[str, Any], page_no: int) -> list[set[str]]:
    """Per section: the keys a heading query may equal — the heading Sphinx reports and
    that heading with inline markup removed.  A query in source form (``foo``, *em*)
    matches through the same markup removal; nothing else (a body line that merely
    opens the section, as under front matter's myst_title_to_header) ever matches."""
    return index.memo(("heading_keys", page_no), lambda: _compute_heading_keys(page))


def _compute_heading_keys(page: dict[str, Any]) -> list[set[str]]:
    keys = []
    for s in page["sections"]:
        k = {norm_heading(s["heading"]), norm_heading(strip_markup(s["heading"]))} if s["heading"] else set()
        k.discard("")
        keys.append(k)
    return keys


def match_heading(index: Index, page: dict[str, Any], page_no: int, heading: str) -> int:
    keys = _heading_keys(index, page, page_no)
    wanted = {norm_heading(heading), norm_heading(strip_markup(heading))}
    wanted.discard("")
    if not wanted:
        raise OkfError("schema_validation", "heading is empty: give the heading text, or omit it for the page outline",
                       field="heading")
    matches = [i for i, k in enumerate(keys) if k & wanted]
    how = "equal"
    if not matches:
        ident = _identifier(heading)
        if ident is not None:
            how = "identifier"
            matches = [i for i, k in enumerate(keys) if any(_starts_with_identifier(x, ident) for x in k)]
    if len(matches) > 1:
        # a section continued after an object's directive block: the heading names the section itself
        own = [i for i in matches if not page["sections"][i].get("continued")]
        if len(own) == 1:
            matches = own
    if len(matches) == 1:
        return matches[0]
    if matches:
        cands = [section_ref(page, i) for i in matches]
        raise OkfError(
            "ambiguous_section",
            f"{len(matches)} sections of {page['concept_id']!r} match heading {heading!r}"
            + (" by identifier" if how == "identifier" else "")
            + "; ask again with one of the candidates' locators",
            concept_id=page["concept_id"], heading=heading, **limited(cands, "candidates"),
        )
    # not found: headings holding every asked word first (document order), then close
    # headings, else the page's identifiers
    words = [w for w in re.split(r"[^\w]+", " ".join(sorted(wanted))) if w]
    close: list[int] = [i for i, k in enumerate(keys) if words and any(
        all(re.search(rf"(?<!\w){re.escape(w)}", x) for w in words) for x in k)]
    by_key: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        for x in k:
            by_key.setdefault(x, []).append(i)
    for q in sorted(wanted):
        for key in difflib.get_close_matches(q, list(by_key), n=MAX_LIST + 1, cutoff=0.6):
            for i in by_key[key]:
                if i not in close:
                    close.append(i)
    if not close:
        close = [i for i, k in enumerate(keys) if any(_IDENT_HEAD.match(x) for x in k)]
    suggestions = [section_ref(page, i) for i in close]
    raise OkfError(
        "section_not_found",
        f"no section of {page['concept_id']!r} has the heading {heading!r}"
        + ("; see suggestions" if suggestions else "; call get_section with only concept_id for the page's headings"),
        concept_id=page["concept_id"], heading=heading, **limited(suggestions, "suggestions"),
    )
