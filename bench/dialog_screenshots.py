"""Screenshots of the open search dialog in the four tested Sphinx themes, for docs/browser.md.

Builds example_site once per theme (real Sphinx), opens a page in headless Chromium
(Debian's /usr/bin/chromium through Playwright), opens the dialog with Ctrl+K, types a query,
waits for the answer, selects the first result and saves the viewport as
docs/_static/dialog-<theme>.png (800x560 CSS pixels, scale 1, to keep the files small).

    PYTHONPATH=. python bench/dialog_screenshots.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "_static"
THEMES = ["alabaster", "furo", "sphinx_rtd_theme", "pydata_sphinx_theme"]
QUERY = "retry pol"


def main() -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="okf-shots-") as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        for theme in THEMES:
            html = Path(tmp) / theme
            subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-D", f"html_theme={theme}",
                            "-d", str(Path(tmp) / f"{theme}-doctrees"), str(REPO / "example_site"), str(html)],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            page = browser.new_page(viewport={"width": 800, "height": 560}, device_scale_factor=1)
            page.goto((html / "guide" / "installation.html").as_uri())
            page.keyboard.press("Control+k")
            page.wait_for_selector("dialog.okf-dialog[open]")
            page.keyboard.type(QUERY)
            page.wait_for_function("q => { const d = document.querySelector('dialog.okf-dialog');"
                                   " return d.getAttribute('data-okf-state') === 'done' && d.getAttribute('data-okf-query') === q; }",
                                   arg=QUERY)
            page.keyboard.press("ArrowDown")
            target = OUT / f"dialog-{theme.replace('_', '-')}.png"
            page.screenshot(path=str(target))
            print(target.relative_to(REPO), target.stat().st_size, "bytes")
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
