"""Where a Python object's docstring is written: the literal in its ``.py`` file, found with
:mod:`ast` for the object's qualified name and checked against the imported object's
``__doc__`` (or an attribute's ``#:`` comment or docstring, as Sphinx's own analyzer reads
them).  Used for objects autodoc documents (capture/sphinx/objects.py); imports no host.

The file is the project's own: a module imported from where it was **installed**
(site-packages, a folder ``pip install --target`` wrote, anything beside a ``*.dist-info``)
is the byte-identical file of the project being documented, found under the project's
roots (:func:`project_roots`) at the module's path below an import folder — the root itself
(flat layout), ``src/`` or any folder down to :data:`IMPORT_DEPTH` levels (namespace packages
alike: the path is the installed file's below the folder it was imported from).

None where no source holds the words: C builtins, docstrings built at run time, files in
the interpreter's own library (those are not the project's words, and would drag the
captured root up to ``/``), and installed files no project file matches
(:attr:`SourceFiles.unmatched` keeps those).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import os
import re
import site
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from okf_sphinx.core.records import CapturedFile, decode, lexical
from okf_sphinx.writer.index_writer import project_folder

#: How deep below a project root an import folder may lie (``src/`` is 1, ``packages/x/src/`` 3).
IMPORT_DEPTH = 3
#: The most folders of one root looked at as import folders (breadth first, by name).
MAX_IMPORT_FOLDERS = 4096
#: Folders never searched for the project's files (besides hidden ones and virtual environments).
_NOT_PROJECT = frozenset({"node_modules", "site-packages", "dist-packages", "__pycache__"})


def _folders(paths: Any) -> tuple[str, ...]:
    out = set()
    for path in paths:
        try:
            out.add(Path(path).resolve().as_posix().rstrip("/") + "/")
            out.add(lexical(path).rstrip("/") + "/")  # a virtual environment's own (linked) path too
        except (OSError, TypeError, ValueError):
            pass
    return tuple(sorted(out))


def _library_dirs() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the interpreter's own library folders, the folders packages are installed into)."""
    paths = sysconfig.get_paths()
    own = _folders(paths[k] for k in ("stdlib", "platstdlib") if k in paths)
    installed = [paths[k] for k in ("purelib", "platlib") if k in paths]
    try:
        installed += [*site.getsitepackages(), site.getusersitepackages()]
    except AttributeError:  # an embedded interpreter's reduced ``site``
        pass
    return own, _folders(installed)


_STDLIB_DIRS, _SITE_DIRS = _library_dirs()


def _longest(path: str, folders: Any) -> str | None:
    """The longest of ``folders`` (each ending in ``/``) that holds ``path``."""
    best = None
    for folder in folders:
        if path.startswith(folder) and (best is None or len(folder) > len(best)):
            best = folder
    return best


@functools.lru_cache(maxsize=256)
def _has_metadata(folder: str) -> bool:
    """Does ``folder`` hold what an installer writes beside a package (``*.dist-info``, ``*.egg-info``)?"""
    try:
        with os.scandir(folder) as entries:
            return any(e.name.endswith((".dist-info", ".egg-info")) for e in entries)
    except OSError:
        return False


def installed_folder(path: str) -> str | None:
    """The folder an installed module file ``path`` was imported from (``…/site-packages/``, a
    ``pip install --target`` folder on ``sys.path``), or None for a file imported in place."""
    found = _longest(path, _SITE_DIRS)
    if found is not None:
        return found
    parts = path.split("/")
    for k in range(len(parts) - 2, 0, -1):
        if parts[k] in ("site-packages", "dist-packages"):
            return "/".join(parts[: k + 1]) + "/"
    entry = _longest(path, _folders(p for p in sys.path if p))
    if entry is not None and _has_metadata(entry):
        return entry
    return None


def _in_stdlib(path: str) -> bool:
    """Is ``path`` in the interpreter's own library (and not installed there)?"""
    return _longest(path, _STDLIB_DIRS) is not None


