"""The reading-tools test project (guide.rst, an include, CRLF, BOM, MyST, wide pages), built once per session."""

from __future__ import annotations

import random
import threading
from pathlib import Path

CONF = """\
project = "okf reading tests"
extensions = ["myst_parser", "okf_sphinx"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_includes"]
myst_heading_anchors = 3
okf_search_exclude = ["index", "*/index", "log", "*/log"]
"""


INDEX = """\
Reading tests
=============

.. toctree::

   guide
   crlf
   bom
   notes
   big
   wide
   gen_rst_0
   gen_rst_1
   gen_md_0
   gen_md_1
"""


GUIDE = """\
Guide
=====

The guide explains the retry policy and the cache.

Retry policy
------------

A failed refresh is retried with exponential backoff and jitter.

K1 First rule
^^^^^^^^^^^^^

The first rule about backoff.

K10 Tenth rule
^^^^^^^^^^^^^^

The tenth rule about backoff.

K11. Eleventh rule
^^^^^^^^^^^^^^^^^^

The eleventh rule about backoff.

Using ``okf`` *quickly* — a tour
--------------------------------

Markup in a heading: literal and emphasis.

.. include:: _includes/shared.rst

After the include the guide goes on.

Notes
-----

First notes section.

Notes
-----

Second notes section.

Cache
-----

The cache keeps the snapshot revision.
"""


SHARED = """\
Shared fragment
^^^^^^^^^^^^^^^

This fragment lives in an included file about zebras.
"""


NOTES_MD = """\
# Notes page

Intro words for the notes page.

## First `code` heading

Body of the first code heading.

### Deeper *detail*

Detail body.

## Second heading

Body of the second heading.
"""


CRLF = (
    "CRLF page\r\n"
    "=========\r\n"
    "\r\n"
    "Windows line endings everywhere, walrus.\r\n"
    "\r\n"
    "Second section\r\n"
    "--------------\r\n"
    "\r\n"
    "More walrus text.\r\n"
)


BOM = "\ufeff# BOM page\n\nA byte order mark starts this file, narwhal.\n\n## Tail\n\nNarwhal tail.\n"


def _big() -> str:
    para = "Long section filler sentence about quokkas and their habits. " * 10 + "\n\n"
    return "Big page\n========\n\nIntro.\n\nLong section\n------------\n\n" + para * 60 + "Child\n~~~~~\n\nChild text.\n"


def _wide() -> str:
    # 4-byte characters: 70,000 of them are ~280 kB of UTF-8, over the 256,000-byte budget
    line = "\U0001f600" * 100 + "\n"
    return "Wide page\n=========\n\nEmoji block follows, capybara.\n\n" + line * 700


VOCAB_SEED = 1234


def _vocab() -> list[str]:
    rng = random.Random(VOCAB_SEED)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set()
    while len(words) < 120:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 8))))
    return sorted(words)


def _generated(n: int, markdown: bool, sections: int = 60) -> str:
    rng = random.Random(VOCAB_SEED + n * 2 + int(markdown))
    vocab = _vocab()
    out = [f"# Generated {'md' if markdown else 'rst'} {n}\n" if markdown else f"Generated rst {n}\n" + "=" * 20 + "\n"]
    out.append("\n" + " ".join(rng.choice(vocab) for _ in range(20)) + "\n")
    for i in range(sections):
        title = f"{rng.choice(vocab).title()} {rng.choice(vocab)} {i}"
        out.append(f"\n## {title}\n" if markdown else f"\n{title}\n{'-' * len(title)}\n")
        for _ in range(rng.randint(1, 3)):
            out.append("\n" + " ".join(rng.choice(vocab) for _ in range(rng.randint(8, 40))) + "\n")
    return "".join(out)


def project_files() -> dict[str, str]:
    files = {
        "conf.py": CONF,
        "index.rst": INDEX,
        "guide.rst": GUIDE,
        "_includes/shared.rst": SHARED,
        "notes.md": NOTES_MD,
        "crlf.rst": CRLF,
        "bom.md": BOM,
        "big.rst": _big(),
        "wide.rst": _wide(),
    }
    for n in range(2):
        files[f"gen_rst_{n}.rst"] = _generated(n, markdown=False)
        files[f"gen_md_{n}.md"] = _generated(n, markdown=True)
    return files


def build(src: Path, out: Path) -> Path:
    from sphinx.cmd.build import build_main

    for name, text in project_files().items():
        p = src / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))
    rc = build_main(["-q", "-b", "html", str(src), str(out)])
    assert rc == 0, f"sphinx-build failed with {rc}"
    assert (out / "_okf" / "manifest.js").is_file()
    return out


_lock = threading.Lock()


_built: dict[str, Path] = {}


def built_site(tmp_path_factory) -> Path:
    """The HTML output folder of the test project (built once per session)."""
    with _lock:
        if "site" not in _built:
            base = tmp_path_factory.mktemp("okf_reading_site")
            _built["site"] = build(base / "src", base / "html")
        return _built["site"]

