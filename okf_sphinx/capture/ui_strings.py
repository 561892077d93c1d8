"""The search dialog's and the search page's UI strings in a site's language, for both hosts.

okf-boot.js holds the English strings (its ``STRINGS``); a build passes the ones its
language translates as ``data-okf-strings`` on the dialog's script tag.  The
translations are okf_sphinx's own message catalogue,
``okf_sphinx/locale/<lang>/LC_MESSAGES/okf_sphinx.po``, compiled to ``.mo`` with
``pybabel compile -d okf_sphinx/locale -D okf_sphinx`` (tests/test_ui_strings.py holds
every catalogue complete and its ``.mo`` in step).  A Sphinx site takes the strings
Sphinx itself translates (``SPHINX``) from Sphinx's catalogues, so they read as the rest
of the site (capture/sphinx/ui_strings.py); a MkDocs site takes them all from here.
The search page's words (``PAGE_STRINGS``: okf-search-page.js's and its template's) are
messages of the same catalogue; the template shows ``okf_labels``, the script reads the
rest from ``data-okf-strings`` on ``#okf-search``.

Host-neutral: the standard library's gettext only.
"""

from __future__ import annotations

import gettext
import json
from collections.abc import Callable
from pathlib import Path

CATALOG = "okf_sphinx"
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"

#: dialog key -> msgid: every string of okf-boot.js's STRINGS (its English default)
STRINGS = {
    "label": "Search",
    "placeholder": "Search the documentation",
    "results": "Search Results",
    "searching": "Searching",
    "close": "Close",
    "none": "No page contains {terms}.",
    "partial": "No page contains all of: {terms}. {n} pages have some of them.",
    "partial_one": "No page contains all of: {terms}. 1 page has some of them.",
    "match": "{n} pages match.",
    "match_one": "1 page matches.",
    "match_shown": "{n} pages match; showing the first {k}.",  # more match than the dialog shows
    "missing": "Missing: {terms}",
    "suggest": "Did you mean",
    "suggest_said": "No page has \u201c{term}\u201d: did you mean {words}?",
    "corrected": "Showing results for \u201c{query}\u201d.",  # a misspelt word searched as the site's word
    "as_typed": "Search for \u201c{query}\u201d instead",  # the button that searches the words as typed
    "all": "All results",
    "more": "Load more",
    "recent": "Recent searches",
    "clear_recent": "Clear recent searches",
    "hint": "\u2191\u2193 to move, Enter to open, {mod}+Enter for a new tab, Esc to close. Open with {key} or /.",
    "failed": "Search failed: {error}",
    "matches": "Search matches",
    "hide": "Hide Search Matches",
    "next": "next",  # the next match on a page the dialog opened (not the next page)
    "previous": "previous",
    "count": "{i} of {n}",
    "count_none": "No match on this page",
}
#: keys a Sphinx site takes from Sphinx's own catalogues (the words of its own search page)
SPHINX = ("label", "results", "searching", "hide")

#: search page key -> msgid: the search page's words (okf-search-page.js's PAGE_STRINGS and
#: the labels of templates/okf-search-body.html), in the same catalogue; a msgid the dialog
#: has too is one message, translated once
PAGE_STRINGS = {
    "label": STRINGS["placeholder"],
    "label_keyword": "Search the documentation (every word must appear in a section)",
    "more": "Show more results",
    "noscript": "Search needs JavaScript. You can still browse the pages from the table of contents.",
    "searching": STRINGS["searching"],
    "failed": STRINGS["failed"],
    "none": STRINGS["none"],
    "partial": STRINGS["partial"],
    "partial_one": STRINGS["partial_one"],
    "match": STRINGS["match"],
    "match_one": STRINGS["match_one"],
    "sections_none": "No section contains all of: {terms}.",
    "sections_match": "{n} sections match.",
    "sections_match_one": "1 section matches.",
    "meaning_none": "No page is near in meaning to: {terms}.",
    "meaning": "{n} pages by meaning.",
    "meaning_one": "1 page by meaning.",
    "first": "Showing the first {n}.",
    "shown_all": "Showing all {n}.",
    "filters": "Filters: {filters}.",
    "filter_under": "under {path}",
    "filter_kind": "kind {kinds}",
    "suggest_said": STRINGS["suggest_said"],
    "missing": STRINGS["missing"],
    "related": "Linked from these results",
    "via_ref": "linked from a result",
    "via_doc": "a page a result links to",
    "via_toctree": "in a result\u2019s table of contents",
    "via_object": "an object a result names",
    "by_meaning": "by meaning",
    "corrected": STRINGS["corrected"],
    "as_typed": STRINGS["as_typed"],
}
#: the search page's keys its template shows (the others are okf-search-page.js's)
PAGE_TEMPLATE = ("label", "label_keyword", "more", "noscript")
#: every message of okf_sphinx's catalogue
MESSAGES = sorted(set(STRINGS.values()) | set(PAGE_STRINGS.values()))

#: other names of a catalogue's language (MkDocs themes' and BCP 47 spellings)
ALIASES = {"zh": "zh_CN", "zh_hans": "zh_CN", "zh_sg": "zh_CN", "zh_hant": "zh_TW", "zh_hk": "zh_TW",
           "zh_mo": "zh_TW", "no": "nb", "nb_no": "nb", "pt_pt": "pt"}


def catalogue(language: str | None) -> gettext.NullTranslations:
    """okf_sphinx's catalogue for ``language`` (``zh_CN``, ``zh-Hans``, ``pt-BR``, ``ja`` …);
    English (no translation) when it has none."""
    code = (language or "en").replace("-", "_")
    region = code.split("_", 1)
    if len(region) == 2:
        code = f"{region[0].lower()}_{region[1].upper() if len(region[1]) == 2 else region[1]}"
    names = [code, ALIASES.get(code.lower(), code)]
    return gettext.translation(CATALOG, str(LOCALE_DIR), languages=names, fallback=True)


def translated(table: dict[str, str], gettext: Callable[[str], str]) -> dict[str, str]:
    """The strings of ``table`` (key -> msgid) that ``gettext`` translates (the ones that
    differ from English)."""
    out = {}
    for key, msgid in table.items():
        text = gettext(msgid)
        if text and text != msgid:
            out[key] = text
    return out


def dialog_strings(language: str | None) -> dict[str, str]:
    """The dialog's strings that ``language`` translates (the ones that differ from English)."""
    found = catalogue(language)
    return translated(STRINGS, found.gettext)


def page_strings(language: str | None) -> dict[str, str]:
    """The search page's strings that ``language`` translates."""
    found = catalogue(language)
    return translated(PAGE_STRINGS, found.gettext)


def page_strings_context(strings: dict[str, str]) -> dict[str, object]:
    """What the search page's template reads of its words: ``okf_labels`` (what the template
    shows, English where ``strings`` has no translation) and ``okf_page_strings`` (the
    ``data-okf-strings`` of okf-search-page.js, "" when nothing is translated)."""
    script = {key: text for key, text in strings.items() if key not in PAGE_TEMPLATE}
    return {"okf_labels": {key: strings.get(key, PAGE_STRINGS[key]) for key in PAGE_TEMPLATE},
            "okf_page_strings": strings_json(script) if script else ""}


def strings_json(strings: dict[str, str]) -> str:
    """``data-okf-strings``' value."""
    return json.dumps(strings, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