@functools.lru_cache(maxsize=16)
def project_roots(srcdir: Path, configured: str | None = None) -> tuple[str, ...]:
    """The folders the documented project's own files are searched in: the documentation
    sources, the author's source root (``configured``, relative to them) and the project
    holding the docs (:func:`~okf_sphinx.writer.index_writer.project_folder`: the nearest
    folder at or above the sources with a repository's or a Python project's marker, else
    their parent); a root inside another is searched through it."""
    found = [lexical(srcdir), project_folder(srcdir, Path(srcdir).parent).as_posix()]
    if configured:
        found.append(lexical(Path(srcdir) / configured))
    roots = sorted({f.rstrip("/") + "/" for f in found})
    return tuple(r for r in roots if not any(r != q and r.startswith(q) for q in roots))


@functools.lru_cache(maxsize=16)
def import_folders(root: str) -> tuple[str, ...]:
    """The folders below ``root`` (itself included, then breadth first down to
    :data:`IMPORT_DEPTH`, by name) a module's path is looked for in; hidden folders, virtual
    environments, installers' folders and setuptools' ``build/lib*/`` copies are not the project's."""
    out = [root]
    level = [root]
    for _depth in range(IMPORT_DEPTH):
        below = []
        for folder in level:
            try:
                with os.scandir(folder) as entries:
                    names = sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))
            except OSError:
                continue
            for name in names:
                if name.startswith(".") or name in _NOT_PROJECT or name.endswith((".dist-info", ".egg-info")):
                    continue
                if name.startswith("lib") and folder.endswith("/build/"):
                    continue  # setuptools' copy of the package as last built, not its source
                sub = f"{folder}{name}/"
                if os.path.exists(f"{sub}pyvenv.cfg"):
                    continue
                below.append(sub)
        out += below[: MAX_IMPORT_FOLDERS - len(out)]
        level = below
        if len(out) >= MAX_IMPORT_FOLDERS or not level:
            break
    return tuple(out)


def forget_project() -> None:
    """Forget the folders seen (a new build may run in the same process)."""
    project_roots.cache_clear()
    import_folders.cache_clear()
    _has_metadata.cache_clear()
    _project_match.cache_clear()


@functools.lru_cache(maxsize=1024)
def _project_match(relative: str, size: int, sha256: str, roots: tuple[str, ...]) -> str | None:
    """The project file at ``relative`` below one of the roots' import folders with these bytes
    (the nearest to its root, then by path), or None."""
    found = []
    for root in roots:
        for folder in import_folders(root):
            candidate = folder + relative
            try:
                if os.path.getsize(candidate) != size or not os.path.isfile(candidate):
                    continue
                data = Path(candidate).read_bytes()
            except OSError:
                continue
            if hashlib.sha256(data).hexdigest() == sha256:  # where the project has it (a link keeps its own path)
                found.append((candidate[len(root):].count("/"), candidate))
    return min(found)[1] if found else None


@dataclass(frozen=True)
class Docstring:
    start: int  # physical lines of the docstring literal (or ``#:`` comment block)
    end: int
    value: str | None  # the literal's value (None for ``#:`` comments)


@functools.lru_cache(maxsize=256)
def _python_docs(path: str, sha256: str) -> dict[str, Docstring]:
    """qualname -> docstring location in one ``.py`` file ("" = the module)."""
    data = Path(path).read_bytes()
    try:
        tree = ast.parse(data, filename=path)
    except (SyntaxError, ValueError):
        return {}
    lines = decode(data).split("\n")
    out: dict[str, Docstring] = {}

    def literal(body: list[ast.stmt]) -> Docstring | None:
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node = body[0].value
            return Docstring(node.lineno, node.end_lineno or node.lineno, node.value)
        return None

    def attributes(prefix: str, body: list[ast.stmt], self_name: str | None = None) -> None:
        """Attribute docs of a module or class body, or (``self_name``) of the instance
        attributes a method assigns (``self.x = …``), as Sphinx's own analyzer reads them;
        inside ``if``/``try``/``with`` blocks too."""
        for stmt in body:
            if isinstance(stmt, (ast.If, ast.Try, ast.With)):
                for block in (stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", []),
                              *(h.body for h in getattr(stmt, "handlers", []))):
                    attributes(prefix, block, self_name)
        for i, stmt in enumerate(body):
            targets: list[ast.expr] = []
            if isinstance(stmt, ast.Assign):
                targets = list(stmt.targets)
            elif isinstance(stmt, ast.AnnAssign):
                targets = [stmt.target]
            if self_name is None:
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            else:
                names = [t.attr for t in targets if isinstance(t, ast.Attribute)
                         and isinstance(t.value, ast.Name) and t.value.id == self_name]
            if not names:
                continue
            doc: Docstring | None = None
            nxt = body[i + 1] if i + 1 < len(body) else None
            if nxt is not None and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
                doc = Docstring(nxt.value.lineno, nxt.value.end_lineno or nxt.value.lineno, nxt.value.value)
            else:  # ``#:`` comment lines right above the assignment
                k = stmt.lineno - 1
                while k >= 1 and lines[k - 1].lstrip().startswith("#:"):
                    k -= 1
                if k < stmt.lineno - 1:
                    doc = Docstring(k + 1, stmt.lineno - 1, None)
            if doc is not None:
                for name in names:
                    out.setdefault(prefix + name, doc)

    def visit(prefix: str, body: list[ast.stmt]) -> None:
        attributes(prefix, body)
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = prefix + stmt.name
                doc = literal(stmt.body)
                if doc is not None:
                    out.setdefault(qual, doc)
                if isinstance(stmt, ast.ClassDef):
                    visit(qual + ".", stmt.body)
                    for method in stmt.body:
                        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
                            attributes(qual + ".", method.body, method.args.args[0].arg)

    module_doc = literal(tree.body)
    if module_doc is not None:
        out[""] = module_doc
    visit("", tree.body)
    return out


