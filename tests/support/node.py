"""Helpers for the JavaScript runtime tests (tests/test_js_*.py, tests/test_browser_*.py).

Node and Chromium are optional locally (the tests skip without them) but CI sets
``OKF_REQUIRE_NODE=1`` / ``OKF_REQUIRE_BROWSER=1``, and then a missing tool fails.
"""

from __future__ import annotations

import atexit
import json
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the Node runners (parity_runner.js, stemmer_runner.js, unicode_probe.js) and axe-core's npm folder
JS_DIR = ROOT / "tests" / "js"


def _assembled_runtime(minified: bool = True) -> Path:
    """The runtime as a site build writes it (okf_sphinx/surfaces/browser.py: minified), or
    readable, once per test process, beside the stemmers it loads in Node."""
    from okf_sphinx.surfaces.browser import write_for_node

    folder = Path(tempfile.mkdtemp(prefix="okf-runtime-"))
    atexit.register(shutil.rmtree, folder, True)
    return write_for_node(folder, minified)


#: The assembled okf-search.js every Node test runs (OKF_RUNTIME for the runners): minified, as sites ship it.
RUNTIME = _assembled_runtime()
#: The same runtime readable (its sources without the comment lines), for the minifier's tests.
READABLE = _assembled_runtime(minified=False)
RUNNER = JS_DIR / "parity_runner.js"
PROBE = JS_DIR / "unicode_probe.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def require_node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("OKF_REQUIRE_NODE") == "1":
            pytest.fail("OKF_REQUIRE_NODE=1 but `node` is not on PATH: install Node.js 18+")
        pytest.skip("Node.js is not installed (set OKF_REQUIRE_NODE=1 to make this a failure)")
    return node


def require_chromium() -> str:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if os.environ.get("OKF_REQUIRE_BROWSER") == "1":
            pytest.fail("OKF_REQUIRE_BROWSER=1 but the `playwright` package is not installed")
        pytest.skip("playwright is not installed")
    if not os.access(CHROMIUM, os.X_OK):
        if os.environ.get("OKF_REQUIRE_BROWSER") == "1":
            pytest.fail(f"OKF_REQUIRE_BROWSER=1 but {CHROMIUM} is missing: apt-get install -y chromium")
        pytest.skip(f"{CHROMIUM} is not installed (set OKF_REQUIRE_BROWSER=1 to make this a failure)")
    return CHROMIUM


def run_node(index_dir: Path, requests: list[dict[str, Any]], cold: bool = False, runtime: Path = RUNTIME,
             raw: bool = False) -> list[Any]:
    """Answer every request with the JS runtime (``runtime``: okf-search.js) in one Node
    process; ``raw``: each answer's JSON line as Node wrote it."""
    node = require_node()
    payload = "".join(json.dumps(r, ensure_ascii=True) + "\n" for r in requests)
    args = [node, str(RUNNER), str(index_dir)] + (["--cold"] if cold else [])
    proc = subprocess.run(args, input=payload, capture_output=True, text=True, encoding="utf-8", timeout=600,
                          env={**os.environ, "OKF_RUNTIME": str(runtime)})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")[:-1]
    assert len(lines) == len(requests), (len(lines), len(requests), proc.stderr)
    return lines if raw else [json.loads(line) for line in lines]


def python_answer(index: Any, request: dict[str, Any]) -> Any:
    from okf_sphinx import OkfError

    options = {k: v for k, v in request.items() if k not in ("query", "limit")}
    try:
        if "limit" in request:
            return index.search(request["query"], request["limit"], **options)
        return index.search(request["query"], **options)
    except OkfError as exc:
        return exc.envelope


def same(js: Any, py: Any, where: str = "$") -> str | None:
    """None when equal with exact float bits and matching types, else where they differ."""
    if isinstance(py, bool) or isinstance(js, bool):
        return None if type(py) is type(js) and py == js else f"{where}: {js!r} != {py!r}"
    if isinstance(py, float):
        # JSON gives an int for an integral double ("3"): compare the value's bits
        if isinstance(js, (int, float)) and not isinstance(js, bool):
            a, b = float(js), py
            if a == b and math.copysign(1, a) == math.copysign(1, b):
                return None
        return f"{where}: score {js!r} != {py!r}"
    if isinstance(py, dict):
        if not isinstance(js, dict) or list(js) != list(py):
            return f"{where}: keys {list(js) if isinstance(js, dict) else js!r} != {list(py)}"
        for k in py:
            d = same(js[k], py[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(py, list):
        if not isinstance(js, list) or len(js) != len(py):
            return f"{where}: {json.dumps(js)[:200]} != {json.dumps(py)[:200]}"
        for i, (a, b) in enumerate(zip(js, py)):
            d = same(a, b, f"{where}[{i}]")
            if d:
                return d
        return None
    return None if type(js) is type(py) and js == py else f"{where}: {js!r} != {py!r}"


def node_answers(site: Path, requests: list[dict[str, Any]]) -> list[Any]:
    """The JS runtime's answers to ``requests`` over ``site``'s index, each checked equal (exact
    float bits, :func:`same`) to the Python engine's."""
    import okf_sphinx

    index = okf_sphinx.open_index(site)
    answers = run_node(site / "_okf", requests)
    for req, answer in zip(requests, answers):
        py = python_answer(index, req)
        assert same(answer, py) is None, (req, same(answer, py))
    return answers


def unicode_differences() -> list[int]:
    """Code points whose word class, assignment or case mapping differ between the build's
    Python tables and this Node's own Unicode (regex properties, toLowerCase)."""
    from okf_sphinx.core.terms import in_ranges, unicode_tables

    node = require_node()
    proc = subprocess.run([node, str(PROBE)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    probe = json.loads(proc.stdout)
    t = unicode_tables()
    out = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        key = f"{cp:x}"
        if (
            in_ranges(t["word"], cp) != in_ranges(probe["word"], cp)
            or in_ranges(t["assigned"], cp) != in_ranges(probe["assigned"], cp)
            or t["casefold"].get(key, chr(cp)) != probe["lower"].get(key, chr(cp))
            or key in probe["nfc"]
        ):
            out.append(cp)
    return out
