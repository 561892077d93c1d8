"""The search dialog driven in Chromium for the tests: typing, reading its groups, axe-core."""

from __future__ import annotations

import re
import shutil
import subprocess
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from support.build import ROOT
from support.node import require_node

#: result pages the dialog shows per step (its own constant)
DIALOG_PAGES = int(re.search(r"var PAGES = (\d+)", (ROOT / "okf_sphinx" / "static" / "okf-dialog.js").read_text(encoding="utf-8")).group(1))  # type: ignore[union-attr]


AXE_DIR = Path(__file__).resolve().parents[1] / "js"


AXE = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"


def axe_source() -> str:
    """axe-core's axe.min.js, installed with npm into tests/js/node_modules (gitignored) if missing."""
    if not AXE.exists():
        require_node()
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to install axe-core for the accessibility test")
        proc = subprocess.run([npm, "install", "--no-save", "--no-package-lock", "--prefix", str(AXE_DIR), "axe-core"],
                              capture_output=True, text=True)
        assert proc.returncode == 0 and AXE.exists(), proc.stdout + proc.stderr
    return AXE.read_text(encoding="utf-8")


def axe_violations(page: Any, selector: str) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations inside ``selector``."""
    page.add_script_tag(content=axe_source())
    result = page.evaluate("""sel => axe.run(document.querySelector(sel),
        {resultTypes: ['violations']}).then(r => r.violations.map(v => ({id: v.id, impact: v.impact,
        nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))""", selector)
    return [v for v in result if v["impact"] in ("serious", "critical")]


def okf_page_errors(page: Any) -> list[str]:
    """The list the errors of okf's own scripts on a MkDocs or Zensical page (``assets/okf/``)
    are recorded in, each as its stack; other scripts' errors are left out (the themes' CDN
    scripts, like highlight.js, cannot load offline)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e.stack)) if "assets/okf/" in str(e.stack) else None)
    return errors


def type_query(page: Any, text: str) -> None:
    """Type into the dialog one key at a time and wait for the answer to the whole text."""
    page.keyboard.type(text)
    page.wait_for_function(
        "q => { const d = document.querySelector('dialog.okf-dialog');"
        " return d && d.getAttribute('data-okf-state') === 'done' && d.getAttribute('data-okf-query') === q; }",
        arg=page.input_value("#okf-dialog-q"),
    )


def shown_groups(page: Any) -> list[dict[str, Any]]:
    return page.eval_on_selector_all(
        ".okf-dialog-list [role=group]",
        """gs => gs.map(g => ({
            label: g.getAttribute('aria-label'),
            options: Array.from(g.querySelectorAll('[role=option]')).map(o => ({
                href: (u => { u.searchParams.delete('okf-hl'); return u.href; })(new URL(o.href)),
                landing: new URL(o.href).searchParams.get('okf-hl'),
                id: o.id, selected: o.getAttribute('aria-selected'),
                kind: (o.querySelector('.okf-kind') || {}).textContent || null,
                marks: Array.from(o.querySelectorAll('mark')).map(m => m.textContent)}))}))""",
    )


def expected_groups(site_dir: Path, base: str, query: str) -> list[dict[str, Any]]:
    from okf_sphinx import open_index

    index = open_index(site_dir)
    result = index.search(query, DIALOG_PAGES, mode="smart", prefix=True)
    urls = {(s["path"], s["line_start"]): s["url"] for s in (index.section(i) for i in range(index.sections_all))}
    root = base if base.startswith("http") else base
    return [{"label": p["title"] or p["concept_id"],
             "hrefs": [urllib.parse.urljoin(root, urls[(h["path"], h["line_start"])]) for h in p["hits"][:3]
                       if urls[(h["path"], h["line_start"])]]}
            for p in result["pages"]]


def plain_url(url: str) -> str:
    """The URL without the dialog's landing parameter (?okf-hl=<query>)."""
    parts = urllib.parse.urlsplit(url)
    query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True) if k != "okf-hl"]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def landing_of(url: str) -> str | None:
    values = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("okf-hl")
    return values[0] if values else None


def open_by_key(page: Any, key: str) -> None:
    page.keyboard.press(key)
    page.wait_for_selector("dialog.okf-dialog[open]")
    assert page.evaluate("document.activeElement.id") == "okf-dialog-q"


def wait_closed_with_focus_on(page: Any, condition: str) -> None:
    """Wait until the dialog is closed and its ``close`` event has put focus back (the
    event fires after ``open`` is removed, as a task of its own): then ``condition``
    must hold; a timeout fails the test."""
    page.wait_for_selector("dialog.okf-dialog:not([open])", state="attached")
    page.wait_for_function(condition, timeout=10_000)



def page_results(page: Any) -> list[dict[str, str]]:
    """The hits okf's search page shows: each one's link and heading."""
    return page.eval_on_selector_all(
        "li.okf-hit",
        """els => els.map(li => ({href: li.querySelector('.okf-link').getAttribute('href'),
                                   heading: li.querySelector('.okf-heading').textContent}))""",
    )


def expected_page_results(folder: Path, query: str) -> list[tuple[str, str]]:
    """What the search page should show for ``query``: the Python API's smart answer, 5 pages per
    step (okf-search-page.js SMART_PAGE), as (link, heading)."""
    from okf_sphinx import open_index

    index = open_index(folder)
    result = index.search(query, 5, mode="smart", prefix=True)  # the page completes the last word
    urls = {(s["path"], s["line_start"]): s["url"] for s in (index.section(i) for i in range(index.sections_all))}
    hits = [h for p in result["pages"] for h in p["hits"]]
    return [("./" + urls[(h["path"], h["line_start"])], h["heading"] or h["title"]) for h in hits]
