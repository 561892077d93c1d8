#!/usr/bin/env python3
"""Regroup okf_sphinx's flat package into subpackages that follow the data's way.

    capture (Sphinx, MkDocs) -> writer -> engine (index reader, queries) -> agent tools -> surfaces

Run it once, from a clean checkout of the merged tree::

    python tools/regroup.py            # moves, splits, rewrites, stages, checks
    python tools/regroup.py --dry-run  # prints the plan, changes nothing

What it does, deterministically (the same tree gives the same result):

1. ``git mv`` every module of :data:`MOVES` to its subpackage and writes the
   subpackages' ``__init__.py`` (a docstring, no imports: importing a subpackage
   never imports Sphinx, MkDocs or the MCP SDK).
2. Splits ``reading.py`` with :mod:`ast`: every top-level definition goes to the
   module :data:`SPLIT` names; a name it does not know (added since) goes where it
   is used (one using module) or to the shared module below its users, never
   into a cycle.  Each new module's imports are recomputed from what it uses.
3. Rewrites every import of a moved or split name, in the package, tests/,
   bench/, docs/, example sites and tools/ (relative inside a subpackage,
   absolute across); a name a module merely re-exports is imported from the
   module that defines it (this is what removes run-time import cycles).
   ``from okf_sphinx import reading`` plus ``reading.X`` becomes the modules
   that hold each ``X``; ``monkeypatch.setattr(reading, "X", v)`` patches every
   module of the split that binds ``X`` (each reads its own binding).
4. Rewrites dotted names (``okf_sphinx.mkdocs_plugin:OkfPlugin``, string
   targets, docstrings, docs) and file paths (``okf_sphinx/format.py``) in every
   text file; pyproject.toml's package list; ``Path(__file__).parent`` in moved
   modules (static/, templates/, contracts/, unicode_data/ stay where package
   data expects them); ``(ROOT / "okf_sphinx").glob("*.py")`` becomes ``rglob``.
5. Checks: every module imports; every import (lazy ones too) and dotted name
   resolves; tests/test_layout.py passes (no two modules import each other at run
   time, imports under ``if TYPE_CHECKING:`` excluded).  Prints what it did and
   what it could not decide.

It refuses to run on a dirty work tree (``--allow-dirty`` overrides), and it
detects a tree it has already regrouped (exit 0, nothing done).
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

PKG = "okf_sphinx"

#: flat module -> new dotted name (under okf_sphinx)
MOVES: dict[str, str] = {
    # core: what the build side and the read side share; no Sphinx, no MkDocs
    "errors": "core.errors",
    "format": "core.index_format",
    "terms": "core.terms",
    "lines": "core.lines",
    "stemmer": "core.stemmer",
    # capture: documents -> section records
    "sections": "capture.sections",
    "extension": "capture.sphinx.extension",
    "collector": "capture.sphinx.collector",
    "objects": "capture.sphinx.objects",
    "myst_include": "capture.sphinx.myst_include",
    "search_page": "capture.sphinx.search_page",
    "ui_strings": "capture.sphinx.ui_strings",
    "links": "capture.sphinx.links",
    "mkdocs_plugin": "capture.mkdocs.plugin",
    "markdown_sections": "capture.mkdocs.markdown_sections",
    # writer: section records -> the _okf/ files (and llms.txt)
    "index_writer": "writer.index_writer",
    "smart_index": "writer.smart_index",
    "llms": "writer.llms",
    # engine: the _okf/ files -> answers
    "source": "engine.source",
    "cache": "engine.cache",
    "index": "engine.index",
    "query": "engine.query",
    "smart": "engine.smart",
    "object_names": "engine.object_names",
    # agent: the agent tools, one per module
    "batch": "agent.batch",
    "sites": "agent.sites",
    # surfaces
    "cli": "surfaces.cli",
    "mcp_server": "surfaces.mcp_server",
}

SPLIT_SOURCE = "reading"
#: split module -> rank: a module imports only modules of a lower rank
SPLIT_MODULES: dict[str, int] = {
    "agent.answers": 0,
    "agent.files": 1,
    "agent.pages": 2,
    "agent.headings": 3,
    "agent.read_lines": 4,
    "agent.search_concepts": 4,
    "agent.get_section": 5,
    "agent.dispatch": 6,
}
SPLIT_DEFAULT = "agent.answers"  # the shared module
#: reading.py's top-level names -> split module
SPLIT: dict[str, str] = {
    **dict.fromkeys(["MAX_ANSWER_BYTES", "MAX_LIST", "_shorten", "answer_json", "answer_size", "_most_that_fit",
                     "_opt_str", "_int_arg", "_limited"], "agent.answers"),
    **dict.fromkeys(["MAX_PATH_CHARS", "MAX_PATH_BYTES", "MAX_PATH_COMPONENTS", "normalise_path", "_file_numbers",
                     "_file_number", "_file_text", "_linemap"], "agent.files"),
    **dict.fromkeys(["MAX_LINE_DIGITS", "_concept_ids", "_concept", "_ref", "_ancestors", "_subtree_end",
                     "_page_for_path_line", "_path_pages", "_sections_at", "_LOCATOR", "_parse_locator",
                     "_overlapping"], "agent.pages"),
    **dict.fromkeys(["_DASHES", "_QUOTES", "_IDENT_QUERY", "_IDENT_HEAD", "norm_heading", "_MARKUP_RULES",
                     "strip_markup", "_identifier", "_starts_with_identifier", "_heading_keys",
                     "_compute_heading_keys", "_match_heading"], "agent.headings"),
    **dict.fromkeys(["_check_lines", "read_lines"], "agent.read_lines"),
    **dict.fromkeys(["MAX_QUERY_CHARS", "search_concepts"], "agent.search_concepts"),
    **dict.fromkeys(["DEFAULT_MAX_CHARS", "MAX_MAX_CHARS", "MAX_HEADING_QUERY_CHARS", "MAX_OUTLINE_LIMIT", "_outline",
                     "get_section", "_section_answer", "object_fields"], "agent.get_section"),
    **dict.fromkeys(["TOOL_ARGUMENTS", "call_tool", "_dispatch"], "agent.dispatch"),
}
#: the split module that keeps reading.py's git history (git mv)
SPLIT_HISTORY = "agent.get_section"

SPLIT_DOCS: dict[str, str] = {
    "agent.answers": '''"""What every agent tool's answer shares (AGENT_TOOLS.md): the one JSON wire
form (:func:`answer_json`), the byte budget every answer is measured against
(:data:`MAX_ANSWER_BYTES`: an answer is paged or refused with its size, never
silently cut), the argument checks and the cap on listed candidates.

Answers are JSON-ready dicts with ``status: "ok"``; refusals raise
:class:`~okf_sphinx.core.errors.OkfError`.  No module of ``agent`` imports Sphinx
or docutils.
"""''',
    "agent.files": '''"""Captured files by path, for the reading tools: a path normalised and checked
as the contract says (``path_outside_root``, ``path_too_long``), its number in
``files.js``, its text and its line map (cached with the index's files).  Every
answer comes from the captured bytes in the index (``f/<n>``), never from the
live source tree.
"""''',
    "agent.pages": '''"""Pages and their section trees, for ``get_section``: a concept by id, a
section's ancestors and subtree, the sections a locator names (a file included
by several pages has one section per page), locators parsed back into a path
and a line range.
"""''',
    "agent.headings": '''"""Matching ``get_section``'s ``heading`` against a page's headings: equal after
