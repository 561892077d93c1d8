"""What every generated stemmer (``okf_sphinx/core/snowball/<algorithm>.py``) stems with.

A word is stemmed in an ``Env``: the string ``s``, the cursor ``c``, the limit ``l`` and
backward limit ``lb``, the slice ``bra``..``ket``, and the algorithm's own variables (a
subclass adds them).  The methods are Snowball's primitive commands; each answers True (the
signal t, with its effect done) or False (f).  The twin of this file is the shared part of
``static/okf-stemmer.js``; ``stemgen`` writes both languages' algorithm code from one
definition, so the two stem alike.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Abort", "Among", "Env", "among"]


class Abort(Exception):
    """A slice that cannot be taken: the routine that took it answers f (as in Snowball)."""


#: An among: its string lengths, longest first, and string -> (result, condition routine).
Among = tuple[tuple[int, ...], dict[str, tuple[int, "Callable[[Env], bool] | None"]]]


def among(groups: tuple[tuple, ...], conditions: dict[str, Callable[[Env], bool]] | None = None) -> Among:
    """An among from its groups ``(result, string, string, ...)``; ``conditions`` names the
    routine that must also succeed for some strings."""
    table: dict[str, tuple[int, Callable[[Env], bool] | None]] = {}
    for result, *strings in groups:
        for s in strings:
            table[s] = (result, (conditions or {}).get(s))
    return tuple(sorted({len(s) for s in table}, reverse=True)), table


class Env:
    __slots__ = ("s", "c", "l", "lb", "bra", "ket")

    def __init__(self, word: str) -> None:
        self.s = word
        self.c = 0
        self.l = len(word)
        self.lb = 0
        self.bra = 0
        self.ket = self.l

    # -- tests: a string, a letter of a grouping or not, any letter --------------------
    def eq(self, t: str) -> bool:
        if self.l - self.c < len(t) or not self.s.startswith(t, self.c):
            return False
        self.c += len(t)
        return True

    def eq_b(self, t: str) -> bool:
        if self.c - self.lb < len(t) or not self.s.startswith(t, self.c - len(t)):
            return False
        self.c -= len(t)
        return True

    def ing(self, g: frozenset[str]) -> bool:
        if self.c >= self.l or self.s[self.c] not in g:
            return False
        self.c += 1
        return True

    def ing_b(self, g: frozenset[str]) -> bool:
        if self.c <= self.lb or self.s[self.c - 1] not in g:
            return False
        self.c -= 1
        return True

    def outg(self, g: frozenset[str]) -> bool:
        if self.c >= self.l or self.s[self.c] in g:
            return False
        self.c += 1
        return True

    def outg_b(self, g: frozenset[str]) -> bool:
        if self.c <= self.lb or self.s[self.c - 1] in g:
            return False
        self.c -= 1
        return True

    def next(self) -> bool:
        if self.c >= self.l:
            return False
        self.c += 1
        return True

    def next_b(self) -> bool:
        if self.c <= self.lb:
            return False
        self.c -= 1
        return True

    def hop(self, n: int) -> bool:
        if self.c + n > self.l:
            return False
        self.c += n
        return True

    def hop_b(self, n: int) -> bool:
        if self.c - n < self.lb:
            return False
        self.c -= n
        return True

    # -- goto / gopast a letter of a grouping (g) or a letter outside it (ng) ------------
    def _scan(self, g: frozenset[str], member: bool, past: bool) -> bool:
        s, c, limit = self.s, self.c, self.l
        while c < limit:
            if (s[c] in g) is member:
                self.c = c + 1 if past else c
                return True
            c += 1
        self.c = c
        return False

    def _scan_b(self, g: frozenset[str], member: bool, past: bool) -> bool:
        s, c, lb = self.s, self.c, self.lb
        while c > lb:
            if (s[c - 1] in g) is member:
                self.c = c - 1 if past else c
                return True
            c -= 1
        self.c = c
        return False

    def goto_g(self, g: frozenset[str]) -> bool:
        return self._scan(g, True, False)

    def gopast_g(self, g: frozenset[str]) -> bool:
        return self._scan(g, True, True)

    def goto_ng(self, g: frozenset[str]) -> bool:
        return self._scan(g, False, False)

    def gopast_ng(self, g: frozenset[str]) -> bool:
        return self._scan(g, False, True)

    def goto_g_b(self, g: frozenset[str]) -> bool:
        return self._scan_b(g, True, False)

    def gopast_g_b(self, g: frozenset[str]) -> bool:
        return self._scan_b(g, True, True)

    def goto_ng_b(self, g: frozenset[str]) -> bool:
        return self._scan_b(g, False, False)

    def gopast_ng_b(self, g: frozenset[str]) -> bool:
        return self._scan_b(g, False, True)

    # -- among: the longest string of the table at the cursor whose condition holds --------
    def find(self, a: Among) -> int:
        s, c, limit = self.s, self.c, self.l
        lengths, table = a
        for n in lengths:
            if c + n > limit:
                continue
            hit = table.get(s[c:c + n])
            if hit is not None:
                self.c = c + n
                if hit[1] is None:
                    return hit[0]
                ok = hit[1](self)
                self.c = c + n
                if ok:
                    return hit[0]
        return 0

    def find_b(self, a: Among) -> int:
        s, c, lb = self.s, self.c, self.lb
        lengths, table = a
        for n in lengths:
            if c - n < lb:
                continue
            hit = table.get(s[c - n:c])
            if hit is not None:
                self.c = c - n
                if hit[1] is None:
                    return hit[0]
                ok = hit[1](self)
                self.c = c - n
                if ok:
                    return hit[0]
        return 0

    # -- changes -------------------------------------------------------------------------
    def _replace(self, bra: int, ket: int, t: str) -> int:
        adjustment = len(t) - (ket - bra)
        self.s = self.s[:bra] + t + self.s[ket:]
        self.l += adjustment
        if self.c >= ket:
            self.c += adjustment
        elif self.c > bra:
            self.c = bra
        return adjustment

    def _check_slice(self) -> None:
        if self.bra < 0 or self.bra > self.ket or self.ket > self.l or self.l > len(self.s):
            raise Abort

    def slice_from(self, t: str) -> None:
        self._check_slice()
        self._replace(self.bra, self.ket, t)

    def slice_to(self) -> str:
        self._check_slice()
        out = self.s[self.bra:self.ket]
        if not out:
            raise Abort
        return out

    def insert(self, t: str) -> None:
        """``t`` at the cursor, the cursor after it."""
        c = self.c
        adjustment = self._replace(c, c, t)
        if c <= self.bra:
            self.bra += adjustment
        if c <= self.ket:
            self.ket += adjustment

    def insert_keep(self, t: str) -> None:
        """``t`` at the cursor, the cursor before it."""
        c = self.c
        self.insert(t)
        self.c = c
