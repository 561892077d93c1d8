"""A checked definition -> functions of statements, the same for Python and JavaScript.

Every function takes the stemming state ``z`` (``s`` the word, ``c`` the cursor, ``l`` the
limit, ``lb`` the backward limit, ``bra``/``ket`` the slice, and the algorithm's variables)
and answers True (the signal t) or False (f).  A failing command runs its failure
statements, which always end in ``return False``; a command that catches a failure
(``or``, ``not``, ``try``, ``do``, ``repeat``, ``goto`` ...) runs the caught command as a
condition: an expression when it is one test, else a helper function of its own.  A slice
that cannot be taken (``delete``, ``<-``, ``->``) leaves the whole routine with f, as
Snowball's generated code does: the runtime raises ``Abort``, which each routine catches.

Where a command saves and restores the cursor, it does so exactly when Snowball's own code
generator does (``_moves`` is its K_needed, ``_repeat_restore`` its repeat_restore): the
two differ from "always" only around a ``not`` that fails after moving the cursor, and the
stems must be Snowball's there too.

Statements: ("if", cond, then, else) ("while", body) ("break",) ("continue",) ("ret", e)
("do", e) ("let", target, e).  Expressions: ("z", field) ("local", name) ("num", n)
("bool", b) ("str", s) ("m", method, args...) (a runtime method of z) ("f", function, args...)
("zz",) (z itself) ("g", grouping) ("a", among number) ("bin", op, a, b) ("not", e).
"""

from __future__ import annotations

import dataclasses

from .definitions import Algorithm, Among, DefinitionError, Node

__all__ = ["Function", "lower_algorithm"]

Expr = tuple
Stmt = tuple
RETURN_FALSE: list[Stmt] = [("ret", ("bool", False))]
_CURSOR = ("z", "c")
_FIXED_KINDS = {"atlimit", "do", "bra", "ket", "assign", "cmp", "sliceto", "booltest", "set", "unset",
                "true", "false", "not"}  # commands Snowball's generator takes as leaving c alone
_REPEAT_FREE = {"bra", "ket", "assign", "cmp", "sliceto"}
_REPEAT_ONE = {"strvar", "lit", "next", "grouping", "non", "hop"}


@dataclasses.dataclass
class Function:
    name: str
    body: list[Stmt]
    routine: bool  # a routine of the definition, not a helper
    catches: bool = False  # takes a slice (delete, <-, ->): catches Abort, answering f


def _var(name: str, prefix: str) -> Expr:
    return ("z", prefix + name)


def _int_expr(value: object) -> Expr:
    if isinstance(value, int):
        return ("num", value)
    if value == "cursor":
        return _CURSOR
    if value == "limit":
        return ("z", "l")
    return _var(str(value), "i_")


