"""Term rules and the snippet search, as properties over generated text."""

from __future__ import annotations

import os
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from okf_sphinx.core.terms import Normaliser, native, terms, unicode_tables
from support.reference import straightforward_snippet

TRICKY = "abcKkSsſß\u212aéE\u0301ﬁİıΣσς1２ \n.-_\u200d\U0001d400Ꭰꭰ"
FOREIGN = Normaliser(unicode_tables())
FOREIGN.native = False  # forces the table-driven path (casefold map, per-segment NFC)
# bench/mutation.py lowers this to keep one run per mutant short
EXAMPLES = int(os.environ.get("OKF_PROPERTY_EXAMPLES", "1500"))
texts = st.text(alphabet=st.sampled_from(list(TRICKY)) | st.characters(), max_size=80)


@settings(max_examples=EXAMPLES, deadline=None)
@given(text=texts, query=st.lists(st.sampled_from(["k", "ss", "strasse", "file", "abc", "é", "σ", "12", "i̇", "ꭰ", "a"]), min_size=1, max_size=3))
def test_snippet_shortcuts_equal_the_plain_rule(text: str, query: list[str]) -> None:
    query_terms = list(dict.fromkeys(terms(" ".join(query))))
    assert native().snippet(text, query_terms) == straightforward_snippet(text, query_terms)


@settings(max_examples=EXAMPLES, deadline=None)
@given(text=texts)
def test_terms_equal_the_definition(text: str) -> None:
    norm = unicodedata.normalize("NFC", text.casefold())
    expected, run = [], ""
    for ch in norm:
        if unicodedata.category(ch)[0] in "LNM":
            run += ch
        elif run:
            expected.append(run)
            run = ""
    if run:
        expected.append(run)
    assert terms(text) == expected


@settings(max_examples=min(800, EXAMPLES), deadline=None)
@given(text=texts)
def test_table_driven_engine_equals_native(text: str) -> None:
    """The engine a query uses when its Python's Unicode version differs from the build's."""
    assert FOREIGN.terms(text) == terms(text)
