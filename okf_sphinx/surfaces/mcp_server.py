"""``okf mcp``: the four read-only agent tools over MCP (stdio or streamable HTTP).

Built on the official SDK's low-level server so the declared schemas are
exactly the package's contract files (``contracts/<tool>.input.json`` /
``.output.json``).  Every call goes through :func:`okf_sphinx.agent.dispatch.call_tool`
— the same code the CLI runs — in a worker thread of the lane of the site it
names, so many calls proceed at once and a slow site holds back only its own
calls (:class:`Startup`, :func:`build_server`; the stdio transport reads
requests in a thread of its own, :mod:`okf_sphinx.surfaces.mcp_stdio`).  A success carries the answer as structured content and as its
canonical JSON text (:func:`~okf_sphinx.agent.answers.answer_json`, byte-identical
to ``okf … --json``); a refusal is an error result (``isError: true``) whose
text and structured content are the error envelope.  No traceback ever
reaches the client.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
import threading
from typing import Any

from okf_sphinx.agent.answers import MAX_ANSWER_BYTES, answer_json
from okf_sphinx.agent.dispatch import TOOL_ARGUMENTS
from okf_sphinx.agent.sites import (
    Opened,
    Sites,
    assign_names,
    at_once,
    check_timeout,
    derived_name,
    open_site,
    split_named,
)
from okf_sphinx.core.contracts import contract
from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.guide import AGENT_GUIDE
from okf_sphinx.engine.source import is_url, open_source

log = logging.getLogger("okf_sphinx.mcp")

TOOL_NAMES = (*TOOL_ARGUMENTS, "read_batch", "list_sites")

_COMMON = (
    " Answers come from the source bytes captured when the site was built (not the live tree). "
    "A locator is path#L<start>-L<end>: a 1-based inclusive line range of those captured bytes, "
    "not a promise about any viewer's anchors; content_sha256 is the SHA-256 of the whole captured file "
    "— after any change, search again or compare it before trusting a line number. "
    "Refusals are error results carrying {\"error\": {\"code\", \"message\", …}}."
)

DESCRIPTIONS = {
    "search_sections": (
        "Search the documentation's sections with BM25. AND semantics: a hit contains every query term in its "
        "body, heading or page title. Terms are Unicode letter/number runs, case folded and NFC-normalised; "
        "there is no stemming, no synonyms, no fuzzy or regex matching — search the exact word forms "
        "(e.g. both 'retry' and 'retries' if unsure). Hits are sorted by score, then page and line; `total` "
        "is exact and `truncated` says when `limit` (1-100, default 20) cut hits. Each hit has a locator, the "
        "file's content_sha256 and an exact snippet (≤512 characters of the section's source). Read more with "
        "get_section(locator) or read_lines(path, [line_start, line_end]). "
        "mode='smart' instead ranks pages for a reader (stemming, words spread over a page, partial answers "
        "flagged with missing_terms, spelling suggestions, prefix=true for the last word, identifiers such as "
        "SECRET_KEY ranked first), each page with up to 3 hits of the same shape; smart mode also filters by "
        "under (path prefix), meta (page metadata) and kind ('section' or an object kind), and with expand=true "
        "adds `expanded`: up to 5 sections the hits link to, each with via (ref/doc/toctree/object) and from (the "
        "hit's locator)." + _COMMON
    ),
    "get_section": (
        "Read one section's exact source text. Give `locator` (from a hit, an outline or `subsections`; add the "
        "hit's `concept_id` when several pages include that file, else the answer is `ambiguous_section`), or "
        "`concept_id` + `heading`, or `object` (a documented function/class/method/option/setting's full name "
        "or dotted tail, e.g. 'Client.fetch': its docstring where it is written, in the .py file); "
        "`concept_id` alone returns the page's outline (every section with heading, "
        "level, locator, parent). Headings match as hits show them (plain text) or as written in the source "
        "(``code``, *emphasis*, roles), after trimming, collapsing whitespace, unifying dashes and case folding; "
        "an identifier query such as 'K11' or '3.' matches the heading that starts with it ('K1' never matches "
        "'K10'). A part of a heading never matches: several matches are `ambiguous_section` with candidates, "
        "none is `section_not_found` with suggestions — ask again with a candidate's locator. The subtree "
        "(subsections) is included unless include_subsections=false. Paging: at most max_chars characters "
        "(default 20000, clamped to 1-200000) from `offset`; when `truncated` is true, call again with "
        "offset=next_offset (truncation_reason says why: max_chars or the 256000-byte answer budget). "
        "An outline is paged the same way: at most `limit` entries (1-1000, default 1000) from entry `offset`. "
        "Also returns breadcrumb, subsections, previous/next and the page url." + _COMMON
    ),
    "read_lines": (
        "Read lines [start, end] (1-based, inclusive, integers) of a captured source file, byte for byte "
        "(CRLF lines keep their \\r; lines joined with \\n). `path` is relative to the source root, as hits "
        "show it. range.total_lines counts lines like locators do; an end past the file is clamped "
        "(range.truncated=true), a start past it is range_out_of_bounds. [1, total_lines] is the whole file: "
        "its SHA-256 equals content_sha256. An answer over 256000 bytes is refused as page_too_large with "
        "max_end, the largest end that fits." + _COMMON
    ),
    "search_concepts": (
        "Find pages (concepts) by a literal, case-insensitive substring of their concept id (docname, e.g. "
        "'usage/install') or title. No ranking: results are in concept-id order; `total` is exact. Then call "
        "get_section(concept_id=…) for the page's outline. On a site with documented objects (API reference) "
        "it also lists the objects whose full name holds the query (objects, objects_total)." + _COMMON
    ),
}

DESCRIPTIONS["read_batch"] = (
    "Several reads in one call: items = 1-20 {tool, arguments} requests, each a get_section, read_lines or "
    "search_sections call with that tool's own arguments. items[i] of the answer is request i's answer exactly as "
    "the single tool gives it (its result, or its {\"error\": …} envelope — one item's refusal is not the batch's). "
    "The whole answer fits in 256000 bytes of JSON: items are kept whole, in order; when the next one does not fit, "
    "or 10 s have passed, the rest are listed in `unread` (their indexes) with `unread_reason` (byte_budget or "
    "timeout) — call again with those items. An item that can never fit is item_too_large: read it with its own "
    "tool. An empty list is missing_items, more than 20 is too_many_items (never cut)." + _COMMON
)
DESCRIPTIONS["list_sites"] = (
    "The documentation sites this server serves: name (the `site` argument of every tool), project title, "
    "generator, snapshot_revision, number of searchable sections and location (folder or URL). A site that cannot "
    "be opened yet carries an error instead." + _COMMON
)
_MANY = (
    " This server serves several sites: give `site` (a name from list_sites). search_sections without `site` "
    "answers per site, side by side (each site's own ranking and total; scores of different sites are not comparable)."
)

TITLES = {
    "search_sections": "Search documentation sections",
    "get_section": "Read a documentation section",
    "read_lines": "Read source lines",
    "search_concepts": "Find documentation pages",
    "read_batch": "Read several sections or ranges at once",
    "list_sites": "List the documentation sites",
}


#: Tools whose every answer fits in MAX_ANSWER_BYTES of UTF-8 JSON.  They tell clients that
#: spill long results to a file (Claude Code does above ~25,000 tokens) that the whole answer
#: may stay in context: a character count never exceeds the byte count it is bounded by.
BOUNDED_TOOLS = ("get_section", "read_lines", "search_concepts", "read_batch")
RESULT_SIZE_META = {"anthropic/maxResultSizeChars": MAX_ANSWER_BYTES}


def input_schema(tool: str, sites: Sites) -> dict[str, Any]:
    """The input schema a server declares for ``tool``: the package file plus the ``site``
    property of ``contracts/site.input.json`` — optional with one site; with several,
    its enum lists the names and it is required (except by search_sections, which then
    answers per site, and read_batch, whose items may name their own sites)."""
    schema = json.loads(json.dumps(contract(tool, "input")))
    if tool == "list_sites":
        return schema
    site = dict(contract("site", "input")["properties"]["site"])
    if sites.many:
        site["enum"] = list(sites.names)
        if tool not in ("search_sections", "read_batch"):
            schema["required"] = [*schema.get("required", []), "site"]
    schema["properties"] = {"site": site, **schema["properties"]}
    return schema


def output_schema(tool: str, sites: Sites) -> dict[str, Any]:
    """The output schema ``tool`` declares; a many-site search_sections is also the per-site shape."""
    schema = contract(tool, "output")
    if tool == "search_sections" and sites.many:
        # the one-site schema's $defs (keyword and smart answers) move to the root its $refs name
        return {"$schema": schema["$schema"], "type": "object", "$defs": schema.get("$defs", {}),
                "oneOf": [{k: v for k, v in schema.items() if k not in ("$schema", "$defs")},
                          {k: v for k, v in contract("search_sections.sites", "output").items() if k != "$schema"}]}
    return schema


def _internal_error(exc: BaseException) -> dict[str, Any]:
    return {"error": {"code": "internal_error", "message": f"okf_sphinx failed unexpectedly ({type(exc).__name__}); "
                      "this is a bug — please report it with the request"}}


class SiteIndex:
    """The index a server answers from, opened on first use and reopened when the
    site is rebuilt (its ``manifest.js`` changes on disk), so ``okf mcp`` can be
    configured before the first build and never serves a stale mix of files."""

    def __init__(self, site: str, timeout: float | None = None, index: Any = None, cache_mb: int | None = None) -> None:
        self.site = site
        self.timeout = timeout
        self.cache_mb = cache_mb
        self.location = site
        self._index = index
        self._stamp: Any = self._manifest_stamp(index) if index is not None else None
        self._lock = threading.Lock()
        self._flight: _Flight | None = None

    @staticmethod
    def _manifest_stamp(index: Any) -> Any:
        directory = getattr(index.source, "index_dir", None)
        if directory is None:
            return None  # a URL: the Index itself notices a redeployment (Index.consistent)
        try:
            st = os.stat(os.path.join(directory, "manifest.js"), follow_symlinks=False)
        except OSError:
            return ("missing",)
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def get(self) -> Any:
        """The current index.  Opening it (which may wait on the network) happens
        outside the lock and once for all callers: concurrent calls share the one
        open in flight and its outcome, instead of queueing to open it in turn."""
        with self._lock:
            index = self._index
            if index is not None:
                stamp = self._manifest_stamp(index)
                if self._stamp is None or stamp == self._stamp:
                    return index
                if stamp == ("missing",) and index.source.swapping():
                    # between the steps of a swap (or kept out of MkDocs' clean): the old index answers,
                    # its reads wait for the files, and it moves to the new build once that is there
                    return index
            self._index = None  # never opened, or rebuilt (or removed) since it was opened
            flight = self._flight
            leader = flight is None
            if leader:
                flight = self._flight = _Flight()
        if leader:
            try:
                index = open_site(self.site, self.timeout, self.cache_mb)
                stamp = self._manifest_stamp(index)
            except BaseException as exc:
                flight.error = exc
                raise
            finally:
                with self._lock:
                    if flight.error is None:
                        self._index, self._stamp = index, stamp
                        self.location = index.source.location
                    self._flight = None
                flight.value = index if flight.error is None else None
                flight.done.set()
            return index
        flight.done.wait()
        if flight.error is not None:
            raise flight.error
        return flight.value


class _Flight:
    """One open in progress, awaited by every caller that arrived meanwhile."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


