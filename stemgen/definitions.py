"""Reading an algorithm definition (``stemgen/algorithms/<name>.sx``) into a checked tree.

The definitions are S-expressions written for okf_sphinx from the published descriptions of
the Snowball algorithms (snowballstem.org/algorithms).  Their commands have the meaning of
Snowball's own (a string of letters with a cursor, a limit, a slice and signals t/f), so a
definition says what the description says, step for step.  The forms:

Declarations (top level)::

    (integers p1 p2)  (booleans Y_found)  (strings ch)
    (grouping v "aeiouy")                 ; a set of letters
    (grouping v_WXY v "wxY")              ; a union of groupings and letters
    (grouping st_ending s_ending (except "r"))
    (routine NAME command...)             ; works forwards (left to right)
    (routine-back NAME command...)        ; works backwards (from the end)
    (stem command...)                     ; the entry point, forwards

Commands: a string literal matches those letters; a name is a grouping (one letter of it),
a routine (a call), a boolean (its test) or a string variable (its letters); the words
``[ ] delete next atlimit tolimit true false substring``; and the lists::

    (seq C...) (or C...) (and C...) (not C...) (test C...) (try C...) (do C...) (fail C...)
    (repeat C...) (goto C...) (gopast C...) (backwards C...) (non G) (hop N)
    (atleast N C...) (loop N C...) (setlimit (tomark P) C...)
    (setmark P) (tomark P) (atmark P) (set B) (unset B)
    (<- S) (insert S) (attach S) (-> STRVAR) (:= P EXPR) (< A B) (<= A B) (> A B) ...
    (among GROUP...)   GROUP = ((STRING... (STRING ROUTINE)...) C...)   and optionally a first
                       (:pre C...) run after any match, before the group's commands

where several commands in one list are done one after the other.  ``substring`` is the
matching half of the next ``among`` of the same routine (which then only chooses the
commands).  An expression is a number, an integer variable, ``cursor`` or ``limit``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

__all__ = ["Algorithm", "DefinitionError", "Node", "Routine", "read_algorithm"]


class DefinitionError(ValueError):
    """A definition that cannot be read: the message names the file and the form."""


class Sym(str):
    """A bare word of a definition (a string literal stays a plain ``str``)."""


_TOKEN = re.compile(r'\s+|;[^\n]*|(?P<open>\()|(?P<close>\))|"(?P<str>(?:[^"\\]|\\.)*)"|(?P<sym>[^\s()";]+)')
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "u" and len(m.group(1)) == 5 else m.group(1), text)


def read_forms(text: str, where: str) -> list[object]:
    """The top-level forms of ``text``: nested lists of ``Sym``, ``str`` and ``int``."""
    stack: list[list[object]] = [[]]
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise DefinitionError(f"{where}: cannot read at offset {pos}: {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.group("open"):
            stack.append([])
        elif m.group("close"):
            if len(stack) == 1:
                raise DefinitionError(f"{where}: unbalanced ')' at offset {m.start()}")
            done = stack.pop()
            stack[-1].append(done)
        elif m.group("str") is not None:
            stack[-1].append(_unescape(m.group("str")))
        elif m.group("sym"):
            word = m.group("sym")
            stack[-1].append(int(word) if word.isdigit() else Sym(word))
    if len(stack) != 1:
        raise DefinitionError(f"{where}: {len(stack) - 1} unclosed '('")
    return stack[0]


@dataclasses.dataclass
class Node:
    """One command.  ``kind`` names it; ``mode`` is "f" (forwards) or "b" (backwards)."""

    kind: str
    mode: str
    args: tuple = ()
    children: tuple[Node, ...] = ()
    among: Among | None = None


@dataclasses.dataclass
class Among:
    """An among's strings: each with the number of its group's commands (-1: none) and an
    optional routine that must also succeed; ``actions[k - 1]`` are group k's commands."""

    entries: list[tuple[str, int, str | None]]
    actions: list[Node]
    pre: Node | None
    mode: str = "b"
    number: int = 0
    paired: bool = False  # its matching half is a separate ``substring``

    def always_matches(self) -> bool:
        return any(s == "" and cond is None for s, _r, cond in self.entries)


@dataclasses.dataclass
class Routine:
    name: str
    mode: str
    body: Node


@dataclasses.dataclass
class Algorithm:
    name: str
    integers: list[str]
    booleans: list[str]
    strings: list[str]
    groupings: dict[str, str]
    routines: dict[str, Routine]
    amongs: list[Among]


_ATOMS = {"[": "bra", "]": "ket", "delete": "delete", "next": "next", "atlimit": "atlimit",
          "tolimit": "tolimit", "true": "true", "false": "false", "substring": "substring"}
_BLOCKS = {"seq", "or", "and", "not", "test", "try", "do", "fail", "repeat", "goto", "gopast", "backwards"}
_COMPARE = {"<", "<=", ">", ">=", "==", "!="}


