"""Readable excerpts in the search dialog: okf-dialog.js's ``readable()`` in Node.

The hit's snippet stays the contract's bytes; for display the dialog turns source markup into
the text a reader sees (roles, literals, links, underlines, directive markers, MyST fences and
colons).  Checked on snippets taken from real sources (the PEPs, MyST-Parser's docs and
example_site) and, as properties, on every section of example_site's real Sphinx build and on
windows cut out of them the way snippets are: no markup left, no word that was not there.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.node import ROOT, RUNTIME, require_node

pytestmark = pytest.mark.node

DIALOG = ROOT / "okf_sphinx" / "static" / "okf-dialog.js"

CASES = [
    # PEPs (reStructuredText)
    ("Why not use ``importlib.util.LazyLoader`` instead?\n--------------------------------------------------\n\n"
     "The standard library's :class:`~importlib.util.LazyLoader` was designed for\nspecific use cases",
     "Why not use importlib.util.LazyLoader instead? The standard library's LazyLoader was designed for specific use cases"),
    ("PEP Rejection\n=============\n\n:pep:`8015` was rejected `by a core developer vote\n<https://discuss.python.org/t/546/>`__\n"
     "described in :pep:`8001` on Monday",
     "PEP Rejection PEP 8015 was rejected by a core developer vote described in PEP 8001 on Monday"),
    ("Poetry\n------\n\nThe installation logic in `Poetry`_ depends on the\n``installer.modern-installer`` configuration option (`see docs\n<https://python-poetry.org/docs/>`__).",
     "Poetry The installation logic in Poetry depends on the installer.modern-installer configuration option (see docs)."),
    ("Instead of requiring the following import::\n\n    from __future__ import annotations\n",
     "Instead of requiring the following import: from __future__ import annotations"),
    ("``libpython.dynamic_stableabi``\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\n.. list-table::\n    :widths: 25 75\n\n    * - Type\n      - ``string``\n",
     "libpython.dynamic_stableabi Type string"),
    ("audioop\n~~~~~~~\n\nThe :external+py3.12:mod:`audioop` module\ncontains helper functions",
     "audioop The audioop module contains helper functions"),
    ("String Methods\n''''''''''''''\n\nUse string methods [#]_ instead.  See |sub| and *this*.",
     "String Methods Use string methods instead. See sub and this."),
    ("the slides and `blogpost <https:", "the slides and blogpost"),
    # example_site / Sphinx domains
    ("   .. py:attribute:: retries\n      :value: 3\n\n      How often ``fetch`` retries a dropped connection.",
     "retries How often fetch retries a dropped connection."),
    (".. note::\n   :class: tip\n\n   Keep **this** short.\n\n.. _target:\n\n.. a comment",
     "Keep this short."),
    (":param timeout: seconds to wait\n:returns: the reply", "timeout: seconds to wait returns: the reply"),
    # MyST
    ("## Retry policy\n\nA failed refresh is retried. See {py:class}`RetryPolicy <example_pkg.retry.RetryPolicy>` and [the FAQ](faq.md).\n",
     "Retry policy A failed refresh is retried. See RetryPolicy and the FAQ."),
    ("(retry-target)=\n### Third level\n\n```{note}\n:class: small\nA heading inside a directive.\n```\n\n```python\nretry(3)\n```\n",
     "Third level A heading inside a directive. retry(3)"),
    (":::{admonition} Careful\n:class: warning\nDo not {term}`cache` secrets.\n:::\n% a comment\n",
     "Careful Do not cache secrets."),
    ("> ## A heading in a quote\n>\n> A heading inside a block quote\n\n| setting | default |\n|---|---|\n| `retry.attempts` | `5` |\n",
     "A heading in a quote A heading inside a block quote setting | default retry.attempts | 5"),
    ("![diagram](img.png) <https://example.org> `code` \\*not emphasis\\*", "diagram https://example.org code *not emphasis*"),
]


def _node(script: str, payload: Any) -> Any:
    node = require_node()
    proc = subprocess.run([node, "-e", script, str(DIALOG), str(RUNTIME)], input=json.dumps(payload),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


READABLE = """
const d = require(process.argv[1]);
let data = ''; process.stdin.on('data', c => data += c).on('end', () => {
  console.log(JSON.stringify(JSON.parse(data).map(t => d.readable(t))));
});
"""


def test_readable_cases() -> None:
    got = _node(READABLE, [c[0] for c in CASES])
    assert got == [c[1] for c in CASES]


MARKUP = [r"``", r":[a-z][\w+.-]*:`", r"\{[a-z][\w:.-]*\}`", r"`_", r"(^|\s)\.\. ", r"^#+ ", r"(---|===|~~~|\^\^\^|:::|```)",
          r"\]\(", r"<https?:"]


def test_readable_on_every_section_of_a_real_build(example_html: Path) -> None:
    """No markup left and no new word, on every section's text and on snippet-sized windows of it."""
    import re

    from okf_sphinx import open_index

    index = open_index(example_html)
    texts = []
    for sid in range(index.sections_all):
        t = index.section(sid)["text"]
        texts += [t, t[:200], t[37:237], t[-150:]]
    script = """
    const d = require(process.argv[1]), okf = require(process.argv[2]);
    const norm = new okf.Normaliser(null);  // ASCII terms; other characters pass through unchanged
    let data = ''; process.stdin.on('data', c => data += c).on('end', () => {
      console.log(JSON.stringify(JSON.parse(data).map(t => { const r = d.readable(t);
        const have = new Set(norm.terms(t));
        return [r, norm.terms(r).filter(w => !have.has(w))]; })));
    });
    """
    got = _node(script, texts)
    assert len(got) == len(texts)
    checked = 0
    for source, (shown, new_words) in zip(texts, got):
        assert new_words == [], (source, shown)
        for pattern in MARKUP:
            # a literal that itself holds markup (``{include}``) shows that text: only flag what the source had outside literals
            outside = re.sub(r"``.*?``|`[^`]*`", "", source, flags=re.S)
            if re.search(pattern, shown, flags=re.M) and re.search(pattern, outside, flags=re.M):
                pytest.fail(f"{pattern!r} left in {shown!r} (from {source!r})")
        assert "\n" not in shown and shown == shown.strip()
        checked += 1
    assert checked > 300