normalising (whitespace, dashes, quotes, case) and after removing inline markup,
or by a leading identifier (``2.1``, ``a.``); otherwise ``section_not_found``
with the headings that hold the asked words first.
"""''',
    "agent.read_lines": '''"""The ``read_lines`` tool: lines ``[start, end]`` of a captured file, byte for
byte, with the file's SHA-256 (AGENT_TOOLS.md)."""''',
    "agent.search_concepts": '''"""The ``search_concepts`` tool: a literal, case-insensitive substring search over
concept ids and titles (and documented objects' names), in concept-id order."""''',
    "agent.get_section": '''"""The ``get_section`` tool: one section by ``locator``, by ``concept_id`` +
``heading`` or by documented ``object``, paged by ``max_chars``/``offset``; or a
page's outline (``concept_id`` alone), paged by ``offset``/``limit``."""''',
    "agent.dispatch": '''"""One dispatch for every surface: the tools' argument table and
:func:`call_tool`, through which the Python API, the CLI, the MCP server and
``read_batch`` run a tool, so their answers and refusals are the same bytes."""''',
}

PACKAGE_DOCS: dict[str, str] = {
    "core": "What the build side and the read side share: errors, the on-disk index format (names, wrapper,\n"
            "hashing, the BM25 formula), terms, line numbering and the pinned stemmers.  Imports neither\n"
            "Sphinx nor MkDocs.",
    "capture": "Capture: documents -> section records with exact source line ranges (one subpackage per host).",
    "capture.sphinx": "The Sphinx extension: config values and events, the environment collector, documented\n"
                      "objects, MyST includes and the search page.  Imported only by ``okf_sphinx.setup``.",
    "capture.mkdocs": "The MkDocs / ProperDocs plugin and its Python-Markdown section splitter.",
    "writer": "The index writer: section records -> the sharded ``_okf/`` files (docs/index-format.md), the\n"
              "smart-mode tables and llms.txt, written atomically.",
    "engine": "The read side: an index's files (folder or URL) -> cached, checked tables -> keyword (the\n"
              "contract) and smart answers.  Imports neither Sphinx nor MkDocs.",
    "agent": "The agent tools (AGENT_TOOLS.md), one per module, with what they share; ``read_batch`` and\n"
             "many sites behind one server.",
    "surfaces": "The ``okf`` command line and the MCP server: both run the tools through\n"
                "``okf_sphinx.agent.dispatch.call_tool``.",
}

#: files never rewritten (this tool names the old modules on purpose)
SKIP_FILES = {"tools/regroup.py", "tests/test_regroup.py", "docs/architecture.md"}
SKIP_DIRS = {".git", "__pycache__", "_build", "node_modules", ".tox", ".venv", "venv", ".hypothesis", ".mutmut",
             "mutants", "build", "dist", ".pytest_cache"}
TEXT_SUFFIXES = {".py", ".md", ".rst", ".toml", ".ini", ".cfg", ".txt", ".js", ".mjs", ".cjs", ".css", ".html",
                 ".yml", ".yaml", ".json", ""}
MAX_LINE = 120


# -- the plan ------------------------------------------------------------------------------------


def full(dotted: str) -> str:
    return f"{PKG}.{dotted}" if dotted else PKG


def module_path(root: Path, dotted: str) -> Path:
    """File of a full dotted module name (package -> its __init__.py)."""
    parts = dotted.split(".")
    p = root.joinpath(*parts)
    return p / "__init__.py" if p.is_dir() else p.with_suffix(".py")


@dataclass
class Module:
    """An old flat module, analysed."""

    name: str  # flat name, e.g. "index"
    tree: ast.Module
    source: bytes
    defined: list[str] = field(default_factory=list)  # top-level bindings in order (not imports)
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (full module, original name)


def bound_names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for t in target.elts for n in bound_names(t)]
    if isinstance(target, ast.Starred):
        return bound_names(target.value)
    return []


def top_bindings(body: list[ast.stmt]) -> list[str]:
    out: list[str] = []
    for st in body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(st.name)
        elif isinstance(st, ast.Assign):
            for t in st.targets:
                out.extend(bound_names(t))
        elif isinstance(st, (ast.AnnAssign, ast.AugAssign)):
            out.extend(bound_names(st.target))
        elif isinstance(st, ast.If):
            out.extend(top_bindings(st.body) + top_bindings(st.orelse))
        elif isinstance(st, ast.Try):
            out.extend(top_bindings(st.body) + top_bindings(st.orelse) + top_bindings(st.finalbody))
            for h in st.handlers:
                out.extend(top_bindings(h.body))
        elif isinstance(st, (ast.With, ast.For, ast.While)):
            out.extend(top_bindings(st.body))
    return list(dict.fromkeys(out))


def absolute(module: str | None, level: int, importer_pkg: str) -> str:
    """``from <dots><module> import`` seen from a module of package ``importer_pkg``."""
    if level == 0:
        return module or ""
    base = importer_pkg.split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def top_imports(tree: ast.Module, importer_pkg: str) -> dict[str, tuple[str, str]]:
    """name -> (full module, original name) for ``from X import a as b`` at top level
    (also under if/try); ``import X`` binds nothing we resolve."""
    out: dict[str, tuple[str, str]] = {}

    def visit(body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, ast.ImportFrom):
                mod = absolute(st.module, st.level, importer_pkg)
                for a in st.names:
                    out[a.asname or a.name] = (mod, a.name)
            elif isinstance(st, ast.If):
                visit(st.body)
                visit(st.orelse)
            elif isinstance(st, ast.Try):
                visit(st.body)
                for h in st.handlers:
                    visit(h.body)

    visit(tree.body)
    return out