class _Reader:
    def __init__(self, name: str, where: str) -> None:
        self.name = name
        self.where = where
        self.integers: list[str] = []
        self.booleans: list[str] = []
        self.strings: list[str] = []
        self.groupings: dict[str, str] = {}
        self.routine_names: dict[str, str] = {}
        self.amongs: list[Among] = []

    def error(self, message: str, form: object) -> DefinitionError:
        return DefinitionError(f"{self.where}: {message}: {_show(form)}")

    def kind_of(self, name: str) -> str | None:
        for kind, names in (("integer", self.integers), ("boolean", self.booleans), ("string", self.strings),
                            ("grouping", self.groupings), ("routine", self.routine_names)):
            if name in names:
                return kind
        return None

    def grouping(self, parts: list[object], form: object) -> str:
        letters: list[str] = []
        for part in parts:
            if isinstance(part, Sym):
                if part not in self.groupings:
                    raise self.error(f"unknown grouping {part!r}", form)
                add = self.groupings[part]
            elif isinstance(part, list) and part[:1] == ["except"]:
                drop = set(self.grouping(part[1:], form))
                letters = [c for c in letters if c not in drop]
                continue
            elif isinstance(part, str):
                add = part
            else:
                raise self.error("a grouping is made of strings, groupings and (except ...)", form)
            letters.extend(c for c in add if c not in letters)
        return "".join(letters)

    def expr(self, form: object) -> object:
        if isinstance(form, int):
            return form
        if form in ("cursor", "limit") or (isinstance(form, Sym) and form in self.integers):
            return form
        raise self.error("an expression is a number, an integer, cursor or limit", form)

    def seq(self, forms: list[object], mode: str, whole: object) -> Node:
        nodes = tuple(self.command(f, mode) for f in forms)
        if not nodes:
            raise self.error("no command", whole)
        return nodes[0] if len(nodes) == 1 else Node("seq", mode, children=nodes)

    def command(self, form: object, mode: str) -> Node:
        if isinstance(form, Sym):
            if form in _ATOMS:
                return Node(_ATOMS[form], mode)
            kind = self.kind_of(form)
            if kind == "grouping":
                return Node("grouping", mode, (str(form),))
            if kind == "routine":
                if self.routine_names[form] != mode:
                    raise self.error(f"routine {form!r} works the other way", form)
                return Node("call", mode, (str(form),))
            if kind == "boolean":
                return Node("booltest", mode, (str(form),))
            if kind == "string":
                return Node("strvar", mode, (str(form),))
            raise self.error("unknown name", form)
        if isinstance(form, str):
            return Node("lit", mode, (form,))
        if not (isinstance(form, list) and form and isinstance(form[0], Sym)):
            raise self.error("not a command", form)
        head, rest = str(form[0]), form[1:]
        if head in _BLOCKS:
            inner = "b" if head == "backwards" else mode
            if head == "backwards" and mode != "f":
                raise self.error("backwards inside a backward routine", form)
            if head in ("or", "and"):
                if len(rest) < 2:
                    raise self.error(f"{head} needs two commands or more", form)
                return Node(head, mode, children=tuple(self.command(f, mode) for f in rest))
            body = self.seq(rest, inner, form)
            return body if head == "seq" else Node(head, mode, children=(body,))
        if head == "non":
            if len(rest) != 1 or self.kind_of(rest[0]) != "grouping":  # type: ignore[arg-type]
                raise self.error("(non GROUPING)", form)
            return Node("non", mode, (str(rest[0]),))
        if head == "hop":
            if len(rest) != 1 or not isinstance(rest[0], int):
                raise self.error("(hop N)", form)
            return Node("hop", mode, (rest[0],))
        if head in ("atleast", "loop"):
            if len(rest) < 2 or not isinstance(rest[0], int):
                raise self.error(f"({head} N command...)", form)
            return Node(head, mode, (rest[0],), (self.seq(rest[1:], mode, form),))
        if head == "setlimit":
            if len(rest) < 2:
                raise self.error("(setlimit (tomark P) command...)", form)
            return Node("setlimit", mode, (), (self.command(rest[0], mode), self.seq(rest[1:], mode, form)))
        if head in ("setmark", "tomark", "atmark"):
            if len(rest) != 1 or rest[0] not in self.integers:
                raise self.error(f"({head} INTEGER)", form)
            return Node(head, mode, (str(rest[0]),))
        if head in ("set", "unset"):
            if len(rest) != 1 or rest[0] not in self.booleans:
                raise self.error(f"({head} BOOLEAN)", form)
            return Node(head, mode, (str(rest[0]),))
        if head in ("<-", "insert", "attach"):
            if len(rest) != 1 or not (isinstance(rest[0], Sym) and rest[0] in self.strings or
                                      isinstance(rest[0], str) and not isinstance(rest[0], Sym)):
                raise self.error(f"({head} STRING)", form)
            value = ("var", str(rest[0])) if isinstance(rest[0], Sym) else ("lit", rest[0])
            return Node({"<-": "slicefrom"}.get(head, head), mode, (value,))
        if head == "->":
            if len(rest) != 1 or rest[0] not in self.strings:
                raise self.error("(-> STRINGVAR)", form)
            return Node("sliceto", mode, (str(rest[0]),))
        if head == ":=":
            if len(rest) != 2 or rest[0] not in self.integers:
                raise self.error("(:= INTEGER EXPR)", form)
            return Node("assign", mode, (str(rest[0]), self.expr(rest[1])))
        if head in _COMPARE:
            if len(rest) != 2:
                raise self.error(f"({head} A B)", form)
            return Node("cmp", mode, (head, self.expr(rest[0]), self.expr(rest[1])))
        if head == "among":
            return self.among(rest, mode, form)
        raise self.error("unknown command", form)

    def among(self, groups: list[object], mode: str, form: object) -> Node:
        pre = None
        if groups and isinstance(groups[0], list) and groups[0][:1] == [":pre"]:
            pre = self.seq(groups[0][1:], mode, form)
            groups = groups[1:]
        entries: list[tuple[str, int, str | None]] = []
        actions: list[Node] = []
        seen: set[str] = set()
        for group in groups:
            if not (isinstance(group, list) and group and isinstance(group[0], list)):
                raise self.error("an among group is ((strings...) command...)", group)
            if len(group) > 1:
                actions.append(self.seq(group[1:], mode, group))
                result = len(actions)
            else:
                result = -1
            for item in group[0]:
                cond = None
                if isinstance(item, list):
                    if len(item) != 2 or not isinstance(item[0], str) or self.kind_of(item[1]) != "routine":  # type: ignore[arg-type]
                        raise self.error("an among string with a condition is (STRING ROUTINE)", item)
                    item, cond = item[0], str(item[1])
                if not isinstance(item, str) or isinstance(item, Sym):
                    raise self.error("an among group starts with its strings", group)
                if item in seen:
                    raise self.error(f"among has {item!r} twice", form)
                seen.add(item)
                entries.append((item, result, cond))
        among = Among(entries, actions, pre, mode, len(self.amongs))
        self.amongs.append(among)
        return Node("among", mode, among=among)


