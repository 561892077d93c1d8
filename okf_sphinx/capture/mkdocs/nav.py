"""MkDocs' navigation as the site's toctree: the structural page priors (docs/smart.md) and
the groups of ``llms.txt``.

On a Sphinx site a page's toctree depth is its distance from the root document
through the toctrees; a MkDocs site's tree is its ``nav``.  :func:`nav_depths`
gives every page of the nav its nesting depth: the home page 0, top-level pages 1,
pages in a top-level section 2, and so on.  With Material for MkDocs'
``navigation.indexes`` feature a section's index page (the first of its pages
named ``index.md``, as Material's nav template picks it) *is* the section's page and
stands at the section's level.  A page listed twice keeps its shallowest place;
pages not in the nav get no depth (they count as Sphinx's pages no toctree reaches).

The nav is built by MkDocs on every build, ``--dirty`` ones included, so the depths
never depend on which pages a build rendered.  :func:`nav_groups` groups the pages for
``llms.txt`` as the Sphinx side groups them by the root document's toctrees.  No MkDocs
imports: items are read by their attributes (``children``, ``file``, ``is_index``, ``title``).
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


def nav_groups(items: Iterable[Any], docname: Callable[[Any], str], home: str | None,
               default: str) -> list[tuple[str, list[str]]]:
    """``(caption, docnames)`` for ``llms.txt``: each top-level section of the nav is a group
    named by its title, holding its pages in nav order (nested sections' pages too); the
    top-level pages share the group ``default``.  The home page is in none (it heads the
    file), and a page listed twice appears once, first; links to other sites are left out."""
    groups: dict[str, list[str]] = {}
    seen = {home} if home is not None else set()

    def add(page: Any, into: list[str]) -> None:
        name = docname(page.file)
        if name not in seen:
            seen.add(name)
            into.append(name)

    def walk(children: Iterable[Any], into: list[str]) -> None:
        for child in children:
            if _is_page(child):
                add(child, into)
            elif getattr(child, "children", None):
                walk(child.children, into)

    for item in items:
        if _is_page(item):
            add(item, groups.setdefault(default, []))
        elif getattr(item, "children", None):
            caption = " ".join(str(getattr(item, "title", "") or "").split()) or default
            walk(item.children, groups.setdefault(caption, []))
    return [(caption, pages) for caption, pages in groups.items() if pages]


def _is_page(item: Any) -> bool:
    return getattr(item, "file", None) is not None and not getattr(item, "children", None)
