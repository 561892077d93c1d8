"""The search dialog's UI strings on a Sphinx site (passed to okf-boot.js as data-okf-strings).

Strings Sphinx itself has ("Search", "Search Results", "Searching", "Hide Search
Matches": capture/ui_strings.py ``SPHINX``) come from Sphinx's own message catalogues,
so they read as the rest of the site; the others from okf_sphinx's catalogue
(``okf_sphinx/locale/<lang>/LC_MESSAGES/okf_sphinx.po``, registered with
``app.add_message_catalog``, so a project's own ``locale_dirs`` can override it).  A
string without a translation stays English; only strings that differ from the English
defaults in okf-boot.js are passed, so an English site's pages carry none.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.locale import _ as sphinx_gettext
from sphinx.locale import get_translation

from okf_sphinx.capture.ui_strings import CATALOG, LOCALE_DIR, SPHINX, STRINGS, strings_json

okf_gettext = get_translation(CATALOG)


def dialog_strings() -> dict[str, str]:
    """The translated strings that differ from English (call after Sphinx set up its locale)."""
    out = {}
    for key, msgid in STRINGS.items():
        text = str((sphinx_gettext if key in SPHINX else okf_gettext)(msgid))
        if text and text != msgid:
            out[key] = text
    return out


def dialog_strings_attribute() -> dict[str, str]:
    """``data-okf-strings`` for the dialog's script tag: {} when nothing is translated."""
    strings = dialog_strings()
    return {"data-okf-strings": strings_json(strings)} if strings else {}


def setup_ui_strings(app: Sphinx) -> None:
    app.add_message_catalog(CATALOG, str(LOCALE_DIR))
