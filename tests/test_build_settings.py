"""What a build takes in: the path limits an index can hold, and which pages are excluded
(nothing by default; the seeds' convention only when asked)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import okf_sphinx
from support.build import EXAMPLE, sphinx_build, write_project
from okf_sphinx.core.hosts import SPHINX



def test_too_deep_path_names_components_and_the_real_numbers(tmp_path: Path) -> None:
    deep = "/".join(["d"] * 65) + "/page.rst"
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\n.. toctree::\n\n   " + deep[:-4] + "\n", deep: "P\n=\n\nx\n"})
    proc = sphinx_build(src, tmp_path / "out", check=False)
    assert proc.returncode != 0
    assert "has 66 components" in proc.stderr and "at most 64" in proc.stderr, proc.stderr
    assert "okf_search_limits = {'path'" not in proc.stderr and "which no setting raises" in proc.stderr
    assert not (tmp_path / "out" / "_okf").exists()


def test_too_long_path_names_bytes_and_the_real_numbers() -> None:
    from okf_sphinx.core.errors import PathLimitError
    from okf_sphinx.writer.limits import check_path

    rel = "/".join(["é" * 100] * 21)  # 20 separators + 21 * 200 bytes = 4220 bytes, 21 components
    with pytest.raises(PathLimitError) as err:
        check_path(rel, SPHINX)
    assert "has 4220 bytes in UTF-8" in str(err.value) and "at most 4096" in str(err.value)
    check_path("/".join(["é" * 100] * 20), SPHINX)  # 4019 bytes: fine


NAV = {
    "index.rst": "Home\n====\n\nkudu\n\n.. toctree::\n\n   log\n   api/index\n   api/log\n   catalog\n   api/login\n",
    "log.md": "# Log\n\nkudu\n",
    "api/index.md": "# API\n\nkudu\n",
    "api/log.md": "# API log\n\nkudu\n",
    "catalog.md": "# Catalog\n\nkudu\n",
    "api/login.md": "# Login\n\nkudu\n",
}


def test_nothing_is_excluded_by_default(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", NAV)
    sphinx_build(src, tmp_path / "out")
    hits = okf_sphinx.open_index(tmp_path / "out").search("kudu", limit=100)["hits"]
    assert sorted(h["concept_id"] for h in hits) == ["api/index", "api/log", "api/login", "catalog", "index", "log"]


def test_the_seed_convention_excludes_nested_index_and_log_pages_exactly(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", NAV, conf='okf_search_exclude = ["index", "*/index", "log", "*/log"]\n')
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", str(src), str(tmp_path / "out")],
                          capture_output=True, text=True, check=True)
    index = okf_sphinx.open_index(tmp_path / "out")
    hits = index.search("kudu", limit=100)["hits"]
    assert sorted(h["concept_id"] for h in hits) == ["api/login", "catalog"]
    assert "4 pages excluded from search by okf_search_exclude" in proc.stdout
    # excluded pages are captured and readable
    assert index.get_section(concept_id="api/log", heading="API log")["content"] == "# API log\n\nkudu"


def test_example_site_follows_the_seed_convention_explicitly() -> None:
    conf = (EXAMPLE / "conf.py").read_text(encoding="utf-8")
    assert 'okf_search_exclude = ["index", "*/index", "log", "*/log"]' in conf


def test_exclude_patterns_match_the_whole_docname() -> None:
    from okf_sphinx.core.records import excluded

    seed = ["index", "*/index", "log", "*/log"]
    assert excluded("api/log", seed) and excluded("a/b/log", seed) and excluded("a/b/index", seed)
    assert not excluded("api/log", ["log"]) and not excluded("catalog", seed) and not excluded("api/login", seed)
    assert not excluded("index", [])
