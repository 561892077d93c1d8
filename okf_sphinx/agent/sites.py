"""Many documentation sites behind one server: names, ``list_sites`` and the ``site`` input.

``okf mcp SITE [SITE …]`` serves every site given; each has a short name —
given as ``name=SITE``, or derived from the project's name in the index
manifest (else from where the site is), made unique in argument order.  Every
tool takes ``site``: optional with one site (so a one-site server answers
exactly as before), required with several.  ``search_sections`` without
``site`` on a many-site server answers per site, side by side, each with its
own ranking and ``total`` — BM25 scores of different indexes are not
comparable, so they are never merged into one list.

:class:`Sites` is the one dispatch of the MCP server and of ``okf batch``:
``call(tool, arguments)`` returns the answer or raises
:class:`~okf_sphinx.core.errors.OkfError`.  Imports nothing from the MCP SDK.
"""

from __future__ import annotations

import math
import re
import unicodedata
import urllib.parse
from collections.abc import Callable
from typing import Any, Protocol

from okf_sphinx.core.errors import OkfError, shown

from . import batch
from .dispatch import TOOL_ARGUMENTS, call_tool

MAX_NAME_CHARS = 64
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_NAMED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,63})=(.+)$", re.S)
_SLUG_CHARS = 32
#: folder names that say where a build is, not what it is (skipped when naming by location)
_BUILD_DIRS = frozenset({"html", "dirhtml", "singlehtml", "_build", "build", "_okf", "site", "public", "docs", "doc",
                         "documentation", "latest", "stable", "en", "www", ""})

# -- opening one site -------------------------------------------------------------------


MAX_TIMEOUT = 3600.0


