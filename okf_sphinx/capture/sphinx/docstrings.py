"""Where a Python object's docstring is written: the literal in its ``.py`` file, found with
:mod:`ast` for the object's qualified name and checked against the imported object's
``__doc__`` (or an attribute's ``#:`` comment or docstring, as Sphinx's own analyzer reads
them).  Used for objects autodoc documents (capture/sphinx/objects.py); imports no host.

None where no source holds the words: C builtins, docstrings built at run time, files in
the interpreter's own library folders (those are not the project's words, and would drag
the captured root up to ``/``).
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from okf_sphinx.core.records import CapturedFile, decode, lexical


def _library_dirs() -> tuple[str, ...]:
    """Folders of the interpreter's own and installed packages: docstrings there are
    not the project's words (and would drag the captured root up to ``/``)."""
    out = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            folder = sysconfig.get_paths()[key]
            out.add(Path(folder).resolve().as_posix().rstrip("/") + "/")
            out.add(lexical(folder).rstrip("/") + "/")  # a virtual environment's own (linked) path too
        except (KeyError, OSError):
            pass
    return tuple(sorted(out))


_LIBRARY_DIRS = _library_dirs()


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
        attributes a method assigns (``self.x = …``), as Sphinx's own analyzer reads them."""
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
    if module:
        obj: Any = sys.modules.get(module)
        parts = fullname.split(".") if fullname else []
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
    if path.startswith(_LIBRARY_DIRS) or resolved.as_posix().startswith(_LIBRARY_DIRS):
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
    become captured files of the document."""

    def __init__(self) -> None:
        self.captured: dict[str, CapturedFile] = {}

    def docs(self, path: str) -> dict[str, Docstring]:
        """qualname -> docstring location of every documented name of the file at ``path``."""
        if path not in self.captured:
            self.captured[path] = CapturedFile.read(path)[0]
        return _python_docs(path, self.captured[path].sha256)

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
        return found_doc
    return _attribute_doc(files, owner, fullname)


def _attribute_doc(files: SourceFiles, owner: Any, fullname: str) -> tuple[str, Docstring] | None:
    """An attribute's docstring (or ``#:`` comment) in its owner's source: the owner's body,
    or for an instance attribute the method that assigns it; base classes too."""
    if owner is None or not (inspect.isclass(owner) or inspect.ismodule(owner)):
        return None
    name = fullname.rsplit(".", 1)[-1]
    for holder in owner.__mro__ if inspect.isclass(owner) else (owner,):
        file = _source_file(holder)
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
