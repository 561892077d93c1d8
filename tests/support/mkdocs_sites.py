"""Real MkDocs / ProperDocs builds of example_mkdocs and of small projects, for the tests.

Every build is a subprocess (``python -m mkdocs build`` / ``python -m properdocs
build``) with this checkout's okf_sphinx first on PYTHONPATH.  The plugin is
found through its ``okf`` entry point: when the installed distribution declares
another one (an editable install made before pyproject.toml gained or moved it), a
throw-away ``.dist-info`` holding exactly the pyproject's entry points is put on
PYTHONPATH, so the build still goes through MkDocs' own plugin loading.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import okf_sphinx
from support.build import write_files

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_MKDOCS = ROOT / "example_mkdocs"
GROUPS = ("mkdocs.plugins", "properdocs.plugins")


def declared_entry_points() -> dict[str, dict[str, str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {group: project.get("entry-points", {}).get(group, {}) for group in GROUPS}


@functools.cache
def _entry_point_dir() -> str | None:
    """A folder with a .dist-info declaring the pyproject's entry points, if not installed."""
    declared = declared_entry_points()
    installed = {
        group: {ep.name: ep.value for ep in importlib.metadata.entry_points(group=group)} for group in GROUPS
    }
    if all(installed[g].get(name) == value for g in GROUPS for name, value in declared[g].items()):
        return None
    # named as the installed distribution and first on the path: importlib.metadata lists one
    # distribution per name, the first found, so the checkout's entry points replace the stale ones
    # (under another name both would be listed and MkDocs would keep the installed, last one)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    folder = Path(tempfile.mkdtemp(prefix="okf-entry-points-"))
    info = folder / f"okf_sphinx-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: okf_sphinx\nVersion: {version}\n")
    text = "".join(f"[{g}]\n" + "".join(f"{n} = {v}\n" for n, v in declared[g].items()) + "\n" for g in GROUPS)
    (info / "entry_points.txt").write_text(text)
    return str(folder)


def build_env() -> dict[str, str]:
    paths = [str(Path(okf_sphinx.__file__).resolve().parent.parent)]
    extra = _entry_point_dir()
    if extra:
        paths.append(extra)
    old = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths + ([old] if old else [])), "PYTHONHASHSEED": "0"}


def mkdocs_build(
    project: Path, out: Path, *args: str, config: str = "mkdocs.yml", tool: str = "mkdocs", check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``python -m mkdocs build`` (or properdocs) of ``project`` into ``out``, run from ``project``."""
    cmd = [sys.executable, "-m", tool, "build", "-f", config, "-d", str(out), *args]
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True, env=build_env(), timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"{tool} build failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def copy_example(dest: Path, theme: str = "mkdocs") -> Path:
    """A private copy of example_mkdocs; ``theme`` other than mkdocs gets its own config file."""
    shutil.copytree(EXAMPLE_MKDOCS, dest, ignore=shutil.ignore_patterns("site", "__pycache__"))
    if theme != "mkdocs":
        (dest / f"mkdocs-{theme}.yml").write_text(f"INHERIT: mkdocs.yml\ntheme:\n  name: {theme}\n", encoding="utf-8")
    return dest


def config_for(theme: str) -> str:
    return "mkdocs.yml" if theme == "mkdocs" else f"mkdocs-{theme}.yml"


_built: dict[tuple[str, str], Path] = {}


def built_example(base: Path, theme: str = "mkdocs", tool: str = "mkdocs") -> Path:
    """example_mkdocs built once per test process and (theme, tool); returns the site folder."""
    key = (theme, tool)
    if key not in _built:
        project = copy_example(base / f"src-{theme}-{tool}", theme)
        out = base / f"site-{theme}-{tool}"
        mkdocs_build(project, out, config=config_for(theme), tool=tool)
        _built[key] = out
    return _built[key]


def write_mkdocs_project(root: Path, files: dict[str, str | bytes], config: str = "") -> Path:
    """A MkDocs project: ``files`` under docs/ (exact bytes for ``bytes``), okf enabled."""
    (root / "docs").mkdir(parents=True, exist_ok=True)
    base = "site_name: test\n"
    if "theme:" not in config:
        base += "theme:\n  name: mkdocs\n"
    if "plugins:" not in config:
        base += "plugins:\n  - search\n  - okf\n"
    (root / "mkdocs.yml").write_text(base + config, encoding="utf-8")
    write_files(root / "docs", files)
    return root


def built_mkdocs_project(base: Path, files: dict[str, str | bytes], config: str = "") -> Path:
    """``files`` written as a MkDocs project under ``base/src`` (:func:`write_mkdocs_project`)
    and built into ``base/site``, which is returned."""
    mkdocs_build(write_mkdocs_project(base / "src", files, config), base / "site")
    return base / "site"


def index_bytes(site: Path, output_dir: str = "_okf") -> dict[str, bytes]:
    root = site / output_dir
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
