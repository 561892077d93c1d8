"""Physical lines of captured text, and the parsers' own line models.

Contract lines are numbered by LF in the captured bytes (CRLF is one line, a
lone CR is not a break).  Parsers count differently: Sphinx reads sources with
universal newlines (a lone CR breaks), and docutils also splits on U+001C–1E,
U+0085, U+2028 and U+2029.  :class:`LineMap` converts a parser's line number
into the physical line, so structure comes from the parser and numbers from
the bytes.  No Sphinx imports: the reading tools use this module too.
"""

from __future__ import annotations

import bisect
import re
from functools import cached_property

BOM = "\ufeff"
# Unicode White_Space (PropList.txt): what a "whitespace-only" range may hold.
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_RST_BREAK = re.compile("\r\n|[\r\n\x1c\x1d\x1e\x85\u2028\u2029]")
_MD_BREAK = re.compile("\r\n|[\r\n]")


def is_blank(text: str) -> bool:
    return all(c in WHITE_SPACE for c in text)


class LineMap:
    """Line arithmetic over one captured file's decoded text (BOM kept as U+FEFF)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.body_start = 1 if text.startswith(BOM) else 0
        starts = [self.body_start]  # a BOM belongs to no line's text
        pos = text.find("\n")
        while pos >= 0:
            starts.append(pos + 1)
            pos = text.find("\n", pos + 1)
        self.starts = starts

    @property
    def total_lines(self) -> int:
        """Number of physical lines (a final LF does not open an empty extra line; an
        empty file has none).  The one line count of every reader and the build."""
        if not self.text:
            return 0
        n = len(self.starts)
        if n > 1 and self.starts[-1] == len(self.text):
            return n - 1
        return n

    def line_of(self, offset: int) -> int:
        """1-based physical line holding character ``offset``."""
        return bisect.bisect_right(self.starts, offset)

    def line_text(self, line: int) -> str:
        """Physical line ``line`` without its line break."""
        return self.range_text(line, line)

    def range_text(self, line_start: int, line_end: int) -> str:
        """The contract's range text: first char of ``line_start`` to the end of
        ``line_end``, without the final line break."""
        start = self.starts[line_start - 1]
        if line_end < len(self.starts):
            end = self.starts[line_end] - 1
            if end > start and self.text[end - 1] == "\r":
                end -= 1
        else:
            end = len(self.text)
        return self.text[start:end]

    @cached_property
    def _rst_starts(self) -> list[int]:
        return self._parser_starts(_RST_BREAK)

    @cached_property
    def _md_starts(self) -> list[int]:
        return self._parser_starts(_MD_BREAK)

    def _parser_starts(self, pattern: re.Pattern[str]) -> list[int]:
        starts = [self.body_start]
        starts.extend(m.end() for m in pattern.finditer(self.text, self.body_start))
        return starts

    def parser_line_text(self, model: str, line: int) -> str | None:
        """Parser line ``line`` (1-based) as that parser sees it, or None past the end."""
        starts = self._rst_starts if model == "rst" else self._md_starts
        pattern = _RST_BREAK if model == "rst" else _MD_BREAK
        if not 1 <= line <= len(starts):
            return None
        start = starts[line - 1]
        m = pattern.search(self.text, start)
        return self.text[start : m.start() if m else len(self.text)]

    def physical_line(self, model: str, line: int) -> int:
        """The physical line where parser line ``line`` of ``model`` starts."""
        starts = self._rst_starts if model == "rst" else self._md_starts
        return self.line_of(starts[min(max(line, 1), len(starts)) - 1])
