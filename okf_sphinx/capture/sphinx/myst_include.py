"""Line numbers of MyST ``{include}``d Markdown on MyST-Parser releases before 5.2.

MyST-Parser up to 5.1 renders an included file with ``nested_render_text(text,
startline + 1)``, while token maps are already 0-based and the renderer adds
one when it writes ``node.line``: every node of an ``{include}``d file reports
the line *after* its own (a heading on line 1 says line 2).  5.2 passes
``startline`` and reports the true line.  This module undoes the shift on the
doctree before the sections are split, so that locators are exact on every
MyST-Parser release okf_sphinx supports; the corrected lines also serve any
later reader of the doctree.

Only files included by a Markdown document and themselves Markdown (by the
project's ``source_suffix``) are corrected: an RST ``include`` (also one inside
an ``{eval-rst}`` block of a Markdown page that includes an ``.rst`` file) and
a ``:parser:`` include from an RST page report true lines on every release.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes

from .sections import resolve_source

if TYPE_CHECKING:
    from collections.abc import Iterable

FIXED_IN = (5, 2)  # first MyST-Parser release that reports included lines exactly


def version_tuple(version: str) -> tuple[int, ...]:
    """``"5.1.0"`` -> ``(5, 1, 0)``; pre-release or local tails are ignored."""
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:3])


def line_shift(myst_version: str | None) -> int:
    """How many lines too low MyST-Parser ``myst_version`` reports ``{include}``d content."""
    if myst_version is None:
        return 0
    return 1 if version_tuple(myst_version) < FIXED_IN else 0


@functools.lru_cache(maxsize=1)
def installed_shift() -> int:
    try:
        import myst_parser
    except ImportError:
        return 0
    return line_shift(getattr(myst_parser, "__version__", None))


def correct_included_lines(
    doctree: nodes.document,
    main: str,
    included: Iterable[str],
    markdown_suffixes: Iterable[str],
    srcdir: Path,
    shift: int | None = None,
) -> int:
    """Subtract the shift from ``line`` of every node that comes from a Markdown file
    included by the Markdown document ``main``; returns how many nodes changed."""
    shift = installed_shift() if shift is None else shift
    suffixes = {s.lower() for s in markdown_suffixes}
    if not shift or Path(main).suffix.lower() not in suffixes:
        return 0
    targets = {p for p in included if p != main and Path(p).suffix.lower() in suffixes}
    if not targets:
        return 0
    changed = 0
    for node in doctree.findall(nodes.Element):
        if node.line and node.line > shift and resolve_source(node.source, srcdir) in targets:
            node.line -= shift
            changed += 1
    return changed
