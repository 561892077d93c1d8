"""Chromium for the browser tests: the themes every dialog test runs in, and the browser itself."""

from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import Iterator
from typing import Any

from support.node import CHROMIUM_ARGS, require_chromium

#: the Sphinx themes the browser tests open the dialog and the search page in
THEMES = ["alabaster", "furo", "sphinx_rtd_theme", "pydata_sphinx_theme"]


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Headless Debian Chromium through Playwright (a missing browser fails or skips as
    ``require_chromium`` says)."""
    exe = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


def fetched(page: Any) -> dict[str, int]:
    """Path → body bytes of every resource the page has loaded, from its own Resource Timing
    entries (complete once its answer shows, where Playwright's network events may still be
    on their way)."""
    entries = page.evaluate("performance.getEntriesByType('resource').map(e => [e.name, e.encodedBodySize])")
    return {urllib.parse.urlsplit(url).path: size for url, size in entries}
