"""Chromium for the browser tests: the themes every dialog test runs in, and the browser itself."""

from __future__ import annotations

import contextlib
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