class Plan:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.pkg_dir = root / PKG
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.modules: dict[str, Module] = {}
        for p in sorted(self.pkg_dir.glob("*.py")):
            src = p.read_bytes()
            tree = ast.parse(src, str(p))
            m = Module(p.stem, tree, src)
            m.defined = top_bindings(tree.body)
            m.imported = top_imports(tree, PKG)
            self.modules[p.stem] = m
        self.moves = {k: v for k, v in MOVES.items() if k in self.modules}
        for k in MOVES:
            if k not in self.modules:
                self.notes.append(f"okf_sphinx/{k}.py does not exist: nothing to move")
        # a module MOVES does not name (added since): beside its importers when they are all in one
        # subpackage, else it stays at the top of the package
        unplaced = [n for n in self.modules if n not in MOVES and n != SPLIT_SOURCE and n not in ("__init__", "__main__")]
        for n in unplaced:
            homes = set()
            for other, m in self.modules.items():
                if other != n and n in self.imports_of(m):
                    homes.add("agent" if other == SPLIT_SOURCE else (MOVES.get(other, "").rpartition(".")[0]))
            if len(homes) == 1 and "" not in homes:
                self.moves[n] = f"{homes.pop()}.{n}"
                self.notes.append(f"okf_sphinx/{n}.py is new: beside the modules that import it, "
                                  f"okf_sphinx/{self.moves[n].replace('.', '/')}.py (name it in MOVES to choose)")
            else:
                self.warnings.append(f"okf_sphinx/{n}.py is not in MOVES and its importers are in "
                                     f"{sorted(h or 'the top' for h in homes) or 'no module'}: it stays at the top "
                                     "of the package (name it in MOVES in tools/regroup.py and run again on a fresh tree)")
        self.split: dict[str, str] = {}
        self.binders: dict[str, list[str]] = {}  # name -> split modules that bind it (define or import)
        if SPLIT_SOURCE in self.modules:
            self.place_split()

    def imports_of(self, m: Module) -> set[str]:
        """The old flat modules ``m`` imports anywhere (lazily and for type checking too)."""
        out = set()
        for node in ast.walk(m.tree):
            if isinstance(node, ast.ImportFrom):
                mod = absolute(node.module, node.level, PKG)
                if mod == PKG:
                    out |= {a.name for a in node.names if a.name in self.modules}
                elif self.old_of(mod):
                    out.add(self.old_of(mod))  # type: ignore[arg-type]
            elif isinstance(node, ast.Import):
                out |= {self.old_of(a.name) for a in node.names if self.old_of(a.name)}  # type: ignore[misc]
        return out

    # new full dotted name of an old flat module (None for the split one)
    def new_module(self, flat: str) -> str | None:
        if flat in ("__init__",):
            return PKG
        if flat == SPLIT_SOURCE:
            return None
        if flat in self.moves:
            return full(self.moves[flat])
        return full(flat)

    def old_of(self, full_name: str) -> str | None:
        """Flat name of an old okf_sphinx module given its full dotted name, else None."""
        if full_name == PKG:
            return "__init__"
        if full_name.startswith(PKG + ".") and full_name.count(".") == 1:
            flat = full_name.split(".")[1]
            if flat in self.modules:
                return flat
        return None

    def where(self, full_mod: str, name: str, seen: frozenset[str] = frozenset()) -> str | None:
        """Full dotted module that defines ``name`` imported from old module ``full_mod``
        after the regroup (following re-exports); None when it is not ours."""
        flat = self.old_of(full_mod)
        if flat is None:
            return None
        m = self.modules[flat]
        key = f"{flat}:{name}"
        if key in seen:
            return self.new_module(flat) or full(SPLIT_DEFAULT)
        if flat == SPLIT_SOURCE and name in self.split:
            return full(self.split[name])
        if name in m.defined:
            return self.new_module(flat)
        if name in m.imported:
            src, orig = m.imported[name]
            found = self.where(src, orig, seen | {key})
            if found:
                return found
            if flat == SPLIT_SOURCE:
                return full(SPLIT_DEFAULT)  # an external name re-exported by reading: from the shared module
            return self.new_module(flat)
        if flat == "__init__":
            return None  # a package attribute or a submodule: handled by the caller
        self.warnings.append(f"{name!r} is not bound at the top of okf_sphinx/{flat}.py: imported from its new module as is")
        return self.new_module(flat) or full(SPLIT_DEFAULT)

    # -- splitting reading.py -----------------------------------------------------------------------

    def chunks(self) -> list[tuple[list[str], ast.stmt]]:
        """reading.py's top-level statements other than imports, with the names each binds."""
        m = self.modules[SPLIT_SOURCE]
        out = []
        for st in m.tree.body:
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(st, ast.If) and is_type_checking(st):
                continue
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str) \
                    and st is m.tree.body[0]:
                continue  # the docstring
            out.append((top_bindings([st]), st))
        return out

    def place_split(self) -> None:
        chunks = self.chunks()
        uses: dict[str, set[str]] = {}
        defined = [n for names, _ in chunks for n in names]
        defined_set = set(defined)
        for names, st in chunks:
            used = {n.id for n in ast.walk(st) if isinstance(n, ast.Name)} & defined_set
            for n in names:
                uses[n] = used - {n}
        place = {n: SPLIT[n] for n in defined if n in SPLIT}
        for n in SPLIT:
            if n not in defined_set:
                self.notes.append(f"reading.py no longer defines {n!r} (SPLIT names it): skipped")
        unknown = [n for n in defined if n not in place]
        users_of = {n: [u for u in defined if n in uses[u]] for n in unknown}
        why: dict[str, str] = {}
        for n in unknown:
            place[n] = SPLIT_DEFAULT
        for _ in range(2 * len(unknown) + 2):  # to a fixed point: a name follows its users and its uses
            changed = False
            for n in unknown:
                deps = {place[d] for d in uses[n]}
                lo = max((SPLIT_MODULES[d] for d in deps), default=0)
                users = {place[u] for u in users_of[n] if u != n}
                if len(users) == 1 and SPLIT_MODULES[next(iter(users))] >= lo:
                    target, why[n] = next(iter(users)), "its one user"
                elif not users or lo <= min(SPLIT_MODULES[u] for u in users):
                    target = sorted(d for d in deps if SPLIT_MODULES[d] == lo)[0] if lo else SPLIT_DEFAULT
                    why[n] = "shared" if users or target == SPLIT_DEFAULT else "beside what it uses"
                else:
                    raise SystemExit(f"regroup: cannot place reading.py's {n!r} without an import cycle "
                                     f"(it uses {sorted(deps)}, used by {sorted(users)}): name it in SPLIT")
                if place[n] != target:
                    place[n] = target
                    changed = True
            if not changed:
                break
        for n in unknown:
            self.notes.append(f"reading.py's new {n!r} -> okf_sphinx/{place[n].replace('.', '/')}.py ({why[n]})")
        # a name may only use names of a lower rank (or its own module)
        for n in defined:
            for d in uses[n]:
                a, b = place[n], place[d]
                if a != b and SPLIT_MODULES[b] >= SPLIT_MODULES[a]:
                    raise SystemExit(f"regroup: {n!r} ({a}) uses {d!r} ({b}): the split would import in a circle; "
                                     "change SPLIT")
        self.split = place


def is_type_checking(st: ast.stmt) -> bool:
    return isinstance(st, ast.If) and (
        (isinstance(st.test, ast.Name) and st.test.id == "TYPE_CHECKING")
        or (isinstance(st.test, ast.Attribute) and st.test.attr == "TYPE_CHECKING"))


# -- byte-offset editing ------------------------------------------------------------------------------


