"""Docstrings of a package installed non-editable (``pip install .``), located in the project's
own files (docs/contract.md, "Documented objects"): real installs, real Sphinx builds."""

from __future__ import annotations

import hashlib
import os
import site
import subprocess
import sys
from pathlib import Path
from typing import Any

import okf_sphinx
from support.build import write_files, write_project
from support.shapes import SHAPES

RST = "Shapes\n======\n\n.. automodule:: {module}\n   :members:\n"
CONF = 'extensions += ["sphinx.ext.autodoc"]\nokf_search_exclude = []\n'  # no sys.path: autodoc imports the install


def _pyproject(packages: str, package_dir: str = "") -> str:
    return ('[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
            '[project]\nname = "shapes-demo"\nversion = "1.0"\n\n'
            f'[tool.setuptools]\npackages = {packages}\n' + (f'package-dir = {{"" = "{package_dir}"}}\n' if package_dir else ""))


def _install(python: str, proj: Path, *target: str) -> None:
    """A real, non-editable install of the checkout at ``proj`` (offline: the interpreter's setuptools)."""
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    *target, str(proj)], check=True, capture_output=True, text=True)


def _build(python: str, src: Path, out: Path, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Sphinx in a subprocess of ``python``; ``site`` (a ``pip install --target`` folder) goes on its sys.path."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), str(site)) if p)
    proc = subprocess.run([python, "-m", "sphinx", "-b", "html", str(src), str(out)], capture_output=True, text=True,
                          env=env, cwd=src, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def _venv_over_this_environment(venv: Path) -> str:
    """A new virtual environment that sees this test run's packages first (its Sphinx, docutils,
    okf_sphinx — a venv's ``--system-site-packages`` alone would show the base interpreter's,
    which under tox or CI's pinned venvs are other versions), then the base interpreter's; its
    own site-packages, where ``pip install .`` puts the package, come before both."""
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    Path(own, "_okf_test_parent.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours) + "\n", encoding="utf-8")
    return python


def _objects(out: Path) -> dict[str, dict[str, Any]]:
    index = okf_sphinx.open_index(out)
    return {name: index.section(sid) for name, _kind, _page, _i, sid in index.objects()}


def _reads_back(out: Path, base: Path, objects: dict[str, dict[str, Any]]) -> None:
    """Every object reads back through ``read_lines`` with the SHA-256 of the file at ``base`` / its path."""
    index = okf_sphinx.open_index(out)
    for record in objects.values():
        read = index.read_lines(record["path"], [record["line_start"], record["line_end"]])
        assert read["content_sha256"] == record["content_sha256"]
        assert read["content_sha256"] == hashlib.sha256((base / record["path"]).read_bytes()).hexdigest()


def test_src_layout_installed_in_a_venv_is_located_in_the_checkout(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write_files(proj, {"pyproject.toml": _pyproject('["shapes"]', "src"), "src/shapes/__init__.py": SHAPES})
    src = write_project(proj / "docs", {"index.rst": RST.format(module="shapes")}, conf=CONF)
    venv = tmp_path / "venv"
    python = _venv_over_this_environment(venv)
    _install(python, proj)
    installed = next(venv.glob("lib/python*/site-packages/shapes/__init__.py"))
    assert installed.read_bytes() == SHAPES.encode()
    proc = _build(python, src, tmp_path / "out")
    objects = _objects(tmp_path / "out")
    circle = objects["shapes.Circle"]
    assert (circle["path"], circle["line_start"], circle["line_end"]) == ("src/shapes/__init__.py", 5, 5)
    assert "generated" not in circle
    # a docstring built at run time is the only generated object; no installed file went unmatched
    assert sorted(n for n, r in objects.items() if r.get("generated")) == ["shapes.scale"]
    assert "no file under" not in proc.stdout
    _reads_back(tmp_path / "out", proj, objects)
    assert okf_sphinx.open_index(tmp_path / "out").get_section(object="Square.area")["locator"] == "src/shapes/__init__.py#L20-L20"


def test_flat_layout_installed_into_a_target_folder_is_located(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write_files(proj, {"pyproject.toml": _pyproject('["shapes"]'), "shapes/__init__.py": SHAPES})
    src = write_project(proj / "docs", {"index.rst": RST.format(module="shapes")}, conf=CONF)
    site = tmp_path / "site"
    _install(sys.executable, proj, "--target", str(site))
    assert any(site.glob("*.dist-info"))
    _build(sys.executable, src, tmp_path / "out", site)
    objects = _objects(tmp_path / "out")
    assert objects["shapes.Labelled.label"]["path"] == "shapes/__init__.py"
    assert objects["shapes.Labelled.label"]["line_start"] == 47
    assert sorted(n for n, r in objects.items() if r.get("generated")) == ["shapes.scale"]
    _reads_back(tmp_path / "out", proj, objects)


def test_a_namespace_package_is_located_below_src(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    # acme/ has no __init__.py: a namespace package, the path below the import folder names the file
    write_files(proj, {"pyproject.toml": _pyproject('["acme.shapes"]', "src"), "src/acme/shapes/__init__.py": SHAPES})
    src = write_project(proj / "docs", {"index.rst": RST.format(module="acme.shapes")}, conf=CONF)
    site = tmp_path / "site"
    _install(sys.executable, proj, "--target", str(site))
    assert (site / "acme" / "shapes" / "__init__.py").is_file() and not (site / "acme" / "__init__.py").exists()
    _build(sys.executable, src, tmp_path / "out", site)
    objects = _objects(tmp_path / "out")
    assert (objects["acme.shapes"]["path"], objects["acme.shapes"]["line_start"]) == ("src/acme/shapes/__init__.py", 1)
    assert objects["acme.shapes.Unit.area"]["line_start"] == 33
    assert sorted(n for n, r in objects.items() if r.get("generated")) == ["acme.shapes.scale"]
    _reads_back(tmp_path / "out", proj, objects)


def test_an_installed_version_no_project_file_matches_stays_generated_and_the_log_says_why(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write_files(proj, {"pyproject.toml": _pyproject('["shapes"]', "src"), "src/shapes/__init__.py": SHAPES})
    site = tmp_path / "site"
    _install(sys.executable, proj, "--target", str(site))
    # the checkout moved on after the install: its file is no longer the installed one (setuptools'
    # build/lib/ copy still is, but it is no source of the project)
    (proj / "src" / "shapes" / "__init__.py").write_text(SHAPES.replace("A square.", "A square, edited."), encoding="utf-8")
    src = write_project(proj / "docs", {"index.rst": RST.format(module="shapes")}, conf=CONF)
    proc = _build(sys.executable, src, tmp_path / "out", site)
    objects = _objects(tmp_path / "out")
    assert all(r.get("generated") for r in objects.values()) and len(objects) == 11
    assert {r["path"] for r in objects.values()} == {"index.rst"}  # no Python file captured: paths from docs/
    notes = [line for line in proc.stdout.splitlines() if "no file under" in line]
    assert len(notes) == 1, proc.stdout
    assert notes[0].startswith("okf_sphinx: 11 autodoc objects are located at their directive line")
    assert str(site / "shapes" / "__init__.py") in notes[0] and str(proj) in notes[0]
    assert "pip install ." in notes[0]
    _reads_back(tmp_path / "out", src, objects)


def test_a_checkout_on_sys_path_with_egg_info_beside_it_is_read_in_place(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    # an old ``setup.py develop`` leaves shapes.egg-info in src/: src/ is still the checkout, not an install
    write_files(proj, {"pyproject.toml": _pyproject('["shapes"]', "src"), "src/shapes/__init__.py": SHAPES,
                       "src/shapes.egg-info/PKG-INFO": "Metadata-Version: 2.1\nName: shapes-demo\nVersion: 1.0\n"})
    conf = 'import os, sys\nsys.path.insert(0, os.path.abspath("../src"))\n' + CONF
    src = write_project(proj / "docs", {"index.rst": RST.format(module="shapes")}, conf=conf)
    _build(sys.executable, src, tmp_path / "out")
    objects = _objects(tmp_path / "out")
    assert objects["shapes.Square"]["path"] == "src/shapes/__init__.py"
    assert sorted(n for n, r in objects.items() if r.get("generated")) == ["shapes.scale"]
