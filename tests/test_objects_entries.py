"""Objects written inside another object's docstring (Napoleon ``Attributes`` entries, nested
``.. attribute::`` directives), enum members of a nested enum, sentinels and a subclass that
inherits its docstring: located at the docstring lines that hold their words (docs/contract.md, "Documented objects"); real autodoc builds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import okf_sphinx
from support.build import sphinx_build, write_project

PACKAGE = '''\
"""Settings of a tiny tool."""

import enum


class _Missing(enum.Enum):
    """Sentinel for a setting nobody gave a value."""

    MISSING = enum.auto()


MISSING = _Missing.MISSING


class Settings:
    """Effective settings of one run.

    Attributes:
        verbose (bool):
            Whether every step is logged with its timing.

        retries (int): How often a failed fetch is tried again.

    .. versionadded:: 2.0
    """

    class Colour(enum.Enum):
        """How output is coloured."""

        ALWAYS = "always"
        """Colour even when the output is no terminal."""
        NEVER = "never"
        """Plain text only."""

    def __init__(self, verbose, retries):
        self.verbose = verbose
        self.retries = retries


class Cache:
    """A cache of fetched pages.

    .. attribute:: capacity

       The most pages the cache keeps before it evicts the oldest.

    Ends here.
    """

    __slots__ = ("capacity",)


class _Store:
    """Where fetched pages are kept between runs."""


class DiskStore(_Store):
    def __init__(self, root=None):
        if root is not None:
            #: The folder pages are written to.
            self.root = root
        else:
            self.root = "."


class _Fetch:
    """Fetch one page now, skipping the cache."""

    def __call__(self, url):
        return url


fetch = _Fetch()
'''

RST = """\
API
===

.. automodule:: tool
   :members: Settings, Cache, DiskStore

.. autoclass:: tool.Settings.Colour
   :members:

.. autodata:: tool.MISSING

.. autofunction:: tool.fetch

.. autoattribute:: tool.DiskStore.root
"""


def _site(tmp_path: Path) -> Any:
    proj = tmp_path / "proj"
    (proj / "src" / "tool").mkdir(parents=True)
    (proj / "src" / "tool" / "__init__.py").write_text(PACKAGE, encoding="utf-8")
    conf = ('import os, sys\nsys.path.insert(0, os.path.abspath("../src"))\n'
            'extensions += ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]\nokf_search_exclude = []\n')
    src = write_project(proj / "docs", {"index.rst": RST}, conf=conf)
    sphinx_build(src, tmp_path / "out")
    return okf_sphinx.open_index(tmp_path / "out")


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), start=1) if needle in line)


def test_entries_enum_members_and_sentinels_are_located_in_their_docstrings(tmp_path: Path) -> None:
    index = _site(tmp_path)
    rows = {r[0]: index.section(r[4]) for r in index.objects()}
    assert not [name for name, s in rows.items() if s.get("generated")]
    at = {name: (s["path"], s["line_start"], s["line_end"]) for name, s in rows.items()}
    py = "src/tool/__init__.py"
    src = PACKAGE
    assert at["tool.Settings.verbose"] == (py, _line(src, "verbose (bool)"), _line(src, "every step is logged"))
    assert at["tool.Settings.retries"] == (py, _line(src, "retries (int)"), _line(src, "retries (int)"))
    # the class keeps its docstring up to its first entry (the section header included)
    assert at["tool.Settings"] == (py, _line(src, "Effective settings"), _line(src, "Attributes:"))
    assert at["tool.Cache.capacity"] == (py, _line(src, ".. attribute:: capacity"), _line(src, "evicts the oldest"))
    assert at["tool.Settings.Colour"] == (py, _line(src, "How output is coloured"), _line(src, "How output is coloured"))
    assert at["tool.Settings.Colour.ALWAYS"][1] == _line(src, "Colour even when")
    assert at["tool.Settings.Colour.NEVER"][1] == _line(src, "Plain text only")
    # a subclass without a docstring shows (and is located at) its base's
    assert at["tool.DiskStore"][1:] == (_line(src, "Where fetched pages"), _line(src, "Where fetched pages"))
    # a callable instance shows its class's docstring; an instance attribute assigned inside an ``if``
    assert at["tool.fetch"][1:] == (_line(src, "Fetch one page now"), _line(src, "Fetch one page now"))
    assert at["tool.DiskStore.root"][1:] == (_line(src, "#: The folder pages"), _line(src, "#: The folder pages"))
    assert at["tool.MISSING"][1:] == (_line(src, "Sentinel for a setting"), _line(src, "Sentinel for a setting"))
    # every located range reads back as its section's text, with the file's SHA-256
    for name, s in rows.items():
        read = index.read_lines(s["path"], [s["line_start"], s["line_end"]])
        assert read["content"] == s["text"], name
        assert read["content_sha256"] == s["content_sha256"]
    # the words after the entries continue the class's section (ranges stay disjoint)
    page = index.page(next(c for c in index.concepts() if c[0] == "index")[2])["sections"]
    tails = [s for s in page if s.get("continued") and s["heading"] in ("tool.Settings", "tool.Cache")]
    assert sorted((s["heading"], s["line_start"], s["line_end"]) for s in tails) == [
        ("tool.Cache", _line(src, "Ends here."), _line(src, "Ends here.")),
        ("tool.Settings", _line(src, ".. versionadded:: 2.0"), _line(src, ".. versionadded:: 2.0")),
    ]
    ranges = sorted((s["line_start"], s["line_end"]) for s in page if s["path"] == py)
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:]))
    # an agent asking for the entry by name reads the entry's lines
    got = index.get_section(object="tool.Settings.retries")
    assert got["locator"] == f"{py}#L{_line(src, 'retries (int)')}-L{_line(src, 'retries (int)')}"
    hit = index.search("failed fetch tried again", mode="smart")["pages"][0]["hits"][0]
    assert hit["heading"] == "tool.Settings.retries"
