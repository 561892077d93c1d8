"""The search dialog's UI strings in a site's language, for both hosts.

okf-boot.js holds the English strings (its ``STRINGS``); a build passes the ones its
language translates as ``data-okf-strings`` on the dialog's script tag.  The
translations are okf_sphinx's own message catalogue,
``okf_sphinx/locale/<lang>/LC_MESSAGES/okf_sphinx.po``, compiled to ``.mo`` with
``pybabel compile -d okf_sphinx/locale -D okf_sphinx`` (tests/test_ui_strings.py holds
every catalogue complete and its ``.mo`` in step).  A Sphinx site takes the strings
Sphinx itself translates (``SPHINX``) from Sphinx's catalogues, so they read as the rest
of the site (capture/sphinx/ui_strings.py); a MkDocs site takes them all from here.

Host-neutral: the standard library's gettext only.
"""

from __future__ import annotations

import gettext
import json
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
    "missing": "Missing: {terms}",
    "suggest": "Did you mean",
    "suggest_said": "No page has \u201c{term}\u201d: did you mean {words}?",
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


def dialog_strings(language: str | None) -> dict[str, str]:
    """The dialog's strings that ``language`` translates (the ones that differ from English)."""
    found = catalogue(language)
    out = {}
    for key, msgid in STRINGS.items():
        text = found.gettext(msgid)
        if text and text != msgid:
            out[key] = text
    return out


def strings_json(strings: dict[str, str]) -> str:
    """``data-okf-strings``' value."""
    return json.dumps(strings, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