def _same_doc(a: str | None, b: Any) -> bool:
    return isinstance(a, str) and isinstance(b, str) and inspect.cleandoc(a) == inspect.cleandoc(b)


def _lookup(module: str | None, fullname: str) -> tuple[bool, Any, Any]:
    """(found, object, its owner) for ``module`` + dotted ``fullname`` in the imported modules."""
    if module and module in sys.modules:
        obj: Any = sys.modules[module]
        parts = fullname.split(".") if fullname else []
    elif module:
        # ``.. autoclass:: pkg.Outer.Inner`` names the module ``pkg.Outer``: the longest imported prefix is
        return _lookup(None, f"{module}.{fullname}" if fullname else module)
    else:
        # a module name itself, or a dotted name whose longest imported prefix is a module
        parts = fullname.split(".")
        for k in range(len(parts), 0, -1):
            if ".".join(parts[:k]) in sys.modules:
                obj = sys.modules[".".join(parts[:k])]
                parts = parts[k:]
                break
        else:
            return False, None, None
    if obj is None:
        return False, None, None
    owner = None
    for k, part in enumerate(parts):
        owner = obj
        try:
            obj = inspect.getattr_static(obj, part) if inspect.isclass(obj) else getattr(obj, part)
        except AttributeError:
            # an instance attribute (assigned in a method) is no class attribute: its owner still is
            return False, None, owner if k == len(parts) - 1 else None
    return True, obj, owner


def _source_file(obj: Any) -> str | None:
    try:
        file = inspect.getsourcefile(obj)
    except (TypeError, OSError):
        return None
    if not file or not file.endswith(".py"):
        return None
    path = lexical(file)  # where Python imported it from (a link keeps its own path)
    try:
        resolved = Path(file).resolve()
    except OSError:
        return None
    if not resolved.is_file():
        return None
    return path


def _unwrap(obj: Any) -> Any:
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    elif isinstance(obj, functools.cached_property):
        obj = obj.func
    try:
        return inspect.unwrap(obj)
    except ValueError:
        return obj


