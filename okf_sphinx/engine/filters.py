"""Smart mode's filters (docs/smart.md, "Filters"): ``under`` a path prefix, page ``meta``data, ``kind``.

``under`` and ``meta`` keep whole pages (a page passes or not), ``kind`` keeps
sections.  The browser runtime's twin is ``okf_sphinx/js/engine/filters.js``.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable

from okf_sphinx.core.errors import OkfError, json_text

#: A section kind: ``section``, or an object's domain and type (``py:function``).
KIND = re.compile(r"^[a-z][a-z0-9_-]*(:[a-z0-9_.-]+)?$")
_UNDER = "a path prefix relative to the site's source root, such as 'guide' or 'ref/contrib'"


def _bad(field: str, what: str, value: Any) -> OkfError:
    return OkfError("schema_validation", f"{field} must be {what}, got {json_text(value)}", field=field)


def check_filters(under: Any, meta: Any, kind: Any) -> tuple[list[str] | None, dict[str, str] | None, list[str] | None]:
    """The filters as the engine uses them: ``under``'s path units, the ``meta`` pairs,
    the kinds (``None``: no such filter)."""
    units = None
    if under is not None:
        if not isinstance(under, str) or not under.strip("/") or "\\" in under or under.startswith("/"):
            raise _bad("under", _UNDER, under)
        units = under.strip("/").split("/")
        if any(u in ("", ".", "..") for u in units):
            raise _bad("under", _UNDER, under)
    if meta is not None:
        if not isinstance(meta, dict) or not meta or not all(
            isinstance(k, str) and k and isinstance(v, str) for k, v in meta.items()
        ):
            raise _bad("meta", "an object of page metadata fields and their text values, such as {\"status\": \"draft\"}", meta)
    kinds = None
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else kind
        if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) and KIND.fullmatch(k) for k in kinds):
            raise _bad("kind", "'section' or an object kind such as 'py:function' (or a list of them)", kind)
    return units, meta, kinds


def stem_path(path: str) -> list[str]:
    """A page's source path as units, its file suffix dropped (``guide/install.rst`` -> guide, install)."""
    units = path.split("/")
    name = units[-1]
    dot = name.rfind(".")
    if 0 < dot < len(name) - 1:
        units[-1] = name[:dot]
    return units


def page_ok(paths: list[str], page: int, units: list[str] | None, wanted: dict[str, str] | None,
            metas: dict[str, Any]) -> bool:
    """Does page number ``page`` pass ``under`` (its path's units start with ``units``) and
    ``meta`` (each wanted field has the value, or a list holding it)?"""
    if units is not None and stem_path(paths[page])[: len(units)] != units:
        return False
    if wanted is not None:
        have = metas.get(str(page), {})
        for key, value in wanted.items():
            v = have.get(key)
            if not (v == value or (isinstance(v, list) and value in v)):
                return False
    return True


def page_filter(paths: list[str], units: list[str] | None, wanted: dict[str, str] | None,
                metas: dict[str, Any]) -> Callable[[int], bool] | None:
    """:func:`page_ok` for these filters as a function of the page number; ``None`` without
    a page-level filter (every page passes)."""
    if units is None and wanted is None:
        return None
    return lambda page: page_ok(paths, page, units, wanted, metas)