def _show(form: object) -> str:
    if isinstance(form, list):
        return "(" + " ".join(_show(f) for f in form) + ")"
    if isinstance(form, Sym) or isinstance(form, int):
        return str(form)
    return '"' + str(form) + '"'


def _pair_substrings(routine: Routine, reader: _Reader) -> None:
    """Each ``substring`` takes the next ``among`` of its routine (in the order written)."""
    pending: list[Node] = []

    def walk(node: Node) -> None:
        if node.kind == "substring":
            if pending:
                raise reader.error("two substrings before an among", routine.name)
            pending.append(node)
        elif node.kind == "among":
            assert node.among is not None
            if pending:
                sub = pending.pop()
                node.among.paired = True
                node.among.mode = sub.mode
                sub.among = node.among
            else:
                node.among.mode = node.mode
            if node.among.pre is not None:
                walk(node.among.pre)
            for action in node.among.actions:
                walk(action)
            return
        for child in node.children:
            walk(child)

    walk(routine.body)
    if pending:
        raise reader.error("substring without an among", routine.name)


def read_algorithm(path: Path) -> Algorithm:
    """The checked definition in ``path`` (its name is the file's stem)."""
    where = str(path)
    forms = read_forms(path.read_text("utf-8"), where)
    reader = _Reader(path.stem, where)
    bodies: list[tuple[str, str, list[object], object]] = []
    for form in forms:
        if not (isinstance(form, list) and form and isinstance(form[0], Sym)):
            raise reader.error("a top-level form is a list", form)
        head = form[0]
        if head in ("integers", "booleans", "strings"):
            names = [str(n) for n in form[1:]]
            if any(not isinstance(n, Sym) or reader.kind_of(n) for n in form[1:]):
                raise reader.error("names must be new words", form)
            getattr(reader, head).extend(names)
        elif head == "grouping":
            if len(form) < 3 or not isinstance(form[1], Sym) or reader.kind_of(form[1]):
                raise reader.error("(grouping NEWNAME part...)", form)
            reader.groupings[str(form[1])] = reader.grouping(form[2:], form)
        elif head in ("routine", "routine-back", "stem"):
            if head == "stem":
                name, body = "stem", form[1:]
            else:
                if len(form) < 3 or not isinstance(form[1], Sym) or reader.kind_of(form[1]):
                    raise reader.error(f"({head} NEWNAME command...)", form)
                name, body = str(form[1]), form[2:]
            if name in reader.routine_names:
                raise reader.error("routine defined twice", form)
            mode = "b" if head == "routine-back" else "f"
            reader.routine_names[name] = mode
            bodies.append((name, mode, body, form))
        else:
            raise reader.error("unknown top-level form", form)
    if "stem" not in reader.routine_names:
        raise DefinitionError(f"{where}: no (stem ...)")
    routines: dict[str, Routine] = {}
    for name, mode, body, form in bodies:
        routines[name] = Routine(name, mode, reader.seq(body, mode, form))
        _pair_substrings(routines[name], reader)
    return Algorithm(path.stem, reader.integers, reader.booleans, reader.strings, reader.groupings,
                     routines, reader.amongs)
