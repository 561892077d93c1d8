"""The package's shape (docs/architecture.md): no two modules import each other at run
time, every module imports on its own, and importing a subpackage imports no host.

Imports under ``if TYPE_CHECKING:`` are not run-time imports; an import inside a
function is (it runs when the function does)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import okf_sphinx

PACKAGE = Path(okf_sphinx.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        parts = list(p.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _runtime_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_bytes(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skip = {id(n) for node in ast.walk(tree) if _type_checking(node) for s in node.body for n in ast.walk(s)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                found.add(sub if sub in modules else mod)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    # a module's own packages are loaded before it (``from okf_sphinx import __version__`` reads an
    # attribute of a package already imported): not an edge of the graph
    ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    return {m for m in found if m in modules and m != name and m not in ancestors}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_two_modules_import_each_other_at_run_time() -> None:
    modules = _modules()
    graph = {name: _runtime_imports(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 20 and sum(map(len, graph.values())) > 40  # the walk found the package and its imports
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    # the check above is only as good as this: a circle of three and a pair are reported, a chain is not
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"], ["d", "e"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("name", sorted(m for m in _modules() if not m.endswith("__main__")))
def test_every_module_imports(name: str) -> None:
    assert importlib.import_module(name).__name__ == name


def test_importing_every_subpackage_imports_no_host() -> None:
    # subpackages' __init__ files import nothing: the CLI and the API stay free of Sphinx, MkDocs and MCP
    packages = sorted(m for m, p in _modules().items() if p.name == "__init__.py")
    code = ("import sys\n" + "".join(f"import {p}\n" for p in packages)
            + "print(sorted({m.split('.')[0] for m in sys.modules} & {'sphinx', 'docutils', 'mkdocs', 'mcp'}))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def _imports_of(name: str, path: Path) -> set[str]:
    """Every module that module ``name`` imports, anywhere in it (a function's imports, type hints'
    too): what it names."""
    tree = ast.parse(path.read_bytes(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
            found.add(".".join(base + ([node.module] if node.module else [])))
            found.update(".".join(base + ([node.module] if node.module else []) + [a.name]) for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _package_imports() -> dict[str, set[str]]:
    """Per module of the package, :func:`_imports_of`."""
    return {name: _imports_of(name, path) for name, path in _modules().items()}


HOSTS = ("sphinx", "docutils", "mkdocs", "properdocs", "markdown", "pymdownx", "mkdocstrings", "myst_parser", "material")
HOST_FREE = ("okf_sphinx.core", "okf_sphinx.writer")


def _names(imports: set[str], prefixes: tuple[str, ...]) -> set[str]:
    return {m for m in imports if any(m == p or m.startswith(p + ".") for p in prefixes)}


def test_engine_never_imports_agent() -> None:
    # the reading tools sit above the engine (okf_sphinx.surfaces.api puts them on Index)
    bad = {m: _names(i, ("okf_sphinx.agent", "okf_sphinx.surfaces", "okf_sphinx.capture", "okf_sphinx.writer"))
           for m, i in _package_imports().items() if m.startswith("okf_sphinx.engine")}
    assert {m: v for m, v in bad.items() if v} == {}


def test_core_imports_no_host_and_nothing_above_it() -> None:
    bad = {m: _names(i, HOSTS + ("okf_sphinx.capture", "okf_sphinx.writer", "okf_sphinx.engine", "okf_sphinx.agent",
                                 "okf_sphinx.surfaces"))
           for m, i in _package_imports().items() if m.startswith("okf_sphinx.core")}
    assert {m: v for m, v in bad.items() if v} == {}


@pytest.mark.parametrize("package", HOST_FREE)
def test_writer_and_core_import_no_host(package: str) -> None:
    # records, index format and writer are the same for every host: a third caller (a command that
    # indexes a built site) must be able to run them without Sphinx, docutils or MkDocs installed;
    # no import of a host anywhere in a module (a function's too), and none loaded through what it imports
    modules = {name: path for name, path in _modules().items() if name == package or name.startswith(package + ".")}
    assert len(modules) > 5
    imports = _package_imports()
    assert {name: sorted(_names(imports[name], HOSTS)) for name in modules if _names(imports[name], HOSTS)} == {}
    code = "import sys\n" + "".join(f"import {m}\n" for m in sorted(modules)) + (
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({sorted(HOSTS)!r})))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_the_writer_never_imports_capture() -> None:
    # records come in through writer/build.py's entry point, whoever captured them
    modules = _modules()
    found = {name: sorted(m for m in _runtime_imports(name, path, modules) if m.startswith("okf_sphinx.capture"))
             for name, path in modules.items() if name.startswith("okf_sphinx.writer")}
    assert len(found) > 5 and {name: f for name, f in found.items() if f} == {}


def test_the_package_rules_see_an_import(tmp_path: Path) -> None:
    # the rules above are only as good as this: they find engine → agent and core → sphinx imports,
    # and a host imported inside a function
    imports = _package_imports()
    assert "okf_sphinx.agent.get_section" in imports["okf_sphinx.surfaces.api"]
    assert _names({"sphinx.application", "okf_sphinx.core.terms"}, HOSTS) == {"sphinx.application"}
    assert "okf_sphinx.engine.validators" in imports["okf_sphinx.engine.index"]
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from sphinx import addnodes\n    import docutils.nodes\n", encoding="utf-8")
    assert _names(_imports_of("m", module), HOSTS) == {"sphinx", "sphinx.addnodes", "docutils.nodes"}


def test_ruff_finds_nothing() -> None:
    """The lint rules of pyproject.toml's [tool.ruff] hold over the whole repository (the
    README's test command checks them, as tox -e lint and CI's lint step do)."""
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", str(root)],
                          capture_output=True, text=True, cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
