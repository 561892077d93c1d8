"""Real builds for the tests: ``sphinx-build`` in a subprocess and small projects written from dicts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


EXAMPLE = ROOT / "example_site"


CORPORA = ROOT.parent / "shared" / "corpora"


def sphinx_build(src: Path, out: Path, *args: str, builder: str = "html", check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a real ``sphinx-build`` in a subprocess (isolated docutils/Sphinx state)."""
    cmd = [sys.executable, "-m", "sphinx", "-q", "-b", builder, *args, str(src), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    if check and proc.returncode != 0:
        raise AssertionError(f"sphinx-build failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def build_html(src: Path) -> Path:
    """Build the project at ``src`` into ``src/../html`` (doctrees beside it); the output folder."""
    out = src.parent / "html"
    sphinx_build(src, out, "-d", str(src.parent / "doctrees"))
    return out


def index_value(okf: Path, name: str) -> Any:
    """The value of index file ``name`` of the index folder ``okf`` as the engines read it: its
    own file, or its part of the bundle ``b/<k>`` the manifest's ``bundles`` puts it in."""
    from okf_sphinx.core import index_format as fmt

    bundles = fmt.unwrap("manifest", (okf / "manifest.js").read_bytes()).get("bundles", [])
    for k, names in enumerate(bundles):
        if name in names:
            return fmt.unwrap(f"b/{k}", (okf / "b" / f"{k}.js").read_bytes())[name]
    return fmt.unwrap(name, (okf / f"{name}.js").read_bytes())


def logical_files(okf: Path) -> dict[str, int]:
    """``{name: bytes of JSON}`` of every index file of the index folder ``okf`` as the engines
    name them: the files on disk, and each bundle's parts in place of the bundle."""
    from okf_sphinx.core import index_format as fmt

    out: dict[str, int] = {}
    for path in sorted(okf.rglob("*.js")):
        name = path.relative_to(okf).as_posix()[: -len(".js")]
        value = fmt.unwrap(name, path.read_bytes())
        parts = value.items() if name.startswith("b/") else [(name, value)]
        out.update((n, len(fmt.canonical_json(v))) for n, v in parts)
    return out


def rewrite_index_value(okf: Path, name: str, change: Any) -> None:
    """Tamper with index file ``name`` of ``okf`` (``change``: its value → the new one), in its
    own file or in its bundle, as the same build (:func:`same_build`)."""
    from okf_sphinx.core import index_format as fmt

    bundles = fmt.unwrap("manifest", (okf / "manifest.js").read_bytes()).get("bundles", [])
    bundle = next((f"b/{k}" for k, names in enumerate(bundles) if name in names), None)
    path = okf / f"{bundle or name}.js"
    value = fmt.unwrap(bundle or name, path.read_bytes())
    if bundle:
        value[name] = change(value[name])
    else:
        value = change(value)
    path.write_bytes(same_build(bundle or name, value, path))


def page_priors(site: Path) -> dict[str, float]:
    """Each page's prior in a built site's smart page table, by the page's source path."""
    okf = site / "_okf"
    return dict(zip(index_value(okf, "paths"), index_value(okf, "smart")["priors"]))


def boot_files(boot: Path) -> list[str]:
    """The files a site's shipped ``okf-boot.js`` loads when the reader reaches for search, in
    order, without their ``?v=`` (the build writes them into the boot)."""
    import json
    import re

    found = re.findall(r'\[("okf-[^"\]]*"(?:,"[^"\]]*")*)\]', boot.read_text(encoding="utf-8"))
    assert len(found) == 1, boot
    return [name.split("?")[0] for name in json.loads("[" + found[0] + "]")]


def write_project(root: Path, files: dict[str, str | bytes], conf: str = "") -> Path:
    """A Sphinx project from ``{relative path: text or exact bytes}``."""
    root.mkdir(parents=True, exist_ok=True)
    base = 'extensions = ["okf_sphinx", "myst_parser"]\nexclude_patterns = ["_build", "_inc"]\n'
    (root / "conf.py").write_text(base + conf, encoding="utf-8")
    write_files(root, files)
    return root


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    """``{relative path: text or exact bytes}`` under ``root`` (text is written as UTF-8, newlines as given)."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")



def same_build(name: str, value: object, beside: Path) -> bytes:
    """Index file ``name`` holding ``value``, written as the build of the index that ``beside``
    (one of its files) belongs to: a test tampering with one file of a build, which every
    reader must then refuse for what it holds, not for coming from another build."""
    from okf_sphinx.core import index_format as fmt

    folder = beside if beside.is_dir() else beside.parent
    while not (folder / "manifest.js").exists() and folder != folder.parent:
        folder = folder.parent
    manifest = folder / "manifest.js"
    build = fmt.unwrap_file("manifest", manifest.read_bytes())[0] if manifest.exists() else None
    return fmt.wrap(name, value, build or "0" * fmt.BUILD_DIGITS)
