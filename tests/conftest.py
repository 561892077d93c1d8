"""Shared fixtures: real Sphinx builds of example_site and of small projects."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
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


def page_priors(site: Path) -> dict[str, float]:
    """Each page's prior in a built site's smart page table, by the page's source path."""
    from okf_sphinx.core import index_format as fmt

    okf = site / "_okf"
    return dict(zip(fmt.unwrap("paths", (okf / "paths.js").read_bytes()), fmt.unwrap("smart", (okf / "smart.js").read_bytes())["priors"]))


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


@pytest.fixture(scope="session")
def example_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of example_site (tests never build inside the repository)."""
    dest = tmp_path_factory.mktemp("example") / "src"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("_build"))
    return dest


def _build_example(example_src: Path, tmp_path_factory: pytest.TempPathFactory, builder: str) -> Path:
    out = tmp_path_factory.mktemp(f"example-{builder}")
    sphinx_build(example_src, out, "-d", str(out / ".doctrees"), builder=builder)
    return out


@pytest.fixture(scope="session")
def example_html(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """example_site built with the ``html`` builder (shared, read-only)."""
    return _build_example(example_src, tmp_path_factory, "html")


@pytest.fixture(scope="session")
def example_dirhtml(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_example(example_src, tmp_path_factory, "dirhtml")


@pytest.fixture(scope="session")
def example_singlehtml(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_example(example_src, tmp_path_factory, "singlehtml")


def pytest_report_header(config: pytest.Config) -> str:
    """The versions this run tests (the support matrix, docs/versions.md)."""
    import unicodedata

    import docutils
    import myst_parser
    import sphinx

    return (
        f"okf_sphinx matrix: Python {sys.version.split()[0]} (Unicode {unicodedata.unidata_version}), "
        f"Sphinx {sphinx.__version__}, docutils {docutils.__version__}, MyST-Parser {myst_parser.__version__}"
    )


#: A small site whose pages cross-reference each other in every way link expansion follows
#: (tests/test_links.py, the smart-mode parity tests).
LINKS_PAGES = {
    "index.rst": "Handbook\n========\n\nThe handbook of the widget tool.\n\n.. toctree::\n\n   setup\n   tuning\n   api\n   notes\n",
    "setup.rst": (
        "Setup\n=====\n\nInstall the widget tool first.\n\n"
        "Widget configuration\n--------------------\n\n"
        "The widget reads its configuration at start; for the knobs see :ref:`tuning-knobs`,\n"
        "for the whole story :doc:`tuning`, and call :py:func:`widgets.spin` to start it.\n\n"
        "Troubleshooting\n---------------\n\nA widget that does not spin is misconfigured.\n"
    ),
    "tuning.rst": (
        "Tuning\n======\n\nTuning makes the widget spin faster (`the API <https://widgets.example.org/api.html>`_).\n\n"
        ".. _tuning-knobs:\n\nKnobs\n-----\n\nEvery knob of the widget spin: speed and torque. Back to :ref:`setup-label`.\n\n"
        ".. _setup-label:\n\nAfter setup\n-----------\n\nSee :any:`widgets.Widget` and :term:`torque`.\n\n"
        ".. glossary::\n\n   torque\n      How hard a widget spins.\n"
    ),
    "api.rst": (
        "API\n===\n\n.. py:module:: widgets\n\n"
        ".. py:function:: spin(speed)\n\n   Spin the widget at ``speed``; see :ref:`tuning-knobs`.\n\n"
        ".. py:class:: Widget\n\n   A widget. Its :py:meth:`stop` stops it.\n\n"
        "   .. py:method:: stop()\n\n      Stop the widget spin.\n"
    ),
    "notes.md": (
        "# Notes\n\nWidget notes: read [the setup](setup.rst) and {ref}`the knobs <tuning-knobs>`.\n\n"
        "## Spin notes\n\nA widget spin note that links [nothing](https://example.org) and\n"
        "[the troubleshooting](setup.html#troubleshooting).\n"
    ),
}


@pytest.fixture(scope="session")
def links_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("links")
    src = write_project(root / "src", LINKS_PAGES, conf='okf_search_exclude = []\nhtml_baseurl = "https://widgets.example.org/"\n')
    out = root / "html"
    sphinx_build(src, out, "-d", str(root / "doctrees"))
    return out