class SourceFiles:
    """The ``.py`` files read for one document (each read once, digest taken then): they
    become captured files of the document.  ``roots``: the project's (:func:`project_roots`),
    where an installed module's file is looked for."""

    def __init__(self, roots: tuple[str, ...] = ()) -> None:
        self.roots = roots
        self.captured: dict[str, CapturedFile] = {}
        self.unmatched: list[str] = []  # installed module files no project file matches, as met
        self._project: dict[str, tuple[str | None, bool]] = {}  # path -> (its project file, installed?)

    def project_file(self, path: str) -> str | None:
        """The file whose words a module file ``path`` holds: itself when it was imported in
        place, the byte-identical project file when it is installed, None for the interpreter's
        own library and for an installed file no project file matches (kept in :attr:`unmatched`)."""
        if path not in self._project:
            self._project[path] = self._find(path)
        found, installed = self._project[path]
        if found is None and installed:
            self.unmatched.append(path)
        return found

    def unmatched_since(self, mark: int) -> str:
        """The first installed file no project file matched since ``len(self.unmatched)`` was ``mark``, or ""."""
        return self.unmatched[mark] if len(self.unmatched) > mark else ""

    def _find(self, path: str) -> tuple[str | None, bool]:
        resolved = Path(path).resolve().as_posix()
        form, folder = path, installed_folder(path)
        if folder is None and resolved != path:  # a link into an installed folder
            form, folder = resolved, installed_folder(resolved)
        if folder is not None and _longest(form, self.roots) is not None and _longest(form, _SITE_DIRS) is None \
                and "/site-packages/" not in form and "/dist-packages/" not in form:
            folder = None  # a folder of the project on sys.path with an installer's metadata (``*.egg-info``) beside it
        if folder is None:
            return (None if _in_stdlib(path) or _in_stdlib(resolved) else path), False
        data = Path(path).read_bytes()
        return _project_match(form[len(folder):], len(data), hashlib.sha256(data).hexdigest(), self.roots), True

    def docs(self, path: str) -> dict[str, Docstring]:
        """qualname -> docstring location of every documented name of the file at ``path``."""
        if path not in self.captured:
            self.captured[path] = CapturedFile.read(path)[0]
        return _python_docs(path, self.captured[path].sha256)

    def text(self, path: str) -> str:
        """The text of the file at ``path`` (read and digested once per document, the text
        once per digest)."""
        self.docs(path)
        return _text(path, self.captured[path].sha256)

    def files(self) -> list[CapturedFile]:
        """The files read, by path."""
        return [self.captured[p] for p in sorted(self.captured)]


def locate(
    files: SourceFiles, module: str | None, fullname: str, inherit: bool = True, objtype: str = ""
) -> tuple[str, Docstring] | None:
    """(file, docstring location) of a Python object's own docstring, or None.  Anything
    third-party code raises while it is inspected (a module ``__getattr__`` that raises, an
    unreadable file) propagates: the caller makes the object generated."""
    found, obj, owner = _lookup(module, fullname)
    if not found or objtype in ("attribute", "data"):
        # an attribute's own comment or docstring comes first (``x = SomeClass`` is not SomeClass)
        doc = _attribute_doc(files, owner, fullname)
        if doc is not None or not found:
            return doc
        if objtype in ("attribute", "data") and _shows_class_doc(obj):
            # a sentinel (an enum member, an instance) whose words autodoc shows are its class's docstring
            return _own_docstring(files, type(obj))
    target = _unwrap(obj)
    if inspect.ismodule(target) or inspect.isclass(target) or inspect.isfunction(target) or inspect.ismethod(target):
        found_doc = _own_docstring(files, target)
        if found_doc is None and inherit and inspect.isclass(owner) and not inspect.isclass(target) \
                and not getattr(target, "__doc__", None):
            # autodoc_inherit_docstrings: an override without a docstring shows the base's
            name = fullname.rsplit(".", 1)[-1]
            for base in owner.__mro__[1:]:
                if name in base.__dict__:
                    base_target = _unwrap(base.__dict__[name])
                    if getattr(base_target, "__doc__", None):
                        return _own_docstring(files, base_target)
        if found_doc is None and inherit and inspect.isclass(target) and target.__dict__.get("__doc__") is None:
            # a subclass without a docstring shows its nearest base's (autodoc_inherit_docstrings)
            base = next((c for c in target.__mro__[1:] if isinstance(c.__dict__.get("__doc__"), str)), None)
            if base is not None and base is not object:
                return _own_docstring(files, base)
        return found_doc
    doc = _attribute_doc(files, owner, fullname)
    if doc is None and _shows_class_doc(obj):  # a callable instance (``exit = _Exit()``) shows its class's words
        return _own_docstring(files, type(obj))
    return doc


def _shows_class_doc(value: Any) -> bool:
    """Is ``value`` an instance whose ``__doc__`` is its class's own docstring (what autodoc shows for it)?"""
    if inspect.isclass(value) or inspect.ismodule(value) or inspect.isroutine(value) or isinstance(value, property):
        return False
    cls = type(value)
    if cls.__module__ == "builtins":
        return False
    own = cls.__dict__.get("__doc__")
    return isinstance(own, str) and _same_doc(own, getattr(value, "__doc__", None))