class _Lowering:
    def __init__(self, algorithm: Algorithm) -> None:
        self.algorithm = algorithm
        self.functions: list[Function] = []
        self.current: Function | None = None
        self.counter = 0
        self.temps = 0
        self.routine = ""

    # -- analysis, as Snowball's generator does it ---------------------------------------
    def _moves(self, node: Node, depth: int = 0) -> bool:
        if node.kind in _FIXED_KINDS:
            return False
        if node.kind == "seq":
            return any(self._moves(child, depth) for child in node.children)
        if node.kind == "call":
            return depth >= 100 or self._moves(self.algorithm.routines[node.args[0]].body, depth + 1)
        return True

    def _repeat_score(self, node: Node, depth: int = 0) -> int:
        if node.kind in _REPEAT_FREE:
            return 0
        if node.kind == "call":
            return 2 if depth >= 100 else self._repeat_score(self.algorithm.routines[node.args[0]].body, depth + 1)
        if node.kind == "seq":
            score = 0
            for child in node.children:
                score += self._repeat_score(child, depth)
                if score >= 2:
                    break
            return score
        if node.kind in _REPEAT_ONE or node.kind in ("goto", "gopast") and node.children[0].kind in ("grouping", "non"):
            return 1
        return 2

    def _repeat_restore(self, node: Node) -> bool:
        return self._repeat_score(node) >= 2

    def can_fail(self, node: Node) -> bool:
        k = node.kind
        if k in ("bra", "ket", "setmark", "set", "unset", "assign", "true", "try", "do", "repeat", "tolimit",
                 "insert", "attach", "delete", "slicefrom", "sliceto"):
            return False
        if k in ("seq", "and"):
            return any(self.can_fail(child) for child in node.children)
        if k == "or":
            return all(self.can_fail(child) for child in node.children)
        if k in ("backwards", "test", "loop"):
            return self.can_fail(node.children[0])
        if k in ("among", "substring"):
            among = node.among
            assert among is not None
            if k == "substring" or not among.paired:
                if not among.always_matches():
                    return True
            if k == "substring":
                return False
            return (among.pre is not None and self.can_fail(among.pre)) or any(self.can_fail(a) for a in among.actions)
        return True

    # -- helpers ---------------------------------------------------------------------------
    def temp(self, stem: str) -> Expr:
        self.temps += 1
        return ("local", f"{stem}{self.temps}")

    def save(self, node: Node) -> tuple[list[Stmt], list[Stmt]]:
        """Statements that save the cursor and restore it (backwards: its distance from the
        limit, so that a change of the string's end keeps it in place)."""
        v = self.temp("v")
        if node.mode == "f":
            return [("let", v, _CURSOR)], [("let", _CURSOR, v)]
        return [("let", v, ("bin", "-", ("z", "l"), _CURSOR))], [("let", _CURSOR, ("bin", "-", ("z", "l"), v))]

    def simple(self, node: Node) -> Expr | None:
        """``node`` as one expression (True: t, with its effect; False: f), if it is one test."""
        k, b = node.kind, node.mode == "b"
        suffix = "_b" if b else ""
        if k == "lit":
            return ("m", "eq" + suffix, ("str", node.args[0]))
        if k == "strvar":
            return ("m", "eq" + suffix, _var(node.args[0], "s_"))
        if k == "grouping":
            return ("m", "ing" + suffix, ("g", node.args[0]))
        if k == "non":
            return ("m", "outg" + suffix, ("g", node.args[0]))
        if k == "next":
            return ("m", "next" + suffix)
        if k == "hop":
            return ("m", "hop" + suffix, ("num", node.args[0]))
        if k == "call":
            return ("f", "r_" + node.args[0], ("zz",))
        if k == "booltest":
            return _var(node.args[0], "b_")
        if k == "cmp":
            op, left, right = node.args
            return ("bin", op, _int_expr(left), _int_expr(right))
        if k == "atlimit":
            return ("bin", "<=", _CURSOR, ("z", "lb")) if b else ("bin", ">=", _CURSOR, ("z", "l"))
        if k == "atmark":
            return ("bin", "==", _CURSOR, _var(node.args[0], "i_"))
        if k == "true":
            return ("bool", True)
        if k == "false":
            return ("bool", False)
        if k in ("goto", "gopast") and node.children[0].kind in ("grouping", "non"):
            inner = node.children[0]
            method = f"{k}_{'g' if inner.kind == 'grouping' else 'ng'}{suffix}"
            return ("m", method, ("g", inner.args[0]))
        if k == "among" and not node.among.paired and node.among.pre is None and not node.among.actions:  # type: ignore[union-attr]
            return self.find(node.among)  # type: ignore[arg-type]
        return None

    def find(self, among: Among) -> Expr:
        return ("m", "find" + ("_b" if among.mode == "b" else ""), ("a", among.number))

    def condition(self, node: Node) -> Expr | None:
        """An expression for ``node`` as a caught condition, or None when ``node`` cannot
        fail (then its statements are run in line by the caller)."""
        expr = self.simple(node)
        if expr is not None:
            return expr
        if not self.can_fail(node):
            return None
        return ("f", self.helper(node), ("zz",))

    def helper(self, node: Node) -> str:
        assert self.current is not None
        self.counter += 1
        name = f"h_{self.routine}_{self.counter}"
        outer, outer_temps = self.current, self.temps
        self.current = Function(name, [], routine=False)
        self.temps = 0
        body = self.lower(node, RETURN_FALSE) + [("ret", ("bool", True))]
        self.current.body = body
        self.functions.append(self.current)
        self.current, self.temps = outer, outer_temps
        return name

    # -- commands ------------------------------------------------------------------------
    def lower(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        method = getattr(self, "c_" + node.kind, None)
        if method is not None:
            return method(node, fail)
        expr = self.simple(node)
        if expr is None:
            raise DefinitionError(f"{self.algorithm.name}: cannot lower {node.kind}")
        if expr == ("bool", True):
            return []
        if expr == ("bool", False):
            return list(fail)
        return [("if", ("not", expr), list(fail), [])]

    def c_seq(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for child in node.children:
            out += self.lower(child, fail)
        return out

    def c_bra(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("let", ("z", "ket" if node.mode == "b" else "bra"), _CURSOR)]

    def c_ket(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("let", ("z", "bra" if node.mode == "b" else "ket"), _CURSOR)]

    def c_setmark(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("let", _var(node.args[0], "i_"), _CURSOR)]

    def c_tomark(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        mark = _var(node.args[0], "i_")
        past = ("bin", "<" if node.mode == "b" else ">", _CURSOR, mark)
        return [("if", past, list(fail), []), ("let", _CURSOR, mark)]

    def c_set(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("let", _var(node.args[0], "b_"), ("bool", True))]

    def c_unset(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("let", _var(node.args[0], "b_"), ("bool", False))]

    def c_assign(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("let", _var(node.args[0], "i_"), _int_expr(node.args[1]))]

    def c_tolimit(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("let", _CURSOR, ("z", "lb" if node.mode == "b" else "l"))]

    def _text(self, value: tuple) -> Expr:
        return ("str", value[1]) if value[0] == "lit" else _var(value[1], "s_")

    def c_delete(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("do", ("m", "slice_from", ("str", "")))]

    def c_slicefrom(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("do", ("m", "slice_from", self._text(node.args[0])))]

    def c_insert(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        # forwards the cursor ends after the text, backwards before it ("attach": the other way)
        keep = node.mode == "b"
        return [("do", ("m", "insert_keep" if keep else "insert", self._text(node.args[0])))]

    def c_attach(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        keep = node.mode == "f"
        return [("do", ("m", "insert_keep" if keep else "insert", self._text(node.args[0])))]

    def c_sliceto(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return [("let", _var(node.args[0], "s_"), ("m", "slice_to"))]

    def c_and(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        keep = any(self._moves(child) for child in node.children)
        save, restore = self.save(node) if keep else ([], [])
        out = list(save)
        for i, child in enumerate(node.children):
            out += self.lower(child, fail)
            if i < len(node.children) - 1:
                out += restore
        return out

    def c_or(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        keep = any(self._moves(child) for child in node.children)
        save, restore = self.save(node) if keep else ([], [])

        def chain(alternatives: tuple[Node, ...]) -> list[Stmt]:
            first, rest = alternatives[0], alternatives[1:]
            if not rest:
                return self.lower(first, fail)
            cond = self.condition(first)
            if cond is None:  # cannot fail: the alternatives after it are never tried
                return self.lower(first, fail)
            return [("if", ("not", cond), restore + chain(rest), [])]

        return save + chain(node.children)

    def c_not(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        child = node.children[0]
        save, restore = self.save(node) if self._moves(child) else ([], [])
        cond = self.condition(child)
        if cond is None:
            return save + self.lower(child, fail) + list(fail)
        return save + [("if", cond, list(fail), [])] + restore

    def c_try(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        child = node.children[0]
        save, restore = self.save(node) if self._moves(child) else ([], [])
        cond = self.condition(child)
        if cond is None:
            return save + self.lower(child, fail)
        if not restore:
            return [("do", cond)]
        return save + [("if", ("not", cond), restore, [])]

    def c_test(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        child = node.children[0]
        save, restore = self.save(node) if self._moves(child) else ([], [])
        return save + self.lower(child, fail) + restore

    def c_do(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        child = node.children[0]
        save, restore = self.save(node) if self._moves(child) else ([], [])
        cond = self.condition(child)
        if cond is None:
            return save + self.lower(child, fail) + restore
        return save + [("do", cond)] + restore

    def c_fail(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return self.lower(node.children[0], fail) + list(fail)

    def _loop_condition(self, child: Node, what: str) -> Expr:
        cond = self.condition(child)
        if cond is None:
            raise DefinitionError(f"{self.algorithm.name}: {what} of a command that cannot fail never ends")
        return cond

    def c_repeat(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        child = node.children[0]
        save, restore = self.save(node) if self._repeat_restore(child) else ([], [])
        cond = self._loop_condition(child, "repeat")
        return [("while", save + [("if", cond, [("continue",)], [])] + restore + [("break",)])]

    def c_atleast(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        child = node.children[0]
        count = self.temp("n")
        save, restore = self.save(node) if self._repeat_restore(child) else ([], [])
        cond = self._loop_condition(child, "atleast")
        again = [("let", count, ("bin", "-", count, ("num", 1))), ("continue",)]
        return [("let", count, ("num", node.args[0])),
                ("while", save + [("if", cond, again, [])] + restore + [("break",)]),
                ("if", ("bin", ">", count, ("num", 0)), list(fail), [])]

    def c_loop(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for _ in range(node.args[0]):
            out += self.lower(node.children[0], fail)
        return out

    def _go(self, node: Node, fail: list[Stmt], is_goto: bool) -> list[Stmt]:
        expr = self.simple(node)
        if expr is not None:  # a grouping: the runtime's scan
            return [("if", ("not", expr), list(fail), [])]
        child = node.children[0]
        keep = is_goto or self._repeat_restore(child)
        save, restore = self.save(node) if keep else ([], [])
        cond = self.condition(child)
        if cond is None:
            return save + self.lower(child, fail) + (restore if is_goto else [])
        back = node.mode == "b"
        at_end = ("bin", "<=", _CURSOR, ("z", "lb")) if back else ("bin", ">=", _CURSOR, ("z", "l"))
        step = ("let", _CURSOR, ("bin", "-" if back else "+", _CURSOR, ("num", 1)))
        found = (restore if is_goto else []) + [("break",)]
        return [("while", save + [("if", cond, found, [])] + restore + [("if", at_end, list(fail), []), step])]

    def c_goto(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return self._go(node, fail, True)

    def c_gopast(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return self._go(node, fail, False)

    def c_backwards(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        return ([("let", ("z", "lb"), _CURSOR), ("let", _CURSOR, ("z", "l"))]
                + self.lower(node.children[0], fail) + [("let", _CURSOR, ("z", "lb"))])

    def c_setlimit(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        control, body = node.children
        if control.kind != "tomark":
            raise DefinitionError(f"{self.algorithm.name}: only (setlimit (tomark P) ...) is supported")
        mark = _var(control.args[0], "i_")
        saved = self.temp("lim")
        if node.mode == "b":
            setup = [("if", ("bin", "<", _CURSOR, mark), list(fail), []),
                     ("let", saved, ("z", "lb")), ("let", ("z", "lb"), mark)]
            undo = [("let", ("z", "lb"), saved)]
        else:
            setup = [("if", ("bin", ">", _CURSOR, mark), list(fail), []),
                     ("let", saved, ("bin", "-", ("z", "l"), _CURSOR)), ("let", ("z", "l"), mark)]
            undo = [("let", ("z", "l"), ("bin", "+", ("z", "l"), saved))]
        return setup + self.lower(body, undo + list(fail)) + undo

    def c_substring(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        # the among that chooses by this match may be in another function (a caught
        # alternative): the match goes through z, in a field of that among's own
        assert node.among is not None
        found = ("z", f"av{node.among.number}")
        out: list[Stmt] = [("let", found, self.find(node.among))]
        if not node.among.always_matches():
            out.append(("if", ("not", found), list(fail), []))
        return out

    def c_among(self, node: Node, fail: list[Stmt]) -> list[Stmt]:
        among = node.among
        assert among is not None and self.current is not None
        expr = self.simple(node)
        if expr is not None:
            return [("if", ("not", expr), list(fail), [])]
        # The actions first: they tell whether the result is read at all.
        dispatch: list[Stmt] = []
        used = sorted({r for _s, r, _c in among.entries if r > 0})
        everyone_acts = all(r > 0 for _s, r, _c in among.entries)
        tested = False
        for i, result in enumerate(reversed(used)):
            body = self.lower(among.actions[result - 1], fail)
            if i == 0 and everyone_acts:
                dispatch = body  # the last possible result: no test needed
            else:
                dispatch = [("if", ("bin", "==", ("local", "av"), ("num", result)), body, dispatch)]
                tested = True
        out: list[Stmt] = []
        if among.paired:
            if tested:  # a paired among's result was found earlier; read it only when tested
                out = [("let", ("local", "av"), ("z", f"av{among.number}"))]
        elif among.always_matches() and not tested:
            out = [("do", self.find(among))]  # the search moves the cursor; its result is unused
        else:
            out = [("let", ("local", "av"), self.find(among))]
            if not among.always_matches():
                out.append(("if", ("not", ("local", "av")), list(fail), []))
        if among.pre is not None:
            out += self.lower(among.pre, fail)
        return out + dispatch


def _takes_slice(node: Node) -> bool:
    if node.kind in ("delete", "slicefrom", "sliceto"):
        return True
    parts = list(node.children)
    if node.kind == "among" and node.among is not None:
        parts += node.among.actions + ([node.among.pre] if node.among.pre is not None else [])
    return any(_takes_slice(part) for part in parts)


def lower_algorithm(algorithm: Algorithm) -> list[Function]:
    """Every routine (``r_<name>``) and helper function of ``algorithm``, routines first in
    the order defined."""
    lowering = _Lowering(algorithm)
    routines: list[Function] = []
    for routine in algorithm.routines.values():
        function = Function("r_" + routine.name, [], routine=True, catches=_takes_slice(routine.body))
        lowering.current, lowering.temps, lowering.routine = function, 0, routine.name
        function.body = lowering.lower(routine.body, RETURN_FALSE) + [("ret", ("bool", True))]
        routines.append(function)
    return routines + lowering.functions
