"""okf_sphinx: exact, sharded, locator-aware BM25 section search for Sphinx and MkDocs sites.

As a Sphinx extension: ``extensions = ["okf_sphinx"]``; as a MkDocs / ProperDocs
plugin: ``plugins: [search, okf]`` (:mod:`okf_sphinx.capture.mkdocs.plugin`).  As a library:
``okf_sphinx.open_index(site).search("retry policy")``.  Importing this package
does not import Sphinx: the query path (API, CLI, MCP) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.errors import OkfError
from .surfaces.api import Index, open_index

__version__ = "0.1.0"
__all__ = ["Index", "OkfError", "open_index", "setup", "__version__"]

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    """Sphinx entry point; the build-side code is imported only here."""
    from .capture.sphinx.extension import setup as _setup

    return _setup(app)