def _attribute_doc(files: SourceFiles, owner: Any, fullname: str) -> tuple[str, Docstring] | None:
    """An attribute's docstring (or ``#:`` comment) in its owner's source: the owner's body,
    or for an instance attribute the method that assigns it; base classes too."""
    if owner is None or not (inspect.isclass(owner) or inspect.ismodule(owner)):
        return None
    name = fullname.rsplit(".", 1)[-1]
    for holder in owner.__mro__ if inspect.isclass(owner) else (owner,):
        file = _source_file(holder)
        file = files.project_file(file) if file is not None else None
        if file is None:
            continue
        qual = "" if inspect.ismodule(holder) else getattr(holder, "__qualname__", "")
        doc = files.docs(file).get((qual + "." if qual else "") + name)
        if doc is not None:
            return file, doc
    return None


def _own_docstring(files: SourceFiles, target: Any) -> tuple[str, Docstring] | None:
    """Where the docstring of a module, class or function is written, checked against ``__doc__``."""
    if inspect.ismethod(target):
        target = target.__func__
    if not (inspect.ismodule(target) or inspect.isclass(target) or inspect.isfunction(target)):
        return None
    file = _source_file(target)
    file = files.project_file(file) if file is not None else None
    if file is None:
        return None
    qual = "" if inspect.ismodule(target) else getattr(target, "__qualname__", None)
    if qual is None or "<locals>" in qual:
        return None
    doc = files.docs(file).get(qual)
    if doc is None or not _same_doc(doc.value, getattr(target, "__doc__", None)):
        return None  # no docstring of its own here (generated or built at run time)
    return file, doc


def init_docstring(files: SourceFiles, module: str | None, fullname: str) -> tuple[str, Docstring] | None:
    """The docstring of a class's own ``__init__`` (``autoclass_content``)."""
    found, cls, _ = _lookup(module, fullname)
    if not found or not inspect.isclass(cls) or "__init__" not in cls.__dict__:
        return None
    return locate(files, module, f"{fullname}.__init__")


# -- entries written inside a docstring ----------------------------------------------------------

#: The header of a Napoleon attributes section (Google ``Attributes:``, NumPy ``Attributes`` over dashes).
_ATTRIBUTES_HEADER = re.compile(r"^[ \t]*Attributes[ \t]*:?[ \t]*$")
_NUMPY_RULE = re.compile(r"^[ \t]*-{3,}[ \t]*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def entry_lines(files: SourceFiles, path: str, doc: Docstring, name: str) -> tuple[int, int] | None:
    """The physical lines (first, last) of the entry that documents ``name`` inside the
    docstring ``doc`` of ``path``: a nested ``.. attribute::`` (``data``, ``property``,
    ``method``) directive, or an entry of a Napoleon ``Attributes`` section (``name (type):
    text``, ``name : type`` in NumPy style); the entry line and the lines indented below it,
    trailing blank lines left out.  None where the docstring holds no such entry."""
    lines = files.text(path).split("\n")
    first, last = doc.start, min(doc.end, len(lines))
    word = re.escape(name)
    directive = re.compile(r"^[ \t]*(?:[\"']{3})?\.\.[ \t]+(?:py:)?(?:attribute|data|property|method)::[ \t]+"
                           + word + r"(?![\w.])")
    napoleon = re.compile(r"^[ \t]*(?:[\"']{3})?[*`]{0,2}" + word + r"[*`]{0,2}[ \t]*(?:\([^)]*\))?[ \t]*(?::.*)?$")
    in_attributes = False
    for n in range(first, last + 1):
        line = lines[n - 1]
        if _ATTRIBUTES_HEADER.match(line) and (line.rstrip().endswith(":") or
                                               (n < last and _NUMPY_RULE.match(lines[n]))):
            in_attributes = True
            continue
        if not (directive.match(line) or (in_attributes and napoleon.match(line))):
            continue
        end = n
        for k in range(n + 1, last + 1):
            below = lines[k - 1]
            if below.strip() and _indent(below) <= _indent(line):
                break
            if below.strip():
                end = k
        if end == last and lines[end - 1].strip() in ('"""', "'''"):
            end -= 1
        return n, end
    return None


@functools.lru_cache(maxsize=64)
def _text(path: str, sha256: str) -> str:
    return decode(Path(path).read_bytes())