#: Tool calls one site runs at once; more wait their turn without holding a thread, so a
#: slow site holds back only its own calls — never another site's, nor the protocol.
MAX_CALLS_PER_SITE = 8
#: Calls that name no one site (list_sites, a read_batch over several sites, a refusal): a lane of their own.
MAX_OTHER_CALLS = 8
#: Opening a site that fails so is served anyway: every call answers the reason until the index is there.
SERVE_ANYWAY = ("index_not_found", "source_unavailable")


class Startup:
    """``okf mcp``'s sites, served at once.

    A folder is opened before serving (a disk read; a bad site argument fails
    there, as does a malformed URL).  URL sites open in the background, all at
    once.  A URL site given without a name is named from its project once its
    index has opened (or failed to): until then tool lists and calls wait — for
    the slowest such site, at most one ``--timeout``, never for their sum —
    while ``initialize`` and ``ping`` are answered at once.  ``name=URL`` sites
    cost no wait at all.
    """

    def __init__(self, arguments: list[str], timeout: float | None = None, cache_mb: int | None = None) -> None:
        self.parsed = [split_named(a) for a in arguments]
        if not self.parsed:
            raise OkfError("schema_validation", "give at least one site (a built folder or a URL)")
        assign_names([(given, "site") for given, _ in self.parsed])  # a bad or repeated given name fails now
        self.holders: list[SiteIndex] = []
        self.opened: list[Any] = []
        for _, where in self.parsed:
            holder = SiteIndex(where, timeout, cache_mb=cache_mb)
            if is_url(where):
                open_source(where)  # checks the URL (no request is made); opening waits
                self.opened.append(None)
            else:
                self.opened.append(self._first_open(holder, fatal=True))
            self.holders.append(holder)
        self._lock = threading.Lock()
        self._sites: Sites | None = None
        if not self._waits():
            self._sites = self.sites()

    @classmethod
    def of(cls, sites: Sites) -> Startup:
        """A startup whose sites are named already (a server built around :class:`Sites`)."""
        self = cls.__new__(cls)
        self.parsed = [(name, holder.location) for name, holder in sites.entries]
        self.holders = [holder for _, holder in sites.entries]  # type: ignore[misc]
        self.opened = [None] * len(self.holders)
        self._lock = threading.Lock()
        self._sites = sites
        return self

    @property
    def many(self) -> bool:
        return len(self.parsed) > 1

    def _waits(self) -> bool:
        """Do the names wait for a site to open (a URL site without a given name)?"""
        return any(given is None and is_url(where) for given, where in self.parsed)

    @staticmethod
    def _first_open(holder: SiteIndex, fatal: bool = False) -> Any:
        """Open ``holder``: its index, or the error (logged) of a site served anyway."""
        try:
            return holder.get()
        except OkfError as err:
            if fatal and err.code not in SERVE_ANYWAY:
                raise
            # not built yet (or the server is down): serve anyway, every call says why until it is there
            log.warning("%s; serving anyway — tools answer %s until the index exists", err.message, err.code)
            return err

    def known(self) -> Sites | None:
        """The named sites, or None while a name waits for its site to open."""
        return self._sites

    def sites(self) -> Sites:
        """The named sites; waits (once, for all callers) until the unnamed URL sites opened."""
        with self._lock:
            if self._sites is None:
                wanted = [given is None and is_url(where) for given, where in self.parsed]
                opened = at_once([lambda h=h, w=w, o=o: self._first_open(h) if w else o
                                  for h, w, o in zip(self.holders, wanted, self.opened)])
                names = assign_names([(given, derived_name(where, index))
                                      for (given, where), index in zip(self.parsed, opened)])
                self._sites = Sites(list(zip(names, self.holders)))
            return self._sites

    def start(self) -> None:
        """Open the URL sites in the background, all at once (the names' ones first)."""
        if self._sites is None:
            threading.Thread(target=self.sites, name="okf-naming", daemon=True).start()
        named = [h for (given, where), h in zip(self.parsed, self.holders) if given is not None and is_url(where)]
        if named:
            threading.Thread(target=at_once, args=([lambda h=h: self._first_open(h) for h in named],),
                             name="okf-open", daemon=True).start()