class Edits:
    def __init__(self, source: bytes) -> None:
        self.source = source
        self.starts = [0]
        for i, b in enumerate(source):
            if b == 10:
                self.starts.append(i + 1)
        self.edits: list[tuple[int, int, bytes]] = []

    def off(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def node_span(self, node: ast.AST) -> tuple[int, int]:
        return self.off(node.lineno, node.col_offset), self.off(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def replace(self, start: int, end: int, text: str) -> None:
        self.edits.append((start, end, text.encode("utf-8")))

    def apply(self) -> bytes:
        out = self.source
        last = None
        for start, end, text in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            if last is not None and end > last:
                raise SystemExit(f"regroup: overlapping edits at byte {start}")
            out = out[:start] + text + out[end:]
            last = start
        return out


# -- import generation ----------------------------------------------------------------------------------


def import_from(importer: str | None, importer_is_pkg: bool, target_mod: str, names: list[tuple[str, str | None]]) -> str:
    """``from X import a, b as c`` of ``target_mod`` seen from module ``importer`` (full dotted,
    None outside the package): relative within the importer's own package, absolute across."""
    pkg = None
    if importer is not None:
        pkg = importer if importer_is_pkg else importer.rpartition(".")[0]
    if pkg and (target_mod.startswith(pkg + ".")):
        mod = "." + target_mod[len(pkg) + 1:]
    elif pkg and target_mod == pkg:
        mod = "."
    else:
        mod = target_mod
    parts = [a if not b or b == a else f"{a} as {b}" for a, b in names]
    line = f"from {mod} import {', '.join(parts)}"
    return line


def name_key(alias: str) -> tuple[int, str]:
    """isort's order by type: CONSTANTS, Classes, functions and variables."""
    name = alias.split(" as ")[0].lstrip("_")
    return (0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2, alias)


def merge_imports(lines: list[str]) -> list[str]:
    """``from M import a`` + ``from M import b`` -> ``from M import a, b`` (names sorted by type),
    modules in isort's order: absolute first, then relative."""
    by_module: dict[str, list[str]] = {}
    for ln in lines:
        head, _, names = ln.partition(" import ")
        for n in names.split(", "):
            if n not in by_module.setdefault(head, []):
                by_module[head].append(n)
    heads = sorted(by_module, key=lambda h: (h.startswith("from ."), h))
    return [f"{h} import {', '.join(sorted(by_module[h], key=name_key))}" for h in heads]


def wrap_import(line: str, indent: str) -> str:
    if len(indent) + len(line) <= MAX_LINE or " import " not in line:
        return indent + line
    head, _, tail = line.partition(" import ")
    items = tail.split(", ")
    body = "".join(f"{indent}    {i},\n" for i in items)
    return f"{indent}{head} import (\n{body}{indent})"


def module_import(importer: str | None, importer_is_pkg: bool, target_mod: str, asname: str | None) -> tuple[str, str]:
    """``from pkg import mod [as x]`` for a module; returns (line, bound name)."""
    parent, _, leaf = target_mod.rpartition(".")
    bound = asname or leaf
    return import_from(importer, importer_is_pkg, parent, [(leaf, bound)]), bound


# -- the rewrite of one Python file ----------------------------------------------------------------------


class PyRewriter:
    def __init__(self, plan: Plan, rel: str, source: bytes, importer: str | None, importer_is_pkg: bool,
                 old_pkg: str | None) -> None:
        self.plan = plan
        self.rel = rel
        self.source = source
        self.importer = importer  # new full dotted name, None outside the package
        self.importer_is_pkg = importer_is_pkg
        self.old_pkg = old_pkg  # package relative imports resolved against (old layout)
        self.edits = Edits(source)
        self.tree = ast.parse(source, rel)
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.split_bindings: list[tuple[str, ast.AST, ast.stmt]] = []  # (bound name, scope, import stmt)
        self.top_lines: dict[ast.stmt, list[str]] = {}  # top-level okf imports, rewritten as a sorted block
        self.changed = False

    def line_text(self, lineno: int) -> bytes:
        s = self.edits.starts
        end = s[lineno] if lineno < len(s) else len(self.source)
        return self.source[s[lineno - 1]:end]

    def run(self) -> bytes:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom):
                self.rewrite_from(node)
            elif isinstance(node, ast.Import):
                self.rewrite_import(node)
        for name, scope, stmt in self.split_bindings:
            self.rewrite_split_uses(name, scope, stmt)
        self.sort_top_blocks()
        return self.edits.apply() if self.edits.edits else self.source

    def sort_top_blocks(self) -> None:
        """Each run of adjacent top-level ``from okf_sphinx… import`` statements, rewritten and
        sorted as isort would: absolute first, then relative; one module per line."""
        body = self.tree.body
        runs: list[list[ast.stmt]] = []
        for i, st in enumerate(body):
            if st not in self.top_lines:
                continue
            if runs and body.index(runs[-1][-1]) == i - 1 and st.lineno == runs[-1][-1].end_lineno + 1:  # type: ignore[operator]
                runs[-1].append(st)
            else:
                runs.append([st])
        for run in runs:
            plain: list[str] = []
            commented: dict[str, str] = {}  # a statement with a trailing comment stays on its own
            for st in run:
                lines = self.top_lines[st]
                tail = self.line_text(st.end_lineno)[st.end_col_offset:].decode("utf-8").rstrip("\r\n")  # type: ignore[index]
                if tail.strip():
                    for k, ln in enumerate(lines):
                        commented[ln] = tail if k == len(lines) - 1 or "noqa" in tail else ""
                else:
                    plain.extend(lines)
            ordered = merge_imports(plain) + list(commented)
            ordered.sort(key=lambda ln: (ln.startswith("from ."), ln.split(" import ")[0]))
            text = ""
            for k, ln in enumerate(ordered):
                if k and ln.startswith("from .") and not ordered[k - 1].startswith("from ."):
                    text += "\n"  # the local-folder section of isort
                text += ("\n" if k else "") + wrap_import(ln, "") + commented.get(ln, "")
            start = self.edits.off(run[0].lineno, run[0].col_offset)
            last = run[-1]
            end = self.edits.off(last.end_lineno, last.end_col_offset) + len(  # type: ignore[arg-type]
                self.line_text(last.end_lineno)[last.end_col_offset:].rstrip(b"\n"))  # type: ignore[index]
            if text != self.source[start:end].decode("utf-8"):
                self.edits.replace(start, end, text)
                self.changed = True

    def replace_stmt(self, node: ast.stmt, lines: list[str]) -> None:
        if isinstance(node, ast.ImportFrom) and isinstance(self.parents.get(node), ast.Module):
            self.top_lines[node] = lines
            return
        start = self.edits.off(node.lineno, node.col_offset)
        end = self.edits.off(node.end_lineno, node.end_col_offset)  # type: ignore[arg-type]
        indent = " " * node.col_offset
        if all(ln.startswith("from ") for ln in lines):
            lines = merge_imports(lines)
        tail = self.line_text(node.end_lineno)[node.end_col_offset:].decode("utf-8").strip()  # type: ignore[index]
        noqa = f"  {tail}" if "noqa" in tail else ""  # a noqa holds for every line the statement becomes
        text = f"{noqa}\n".join(wrap_import(ln, indent) for ln in lines).lstrip(" ")
        original = self.source[start:end].decode("utf-8")
        if text != original:
            self.edits.replace(start, end, text)
            self.changed = True

    def rewrite_from(self, node: ast.ImportFrom) -> None:
        mod = absolute(node.module, node.level, self.old_pkg or "")
        if not (mod == PKG or mod.startswith(PKG + ".")):
            return
        plan = self.plan
        flat = plan.old_of(mod)
        if flat is None:
            return  # a module this tool does not know (already new?)
        groups: dict[str, list[tuple[str, str | None]]] = {}
        order: list[tuple[str, str]] = []  # ("from", target) or ("line", text)
        modules: list[str] = []
        for a in node.names:
            if flat == "__init__" and a.name in plan.modules and a.name not in ("__init__", "__main__"):
                # ``from okf_sphinx import format as fmt``: a module
                if a.name == SPLIT_SOURCE:
                    self.split_bindings.append((a.asname or a.name, self.scope_of(node), node))
                    continue
                target = plan.new_module(a.name)
                assert target
                line, bound = module_import(self.importer, self.importer_is_pkg, target, a.asname or a.name)
                if bound != target.rpartition(".")[2] and not a.asname:
                    plan.notes.append(f"{self.rel}:{node.lineno}: module {a.name} is imported as {bound!r} "
                                      f"(its new name is {target}): rename the uses by hand if you like")
                modules.append(line)
                order.append(("line", line))
                continue
            if flat == "__init__":
                target = PKG  # a package attribute (__version__, open_index, setup …)
            else:
                target = plan.where(mod, a.name) or plan.new_module(flat) or full(SPLIT_DEFAULT)
            if target not in groups:
                groups[target] = []
                order.append(("from", target))
            groups[target].append((a.name, a.asname))
        lines = []
        for kind, val in order:
            if kind == "line":
                lines.append(val)
            else:
                lines.append(import_from(self.importer, self.importer_is_pkg, val, groups[val]))
        if not lines:
            lines_needed = self.split_import_lines(node)
            lines = lines_needed
        else:
            lines += self.split_import_lines(node)
        if not lines:
            return
        # keep a trailing comment on the statement's last line
        self.replace_stmt(node, lines)

    def split_import_lines(self, node: ast.stmt) -> list[str]:
        """The imports replacing a binding of the split module made by ``node``."""
        out = []
        for name, scope, stmt in self.split_bindings:
            if stmt is node:
                mods = self.split_modules_used(name, scope) or [full(SPLIT_DEFAULT)]
                by_parent: dict[str, list[tuple[str, str | None]]] = {}
                for m in mods:
                    parent, _, leaf = m.rpartition(".")
                    by_parent.setdefault(parent, []).append((leaf, self.alias_for(name, m)))
                for parent, names in by_parent.items():
                    out.append(import_from(self.importer, self.importer_is_pkg, parent,
                                           sorted(names, key=lambda n: name_key(n[0]))))
        return out

    def rewrite_import(self, node: ast.Import) -> None:
        lines = []
        touched = False
        for a in node.names:
            flat = self.plan.old_of(a.name)
            if flat is None or flat == "__init__":
                lines.append(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
                continue
            touched = True
            if flat == SPLIT_SOURCE:
                if a.asname:
                    self.split_bindings.append((a.asname, self.scope_of(node), node))
                    continue
                self.plan.warnings.append(f"{self.rel}:{node.lineno}: `import {a.name}` of the split module: "
                                          "rewrite its uses by hand")
                lines.append(f"import {full(SPLIT_DEFAULT)}")
                continue
            target = self.plan.new_module(flat)
            if a.asname:
                lines.append(f"import {target} as {a.asname}")
            else:
                lines.append(f"import {target}")  # uses spelled okf_sphinx.<old>.x are fixed by the text pass
        if touched:
            extra = self.split_import_lines(node)
            self.replace_stmt(node, lines + extra)

    # -- a binding of the split module (``from okf_sphinx import reading``) --------------------------------

    def scope_of(self, node: ast.AST) -> ast.AST:
        p = self.parents.get(node)
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            p = self.parents.get(p)
        return p or self.tree

    def uses_in_scope(self, name: str, scope: ast.AST) -> list[ast.Attribute]:
        out = []
        for node in ast.walk(scope):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
                if self.scope_rebinds(name, node, scope):
                    continue
                out.append(node)
        return out

    def scope_rebinds(self, name: str, node: ast.AST, scope: ast.AST) -> bool:
        """True when a function between ``node`` and ``scope`` binds ``name`` itself."""
        p = self.parents.get(node)
        while p is not None and p is not scope:
            if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = p.args
                params = {a.arg for a in args.args + args.kwonlyargs + args.posonlyargs}
                if name in params:
                    return True
                for n in ast.walk(p):
                    if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
                        return True
            p = self.parents.get(p)
        return False

    def split_target(self, attr: str) -> str:
        return self.plan.where(full(SPLIT_SOURCE), attr) or full(SPLIT_DEFAULT)

    def split_modules_used(self, name: str, scope: ast.AST) -> list[str]:
        mods: list[str] = []
        for node in ast.walk(scope):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name \
                    and not self.scope_rebinds(name, node, scope):
                t = self.split_target(node.attr)
                if t not in mods:
                    mods.append(t)
            setattr_x = self.setattr_of(name, node)
            if setattr_x:
                for t in self.plan_binders(setattr_x):
                    if t not in mods:
                        mods.append(t)
        return sorted(mods, key=lambda m: (SPLIT_MODULES.get(m[len(PKG) + 1:], 99), m))

    def setattr_of(self, name: str, node: ast.AST) -> str | None:
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setattr"
                and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == name
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            return node.args[1].value
        return None

    def plan_binders(self, attr: str) -> list[str]:
        """The split modules that bind ``attr`` (define or import it)."""
        return [full(m) for m in self.plan.binders.get(attr, [])] or [self.split_target(attr)]

    def alias_for(self, name: str, module: str) -> str:
        leaf = module.rpartition(".")[2]
        taken = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name)}
        taken |= {a.asname or a.name.split(".")[0] for n in ast.walk(self.tree)
                  if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        taken |= {n.name for n in ast.walk(self.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        return leaf if leaf not in taken else f"{leaf}_module"

    def rewrite_split_uses(self, name: str, scope: ast.AST, stmt: ast.stmt) -> None:
        for node in ast.walk(scope):
            setattr_x = self.setattr_of(name, node)
            if setattr_x is not None:
                stmt_node = self.parents.get(node)
                targets = self.plan_binders(setattr_x)
                aliases = [self.alias_for(name, t) for t in targets]
                if isinstance(stmt_node, ast.Expr) and len(aliases) > 1:
                    indent = " " * stmt_node.col_offset
                    call = self.source[slice(*self.edits.node_span(node))].decode("utf-8")
                    first = call.index(name)
                    body = call[:first] + "patched" + call[first + len(name):]
                    text = (f"for patched in ({', '.join(aliases)}):  # each module reads its own "
                            f"{setattr_x}\n{indent}    {body}")
                    self.edits.replace(*self.edits.node_span(stmt_node), text)
                else:
                    a0 = node.args[0]
                    self.edits.replace(*self.edits.node_span(a0), aliases[0])
                self.changed = True
                continue
        for node in self.uses_in_scope(name, scope):
            parent = self.parents.get(node)
            if isinstance(parent, ast.Call) and self.setattr_of(name, parent) is not None:
                continue
            target = self.split_target(node.attr)
            start, _ = self.edits.node_span(node.value)
            self.edits.replace(start, start + len(name.encode()), self.alias_for(name, target))
            self.changed = True


# -- generating the split modules ------------------------------------------------------------------------


def split_sources(plan: Plan) -> dict[str, str]:
    m = plan.modules[SPLIT_SOURCE]
    src = m.source
    lines = src.decode("utf-8").splitlines(keepends=True)
    chunks = plan.chunks()
    body = m.tree.body
    # each chunk owns its lines plus the comments/blank lines since the previous statement
    prev_end = {}
    last = 0
    for st in body:
        first = min([st.lineno] + [d.lineno for d in getattr(st, "decorator_list", [])])
        prev_end[id(st)] = (last, first)
        last = st.end_lineno  # type: ignore[assignment]
    per_module: dict[str, list[tuple[str, str]]] = defaultdict(list)  # module -> [(lead, text)]
    uses: dict[str, set[str]] = defaultdict(set)
    defined_here: dict[str, list[str]] = defaultdict(list)
    for names, st in chunks:
        target = plan.split[names[0]] if names else SPLIT_DEFAULT
        if not names:
            plan.warnings.append(f"reading.py line {st.lineno}: a statement that binds nothing -> {target}")
        lo, first = prev_end[id(st)]
        lead = "".join(lines[lo:first - 1])
        text = "".join(lines[first - 1:st.end_lineno])
        per_module[target].append((lead, text))
        defined_here[target].extend(names)
        uses[target] |= {n.id for n in ast.walk(st) if isinstance(n, ast.Name)}
        uses[target] |= {n.value.id for n in ast.walk(st) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    owner = {n: t for t, ns in defined_here.items() for n in ns}
    position = {n: i for i, (names, _st) in enumerate(chunks) for n in names}
    # the original imports, in order: (stmt, is_type_checking)
    imports: list[tuple[ast.stmt, bool]] = []
    for st in body:
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            imports.append((st, False))
        elif is_type_checking(st):
            imports.extend((s, True) for s in st.body if isinstance(s, (ast.Import, ast.ImportFrom)))
    binders: dict[str, list[str]] = defaultdict(list)
    out: dict[str, str] = {}
    for target in sorted(per_module, key=lambda t: SPLIT_MODULES.get(t, 99)):
        importer = full(target)
        used = uses[target]
        plain: list[str] = []
        checking: list[str] = []
        ours: dict[str, list[tuple[str, str | None]]] = {}
        for n in defined_here[target]:
            binders[n].append(target)
        for st, tc in imports:
            if isinstance(st, ast.Import):
                keep = [a for a in st.names if (a.asname or a.name.split(".")[0]) in used]
                if keep:
                    (checking if tc else plain).append("import " + ", ".join(
                        a.name + (f" as {a.asname}" if a.asname else "") for a in keep))
                continue
            if st.module == "__future__":
                continue
            mod = absolute(st.module, st.level, PKG)
            keep2 = [a for a in st.names if (a.asname or a.name) in used]
            if not keep2:
                continue
            if mod.startswith(PKG) and plan.old_of(mod) is not None:
                groups: dict[str, list[tuple[str, str | None]]] = {}
                for a in keep2:
                    if plan.old_of(mod) == "__init__" and a.name in plan.modules:
                        t = plan.new_module(a.name)
                        assert t
                        line, _ = module_import(importer, False, t, a.asname or a.name)
                        (checking if tc else plain).append(line)
                        binders[a.asname or a.name].append(target)
                        continue
                    t = plan.where(mod, a.name) or full(SPLIT_DEFAULT)
                    groups.setdefault(t, []).append((a.name, a.asname))
                    binders[a.asname or a.name].append(target)
                for t, names in groups.items():
                    (checking if tc else plain).append(import_from(importer, False, t, names))
            else:
                (checking if tc else plain).append(import_from(None, False, mod, [(a.name, a.asname) for a in keep2]))
        for n in sorted(used & set(owner), key=lambda x: position[x]):
            t = owner[n]
            if t != target:
                ours.setdefault(t, []).append((n, None))
                binders[n].append(target)
        if checking and "TYPE_CHECKING" not in " ".join(plain):
            typing_line = next((i for i, ln in enumerate(plain) if ln.startswith("from typing import ")), None)
            if typing_line is None:
                plain.insert(0, "from typing import TYPE_CHECKING")
            else:
                names = plain[typing_line][len("from typing import "):].split(", ")
                plain[typing_line] = "from typing import " + ", ".join(sorted(set(names) | {"TYPE_CHECKING"},
                                                                              key=lambda s: (s != s.upper(), s)))
        std = [ln for ln in plain if not (ln.startswith(f"from {PKG}") or ln.startswith("from ."))]
        pkg = [ln for ln in plain if ln not in std]
        for t in sorted(ours, key=lambda x: (SPLIT_MODULES[x], x)):
            pkg.append(import_from(importer, False, full(t), ours[t]))
        pkg = merge_imports(pkg)
        checking = merge_imports(checking) if all(ln.startswith("from ") for ln in checking) else checking
        text = SPLIT_DOCS.get(target, f'"""Part of the old reading.py: {target}."""') + "\n\nfrom __future__ import annotations\n"
        if std:
            text += "\n" + "\n".join(wrap_import(ln, "") for ln in std) + "\n"
        absolute_pkg = [ln for ln in pkg if not ln.startswith("from .")]
        relative_pkg = [ln for ln in pkg if ln.startswith("from .")]
        for group in (absolute_pkg, relative_pkg):
            if group:
                text += "\n" + "\n".join(wrap_import(ln, "") for ln in group) + "\n"
        if checking:
            text += "\nif TYPE_CHECKING:\n" + "\n".join(wrap_import(ln, "    ") for ln in checking) + "\n"
        pieces = per_module[target]
        previous_def = False
        for i, (lead, chunk) in enumerate(pieces):
            lead_lines = lead.splitlines(keepends=True)
            blanks = 0
            while lead_lines and not lead_lines[0].strip():
                lead_lines.pop(0)
                blanks += 1
            is_def = bool(re.match(r"(@|def |async def |class )", chunk))
            if i == 0 or is_def or previous_def:
                blanks = 2
            text += "\n" * min(blanks, 2) + "".join(lead_lines) + chunk
            previous_def = is_def
        out[target] = text if text.endswith("\n") else text + "\n"
    plan.binders = {k: list(dict.fromkeys(v)) for k, v in binders.items()}  # type: ignore[attr-defined]
    return out


# -- text pass: dotted names and paths --------------------------------------------------------------------


def text_rewrite(plan: Plan, rel: str, text: str) -> str:
    olds = sorted([*plan.moves, SPLIT_SOURCE], key=len, reverse=True)
    alt = "|".join(map(re.escape, olds))
    dotted = re.compile(rf"(?<![\w.]){PKG}\.({alt})(?![\w])(\.([A-Za-z_]\w*))?")

    def dot(m: re.Match[str]) -> str:
        old, attr = m.group(1), m.group(3)
        if old == SPLIT_SOURCE:
            if attr:
                binders = plan.binders.get(attr, [])
                if len(binders) > 1:
                    line = text.count("\n", 0, m.start()) + 1
                    plan.warnings.append(
                        f"{rel}:{line}: {m.group(0)} now names {plan.where(full(old), attr)}.{attr}, but "
                        f"{', '.join(binders)} each bind {attr}: a monkeypatch by this name patches only the first")
                return plan.where(full(old), attr) + "." + attr  # type: ignore[operator]
            return full("agent")
        new = plan.new_module(old)
        return new + (m.group(2) or "")  # type: ignore[operator]

    def string_import(m: re.Match[str]) -> str:  # "from okf_sphinx.reading import a, b" inside a string
        groups: dict[str, list[str]] = {}
        for n in m.group(1).split(","):
            n = n.strip()
            groups.setdefault(plan.where(full(SPLIT_SOURCE), n) or full(SPLIT_DEFAULT), []).append(n)
        return "; ".join(f"from {t} import {', '.join(ns)}" for t, ns in groups.items())

    text = re.sub(rf"from {PKG}\.{SPLIT_SOURCE} import (\w+(?:, *\w+)*)", string_import, text)
    text = dotted.sub(dot, text)
    path = re.compile(rf"(?<![\w/]){PKG}/({alt})\.py\b")
    split_files = [f"{PKG}/{m.replace('.', '/')}.py" for m in sorted(SPLIT_MODULES, key=lambda x: (SPLIT_MODULES[x], x))]
    if rel.endswith(".py"):
        # a list of file names: "okf_sphinx/reading.py" -> every file of the split
        text = re.sub(rf'"{PKG}/{SPLIT_SOURCE}\.py"', ", ".join(f'"{f}"' for f in split_files), text)

    def pth(m: re.Match[str]) -> str:
        old = m.group(1)
        if old == SPLIT_SOURCE:
            return f"{PKG}/agent/"
        return plan.new_module(old).replace(".", "/") + ".py"  # type: ignore[union-attr]

    text = path.sub(pth, text)
    # the package's modules are no longer all at its top
    text = re.sub(rf'(\(\s*\w+\s*/\s*"{PKG}"\s*\))\.glob\("\*\.py"\)', r'\1.rglob("*.py")', text)
    return text


def fix_file_paths(text: str, depth: int) -> tuple[str, int]:
    """``Path(__file__)[.resolve()].parent`` -> ``.parents[depth]`` (the okf_sphinx folder)."""
    pat = re.compile(r"Path\(__file__\)(\.resolve\(\))?\.parent(?![\w\[])")
    return pat.subn(lambda m: f"Path(__file__){m.group(1) or ''}.parents[{depth}]", text)


# -- driving it ------------------------------------------------------------------------------------------


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=check)


def all_files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        for f in sorted(filenames):
            p = Path(dirpath) / f
            if p.suffix in TEXT_SUFFIXES and p.stat().st_size < 2_000_000:
                out.append(p)
    return out


def already_done(root: Path) -> bool:
    return (root / PKG / "core" / "index_format.py").exists() or (root / PKG / "agent" / "dispatch.py").exists()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent, help="the checkout (default: this tool's)")
    ap.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    ap.add_argument("--allow-dirty", action="store_true", help="run on a work tree with uncommitted changes")
    ap.add_argument("--no-git", action="store_true", help="plain file moves (a copy that is not a git checkout)")
    ap.add_argument("--no-check", action="store_true", help="skip the import / cycle / test checks")
    args = ap.parse_args(argv)
    root: Path = args.root.resolve()
    if already_done(root):
        print(f"regroup: {root} is already regrouped (okf_sphinx/core/ or okf_sphinx/agent/ exists): nothing done")
        return 0
    if not (root / PKG / f"{SPLIT_SOURCE}.py").exists():
        print(f"regroup: {root}/{PKG}/{SPLIT_SOURCE}.py is missing and the tree is not regrouped: refusing", file=sys.stderr)
        return 2
    use_git = not args.no_git and (root / ".git").exists()
    if use_git and not args.allow_dirty and not args.dry_run:
        dirty = git(root, "status", "--porcelain", "--untracked-files=no").stdout.strip()
        if dirty:
            print("regroup: the work tree has uncommitted changes; commit them first (or --allow-dirty):\n" + dirty,
                  file=sys.stderr)
            return 2
    plan = Plan(root)
    sources = split_sources(plan)

    print("Layout (old -> new):")
    for old, new in sorted(plan.moves.items(), key=lambda kv: kv[1]):
        print(f"  {PKG}/{old}.py -> {PKG}/{new.replace('.', '/')}.py")
    print(f"  {PKG}/{SPLIT_SOURCE}.py -> split:")
    by_mod: dict[str, list[str]] = defaultdict(list)
    for n, t in plan.split.items():
        by_mod[t].append(n)
    for t in sorted(by_mod, key=lambda x: (SPLIT_MODULES[x], x)):
        print(f"    {PKG}/{t.replace('.', '/')}.py: {', '.join(by_mod[t])}")
    for n in plan.notes:
        print("  note:", n)
    if args.dry_run:
        for w in plan.warnings:
            print("  warning:", w)
        return 0

    early_notes = list(plan.notes)
    # 1. rewrite every Python file's imports (old layout, in place), then the text pass
    rewritten: list[str] = []
    for p in all_files(root):
        rel = p.relative_to(root).as_posix()
        if rel in SKIP_FILES:
            continue
        raw = p.read_bytes()
        try:
            text0 = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        new_bytes = raw
        if p.suffix == ".py":
            in_pkg = rel.startswith(PKG + "/") and rel.count("/") == 1
            importer = None
            is_pkg = False
            if in_pkg:
                flat = p.stem
                if flat == SPLIT_SOURCE:
                    continue  # replaced by the split modules
                importer = PKG if flat == "__init__" else (plan.new_module(flat) if flat != "__main__" else f"{PKG}.__main__")
                is_pkg = flat == "__init__"
            try:
                rw = PyRewriter(plan, rel, raw, importer, is_pkg, PKG if in_pkg else None)
            except SyntaxError as exc:
                plan.warnings.append(f"{rel}: not parsed ({exc}); imports left as they were")
            else:
                new_bytes = rw.run()
        text = new_bytes.decode("utf-8")
        text = text_rewrite(plan, rel, text)
        if rel.startswith(PKG + "/") and rel.count("/") == 1 and p.stem in plan.moves:
            depth = plan.moves[p.stem].count(".")
            text, n = fix_file_paths(text, depth)
            if re.search(r"files\(\s*(__package__|__name__)\s*\)|__spec__|os\.path\.dirname\(\s*__file__", text):
                plan.warnings.append(f"{rel}: finds files relative to its own package (__package__, __spec__ or "
                                     "os.path.dirname(__file__)): it moved one level deeper, check it")
            if "__file__" in text and n == 0 and "Path(__file__)" in text:
                plan.warnings.append(f"{rel}: uses __file__ in a way this tool does not rewrite: check it")
        if rel == "pyproject.toml":
            text = rewrite_pyproject(plan, text)
        if text != text0:
            p.write_text(text, encoding="utf-8")
            rewritten.append(rel)

    # 2. move the modules, write the split and the packages
    packages = sorted({new.rpartition(".")[0] for new in [*plan.moves.values(), *SPLIT_MODULES]} - {""})
    all_pkgs = sorted({".".join(p.split(".")[:i]) for p in packages for i in range(1, p.count(".") + 2)})
    for pk in all_pkgs:
        d = root / PKG / pk.replace(".", "/")
        d.mkdir(parents=True, exist_ok=True)
        init = d / "__init__.py"
        if not init.exists():
            init.write_text(f'"""{PACKAGE_DOCS.get(pk, pk)}\n"""\n', encoding="utf-8")
            if use_git:
                git(root, "add", str(init))
    for old, new in sorted(plan.moves.items()):
        src = root / PKG / f"{old}.py"
        dst = root / PKG / (new.replace(".", "/") + ".py")
        if use_git:
            git(root, "mv", str(src), str(dst))
        else:
            shutil.move(src, dst)
    history = root / PKG / (SPLIT_HISTORY.replace(".", "/") + ".py")
    if use_git:
        git(root, "mv", str(root / PKG / f"{SPLIT_SOURCE}.py"), str(history))
    else:
        shutil.move(root / PKG / f"{SPLIT_SOURCE}.py", history)
    for target, text in sources.items():
        (root / PKG / (target.replace(".", "/") + ".py")).write_text(text, encoding="utf-8")
    if use_git:
        git(root, "add", "-A", PKG)
        git(root, "add", "-u")

    print(f"\nRewrote {len(rewritten)} files (named as before the move):")
    for r in rewritten:
        print("  ", r)
    for n in plan.notes[len(early_notes):]:
        print("  note:", n)
    for w in plan.warnings:
        print("  warning:", w)
    if args.no_check:
        return 0
    return check(root, plan)


def rewrite_pyproject(plan: Plan, text: str) -> str:
    pkgs = sorted({PKG} | {f"{PKG}." + ".".join(new.split(".")[:i]) for new in [*plan.moves.values(), *SPLIT_MODULES]
                           for i in range(1, new.count(".") + 1)})
    listed = "packages = [\n" + "".join(f'    "{p}",\n' for p in pkgs) + "]"
    new, n = re.subn(rf'^packages = \["{PKG}"\]$', listed, text, flags=re.M)
    if n != 1:
        plan.warnings.append("pyproject.toml: no `packages = [\"okf_sphinx\"]` line: list the subpackages by hand: " + listed)
    return new


# -- checks ------------------------------------------------------------------------------------------------


def package_names(root: Path) -> tuple[dict[str, Path], dict[str, set[str]]]:
    """Every module of the (new) package -> its file, and -> the names bound at its top."""
    files: dict[str, Path] = {}
    for p in sorted((root / PKG).rglob("*.py")):
        parts = list(p.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = p
    names = {}
    for m, p in files.items():
        tree = ast.parse(p.read_bytes(), str(p))
        names[m] = set(top_bindings(tree.body)) | set(top_imports(tree, m if p.name == "__init__.py" else m.rpartition(".")[0]))
        names[m] |= {a.asname or a.name.split(".")[0] for st in tree.body if isinstance(st, ast.Import) for a in st.names}
    return files, names


def stale_references(root: Path) -> list[str]:
    """Imports (at any depth) of okf_sphinx modules or names that do not exist, in every Python
    file; and dotted ``okf_sphinx.x.y`` names in any text file that name no module or name."""
    files, names = package_names(root)
    out: list[str] = []

    def resolves(dotted: str) -> bool:
        parts = dotted.split(".")
        cur = parts[0]
        for comp in parts[1:]:
            if f"{cur}.{comp}" in files:
                cur = f"{cur}.{comp}"
                continue
            return comp.startswith("__") or comp in names.get(cur, set())
        return True

    dotted_re = re.compile(rf"(?<![\w./-]){PKG}((?:\.[A-Za-z_]\w*)+)")
    for p in all_files(root):
        rel = p.relative_to(root).as_posix()
        if rel in SKIP_FILES:
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        if p.suffix == ".py":
            try:
                tree = ast.parse(text, rel)
            except SyntaxError:
                continue
            own = None
            if rel.startswith(PKG + "/"):
                own = ".".join(Path(rel).with_suffix("").parts)
                own = own[: -len(".__init__")] if own.endswith(".__init__") else own.rpartition(".")[0]
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom):
                    mod = absolute(node.module, node.level, own or "")
                    if not (mod == PKG or mod.startswith(PKG + ".")):
                        continue
                    if mod not in files:
                        out.append(f"{rel}:{node.lineno}: no module {mod}")
                        continue
                    for a in node.names:
                        if f"{mod}.{a.name}" not in files and a.name not in names[mod] and a.name != "*":
                            out.append(f"{rel}:{node.lineno}: {mod} has no {a.name!r}")
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        if a.name.startswith(PKG + ".") and a.name not in files:
                            out.append(f"{rel}:{node.lineno}: no module {a.name}")
        for i, line in enumerate(text.splitlines(), 1):
            for m in dotted_re.finditer(line):
                dotted = PKG + m.group(1)
                first = m.group(1).split(".")[1]
                if not resolves(dotted.rstrip(".")) and (first in MOVES or first == SPLIT_SOURCE):
                    out.append(f"{rel}:{i}: {dotted} names nothing")
    return out


def check(root: Path, plan: Plan) -> int:
    ok = True
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""), "PYTHONDONTWRITEBYTECODE": "1"}
    files, _names = package_names(root)
    mods = sorted(m for m in files if not m.endswith("__main__"))
    code = "import importlib\nfor m in %r:\n    importlib.import_module(m)\nimport okf_sphinx\nprint(okf_sphinx.__file__)\n" % mods
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root)
    where = r.stdout.strip()
    if r.returncode != 0 or not where.startswith(str(root)):
        ok = False
        print(f"\nCHECK import of every module: FAILED\n{r.stderr[-3000:]}{where}")
    else:
        print(f"\nCHECK import of every module ({len(mods)}, from {where}): ok")
    problems = stale_references(root)
    if problems:
        ok = False
        print("CHECK every okf_sphinx import and dotted name resolves (lazy imports and strings too): FAILED\n  "
              + "\n  ".join(problems))
    else:
        print("CHECK every okf_sphinx import and dotted name resolves (lazy imports and strings too): ok")
    prose = re.compile(rf"\b({'|'.join(map(re.escape, [*plan.moves, SPLIT_SOURCE]))})\.py\b")
    mentions = []
    for p in all_files(root):
        rel = p.relative_to(root).as_posix()
        if rel in SKIP_FILES or not (p.suffix in (".md", ".py", ".js", ".rst")):
            continue
        for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in prose.finditer(line):
                if line[max(0, m.start() - 1):m.start()] not in ("/", ".", "_") and "example_pkg" not in line:
                    mentions.append(f"{rel}:{i}: {m.group(0)}")
    if mentions:
        print(f"NOTE {len(mentions)} bare mentions of old file names (comments/prose, left as written; review by hand):")
        for x in mentions:
            print("  ", x)
    # no two modules import each other at run time (and every module imports): tests/test_layout.py
    layout_test = root / "tests" / "test_layout.py"
    if not layout_test.exists():
        ok = False
        print("CHECK tests/test_layout.py (no module cycle at run time): FAILED: the file is missing")
    else:
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(layout_test)],
                           capture_output=True, text=True, env=env, cwd=root)
        print(f"CHECK tests/test_layout.py (no module cycle at run time): {'ok' if r.returncode == 0 else 'FAILED'}: "
              f"{r.stdout.strip().splitlines()[-1:]}")
        if r.returncode != 0:
            ok = False
            print(r.stdout[-3000:])
    print("\nregroup: " + ("done; review `git status`/`git diff --cached`, reinstall (pip install -e .) for the new entry "
                           "points, run the whole suite, commit" if ok else "FINISHED WITH FAILED CHECKS (see above)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
