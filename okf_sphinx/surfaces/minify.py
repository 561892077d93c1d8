"""The browser files' minifier: what a site ships of ``okf_sphinx/js/`` and ``static/``, with
comments and spaces dropped and the local names shortened, and a source map back to the
readable files.

It reads the JavaScript okf_sphinx writes (ES5, plus ``async`` / ``await``), not every
JavaScript: a construct outside that set — ``let``, ``const``, classes, arrow functions,
template literals, spread, labels, getters, ``with``, ``eval`` — is a :class:`MinifyError`
naming the file and line, so a source that grows one fails the build's tests rather than
shipping a wrong file.  What it does:

- **tokens**: strings, numbers, regular expressions (told from a division by the token
  before), names and punctuators; comments and spaces go;
- **line breaks**: dropped where no statement can end; kept where one may (after a value —
  a name, literal, ``)``, ``]`` or ``}`` — before a token that cannot continue it or that
  would continue it only without the break: a name, keyword, literal, ``{``, ``!``, ``~``,
  ``(``, ``[``, ``+``, ``-``, ``/``; and after ``return``, ``throw``, ``break``,
  ``continue``), so a source that leaves a semicolon to the line break keeps its meaning;
  written as the separator where two words need one;
- **names**: every function's parameters, ``var`` declarations, function declarations and
  ``catch`` parameters get the shortest name free in their scope (the most used first),
  never a global's or an outer name the scope reads; the file's top-level names (globals),
  property names and object keys stay;
- **source map** (version 3): every token back to its file, line and column, with the
  readable sources inside (``sourcesContent``), so a browser's developer tools show the
  files of ``okf_sphinx/js/`` and ``static/``.

The output depends only on the input: builds stay byte-identical.  Measured on the
runtime (bench/bench_footprint.py --page-weight): see bench/NOTEBOOK.md.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from collections.abc import Iterator


class MinifyError(ValueError):
    """A source the minifier does not read (see the module's docstring for the subset)."""


KEYWORDS = frozenset(
    "break case catch class const continue debugger default delete do else enum export extends false finally for "
    "function if import in instanceof new null return super switch this throw true try typeof var void while with "
    "yield let static implements package protected interface private public await".split()
)
#: words after which a ``/`` starts a regular expression (and the keywords that end no expression)
_BEFORE_EXPRESSION = frozenset("return typeof instanceof in of new delete void throw case do else await yield".split())
#: tokens that end an expression: a line break after one may be a statement's end
_VALUE_KEYWORDS = frozenset(("this", "null", "true", "false", "super"))
_RESTRICTED = frozenset(("return", "throw", "break", "continue"))
_CONTINUES = frozenset(("(", "[", "+", "-", "++", "--", "/", "/="))
_UNSUPPORTED = {"let": "let", "const": "const", "class": "class", "with": "with", "=>": "an arrow function",
                "...": "spread", "`": "a template literal", "switch": "switch", "yield": "yield", "eval": "eval",
                "debugger": "debugger"}

_PUNCTUATORS = sorted(
    ">>>= ... === !== **= <<= >>= >>> => == != <= >= && || ?? ++ -- += -= *= /= %= &= |= ^= << >> ** "
    "{ } ( ) [ ] ; , < > + - * / % & | ^ ! ~ ? : = . @ #".split(),
    key=len, reverse=True,
)
_TOKEN = re.compile(
    r"""(?P<space>[ \t\f\v\u00a0\ufeff]+)
      | (?P<newline>\r\n|[\n\r\u2028\u2029])
      | (?P<comment>//[^\n\r\u2028\u2029]*|/\*[\s\S]*?\*/)
      | (?P<string>'(?:[^'\\\n\r]|\\[\s\S])*'|"(?:[^"\\\n\r]|\\[\s\S])*")
      | (?P<number>0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
      | (?P<name>[A-Za-z_$][A-Za-z0-9_$]*)
      | (?P<punct>""" + "|".join(re.escape(p) for p in _PUNCTUATORS) + r""")
      | (?P<tick>`)""",
    re.X,
)
_BREAK = re.compile(r"\r\n|[\n\r\u2028\u2029]")
_REGEX = re.compile(r"/(?:[^/\\\[\n\r]|\\.|\[(?:[^\]\\\n\r]|\\.)*\])+/[A-Za-z]*")


@dataclass
class Token:
    kind: str  # name, keyword, number, string, regex, punct
    text: str
    source: int  # index in the sources
    line: int  # 0-based
    column: int  # 0-based, in UTF-16 code units (as source maps count)
    newline_before: bool = False
    rename: str | None = None


def tokens(sources: list[tuple[str, str]]) -> list[Token]:
    """The significant tokens of ``sources`` ((name, text) pairs, read one after another)."""
    out: list[Token] = []
    for index, (name, text) in enumerate(sources):
        pos, line, line_start, newline = 0, 0, 0, True
        while pos < len(text):
            prev = out[-1] if out else None
            if text[pos] == "/" and _regex_allowed(prev) and not text.startswith(("//", "/*"), pos):
                m = _REGEX.match(text, pos)
                if not m:
                    raise MinifyError(f"{name}:{line + 1}: unterminated regular expression")
                kind, value = "regex", m.group()
            else:
                m = _TOKEN.match(text, pos)
                if not m:
                    raise MinifyError(f"{name}:{line + 1}: cannot read {text[pos:pos + 20]!r}")
                kind = m.lastgroup or ""
                value = m.group()
            if kind == "tick":
                raise MinifyError(f"{name}:{line + 1}: a template literal (not in the minifier's subset)")
            breaks = len(_BREAK.findall(value))
            if kind in ("space", "newline", "comment"):
                newline = newline or breaks > 0
            else:
                if kind == "name" and value in KEYWORDS:
                    kind = "keyword"
                column = len(text[line_start:pos].encode("utf-16-le")) // 2
                out.append(Token(kind, value, index, line, column, newline))
                newline = False
            if breaks:
                line += breaks
                last = max(value.rfind("\n"), value.rfind("\r"), value.rfind("\u2028"), value.rfind("\u2029"))
                line_start = pos + last + 1
            pos = m.end()
    return out


def _regex_allowed(prev: Token | None) -> bool:
    if prev is None:
        return True
    if prev.kind in ("name", "number", "string", "regex"):
        return False
    if prev.kind == "keyword":
        return prev.text in _BEFORE_EXPRESSION
    return prev.text not in (")", "]")


# -- scopes ---------------------------------------------------------------------------------------


@dataclass(eq=False)
class Scope:
    parent: Scope | None
    function: bool  # a function's scope (var and function declarations land here), else a catch clause
    names: dict[str, list[int]] = field(default_factory=dict)  # declared name -> its tokens
    children: list[Scope] = field(default_factory=list)
    through: set[tuple[Scope | None, str]] = field(default_factory=set)  # (declaring scope or None, name) read from below

    def declare(self, name: str, at: int) -> None:
        self.names.setdefault(name, []).append(at)

    def hoist(self) -> Scope:
        scope = self
        while not scope.function:
            scope = scope.parent  # type: ignore[assignment]
        return scope


def _fail(sources: list[tuple[str, str]], tok: Token, what: str) -> MinifyError:
    return MinifyError(f"{sources[tok.source][0]}:{tok.line + 1}: {what} (not in the minifier's subset)")


def scopes(toks: list[Token], sources: list[tuple[str, str]]) -> Scope:
    """The scope tree of ``toks``: declarations recorded in their scopes, each reference in
    ``refs`` of the scope it is read in; returns the program scope (its names are globals)."""
    program = Scope(None, True)
    scope = program
    refs: list[tuple[int, Scope]] = []
    stack: list[tuple[str, Scope | None]] = []  # open brackets: ("{body"|"{block"|"{object"|"("|"[", scope to restore)
    var_depths: list[list[int]] = []  # per open var statement: [bracket depth, expecting a name]
    pending: Scope | None = None  # a function or catch scope whose body's "{" comes next
    n = len(toks)

    def sig(i: int) -> Token | None:
        return toks[i] if 0 <= i < n else None

    i = 0
    while i < n:
        tok = toks[i]
        text, kind = tok.text, tok.kind
        prev = sig(i - 1)
        after_dot = prev is not None and prev.text == "." and prev.kind == "punct"
        nxt = sig(i + 1)
        in_object = bool(stack) and stack[-1][0] == "{object"
        if in_object and kind in ("name", "keyword", "string", "number") and prev is not None and prev.text in ("{", ",") \
                and nxt is not None and nxt.text == ":":
            i += 1
            continue  # an object key
        if text in _UNSUPPORTED and not after_dot and (kind != "name" or text == "eval") and kind != "string":
            raise _fail(sources, tok, _UNSUPPORTED[text])
        if var_depths and var_depths[-1][0] == len(stack) and not var_depths[-1][1] and tok.newline_before \
                and prev is not None and _ends_value(prev) and kind in ("name", "keyword"):
            raise _fail(sources, tok, "a var statement without its semicolon")
        if kind == "keyword" and text == "function" and not after_dot:
            before, first = prev, i
            if before is not None and before.kind == "name" and before.text == "async":
                before, first = sig(i - 2), i - 1
            # a statement starts: after ; { } or after the line break that ended one (a value before it)
            declaration = before is None or before.text in (";", "{", "}") or (toks[first].newline_before and _ends_value(before))
            if declaration and stack and stack[-1][0] == "{object":
                declaration = False
            if declaration and stack and stack[-1][0] == "{block":
                raise _fail(sources, tok, "a function declared in a block")
            j = i + 1
            if sig(j) and sig(j).text == "*":  # type: ignore[union-attr]
                raise _fail(sources, tok, "a generator")
            inner = Scope(scope, True)
            scope.children.append(inner)
            if sig(j) and sig(j).kind == "name":  # type: ignore[union-attr]
                (scope.hoist() if declaration else inner).declare(toks[j].text, j)
                j += 1
            if not (sig(j) and sig(j).text == "("):  # type: ignore[union-attr]
                raise _fail(sources, tok, "a function without parameters in parentheses")
            j += 1
            while sig(j) and sig(j).text != ")":  # type: ignore[union-attr]
                p = toks[j]
                if p.kind == "name":
                    inner.declare(p.text, j)
                elif p.text != ",":
                    raise _fail(sources, p, "a parameter that is not a plain name")
                j += 1
            pending = inner
            i = j + 1
            continue
        if kind == "keyword" and text == "catch" and not after_dot:
            if not (sig(i + 1) and sig(i + 1).text == "(" and sig(i + 2) and sig(i + 2).kind == "name"  # type: ignore[union-attr]
                    and sig(i + 3) and sig(i + 3).text == ")"):  # type: ignore[union-attr]
                raise _fail(sources, tok, "a catch clause without one named parameter")
            inner = Scope(scope, False)
            scope.children.append(inner)
            inner.declare(toks[i + 2].text, i + 2)
            pending = inner
            i += 4
            continue
        if kind == "keyword" and text == "var" and not after_dot:
            var_depths.append([len(stack), 1])
            i += 1
            continue
        if kind == "punct":
            if text == "{":
                if pending is not None:
                    stack.append(("{body", scope))
                    scope, pending = pending, None
                elif prev is None or prev.text in (")", ";", "{", "}") or (prev.kind == "keyword" and prev.text in ("else", "try", "finally", "do")) \
                        or (tok.newline_before and _ends_value(prev)):  # a block after the line break that ended a statement
                    stack.append(("{block", None))
                else:
                    stack.append(("{object", None))
            elif text in ("(", "["):
                stack.append((text, None))
            elif text in (")", "]", "}"):
                if not stack:
                    raise _fail(sources, tok, f"an unmatched {text!r}")
                opened, restore = stack.pop()
                if opened[0] != {")": "(", "]": "[", "}": "{"}[text]:
                    raise _fail(sources, tok, f"{text!r} closing {opened[0]!r}")
                if opened == "{body":
                    scope = restore  # type: ignore[assignment]
                while var_depths and var_depths[-1][0] > len(stack):
                    var_depths.pop()
            elif text == ";" and var_depths and var_depths[-1][0] == len(stack):
                var_depths.pop()
            elif text == "," and var_depths and var_depths[-1][0] == len(stack):
                var_depths[-1][1] = 1
            elif text == ":" and prev is not None and prev.kind == "name" and (prev_prev := sig(i - 2)) is not None \
                    and prev_prev.text in (";", "{", "}") and not (stack and stack[-1][0] == "{object"):
                raise _fail(sources, prev, "a label")
            if pending is not None and text != "{":
                raise _fail(sources, tok, "a function or catch clause without a body")
            i += 1
            continue
        if kind == "keyword" and text == "in" and var_depths and var_depths[-1][0] == len(stack):
            var_depths.pop()  # for (var k in o)
        if kind == "name" and not after_dot:
            if text == "async" and nxt is not None and nxt.text == "function":
                i += 1
                continue
            if in_object and prev is not None and prev.text in ("{", ","):
                if text in ("get", "set") and nxt is not None and nxt.kind in ("name", "keyword", "string"):
                    raise _fail(sources, tok, "a getter or setter")
                raise _fail(sources, tok, "a shorthand property or method")
            if var_depths and var_depths[-1][0] == len(stack) and var_depths[-1][1]:
                scope.hoist().declare(text, i)
                var_depths[-1][1] = 0
            else:
                refs.append((i, scope))
        elif kind == "keyword" and var_depths and var_depths[-1][0] == len(stack):
            var_depths[-1][1] = 0
        elif var_depths and var_depths[-1][0] == len(stack):
            var_depths[-1][1] = 0
        i += 1
    if stack:
        raise _fail(sources, toks[-1], f"{len(stack)} unclosed bracket(s)")
    _resolve(refs, toks)
    return program


def _resolve(refs: list[tuple[int, Scope]], toks: list[Token]) -> None:
    for at, where in refs:
        name = toks[at].text
        found: Scope | None = where
        while found is not None and name not in found.names:
            found = found.parent
        if found is not None and found.parent is not None:
            found.names[name].append(at)
        key = (found if found is not None and found.parent is not None else None, name)
        s: Scope | None = where
        while s is not None and s is not found:
            s.through.add(key)
            s = s.parent


def _short_names() -> Iterator[str]:
    first = "etnrisoaludcpfhmgbvykwxjqzETNRISOALUDCPFHMGBVYKWXJQZ_$"
    rest = first + "0123456789"
    yield from first
    size = 1
    while True:
        for stem in _words(first, rest, size):
            for c in rest:
                yield stem + c
        size += 1


def _words(first: str, rest: str, size: int) -> Iterator[str]:
    if size == 1:
        yield from first
        return
    for stem in _words(first, rest, size - 1):
        for c in rest:
            yield stem + c


def mangle(program: Scope, toks: list[Token]) -> None:
    """Give every binding below the program scope its short name (set on its tokens)."""
    new: dict[tuple[int, str], str] = {}

    def visit(scope: Scope) -> None:
        if scope.parent is not None:
            taken = {new.get((id(s), name), name) if s is not None else name for s, name in scope.through}
            order = sorted(scope.names, key=lambda nm: (-len(scope.names[nm]), min(scope.names[nm])))
            names = (c for c in _short_names() if c not in KEYWORDS and c not in taken)
            for nm in order:
                short = next(names)
                new[(id(scope), nm)] = short
                for at in scope.names[nm]:
                    toks[at].rename = short
        for child in scope.children:
            visit(child)

    visit(program)


# -- output ---------------------------------------------------------------------------------------


def _word(tok: Token) -> bool:
    return tok.kind in ("name", "keyword", "number", "regex")


def _ends_value(tok: Token) -> bool:
    return (tok.kind in ("name", "number", "string", "regex") or (tok.kind == "keyword" and tok.text in _VALUE_KEYWORDS)
            or tok.text in (")", "]", "}"))


def _starts_statement(tok: Token) -> bool:
    """``tok`` cannot continue an expression (so a line break before it, after a value, may be
    the end of a statement the source left to automatic semicolon insertion)."""
    return tok.kind in ("name", "number", "string") or (tok.kind == "keyword" and tok.text not in ("in", "instanceof")) \
        or tok.text in ("{", "!", "~")


def _separator(a: Token, b: Token) -> str:
    line = "\n" if b.newline_before else ""
    if line and (a.text in _RESTRICTED and a.kind == "keyword" or (
            _ends_value(a) and (b.text in _CONTINUES or b.kind == "regex" or _starts_statement(b)))):
        return "\n"
    at, bt = a.rename or a.text, b.rename or b.text
    if (_word(a) and (b.kind in ("name", "keyword", "number"))) or (a.kind == "number" and bt.startswith(".")):
        return line or " "
    if (at[-1] in "+-" and bt[0] == at[-1]) or (at.endswith("/") and b.kind == "regex") or (at[-1] == "<" and bt[0] == "!") \
            or (at.endswith("--") and bt[0] == ">"):
        return line or " "
    return ""


_VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _vlq(value: int) -> str:
    v = (-value << 1) | 1 if value < 0 else value << 1
    out = ""
    while True:
        digit = v & 31
        v >>= 5
        out += _VLQ[digit | (32 if v else 0)]
        if not v:
            return out


@dataclass(frozen=True)
class Minified:
    text: str  # the minified script (ending with its sourceMappingURL comment when it has a map)
    map: str | None  # the source map's JSON, or None


def minify(sources: list[tuple[str, str]], *, map_file: str | None = None, head: str = "") -> Minified:
    """``sources`` ((name, text) pairs) minified as one script; with ``map_file`` (the map's
    file name, beside the script) a source map is made and the script names it."""
    return _minify(tuple(sources), map_file, head)


@functools.lru_cache(maxsize=64)
def _minify(sources: tuple[tuple[str, str], ...], map_file: str | None, head: str) -> Minified:
    src = list(sources)
    toks = tokens(src)
    mangle(scopes(toks, src), toks)
    out: list[str] = [head]
    line, col = head.count("\n"), len(head.rsplit("\n", 1)[-1])
    mappings: list[list[tuple[int, ...]]] = [[] for _ in range(line + 1)]
    names: dict[str, int] = {}
    prev: Token | None = None
    for tok in toks:
        if prev is not None:
            sep = _separator(prev, tok)
            if sep == "\n":
                out.append("\n")
                line, col = line + 1, 0
                mappings.append([])
            elif sep:
                out.append(sep)
                col += 1
        text = tok.rename or tok.text
        seg: tuple[int, ...] = (col, tok.source, tok.line, tok.column)
        if tok.rename:
            seg += (names.setdefault(tok.text, len(names)),)
        mappings[line].append(seg)
        out.append(text)
        col += len(text.encode("utf-16-le")) // 2
        prev = tok
    if map_file is None:
        return Minified("".join(out) + "\n", None)
    out.append(f"\n//# sourceMappingURL={map_file}\n")
    encoded, state = [], [0, 0, 0, 0]
    for segs in mappings:
        parts, gen = [], 0
        for seg in segs:
            part = _vlq(seg[0] - gen) + "".join(_vlq(seg[k] - state[k - 1]) for k in (1, 2, 3))
            gen = seg[0]
            state[0], state[1], state[2] = seg[1], seg[2], seg[3]
            if len(seg) == 5:
                part += _vlq(seg[4] - state[3])
                state[3] = seg[4]
            parts.append(part)
        encoded.append(",".join(parts))
    smap = {"version": 3, "file": map_file[: -len(".map")] if map_file.endswith(".map") else map_file,
            "sources": [name for name, _ in src], "sourcesContent": [text for _, text in src],
            "names": list(names), "mappings": ";".join(encoded)}
    return Minified("".join(out), json.dumps(smap, ensure_ascii=False, separators=(",", ":")) + "\n")
