"""The records a documentation build captures, whatever the host: what both capture
sides (Sphinx, MkDocs) produce and the writer consumes.

A :class:`DocRecord` is one page: its captured files (identified by SHA-256)
and its :class:`Section` list in document order, each section an exact line
range of one captured file; a documented object's section carries its
:class:`ObjectInfo`.  The Sphinx side pickles these records with the build
environment, so they are plain dataclasses.  Imports no host.
"""

from __future__ import annotations

import codecs
import fnmatch
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

#: The longest heading (or object name) a section may have, in bytes of UTF-8.
MAX_HEADING_BYTES = 1024
#: Pages captured but left out of search, by default: none — an ``index`` page is content
#: (docs/contract.md).  Sites that treat landing pages and change logs as navigation set
#: ``["index", "*/index", "log", "*/log"]`` (``okf_search_exclude``; MkDocs: ``exclude``).
DEFAULT_EXCLUDE: tuple[str, ...] = ()


def lexical(path: str | os.PathLike[str]) -> str:
    """``path`` absolute, with ``.`` and ``..`` parts resolved by name, in POSIX form —
    where the generator sees the file: a symbolic link is *not* followed, so a linked page
    keeps the path it has in the source tree, never its target's (which may name folders
    of the build machine outside the project)."""
    return Path(os.path.normpath(os.path.abspath(path))).as_posix()


@dataclass(frozen=True)
class CapturedFile:
    """One source file as the build read it: its bytes are identified by SHA-256.

    The bytes themselves are not kept in the record (Sphinx pickles the whole
    environment once per parallel read chunk); the index writer reads them
    again and refuses any file whose digest changed.
    """

    path: str  # absolute, POSIX, where the generator sees it (:func:`lexical`: links not followed)
    sha256: str
    size: int

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> tuple[CapturedFile, bytes]:
        data = Path(path).read_bytes()
        return cls(lexical(path), hashlib.sha256(data).hexdigest(), len(data)), data


@dataclass(frozen=True)
class ObjectInfo:
    """What makes a section a documented object (docs/contract.md, "Documented objects")."""

    name: str  # full name as the host knows it (``pkg.mod.Class.method``)
    kind: str  # ``domain:objtype`` (``py:method``, ``std:envvar`` ...)
    signature: str  # the rendered signature(s), as text
    generated: bool = False  # no source holds its words: located at the directive, text is the rendering
    text: str = ""  # the rendered text (``generated`` only)
    unmatched: str = ""  # ``generated`` for want of a project file: the installed module file it was read from


@dataclass
class Section:
    """One contract section of one document (document order, see ``DocRecord``)."""

    file: str  # absolute path of the captured file holding the range
    heading: str
    level: int  # 0 = intro/body, else depth of the section (1 = page title)
    line_start: int
    line_end: int
    anchor: str  # the rendered section id ("" for intro/body)
    only: tuple[str, ...]  # enclosing ``.. only::`` expressions, outermost first
    parent: int | None  # index in DocRecord.sections of the enclosing heading section
    obj: ObjectInfo | None = None  # set for a documented object's section
    continued: bool = False  # the text of ``parent`` after an object's directive block (same heading)


@dataclass
class DocRecord:
    """One page: its id, title, whether search finds it, its captured files and sections."""

    docname: str
    title: str
    searchable: bool
    files: list[CapturedFile]  # the document's own source first, then includes
    sections: list[Section]


def text_encoding(encoding: str | None) -> str:
    """The codec name of a source encoding (Sphinx's ``source_encoding``; "utf-8" for the
    UTF-8 family: a byte-order mark stays in the text as U+FEFF, see :class:`~okf_sphinx.core.lines.LineMap`)."""
    name = codecs.lookup(encoding or "utf-8").name
    return "utf-8" if name in ("utf-8", "utf-8-sig") else name


def decode(data: bytes, encoding: str = "utf-8") -> str:
    """Captured bytes as the text the host read (``encoding``); a byte the encoding cannot
    decode becomes U+FFFD (Sphinx warns and replaces it too)."""
    return data.decode(text_encoding(encoding), "replace")


def excluded(docname: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """Is the page ``docname`` left out of search by the author's ``fnmatch`` patterns (case-sensitive)?"""
    return any(fnmatch.fnmatchcase(docname, p) for p in patterns)
