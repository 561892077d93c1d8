"""tools/regroup.py (docs/architecture.md): the re-runnable move of the flat package into
subpackages, run on a copy of this checkout.

Before the regroup has been applied: the copy is regrouped, every module imports, no two
modules import each other, reading.py's new definitions land by the rule (their one user,
else the shared module), a new module goes beside its importers, a test's ``monkeypatch.setattr(reading, …)`` patches every module
that reads the name, and a second run changes nothing.  After it has been applied: the
tool sees it and changes nothing."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "regroup.py"
COPIED = ("okf_sphinx", "tests", "bench", "docs", "example_site", "example_mkdocs", "tools", "pyproject.toml", "README.md")

#: appended to reading.py in the copy: names the tool's table does not know
NEW_NAMES = '''
from .brand_new import twice


def _only_for_the_new_tool(n: int) -> int:
    return n


def read_lines_twice(index: Index, path: Any, lines: Any) -> list[dict[str, Any]]:
    _only_for_the_new_tool(0)
    return twice(read_lines(index, path, lines))


def new_public_helper(text: str) -> str:
    return _shorten(text)
'''

PATCHING_TEST = '''
from okf_sphinx import reading


def test_patch(monkeypatch):
    monkeypatch.setattr(reading, "MAX_ANSWER_BYTES", 10)
    assert reading.answer_size({}) == 2
'''


def _copy(dest: Path) -> Path:
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "_build", ".hypothesis"))
        elif src.exists():
            shutil.copy2(src, dest / name)
    return dest


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(root / "tools" / "regroup.py"), "--root", str(root), "--no-git", *args],
                          capture_output=True, text=True, timeout=600)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def test_regroup_on_a_copy(tmp_path: Path) -> None:
    root = _copy(tmp_path / "tree")
    if not (root / "okf_sphinx" / "reading.py").exists():
        # already regrouped: the tool says so and touches nothing
        before = _tree(root)
        r = _run(root)
        assert r.returncode == 0 and "already regrouped" in r.stdout
        assert _tree(root) == before
        return
    reading = root / "okf_sphinx" / "reading.py"
    reading.write_text(reading.read_text(encoding="utf-8") + NEW_NAMES, encoding="utf-8")
    (root / "okf_sphinx" / "brand_new.py").write_text('"""A module that MOVES does not name."""\n\n\n'
                                                      "def twice(x):\n    return [x, x]\n", encoding="utf-8")
    (root / "tests" / "test_patching_reading.py").write_text(PATCHING_TEST, encoding="utf-8")

    before = _tree(root)
    dry = _run(root, "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert _tree(root) == before  # a dry run changes nothing
    assert "'_only_for_the_new_tool' -> okf_sphinx/agent/read_lines.py (its one user)" in dry.stdout
    assert "'read_lines_twice' -> okf_sphinx/agent/read_lines.py (beside what it uses)" in dry.stdout
    assert "'new_public_helper' -> okf_sphinx/agent/answers.py (shared)" in dry.stdout
    assert "okf_sphinx/brand_new.py is new: beside the modules that import it, okf_sphinx/agent/brand_new.py" in dry.stdout

    r = _run(root)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    for line in ("CHECK import of every module", "CHECK tests/test_layout.py (no module cycle at run time): ok",
                 "resolves (lazy imports and strings too): ok"):
        assert line in r.stdout
    pkg = root / "okf_sphinx"
    assert not reading.exists() and not (pkg / "format.py").exists()
    assert sorted(p.name for p in (pkg / "agent").glob("*.py")) == [
        "__init__.py", "answers.py", "batch.py", "brand_new.py", "dispatch.py", "files.py", "get_section.py", "headings.py",
        "pages.py", "read_lines.py", "search_concepts.py", "sites.py"]
    assert not list(pkg.glob("*.py")) or sorted(p.name for p in pkg.glob("*.py")) == ["__init__.py", "__main__.py"]
    read_lines = ast.parse((pkg / "agent" / "read_lines.py").read_text(encoding="utf-8"))
    assert {"_only_for_the_new_tool", "read_lines_twice"} <= {n.name for n in read_lines.body if isinstance(n, ast.FunctionDef)}
    assert "from .brand_new import twice" in (pkg / "agent" / "read_lines.py").read_text(encoding="utf-8")
    answers = (pkg / "agent" / "answers.py").read_text(encoding="utf-8")
    assert "def new_public_helper" in answers
    # entry points and the Sphinx extension name
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert 'okf = "okf_sphinx.surfaces.cli:main"' in pyproject
    assert 'okf = "okf_sphinx.capture.mkdocs.plugin:OkfPlugin"' in pyproject and '"okf_sphinx.agent",' in pyproject
    # the monkeypatch of the split module patches each module that reads the name
    patched = (root / "tests" / "test_patching_reading.py").read_text(encoding="utf-8")
    assert "from okf_sphinx.agent import answers, " in patched and "answers.answer_size({})" in patched
    assert 'monkeypatch.setattr(patched, "MAX_ANSWER_BYTES", 10)' in patched
    check = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "tests/test_patching_reading.py", "tests/test_contract_rules.py", "-k",
                            "patch or budget or boundaries or dispatch or shorten or locator_parsing"],
                           cwd=root, capture_output=True, text=True, timeout=600,
                           env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "HOME": str(tmp_path)})
    assert check.returncode == 0, check.stdout[-4000:] + check.stderr[-2000:]

    after = _tree(root)
    again = _run(root)
    assert again.returncode == 0 and "already regrouped" in again.stdout
    assert _tree(root) == after  # a second run changes nothing
