"""Plain restatements of contract rules, for property tests to compare the optimised code with."""

from __future__ import annotations

from okf_sphinx.core.terms import native, terms


def straightforward_snippet(text: str, query_terms: list[str]) -> str:
    """The contract's rule, run by run, with no shortcuts."""
    n = native()
    for offset, run in n.word_runs(text):
        candidate = terms(run)
        if candidate and candidate[0] in query_terms:
            start = max(0, offset - 80)
            return text[start : start + 512]
    return text[:512]