def check_timeout(timeout: Any) -> float | None:
    """``--timeout``: None, or a finite number of seconds in (0, MAX_TIMEOUT]."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise OkfError("schema_validation", f"--timeout must be a number of seconds, got {timeout!r}", field="timeout")
    try:
        ok = math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT
    except OverflowError:  # an int too large for a float
        ok = False
    if not ok:
        raise OkfError(
            "schema_validation",
            f"--timeout must be a finite number of seconds above 0 and at most {MAX_TIMEOUT:g}, got {shown(timeout)}",
            field="timeout", limit=MAX_TIMEOUT,
        )
    return float(timeout)


def open_site(site: str, timeout: float | None = None, cache_mb: int | None = None) -> Any:
    """An :class:`~okf_sphinx.engine.index.Index` for a folder or URL, with an optional HTTP
    timeout and cache bound (MiB)."""
    from okf_sphinx.engine.index import DEFAULT_CACHE_BYTES, Index
    from okf_sphinx.engine.source import UrlSource, open_source

    timeout = check_timeout(timeout)
    if cache_mb is not None and not 0 <= cache_mb <= 1 << 30:
        raise OkfError("schema_validation", f"--cache-mb must be 0 or more (MiB), got {cache_mb}")
    source = open_source(site)
    if timeout is not None and isinstance(source, UrlSource):
        source.timeout = timeout
    return Index(source, DEFAULT_CACHE_BYTES if cache_mb is None else cache_mb * 1024 * 1024)


#: Tools a site answers (the reading tools and the batch); ``list_sites`` is the server's own.
SITE_TOOLS = (*TOOL_ARGUMENTS, "read_batch")


class Holder(Protocol):
    """Where a site's index comes from (the MCP server's ``SiteIndex``, or an opened index)."""

    location: str

    def get(self) -> Any: ...


class Opened:
    """A :class:`Holder` for an index that is already open (the CLI, the Python API)."""

    def __init__(self, index: Any) -> None:
        self.index = index
        self.location = index.source.location

    def get(self) -> Any:
        return self.index


def split_named(argument: str) -> tuple[str | None, str]:
    """``("name", "SITE")`` for ``name=SITE``, else ``(None, argument)``.  A URL or a path
    never parses as named: the part before ``=`` must be a plain name (letters, digits,
    ``.``, ``_``, ``-``; no ``/`` or ``:``)."""
    m = _NAMED.match(argument)
    if m:
        return m.group(1), m.group(2)
    return None, argument


def slug(text: str) -> str:
    """A short lower-case ASCII name for ``text`` (``"My Project 2.0"`` → ``"my-project-2-0"``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")[:_SLUG_CHARS].strip("-")


def location_name(location: str) -> str:
    """A name for a site from where it is: the host and last telling path part of a URL,
    the last folder that is not a build folder (``proj/docs/_build/html`` → ``proj``)."""
    try:
        parts = urllib.parse.urlsplit(location)
    except ValueError:  # not a URL that parses: named from its text as a path
        parts = urllib.parse.SplitResult("", "", location, "", "")
    if parts.scheme in ("http", "https"):
        segments = [s for s in parts.path.split("/") if s.lower() not in _BUILD_DIRS]
        host = (parts.hostname or "").removeprefix("www.").split(".")[0]
        return slug(segments[-1] if segments else host) or "site"
    segments = [s for s in re.split(r"[\\/]+", location) if s.lower() not in _BUILD_DIRS and s not in (".", "..")]
    return slug(segments[-1]) if segments and slug(segments[-1]) else "site"


def assign_names(wanted: list[tuple[str | None, str]]) -> list[str]:
    """Unique names for ``(given name or None, derived name)`` pairs, in order: given
    names are kept (two equal ones are refused); a derived name that is taken gets
    ``-2``, ``-3`` … — the same arguments always give the same names."""
    given = [g for g, _ in wanted if g is not None]
    for g in given:
        if not _NAME.match(g):
            raise OkfError("schema_validation", f"site name {g!r} must be 1-64 letters, digits, '.', '_' or '-'")
    dupes = sorted({g for g in given if given.count(g) > 1})
    if dupes:
        raise OkfError("schema_validation", f"site name {dupes[0]!r} is given twice; name each site once (name=SITE)")
    taken = set(given)
    names = []
    for g, derived in wanted:
        if g is not None:
            names.append(g)
            continue
        base = derived or "site"
        name, k = base, 1
        while name in taken:
            k += 1
            name = f"{base}-{k}"
        taken.add(name)
        names.append(name)
    return names


def project_name(index: Any) -> str:
    """The project's name as the build recorded it (``project`` in conf.py), or ``""``."""
    value = index.manifest.get("project", "")
    return value if isinstance(value, str) else ""


class Sites:
    """The sites one server answers for, by name, in the order given."""

    def __init__(self, entries: list[tuple[str, Holder]]) -> None:
        if not entries:
            raise OkfError("schema_validation", "give at least one site (a built folder or a URL)")
        self.entries = list(entries)
        self.names = [n for n, _ in entries]
        self._by_name = dict(entries)

    @property
    def many(self) -> bool:
        return len(self.entries) > 1

    # -- the site input ---------------------------------------------------------------

    def _known(self) -> str:
        return ", ".join(self.names)

    def holder(self, tool: str, name: Any) -> Holder | None:
        """The site a call names; None for a many-site search without ``site`` (answered per site)."""
        if name is None:
            if not self.many:
                return self.entries[0][1]
            if tool == "search_sections":
                return None
            raise OkfError("schema_validation",
                           f"{tool} needs site: this server serves {len(self.names)} sites ({self._known()}); "
                           "list them with list_sites", field="site", sites=list(self.names))
        if not isinstance(name, str):
            raise OkfError("schema_validation", f"site must be a string, one of {self._known()}", field="site",
                           sites=list(self.names))
        found = self._by_name.get(name)
        if found is None:
            cut = name if len(name) <= MAX_NAME_CHARS else name[:MAX_NAME_CHARS] + "…"
            raise OkfError("schema_validation", f"no site named {cut!r}; this server serves {self._known()}",
                           field="site", sites=list(self.names))
        return found

    # -- dispatch -----------------------------------------------------------------------

    def call(self, tool: str, arguments: Any, *, started: float | None = None,
             clock: Callable[[], float] | None = None) -> dict[str, Any]:
        """The answer of ``tool`` (a reading tool, ``read_batch`` or ``list_sites``)."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise OkfError("schema_validation", "tool arguments must be a JSON object")
        if tool == "list_sites":
            if arguments:
                raise OkfError("schema_validation", f"list_sites takes no arguments, got {', '.join(sorted(arguments))}",
                               field=sorted(arguments)[0])
            return self.list_sites()
        if tool not in SITE_TOOLS:
            raise OkfError("schema_validation", f"unknown tool {tool!r}; the tools are {', '.join(SITE_TOOLS)}, list_sites")
        rest = {k: v for k, v in arguments.items() if k != "site"}
        if "site" in arguments and arguments["site"] is None:
            raise OkfError("schema_validation", "site must not be null: leave it out, or name a site", field="site")
        if tool == "read_batch":
            name = arguments.get("site")
            if name is not None:
                self.holder(tool, name)  # an unknown batch-wide site refuses the call
            extra = {"clock": clock} if clock is not None else {}
            return batch.read_batch(batch.answer_of(self.call), arguments, site_key=True,
                                    defaults={"site": name} if name is not None else None, started=started, **extra)
        holder = self.holder(tool, arguments.get("site"))
        if holder is None:
            return self._search_each(rest)
        return call_tool(holder.get(), tool, rest)

    def _search_each(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """``search_sections`` on every site, side by side (never merged: scores of
        different indexes are not comparable).  Bad arguments are refused once."""
        return self.side_by_side(arguments, at_once([lambda n=n: self.search_one(n, arguments) for n in self.names]))

    def search_one(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Site ``name``'s ``search_sections`` answer, or its error envelope (one part of a
        many-site search; the MCP server runs the parts in each site's own lane)."""
        holder = self._by_name[name]
        return batch.answer_of(lambda t, a: call_tool(holder.get(), t, a))("search_sections", arguments)

    def side_by_side(self, arguments: dict[str, Any], answers: list[dict[str, Any]]) -> dict[str, Any]:
        """The many-site search answer from each site's answer (in :attr:`names` order);
        a refusal every site gives alike (bad arguments) is the call's own."""
        errors = [a["error"] for a in answers if "error" in a]
        if errors and len(errors) == len(answers) and errors[0]["code"] in ("schema_validation", "resource_limit") \
                and all(e == errors[0] for e in errors):
            raise OkfError(errors[0]["code"], errors[0]["message"],
                           **{k: v for k, v in errors[0].items() if k not in ("code", "message")})
        return {"query": arguments.get("query"), "sites": [{"site": n, "result": a} for n, a in zip(self.names, answers)]}

    def list_sites(self) -> dict[str, Any]:
        def describe(name: str, holder: Holder) -> dict[str, Any]:
            try:
                index = holder.get()
            except OkfError as err:
                return {"name": name, "location": holder.location, "error": {"code": err.code, "message": err.message}}
            return {
                "name": name,
                "title": project_name(index),
                "generator": str(index.manifest.get("generator", "")),
                "snapshot_revision": index.snapshot_revision,
                "sections": index.section_count,
                "location": index.source.location,
            }

        # sites not opened yet open all at once: the slowest one sets the wait, not their sum
        return {"status": "ok", "sites": at_once([lambda n=n, h=h: describe(n, h) for n, h in self.entries])}


def at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """The results of ``calls``, in order, run in threads of their own when there are
    several (each may wait on a site's network); the first exception is raised."""
    if len(calls) < 2:
        return [call() for call in calls]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="okf-site") as pool:
        futures = [pool.submit(call) for call in calls]
        return [f.result() for f in futures]


def derived_name(site: str, opened: Any) -> str:
    """The name a site gets when none is given: from its project's name (``opened`` is its
    index, None or its error when not opened), else from where it is."""
    derived = slug(project_name(opened)) if opened is not None and not isinstance(opened, BaseException) else ""
    return derived or location_name(site)


def name_sites(arguments: list[str], open_one: Callable[[str], Any]) -> list[tuple[str, str, Any]]:
    """``(name, site, opened index or the OkfError of opening it)`` for ``okf mcp``'s
    arguments, names assigned as :func:`assign_names` says; the sites open all at once."""
    parsed = [split_named(a) for a in arguments]

    def attempt(site: str) -> Any:
        try:
            return open_one(site)
        except OkfError as err:
            return err

    opened = at_once([lambda site=site: attempt(site) for _, site in parsed])
    names = assign_names([(given, derived_name(site, index)) for (given, site), index in zip(parsed, opened)])
    return [(name, site, index) for name, (_, site), index in zip(names, parsed, opened)]
