"""The search dialog's UI strings in the site's language (passed to okf-dialog.js as data-okf-strings).

Strings Sphinx itself has ("Search", "Search Results", "Hide Search Matches", "next",
"previous") come from Sphinx's own message catalogues, so they read as the rest of the
site; the others from okf_sphinx's catalogue (``okf_sphinx/locale/<lang>/LC_MESSAGES/
okf_sphinx.po``, registered with ``app.add_message_catalog``).  A string without a
translation stays English; only strings that differ from the English defaults in
okf-dialog.js are passed, so an English site's pages carry none.
"""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.locale import _ as sphinx_gettext
from sphinx.locale import get_translation

CATALOG = "okf_sphinx"
LOCALE_DIR = Path(__file__).resolve().parents[2] / "locale"
okf_gettext = get_translation(CATALOG)

#: dialog key -> msgid in Sphinx's catalogue
FROM_SPHINX = {
    "label": "Search",
    "results": "Search Results",
    "hide": "Hide Search Matches",
    "next": "next",
    "previous": "previous",
}
#: dialog key -> msgid in okf_sphinx's catalogue (the English defaults of okf-dialog.js)
OWN = {
    "placeholder": "Search the documentation",
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
    "count": "{i} of {n}",
    "count_none": "No match on this page",
}


def dialog_strings() -> dict[str, str]:
    """The translated strings that differ from English (call after Sphinx set up its locale)."""
    out = {}
    for table, gettext in ((FROM_SPHINX, sphinx_gettext), (OWN, okf_gettext)):
        for key, msgid in table.items():
            text = str(gettext(msgid))
            if text and text != msgid:
                out[key] = text
    return out


def dialog_strings_attribute() -> dict[str, str]:
    """``data-okf-strings`` for the dialog's script tag: {} when nothing is translated."""
    strings = dialog_strings()
    return {"data-okf-strings": json.dumps(strings, ensure_ascii=False, sort_keys=True, separators=(",", ":"))} if strings else {}


def setup_ui_strings(app: Sphinx) -> None:
    app.add_message_catalog(CATALOG, str(LOCALE_DIR))
