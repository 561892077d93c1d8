"""MkDocs' navigation as the site's toctree, for the structural page priors (docs/smart.md).

On a Sphinx site a page's toctree depth is its distance from the root document
through the toctrees; a MkDocs site's tree is its ``nav``.  :func:`nav_depths`
gives every page of the nav its nesting depth: the home page 0, top-level pages 1,
pages in a top-level section 2, and so on.  With Material for MkDocs'
``navigation.indexes`` feature a section's index page (the first of its pages
named ``index.md``, as Material's nav template picks it) *is* the section's page and
stands at the section's level.  A page listed twice keeps its shallowest place;
pages not in the nav get no depth (they count as Sphinx's pages no toctree reaches).

The nav is built by MkDocs on every build, ``--dirty`` ones included, so the depths
never depend on which pages a build rendered.  No MkDocs imports: items are read by
their attributes (``children``, ``file``, ``is_index``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

INDEXES_FEATURE = "navigation.indexes"


def nav_depths(items: Iterable[Any], docname: Callable[[Any], str], home: str | None,
               section_indexes: bool) -> dict[str, int]:
    """``docname → depth`` of every page of the nav ``items`` (MkDocs' ``nav.items``);
    ``docname(file)`` names a page's file, ``home`` is the home page's docname (depth 0),
    ``section_indexes``: Material's ``navigation.indexes`` is on."""
    depths: dict[str, int] = {home: 0} if home is not None else {}

    def place(page: Any, depth: int) -> None:
        name = docname(page.file)
        if depths.get(name, depth + 1) > depth:
            depths[name] = depth

    def walk(children: Iterable[Any], level: int) -> None:
        children = list(children)
        index = next((c for c in children if _is_page(c) and getattr(c, "is_index", False)), None) \
            if section_indexes and level > 1 else None
        for child in children:
            if _is_page(child):
                place(child, level - 1 if child is index else level)
            elif getattr(child, "children", None):
                walk(child.children, level + 1)

    walk(items, 1)
    return depths


def _is_page(item: Any) -> bool:
    return getattr(item, "file", None) is not None and not getattr(item, "children", None)
