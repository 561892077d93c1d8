"""``okf mcp``: the four read-only agent tools over MCP (stdio or streamable HTTP).

Built on the official SDK's low-level server so the declared schemas are
exactly the package's contract files (``contracts/<tool>.input.json`` /
``.output.json``).  Every call goes through :func:`okf_sphinx.agent.dispatch.call_tool`
— the same code the CLI runs — in a worker thread, so many calls proceed at
once.  A success carries the answer as structured content and as its
canonical JSON text (:func:`~okf_sphinx.agent.answers.answer_json`, byte-identical
to ``okf … --json``); a refusal is an error result (``isError: true``) whose
text and structured content are the error envelope.  No traceback ever
reaches the client.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from typing import Any

from okf_sphinx.agent.answers import MAX_ANSWER_BYTES, answer_json
from okf_sphinx.agent.dispatch import TOOL_ARGUMENTS
from okf_sphinx.agent.sites import Opened, Sites, name_sites, open_site
from okf_sphinx.core.contracts import contract
from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.guide import AGENT_GUIDE

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
            if index is not None and (self._stamp is None or self._manifest_stamp(index) == self._stamp):
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


def build_server(site: Any) -> Any:
    """An MCP low-level ``Server`` answering the tools from ``site``: a
    :class:`~okf_sphinx.agent.sites.Sites`, a :class:`SiteIndex`, or an opened
    :class:`~okf_sphinx.engine.index.Index`."""
    if isinstance(site, Sites):
        sites = site
    else:
        holder = site if isinstance(site, SiteIndex) else Opened(site)
        sites = Sites([("site", holder)])
    import time

    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from okf_sphinx import __version__

    tools = [
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

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    def run(name: str, arguments: Any, started: float) -> tuple[dict[str, Any], bool]:
        try:
            return sites.call(name, arguments, started=started), False
        except OkfError as err:
            return err.envelope, True
        except Exception as exc:  # a bug: log it here, never send a traceback
            log.exception("tool %s failed", name)
            return _internal_error(exc), True

    async def call(ctx: Any, params: Any) -> Any:
        started = time.monotonic()  # read_batch's deadline counts the wait for a worker thread too
        answer, failed = await anyio.to_thread.run_sync(run, params.name, params.arguments, started,
                                                        abandon_on_cancel=True)
        return types.CallToolResult(
            content=[types.TextContent(text=answer_json(answer))],
            structured_content=answer,
            is_error=failed,
        )

    return Server(
        "okf_sphinx",
        version=__version__,
        title="okf_sphinx documentation search",
        instructions=(
            AGENT_GUIDE + " "
            + (f"Site: {sites.entries[0][1].location}" if not sites.many else
               "Sites (the `site` argument): " + ", ".join(f"{n} ({h.location})" for n, h in sites.entries))
        ),
        on_list_tools=list_tools,
        on_call_tool=call,
    )


def serve(site: str | list[str], transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765,
          timeout: float | None = None, cache_mb: int | None = None) -> int:
    """Run ``okf mcp`` for one site or several (``name=SITE`` names one; see
    :mod:`okf_sphinx.agent.sites`).  A site that is not built yet (or a URL that does not
    answer) is served anyway — each call answers the reason until the index exists;
    any other bad site argument fails at once (OkfError).  ``cache_mb`` bounds each
    site's caches (MiB)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="okf mcp: %(levelname)s: %(message)s")
    entries = []
    for name, where, opened in name_sites([site] if isinstance(site, str) else list(site),
                                          lambda s: open_site(s, timeout, cache_mb)):
        if isinstance(opened, OkfError):
            if opened.code not in ("index_not_found", "source_unavailable"):
                raise opened
            # not built yet (or the server is down): serve anyway, every call says why until it is there
            log.warning("%s; serving anyway — tools answer %s until the index exists", opened.message, opened.code)
            entries.append((name, SiteIndex(where, timeout, cache_mb=cache_mb)))
        else:
            entries.append((name, SiteIndex(where, timeout, opened, cache_mb)))
    holder = Sites(entries)
    server = build_server(holder)
    if transport == "stdio":
        import anyio
        from mcp.server.stdio import stdio_server

        async def run_stdio() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(run_stdio)
        return 0
    import uvicorn

    if not 0 <= port <= 65535:
        raise OkfError("schema_validation", f"--port must be 0-65535, got {port}")
    app = server.streamable_http_app(host=host)
    print(f"okf mcp: serving {', '.join(h.location for _, h in holder.entries)} at http://{host}:{port}/mcp "
          "(streamable HTTP)",
          file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
