"""Glossary terms as documented objects (kind ``std:term``; capture/sphinx/glossary.py,
docs/contract.md "Documented objects"): real Sphinx builds with RST and MyST glossaries,
each entry a section of its own at its exact lines, found by every one of its terms."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.build import build_html, write_project

import okf_sphinx
from okf_sphinx.core import index_format as fmt

INDEX = """\
Terms
=====

Intro text.

.. glossary::

   environment
   env
      A structure where information is kept.

      Second paragraph.

   builder
      A class that turns doctrees into output.

After the glossary.

.. toctree::

   words
"""
WORDS = """\
# Words

```{glossary}
source directory
  The directory holding the sources.

worker
  A process doing jobs.
```

Text after.
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_html(write_project(tmp_path_factory.mktemp("glossary") / "src", {"index.rst": INDEX, "words.md": WORDS}))


def _sections(site: Path) -> list[list]:
    rows = []
    for path in sorted((site / "_okf" / "s").glob("*.js")):
        rows += fmt.unwrap(f"s/{path.stem}", path.read_bytes())["sections"]
    return rows


def test_every_entry_is_a_section_at_its_lines(site: Path) -> None:
    rows = [(r[2], r[4], r[5], r[8] if len(r) > 8 else {}) for r in _sections(site)]
    assert rows == [
        ("Terms", 1, 7, {}),
        ("environment", 8, 12, {"kind": "std:term", "name": "environment", "signature": "environment\nenv"}),
        ("builder", 14, 15, {"kind": "std:term", "name": "builder", "signature": "builder"}),
        ("Terms", 16, 21, {"continued": True}),  # the text after the glossary continues its section
        ("Words", 1, 3, {}),
        ("source directory", 4, 5, {"kind": "std:term", "name": "source directory", "signature": "source directory"}),
        ("worker", 7, 8, {"kind": "std:term", "name": "worker", "signature": "worker"}),
        ("Words", 9, 11, {"continued": True}),
    ]
    # anchors are the terms' ids, as :term: links them
    assert {r[2]: r[6] for r in _sections(site) if len(r) > 8 and "kind" in r[8]} == {
        "environment": "term-environment", "builder": "term-builder",
        "source directory": "term-source-directory", "worker": "term-worker"}


def test_every_term_names_its_entry(site: Path) -> None:
    objects = fmt.unwrap("objects", (site / "_okf" / "objects.js").read_bytes())
    assert [(r[0], r[1]) for r in objects] == [
        ("builder", "std:term"), ("env", "std:term"), ("environment", "std:term"),
        ("source directory", "std:term"), ("worker", "std:term")]
    index = okf_sphinx.open_index(site / "_okf")
    # the second term of an entry finds the same section as the first
    for name in ("env", "environment"):
        section = index.get_section(object=name)
        assert (section["locator"], section["object"]["kind"]) == ("index.rst#L8-L12", "std:term")
    assert index.get_section(object="worker")["content"] == "worker\n  A process doing jobs."
    pages = index.search("env", mode="smart")["pages"]
    assert pages[0]["hits"][0]["heading"] == "environment"
    assert [h["heading"] for p in index.search("directory", mode="smart", kind="std:term")["pages"] for h in p["hits"]] \
        == ["source directory"]
