"""Snowball stemming, pinned: the same stems at build time and in every runtime.

The index stores stems, so the build (Python) and the browser (``static/okf-stemmer.js``)
must stem every term identically, whatever stemmer package happens to be installed
(``snowballstemmer`` switches to PyStemmer's C code when that is present, and its
releases stem differently: 3.1.1 vs 3.0.1 differ on ``internal``, ``skis`` ...).
So okf_sphinx ships its own implementation of one algorithm version and records that
version (:data:`STEMMER_VERSION`) in the index.

English is the Snowball "english" (Porter2) algorithm, German and Spanish the
Snowball "german" and "spanish" algorithms, exactly as Snowball 3.0.1 defines them
(snowballstem.org/algorithms/) — the version Sphinx 9.0's browser stemmers were
generated from.  ``tests/test_stemmer.py`` proves this module equal to the
reference implementation of that release and to the JavaScript port on a large word
list per language; a language is enabled only with that proof.

Input is a term as :func:`okf_sphinx.core.terms.terms` produces it: casefolded, NFC, a run
of letters, numbers and marks.  Letters outside a language's alphabet count as
consonants and are never changed, so foreign words pass through with at most a
suffix stripped; positions count code points (the JavaScript port does the same).

This module must not import Sphinx or docutils: the query path uses it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

#: The algorithm version every stem in an index comes from; written into the manifest.
STEMMER_VERSION = "snowball-3.0.1"

# --- Snowball English (Porter2), Snowball 3.0.1 -------------------------------------

_VOWELS = frozenset("aeiouy")
# a short syllable's last letter may not be a vowel, w, x, or a y that prelude marked
_NOT_SHORT_END = _VOWELS | frozenset("wxY")
_DOUBLES = frozenset(("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"))
_VALID_LI = frozenset("cdeghkmnrt")

# whole words left alone or given a fixed stem
_EXCEPTIONS = {
    "skies": "sky", "idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli",
    "only": "onli", "singly": "singl",
    "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos",
    "bias": "bias", "andes": "andes",
}
# words starting with these have R1 right after them (3.1 adds "inter"; 3.0.1 does not)
_R1_PREFIXES = ("arsen", "commun", "emerg", "gener", "later", "organ", "past", "univers")
# "-ing" is kept after exactly these (evening, inning, outing ...)
_ING_KEEP = frozenset(("even", "cann", "inn", "earr", "herr", "out"))
# "-eed" is kept after exactly these (succeed, proceed, exceed)
_EED_KEEP = frozenset(("succ", "proc", "exc"))

# Step 1b suffixes, longest first: kind 1 = eed, 2 = ed, 3 = ing
_STEP1B = (("eedly", 1), ("ingly", 2), ("edly", 2), ("eed", 1), ("ing", 3), ("ed", 2))

# Step 2: suffix -> replacement (in R1); "ogi" needs a preceding l, "li" a valid li-ending
_STEP2 = {
    "tional": "tion", "enci": "ence", "anci": "ance", "abli": "able", "entli": "ent",
    "izer": "ize", "ization": "ize", "ational": "ate", "ation": "ate", "ator": "ate",
    "alism": "al", "aliti": "al", "alli": "al", "fulness": "ful", "ousli": "ous",
    "ousness": "ous", "iveness": "ive", "iviti": "ive", "biliti": "ble", "bli": "ble",
    "ogist": "og", "fulli": "ful", "lessli": "less", "ogi": "og", "li": "",
}
# Step 3: suffix -> replacement (in R1); "ative" is deleted only in R2
_STEP3 = {
    "tional": "tion", "ational": "ate", "alize": "al", "icate": "ic", "iciti": "ic",
    "ical": "ic", "ful": "", "ness": "", "ative": "",
}
# Step 4: deleted in R2; "ion" only after s or t
_STEP4 = frozenset((
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
    "ism", "ate", "iti", "ous", "ive", "ize", "ion",
))


def _by_length(suffixes: object) -> tuple[tuple[int, frozenset[str]], ...]:
    """Suffix sets grouped by length, longest first: Snowball's ``among`` takes the
    longest suffix that matches, and if its condition then fails nothing else is tried."""
    words = list(suffixes)  # type: ignore[call-overload]
    return tuple(
        (n, frozenset(w for w in words if len(w) == n))
        for n in sorted({len(w) for w in words}, reverse=True)
    )


_STEP2_BY_LEN = _by_length(_STEP2)
_STEP3_BY_LEN = _by_length(_STEP3)
_STEP4_BY_LEN = _by_length(_STEP4)


def _longest(word: str, table: tuple[tuple[int, frozenset[str]], ...]) -> str | None:
    for n, group in table:
        if len(word) > n - 1 and word[-n:] in group:
            return word[-n:]
    return None


def _after_vowel_consonant(word: str, start: int, vowels: frozenset[str] = _VOWELS) -> int:
    """The position after the first non-vowel that follows a vowel, from ``start``
    (the word's length when there is none): how R1 and R2 are defined."""
    n = len(word)
    i = start
    while i < n and word[i] not in vowels:
        i += 1
    while i < n and word[i] in vowels:
        i += 1
    return i + 1 if i < n else n


def _short_syllable_before(word: str, end: int) -> bool:
    """Does ``word[:end]`` end in a short syllable?  A non-vowel, a vowel and a non-vowel
    other than w, x or Y; or a vowel and a non-vowel at the start; or ``past``."""
    if end >= 3 and word[end - 1] not in _NOT_SHORT_END and word[end - 2] in _VOWELS \
            and word[end - 3] not in _VOWELS:
        return True
    if end == 2 and word[1] not in _VOWELS and word[0] in _VOWELS:
        return True
    return end >= 4 and word[end - 4:end] == "past"


def _has_vowel(text: str) -> bool:
    return any(c in _VOWELS for c in text)


def _step1a(w: str) -> str:
    for suffix in ("'s'", "'s", "'"):
        if w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith(("ied", "ies")):
        return w[:-3] + ("i" if len(w) >= 5 else "ie")
    if w.endswith(("ss", "us")):
        return w
    if w.endswith("s") and _has_vowel(w[:-2]):
        return w[:-1]
    return w


def _step1b(w: str, p1: int) -> str:
    for suffix, kind in _STEP1B:
        if w.endswith(suffix):
            break
    else:
        return w
    stem = w[: -len(suffix)]
    if kind == 1:  # eed, eedly
        if stem in _EED_KEEP or len(stem) < p1:
            return w
        return stem + "ee"
    if kind == 3:  # ing
        if stem in _ING_KEEP:
            return w
        if len(stem) == 2 and stem[1] == "y" and stem[0] not in _VOWELS:
            return stem[0] + "ie"  # dying, lying, tying
    if not _has_vowel(stem):
        return w
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    if stem[-2:] in _DOUBLES:
        if len(stem) == 3 and stem[0] in "aeo":
            return stem  # add, egg, off stay whole
        return stem[:-1]
    if len(stem) == p1 and _short_syllable_before(stem, len(stem)):
        return stem + "e"
    return stem


def _step1c(w: str) -> str:
    if len(w) >= 3 and w[-1] in "yY" and w[-2] not in _VOWELS:
        return w[:-1] + "i"
    return w


def _step2(w: str, p1: int) -> str:
    suffix = _longest(w, _STEP2_BY_LEN)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < p1:
        return w
    if suffix == "ogi" and (start == 0 or w[start - 1] != "l"):
        return w
    if suffix == "li" and (start == 0 or w[start - 1] not in _VALID_LI):
        return w
    return w[:start] + _STEP2[suffix]


def _step3(w: str, p1: int, p2: int) -> str:
    suffix = _longest(w, _STEP3_BY_LEN)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < p1 or (suffix == "ative" and start < p2):
        return w
    return w[:start] + _STEP3[suffix]


def _step4(w: str, p2: int) -> str:
    suffix = _longest(w, _STEP4_BY_LEN)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < p2:
        return w
    if suffix == "ion" and (start == 0 or w[start - 1] not in "st"):
        return w
    return w[:start]


def _step5(w: str, p1: int, p2: int) -> str:
    if w.endswith("e"):
        start = len(w) - 1
        if start >= p2 or (start >= p1 and not _short_syllable_before(w, start)):
            return w[:start]
    elif w.endswith("l"):
        start = len(w) - 1
        if start >= p2 and start > 0 and w[start - 1] == "l":
            return w[:start]
    return w


def stem_english(word: str) -> str:
    """The Snowball 3.0.1 English stem of a casefolded word."""
    exception = _EXCEPTIONS.get(word)
    if exception is not None:
        return exception
    if len(word) < 3:
        return word
    w = word[1:] if word[0] == "'" else word
    # prelude: a y that starts the word or follows a vowel is a consonant; mark it Y
    marked = False
    if "y" in w:
        chars = list(w)
        if chars[0] == "y":
            chars[0] = "Y"
            marked = True
        for i in range(1, len(chars)):
            if chars[i] == "y" and chars[i - 1] in _VOWELS:
                chars[i] = "Y"
                marked = True
        w = "".join(chars)
    # R1: after the first non-vowel following a vowel (or a listed prefix); R2: the same in R1
    for prefix in _R1_PREFIXES:
        if w.startswith(prefix):
            p1 = len(prefix)
            break
    else:
        p1 = _after_vowel_consonant(w, 0)
    p2 = _after_vowel_consonant(w, p1)
    w = _step1a(w)
    w = _step1b(w, p1)
    w = _step1c(w)
    w = _step2(w, p1)
    w = _step3(w, p1, p2)
    w = _step4(w, p2)
    w = _step5(w, p1, p2)
    return w.replace("Y", "y") if marked else w


# --- Snowball German, Snowball 3.0.1 -------------------------------------------------

_DE_VOWELS = frozenset("aeiouyäöü")
_DE_S_ENDING = frozenset("bdfghklmnrt")
_DE_ST_ENDING = frozenset("bdfghklmnt")
_DE_ET_ENDING = frozenset("dfgklmnrstUzä")
# "-et" stays after these (Paket, Planet, geordnet, Internet, Tritt ...)
_DE_ET_KEEP = ("tick", "plan", "geordn", "intern", "tr")
# prelude, left to right: ß -> ss, ae/oe/ue -> ä/ö/ü, except the u of "qu"
_DE_PRELUDE = re.compile("qu|ae|oe|ue|ß")
_DE_PRELUDE_MAP = {"qu": "qu", "ae": "ä", "oe": "ö", "ue": "ü", "ß": "ss"}
# postlude: undo the marks and drop the umlauts
_DE_POSTLUDE = str.maketrans("YUäöü", "yuaou")
_DE_STEP1_BY_LEN = _by_length(("e", "em", "en", "erinnen", "erin", "ln", "ern", "er", "s", "es", "lns"))
_DE_STEP2_BY_LEN = _by_length(("en", "er", "et", "st", "est"))
_DE_STEP3_BY_LEN = _by_length(("end", "ig", "ung", "lich", "isch", "ik", "heit", "keit"))
_DE_KEIT_BY_LEN = _by_length(("ig", "lich"))


def _de_step1(w: str, p1: int) -> str:
    suffix = _longest(w, _DE_STEP1_BY_LEN)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < p1:
        return w
    if suffix == "em":
        return w if w.endswith("syst", 0, start) else w[:start]
    if suffix in ("e", "en", "es"):
        w = w[:start]
        return w[:-1] if w.endswith("niss") else w
    if suffix == "s":
        return w[:start] if start > 0 and w[start - 1] in _DE_S_ENDING else w
    if suffix in ("ln", "lns"):
        return w[:start] + "l"
    return w[:start]  # erinnen, erin, ern, er


def _de_step2(w: str, p1: int) -> str:
    suffix = _longest(w, _DE_STEP2_BY_LEN)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < p1:
        return w
    if suffix == "st":
        return w[:start] if start >= 4 and w[start - 1] in _DE_ST_ENDING else w
    if suffix == "et":
        if start > 0 and w[start - 1] in _DE_ET_ENDING and not w.endswith(_DE_ET_KEEP, 0, start):
            return w[:start]
        return w
    return w[:start]  # en, er, est


def _de_step3(w: str, p1: int, p2: int) -> str:
    suffix = _longest(w, _DE_STEP3_BY_LEN)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < p2:
        return w
    if suffix in ("ig", "ik", "isch"):
        return w if w.endswith("e", 0, start) else w[:start]
    w = w[:start]
    if suffix in ("end", "ung"):
        if w.endswith("ig") and not w.endswith("e", 0, len(w) - 2) and len(w) - 2 >= p2:
            return w[:-2]
    elif suffix in ("lich", "heit"):
        if w.endswith(("er", "en")) and len(w) - 2 >= p1:
            return w[:-2]
    else:  # keit
        more = _longest(w, _DE_KEIT_BY_LEN)
        if more is not None and len(w) - len(more) >= p2:
            return w[: -len(more)]
    return w


def stem_german(word: str) -> str:
    """The Snowball 3.0.1 German stem of a casefolded word."""
    w = word
    # prelude: u and y between vowels are consonants; mark them U and Y
    if "u" in w or "y" in w:
        chars = list(w)
        for j in range(1, len(chars) - 1):
            if chars[j] in "uy" and chars[j - 1] in _DE_VOWELS and chars[j + 1] in _DE_VOWELS:
                chars[j] = chars[j].upper()
        w = "".join(chars)
    w = _DE_PRELUDE.sub(lambda m: _DE_PRELUDE_MAP[m.group()], w)
    # R1: after the first non-vowel following a vowel, but not before the 4th letter
    n = len(w)
    p1 = p2 = n
    if n >= 3:
        after = _after_vowel_consonant(w, 0, _DE_VOWELS)
        p1 = max(after, 3)
        p2 = _after_vowel_consonant(w, after, _DE_VOWELS)
    w = _de_step1(w, p1)
    w = _de_step2(w, p1)
    w = _de_step3(w, p1, p2)
    return w.translate(_DE_POSTLUDE)


# --- Snowball Spanish, Snowball 3.0.1 ------------------------------------------------

_ES_VOWELS = frozenset("aeiouáéíóúü")
_ES_PRONOUNS = _by_length(("me", "se", "sela", "selo", "selas", "selos", "la", "le", "lo", "las", "les", "los", "nos"))
# a verb form before an attached pronoun -> its unaccented form ("" keeps it)
_ES_BEFORE_PRONOUN = {
    "iéndo": "iendo", "ándo": "ando", "ár": "ar", "ér": "er", "ír": "ir",
    "ando": "", "iendo": "", "ar": "", "er": "", "ir": "", "yendo": "",
}
_ES_BEFORE_PRONOUN_BY_LEN = _by_length(_ES_BEFORE_PRONOUN)
# standard suffixes -> the rule that removes them (see _es_standard)
_ES_STANDARD: dict[str, int] = {}
for _rule, _suffixes in (
    (1, "ica osa ista anza ico ismo oso amiento imiento able ible icas osas istas anzas icos "
        "ismos osos amientos imientos ables ibles"),
    (2, "ancia adora ante acion ación ador ancias adoras aciones adores antes"),
    (3, "logía logías"),
    (4, "ucion ución uciones"),
    (5, "encia encias"),
    (6, "amente"),
    (7, "mente"),
    (8, "idad idades"),
    (9, "iva ivo ivas ivos"),
):
    _ES_STANDARD.update(dict.fromkeys(_suffixes.split(), _rule))
_ES_STANDARD_BY_LEN = _by_length(_ES_STANDARD)
_ES_AMENTE_BY_LEN = _by_length(("ic", "ad", "os", "iv"))
_ES_MENTE_BY_LEN = _by_length(("able", "ible", "ante"))
_ES_IDAD_BY_LEN = _by_length(("ic", "abil", "iv"))
_ES_Y_VERB_BY_LEN = _by_length(("ya", "ye", "yan", "yen", "yeron", "yendo", "yo", "yas", "yes", "yais", "yamos", "yó"))
# verb suffixes: these four also take a "u" after "g" with them; the rest go alone
_ES_VERB_GU = frozenset(("en", "es", "éis", "emos"))
_ES_VERB_BY_LEN = _by_length((
    "aba ada ida ara iera ía aría ería iría ad ed id ase iese aste iste an aban aran ieran "
    "ían arían erían irían en asen iesen aron ieron arán erán irán ado ido ando iendo ar er "
    "ir as abas adas idas aras ieras ías arías erías irías es ases ieses abais arais ierais "
    "íais aríais eríais iríais aseis ieseis asteis isteis áis éis aréis eréis iréis ados "
    "idos amos ábamos áramos iéramos íamos aríamos eríamos iríamos emos aremos eremos "
    "iremos ásemos iésemos imos arás erás irás ís ará erá irá aré eré iré ió"
).split())
_ES_RESIDUAL_BY_LEN = _by_length(("a", "e", "o", "os", "á", "é", "í", "ó"))
_ES_POSTLUDE = str.maketrans("áéíóú", "aeiou")


def _longest_from(word: str, table: tuple[tuple[int, frozenset[str]], ...], start: int) -> str | None:
    """The longest suffix of the table that lies wholly at or after ``start`` (Snowball's
    ``among`` inside ``setlimit``: a longer suffix reaching before ``start`` is not seen)."""
    for n, group in table:
        if len(word) - n >= start and word[-n:] in group:
            return word[-n:]
    return None


def _es_pv(w: str) -> int:
    """RV: after the next vowel when the 2nd letter is a consonant, after the next
    consonant when the first two are vowels, else after the 3rd letter."""
    n = len(w)
    if n < 2:
        return n
    v = _ES_VOWELS
    if w[1] not in v:  # vowel or consonant, then consonant: after the next vowel
        j = next((j for j in range(2, n) if w[j] in v), None)
        return j + 1 if j is not None else n
    if w[0] in v:  # two vowels: after the next consonant
        j = next((j for j in range(2, n) if w[j] not in v), None)
        return j + 1 if j is not None else n
    return 3 if n >= 3 else n  # consonant, vowel


def _es_attached_pronoun(w: str, pv: int) -> str:
    pronoun = _longest(w, _ES_PRONOUNS)
    if pronoun is None:
        return w
    end = len(w) - len(pronoun)
    verb = _longest(w[:end], _ES_BEFORE_PRONOUN_BY_LEN)
    if verb is None:
        return w
    start = end - len(verb)
    if start < pv:
        return w
    if verb == "yendo" and not w.endswith("u", 0, start):
        return w
    replacement = _ES_BEFORE_PRONOUN[verb]
    return w[:start] + replacement if replacement else w[:end]


def _es_strip(w: str, table: tuple[tuple[int, frozenset[str]], ...], p: int) -> str:
    """Delete the longest suffix of ``table`` if it starts in the region from ``p``."""
    more = _longest(w, table)
    if more is not None and len(w) - len(more) >= p:
        return w[: -len(more)]
    return w


def _es_standard(w: str, p1: int, p2: int) -> str | None:
    """The standard suffix step: the new word, or None when no rule applied."""
    suffix = _longest(w, _ES_STANDARD_BY_LEN)
    if suffix is None:
        return None
    start = len(w) - len(suffix)
    rule = _ES_STANDARD[suffix]
    if start < (p1 if rule == 6 else p2):
        return None
    stem = w[:start]
    if rule == 1:
        return stem
    if rule == 2:
        return stem[:-2] if stem.endswith("ic") and len(stem) - 2 >= p2 else stem
    if rule == 3:
        return stem + "log"
    if rule == 4:
        return stem + "u"
    if rule == 5:
        return stem + "ente"
    if rule == 6:  # amente, then ic / ad / os / iv, then at after iv
        more = _longest(stem, _ES_AMENTE_BY_LEN)
        if more is None or len(stem) - len(more) < p2:
            return stem
        stem = stem[: -len(more)]
        if more == "iv" and stem.endswith("at") and len(stem) - 2 >= p2:
            return stem[:-2]
        return stem
    if rule == 7:
        return _es_strip(stem, _ES_MENTE_BY_LEN, p2)
    if rule == 8:
        return _es_strip(stem, _ES_IDAD_BY_LEN, p2)
    return stem[:-2] if stem.endswith("at") and len(stem) - 2 >= p2 else stem  # iva, ivo ...


def _es_y_verb(w: str, pv: int) -> str | None:
    if len(w) < pv:
        return None
    suffix = _longest_from(w, _ES_Y_VERB_BY_LEN, pv)
    if suffix is None:
        return None
    start = len(w) - len(suffix)
    if not w.endswith("u", 0, start):
        return None
    return w[:start]


def _es_verb(w: str, pv: int) -> str | None:
    if len(w) < pv:
        return None
    suffix = _longest_from(w, _ES_VERB_BY_LEN, pv)
    if suffix is None:
        return None
    start = len(w) - len(suffix)
    if suffix in _ES_VERB_GU and w.endswith("gu", 0, start):
        start -= 1
    return w[:start]


def _es_residual(w: str, pv: int) -> str:
    suffix = _longest(w, _ES_RESIDUAL_BY_LEN)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < pv:
        return w
    w = w[:start]
    if suffix in ("e", "é") and w.endswith("gu") and len(w) - 1 >= pv:
        return w[:-1]
    return w


def stem_spanish(word: str) -> str:
    """The Snowball 3.0.1 Spanish stem of a casefolded word."""
    w = word
    pv = _es_pv(w)
    p1 = _after_vowel_consonant(w, 0, _ES_VOWELS)
    p2 = _after_vowel_consonant(w, p1, _ES_VOWELS)
    w = _es_attached_pronoun(w, pv)
    changed = _es_standard(w, p1, p2)
    if changed is None:
        changed = _es_y_verb(w, pv)
    if changed is None:
        changed = _es_verb(w, pv)
    if changed is not None:
        w = changed
    w = _es_residual(w, pv)
    return w.translate(_ES_POSTLUDE)


# --- languages ----------------------------------------------------------------------

# Sphinx `language` primary subtag -> stemmer; enable a language only together with a
# JavaScript port and a parity test over a large word list (tests/test_stemmer.py).
_STEMMERS: dict[str, Callable[[str], str]] = {"en": stem_english, "de": stem_german, "es": stem_spanish}
_ALGORITHMS = {"en": "english", "de": "german", "es": "spanish"}


def _primary(language: str | None) -> str:
    if not language:
        return "en"
    return language.replace("-", "_").split("_", 1)[0].lower()


def supported_languages() -> tuple[str, ...]:
    """The Sphinx ``language`` primary subtags that have a stemmer."""
    return tuple(sorted(_STEMMERS))


def algorithm_for(language: str | None) -> str | None:
    """The Snowball algorithm name for a Sphinx ``language`` (``None``/empty -> English),
    or ``None`` when okf_sphinx has no stemmer for it."""
    return _ALGORITHMS.get(_primary(language))


def stemmer_for(language: str | None) -> Callable[[str], str] | None:
    """A memoising stemmer for a Sphinx ``language`` (``"en"``, ``"en_US"``, ``None`` ->
    English), or ``None`` when the language has no stemmer."""
    return _memoised(_primary(language))


@functools.lru_cache(maxsize=None)
def _memoised(primary: str) -> Callable[[str], str] | None:
    stem = _STEMMERS.get(primary)
    if stem is None:
        return None
    return functools.lru_cache(maxsize=1 << 16)(stem)
