"""Shared fixtures: real Sphinx builds of example_site and of small projects, Chromium, and
example_site served over http:// and opened from file://.  Helpers that are not fixtures live
in ``tests/support/``."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.browser import chromium
from support.build import EXAMPLE, sphinx_build, write_project
from support.http import serve


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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium, one per test module."""
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def http_root(example_html: Path) -> Iterator[str]:
    """example_site's HTML served on 127.0.0.1 (base URL ending in '/')."""
    url, server = serve(example_html)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(params=["http", "file"])
def site(request: pytest.FixtureRequest, example_html: Path) -> tuple[str, Path]:
    """(base URL ending in '/', build folder) over http://127.0.0.1 and file://; modules
    whose tests read another site define a ``site`` fixture of their own."""
    if request.param == "http":
        return request.getfixturevalue("http_root"), example_html
    return example_html.as_uri() + "/", example_html