def _guarded(fn: Any, *args: Any, **kwargs: Any) -> tuple[dict[str, Any], bool]:
    """``(answer, False)``, or ``(error envelope, True)``: a refusal's, or — a bug, logged
    here — an internal error's; never a traceback to the client."""
    try:
        return fn(*args, **kwargs), False
    except OkfError as err:
        return err.envelope, True
    except Exception as exc:
        log.exception("tool call failed")
        return _internal_error(exc), True


def _lane(sites: Sites, tool: str, arguments: Any) -> str | None:
    """The site a call runs against (its lane), or None: list_sites, a call naming no
    known site (refused at once) or several (a read_batch without a batch-wide site)."""
    if tool == "list_sites" or not isinstance(arguments, dict):
        return None
    name = arguments.get("site")
    if name is None:
        return None if sites.many else sites.names[0]
    return name if isinstance(name, str) and name in sites.names else None


def build_server(site: Any) -> Any:
    """An MCP low-level ``Server`` answering the tools from ``site``: a :class:`Startup`, a
    :class:`~okf_sphinx.agent.sites.Sites`, a :class:`SiteIndex`, or an opened
    :class:`~okf_sphinx.engine.index.Index`.

    Each call runs in a worker thread of its site's lane (:data:`MAX_CALLS_PER_SITE`
    at once; a many-site search runs one part in each site's lane), so calls to a
    slow site hold back no other site's calls and never the protocol."""
    if isinstance(site, Startup):
        startup = site
    elif isinstance(site, Sites):
        startup = Startup.of(site)
    else:
        startup = Startup.of(Sites([("site", site if isinstance(site, SiteIndex) else Opened(site))]))
    import time

    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from okf_sphinx import __version__

    from .mcp_stdio import arrived

    lanes: dict[str | None, Any] = {}
    naming = anyio.CapacityLimiter(1)
    tools: dict[int, list[Any]] = {}

    def lane(key: str | None) -> Any:
        if key not in lanes:
            lanes[key] = anyio.CapacityLimiter(MAX_CALLS_PER_SITE if key is not None else MAX_OTHER_CALLS)
        return lanes[key]

    async def ready() -> Sites:
        sites = startup.known()
        if sites is None:  # a name waits for its site to open: wait in a lane of its own
            sites = await anyio.to_thread.run_sync(startup.sites, limiter=naming, abandon_on_cancel=True)
        return sites

    async def in_lane(key: str | None, fn: Any, *args: Any, **kwargs: Any) -> tuple[dict[str, Any], bool]:
        return await anyio.to_thread.run_sync(functools.partial(_guarded, fn, *args, **kwargs), limiter=lane(key),
                                              abandon_on_cancel=True)

    def tools_of(sites: Sites) -> list[Any]:
        if id(sites) not in tools:
            tools[id(sites)] = [
                types.Tool(
                    name=name,
                    title=TITLES[name],
                    description=DESCRIPTIONS[name] + (_MANY if sites.many else ""),
                    input_schema=input_schema(name, sites),
                    output_schema=output_schema(name, sites),
                    annotations=types.ToolAnnotations(
                        title=TITLES[name], read_only_hint=True, destructive_hint=False,
                        idempotent_hint=True, open_world_hint=False,
                    ),
                    meta=RESULT_SIZE_META if name in BOUNDED_TOOLS else None,
                )
                for name in TOOL_NAMES
            ]
        return tools[id(sites)]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools_of(await ready()))

    async def search_each(sites: Sites, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        answers: list[Any] = [None] * len(sites.names)

        async def part(i: int, name: str) -> None:
            answers[i] = (await in_lane(name, sites.search_one, name, arguments))[0]

        async with anyio.create_task_group() as tg:
            for i, name in enumerate(sites.names):
                tg.start_soon(part, i, name)
        return _guarded(sites.side_by_side, arguments, answers)

    async def call(ctx: Any, params: Any) -> Any:
        # read_batch's deadline counts from when the request arrived, queueing included
        started = arrived(ctx) or time.monotonic()
        sites = await ready()
        name, arguments = params.name, params.arguments if params.arguments is not None else {}
        if name == "search_sections" and sites.many and isinstance(arguments, dict) and "site" not in arguments:
            answer, failed = await search_each(sites, arguments)
        else:
            answer, failed = await in_lane(_lane(sites, name, arguments), sites.call, name, arguments, started=started)
        return types.CallToolResult(
            content=[types.TextContent(text=answer_json(answer))],
            structured_content=answer,
            is_error=failed,
        )

    known = startup.known()
    if not startup.many:
        where = f"Site: {startup.holders[0].location}"
    elif known is not None:
        where = "Sites (the `site` argument): " + ", ".join(f"{n} ({h.location})" for n, h in known.entries)
    else:
        where = ("Sites: " + ", ".join(h.location for h in startup.holders)
                 + "; list_sites gives their names (the `site` argument)")
    return Server(
        "okf_sphinx",
        version=__version__,
        title="okf_sphinx documentation search",
        instructions=(
            AGENT_GUIDE + " " + where
        ),
        on_list_tools=list_tools,
        on_call_tool=call,
    )


def serve(site: str | list[str], transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765,
          timeout: float | None = None, cache_mb: int | None = None) -> int:
    """Run ``okf mcp`` for one site or several (``name=SITE`` names one; see
    :mod:`okf_sphinx.agent.sites`).  The server answers at once (:class:`Startup`):
    a site that is not built yet (or a URL that does not answer) is served anyway —
    each call answers the reason until the index exists; any other bad site
    argument fails at once (OkfError).  ``cache_mb`` bounds each site's caches (MiB)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="okf mcp: %(levelname)s: %(message)s")
    check_timeout(timeout)
    if cache_mb is not None and not 0 <= cache_mb <= 1 << 30:
        raise OkfError("schema_validation", f"--cache-mb must be 0 or more (MiB), got {cache_mb}")
    startup = Startup([site] if isinstance(site, str) else list(site), timeout, cache_mb)
    if transport != "stdio" and not 0 <= port <= 65535:
        raise OkfError("schema_validation", f"--port must be 0-65535, got {port}")
    startup.start()
    server = build_server(startup)
    if transport == "stdio":
        import anyio

        from .mcp_stdio import stdio_transport

        async def run_stdio() -> None:
            async with stdio_transport() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(run_stdio)
        return 0
    import uvicorn

    app = server.streamable_http_app(host=host)
    print(f"okf mcp: serving {', '.join(h.location for h in startup.holders)} at http://{host}:{port}/mcp "
          "(streamable HTTP)",
          file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
