"""Functions of statements (``lower.py``) -> a Python module and a JavaScript file.

Both are printed from the same statements, expression for expression, so the two stemmers
of an algorithm have the same shape: a routine of one is the routine of the other.
"""

from __future__ import annotations

import json

from .definitions import Algorithm
from .lower import Function, lower_algorithm

__all__ = ["javascript", "python"]

_INVERSE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def _py_str(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04x}")
    return '"' + "".join(out) + '"'


def _js_str(text: str) -> str:
    return "'" + json.dumps(text, ensure_ascii=True)[1:-1].replace("'", "\\'").replace('\\"', '"') + "'"


def _branches(s: tuple) -> tuple[list[tuple[tuple, list[tuple]]], list[tuple]]:
    """An ("if", cond, then, else) statement as an if / elif chain: its (condition, body)
    pairs and the last else's body (an empty then-branch is turned around)."""
    cond, then, other = s[1], s[2], s[3]
    if not then:
        cond, then, other = ("not", cond), other, []
    branches = [(cond, then)]
    while len(other) == 1 and other[0][0] == "if" and other[0][2]:
        branches.append((other[0][1], other[0][2]))
        other = other[0][3]
    return branches, other


class _Printer:
    js = False

    def string(self, text: str) -> str:
        return _js_str(text) if self.js else _py_str(text)

    def expr(self, e: tuple, inner: bool = False) -> str:
        kind = e[0]
        if kind == "z":
            return "z." + e[1]
        if kind == "local":
            return e[1]
        if kind == "num":
            return str(e[1])
        if kind == "bool":
            return ("true" if e[1] else "false") if self.js else ("True" if e[1] else "False")
        if kind == "str":
            return self.string(e[1])
        if kind == "zz":
            return "z"
        if kind == "g":
            return "G_" + e[1]
        if kind == "a":
            return f"A_{e[1]}"
        if kind in ("m", "f"):
            args = ", ".join(self.expr(a) for a in e[2:])
            return f"{'z.' if kind == 'm' else ''}{e[1]}({args})"
        if kind == "bin":
            op = e[1]
            if self.js and op in ("==", "!="):
                op += "="
            text = f"{self.expr(e[2], True)} {op} {self.expr(e[3], True)}"
            return f"({text})" if inner else text
        if kind == "not":
            target = e[1]
            if target[0] == "bin" and target[1] in _INVERSE:
                return self.expr(("bin", _INVERSE[target[1]], target[2], target[3]), inner)
            return ("!" if self.js else "not ") + self.expr(target, True)
        raise ValueError(f"unknown expression {e!r}")

    def block(self, stmts: list[tuple], depth: int, out: list[str]) -> None:
        for stmt in stmts:
            self.stmt(stmt, depth, out)
            if stmt[0] in ("ret", "break", "continue"):
                return  # what follows is never run


class _Python(_Printer):
    def stmt(self, s: tuple, depth: int, out: list[str]) -> None:
        pad = "    " * depth
        kind = s[0]
        if kind == "if":
            branches, other = _branches(s)
            for i, (cond, then) in enumerate(branches):
                out.append(f"{pad}{'elif' if i else 'if'} {self.expr(cond)}:")
                self.block(then, depth + 1, out) if then else out.append(pad + "    pass")
            if other:
                out.append(f"{pad}else:")
                self.block(other, depth + 1, out)
        elif kind == "while":
            out.append(f"{pad}while True:")
            self.block(s[1], depth + 1, out)
        elif kind in ("break", "continue"):
            out.append(pad + kind)
        elif kind == "ret":
            out.append(f"{pad}return {self.expr(s[1])}")
        elif kind == "do":
            out.append(pad + self.expr(s[1]))
        elif kind == "let":
            out.append(f"{pad}{self.expr(s[1])} = {self.expr(s[2])}")
        else:
            raise ValueError(f"unknown statement {s!r}")

    def function(self, f: Function) -> list[str]:
        out = ["", "", f"def {f.name}(z: _State) -> bool:"]
        if f.catches:
            out.append("    try:")
            self.block(f.body, 2, out)
            out += ["    except Abort:", "        return False"]
        else:
            self.block(f.body, 1, out)
        return out


class _JavaScript(_Printer):
    js = True

    def stmt(self, s: tuple, depth: int, out: list[str]) -> None:
        pad = "  " * depth
        kind = s[0]
        if kind == "if":
            branches, other = _branches(s)
            for i, (cond, then) in enumerate(branches):
                out.append(f"{pad}{'} else if' if i else 'if'} ({self.expr(cond)}) {{")
                self.block(then, depth + 1, out)
            if other:
                out.append(f"{pad}}} else {{")
                self.block(other, depth + 1, out)
            out.append(pad + "}")
        elif kind == "while":
            out.append(f"{pad}while (true) {{")
            self.block(s[1], depth + 1, out)
            out.append(pad + "}")
        elif kind in ("break", "continue"):
            out.append(pad + kind + ";")
        elif kind == "ret":
            out.append(f"{pad}return {self.expr(s[1])};")
        elif kind == "do":
            out.append(pad + self.expr(s[1]) + ";")
        elif kind == "let":
            target = s[1]
            declare = "var " if target[0] == "local" else ""
            out.append(f"{pad}{declare}{self.expr(target)} = {self.expr(s[2])};")
        else:
            raise ValueError(f"unknown statement {s!r}")

    def function(self, f: Function) -> list[str]:
        out = ["", f"  function {f.name}(z) {{"]
        if f.catches:
            out.append("    try {")
            self.block(f.body, 3, out)
            out += ["    } catch (e) {", "      if (e !== E.ABORT) throw e;", "      return false;", "    }"]
        else:
            self.block(f.body, 2, out)
        out.append("  }")
        return out


