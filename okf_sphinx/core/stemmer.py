"""Snowball stemming, pinned: the same stems at build time and in every runtime.

The index stores stems, so the build (Python) and the browser (``static/okf-stemmer.js``
with ``static/okf-stemmer-<algorithm>.js``) must stem every term identically, whatever
stemmer package happens to be installed (``snowballstemmer`` switches to PyStemmer's C code
when that is present, and its releases stem differently: 3.1.1 vs 3.0.1 differ on
``internal``, ``skis`` ...).  So okf_sphinx ships its own stemmers of one algorithm version
and records that version (:data:`STEMMER_VERSION`) in the index.

Every language Sphinx's own search stems has one: the Snowball 3.0.1 algorithms
(snowballstem.org/algorithms/) — the version Sphinx 9.0's browser stemmers were generated
from.  ``stemgen`` writes each algorithm's Python module (``core/snowball/<algorithm>.py``,
imported when a site of that language first needs it) and its JavaScript file from one
definition (``stemgen/algorithms/<algorithm>.sx``); ``tests/test_stemmer.py`` proves each
equal to the reference implementation of that release and the JavaScript equal to the
Python, on a large word list per language.

Input is a term as :func:`okf_sphinx.core.terms.terms` produces it: casefolded, NFC, a run
of letters, numbers and marks.  Letters outside a language's alphabet belong to no grouping
(they count as consonants) and are never changed, so foreign words pass through with at most
a suffix stripped; positions count code points (the JavaScript does the same).

This module must not import Sphinx or docutils: the query path uses it.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable

#: The algorithm version every stem in an index comes from; written into the manifest.
STEMMER_VERSION = "snowball-3.0.1"

# Sphinx `language` primary subtag -> Snowball algorithm (the languages sphinx.search stems);
# the same table as okf-stemmer.js.  Enable a language only with its generated stemmers and
# a parity test over a large word list (tests/test_stemmer.py).
_ALGORITHMS = {
    "da": "danish", "de": "german", "en": "english", "es": "spanish", "fi": "finnish", "fr": "french",
    "hu": "hungarian", "it": "italian", "nl": "dutch", "no": "norwegian", "pt": "portuguese",
    "ro": "romanian", "ru": "russian", "sv": "swedish", "tr": "turkish",
}


def _primary(language: str | None) -> str:
    if not language:
        return "en"
    return language.replace("-", "_").split("_", 1)[0].lower()


def supported_languages() -> tuple[str, ...]:
    """The Sphinx ``language`` primary subtags that have a stemmer."""
    return tuple(sorted(_ALGORITHMS))


def algorithm_for(language: str | None) -> str | None:
    """The Snowball algorithm name for a Sphinx ``language`` (``None``/empty -> English),
    or ``None`` when okf_sphinx has no stemmer for it."""
    return _ALGORITHMS.get(_primary(language))


def stemmer_script(language: str | None) -> str | None:
    """The file in ``static/`` with the browser's stemmer for a Sphinx ``language``
    (loaded after ``okf-stemmer.js``), or ``None`` when the language has no stemmer."""
    algorithm = algorithm_for(language)
    return None if algorithm is None else f"okf-stemmer-{algorithm}.js"


def stemmer_for(language: str | None) -> Callable[[str], str] | None:
    """A memoising stemmer for a Sphinx ``language`` (``"en"``, ``"en_US"``, ``None`` ->
    English), or ``None`` when the language has no stemmer."""
    algorithm = algorithm_for(language)
    return None if algorithm is None else _memoised(algorithm)


@functools.cache
def _memoised(algorithm: str) -> Callable[[str], str]:
    module = importlib.import_module(f"okf_sphinx.core.snowball.{algorithm}")
    return functools.lru_cache(maxsize=1 << 16)(module.stem)