def _among_groups(printer: _Printer, algorithm: Algorithm, number: int) -> str:
    among = algorithm.amongs[number]
    groups: dict[int, list[str]] = {}
    for s, result, _cond in among.entries:
        groups.setdefault(result, []).append(s)
    rows = ", ".join(("[" if printer.js else "(") + ", ".join([str(r)] + [printer.string(s) for s in strings])
                     + ("]" if printer.js else ",)") for r, strings in groups.items())
    conds = {s: "r_" + c for s, _r, c in among.entries if c}
    text = f"[{rows}]" if printer.js else f"({rows},)"
    if conds:
        pairs = ", ".join(f"{printer.string(s)}: {fn}" for s, fn in conds.items())
        text += ", {" + pairs + "}"
    return text


def _state_fields(algorithm: Algorithm) -> list[tuple[str, str]]:
    return ([(f"av{a.number}", "0") for a in algorithm.amongs if a.paired] + [("i_" + n, "0") for n in algorithm.integers] + [("b_" + n, "False") for n in algorithm.booleans]
            + [("s_" + n, '""') for n in algorithm.strings])


def python(algorithm: Algorithm, source: str, version: str) -> str:
    """The Python module of ``algorithm`` (``stem(word) -> str``)."""
    printer = _Python()
    functions = lower_algorithm(algorithm)
    fields = _state_fields(algorithm)
    out = [
        f'"""The Snowball {version} "{algorithm.name}" stemmer: ``stem(word)``.',
        "",
        f"Generated by stemgen from {source}: edit that definition and run ``python -m stemgen``",
        "(tests/test_stemmer.py fails when this file is not what stemgen writes).",
        '"""',
        "",
        "from okf_sphinx.core.snowball.runtime import Abort, Env, among",
        "",
        '__all__ = ["stem"]',
        "",
    ]
    for name, letters in algorithm.groupings.items():
        out.append(f"G_{name} = frozenset({_py_str(letters)})")
    out += ["", "", "class _State(Env):", f"    __slots__ = ({''.join(repr(n) + ', ' for n, _v in fields)})"]
    if fields:
        out += ["", "    def __init__(self, word: str) -> None:", "        Env.__init__(self, word)"]
        out += [f"        self.{n} = {v}" for n, v in fields]
    for f in functions:
        out += printer.function(f)
    out.append("")
    out.append("")
    for a in algorithm.amongs:
        out.append(f"A_{a.number} = among({_among_groups(printer, algorithm, a.number)})")
    out += ["", "", "def stem(word: str) -> str:", '    """The stem of a casefolded word."""',
            "    z = _State(word)", "    r_stem(z)", "    return z.s", ""]
    return "\n".join(out)


def javascript(algorithm: Algorithm, source: str, version: str) -> str:
    """The JavaScript file of ``algorithm``: it defines the algorithm in ``OkfStemmer``."""
    printer = _JavaScript()
    functions = lower_algorithm(algorithm)
    fields = _state_fields(algorithm)
    out = [
        f'/* okf_sphinx: the Snowball {version} "{algorithm.name}" stemmer, for okf-stemmer.js.',
        f" * Generated by stemgen from {source}: edit that definition and run `python -m stemgen`.",
        " * The twin of okf_sphinx/core/snowball/" + algorithm.name + ".py (the same routines). */",
        "(function (root) {",
        "  'use strict';",
        "  var S = root && root.OkfStemmer ? root.OkfStemmer : require('./okf-stemmer.js');",
        f"  S.define('{algorithm.name}', function (E) {{",
    ]
    body: list[str] = []
    for name, letters in algorithm.groupings.items():
        body.append(f"  var G_{name} = {_js_str(letters)};")
    for f in functions:
        body += printer.function(f)
    body.append("")
    for a in algorithm.amongs:
        body.append(f"  var A_{a.number} = E.among({_among_groups(printer, algorithm, a.number)});")
    js_values = {"0": "0", "False": "false", '""': "''"}
    init = "".join(f" z.{n} = {js_values[v]};" for n, v in fields)
    body += ["  return function (z) {" + init + " r_stem(z); };"]
    out += ["  " + line if line else line for line in body]
    out += ["  });", "})(this);", ""]
    return "\n".join(out)
