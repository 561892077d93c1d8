"""``okf mcp``: the four read-only agent tools over MCP (stdio or streamable HTTP).

Built on the official SDK's low-level server so the declared schemas are
exactly the package's contract files (``contracts/<tool>.input.json`` /
``.output.json``).  Every call goes through :func:`okf_sphinx.reading.call_tool`
— the same code the CLI runs — in a worker thread, so many calls proceed at
once.  A success carries the answer as structured content and as its
canonical JSON text (:func:`~okf_sphinx.reading.answer_json`, byte-identical
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
from importlib import resources
from typing import Any

from .errors import OkfError
from .reading import TOOL_ARGUMENTS, answer_json, call_tool

log = logging.getLogger("okf_sphinx.mcp")

TOOL_NAMES = tuple(TOOL_ARGUMENTS)

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
        "get_section(locator) or read_lines(path, [line_start, line_end])." + _COMMON
    ),
    "get_section": (
        "Read one section's exact source text. Give `locator` (from a hit, an outline or `subsections`; add the "
        "hit's `concept_id` when several pages include that file, else the answer is `ambiguous_section`), or "
        "`concept_id` + `heading`; `concept_id` alone returns the page's outline (every section with heading, "
        "level, locator, parent). Headings match as hits show them (plain text) or as written in the source "
        "(``code``, *emphasis*, roles), after trimming, collapsing whitespace, unifying dashes and case folding; "
        "an identifier query such as 'K11' or '3.' matches the heading that starts with it ('K1' never matches "
        "'K10'). A part of a heading never matches: several matches are `ambiguous_section` with candidates, "
        "none is `section_not_found` with suggestions — ask again with a candidate's locator. The subtree "
        "(subsections) is included unless include_subsections=false. Paging: at most max_chars characters "
        "(default 20000, clamped to 1-200000) from `offset`; when `truncated` is true, call again with "
        "offset=next_offset (truncation_reason says why: max_chars or the 256000-byte answer budget). "
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
        "get_section(concept_id=…) for the page's outline." + _COMMON
    ),
}

TITLES = {
    "search_sections": "Search documentation sections",
    "get_section": "Read a documentation section",
    "read_lines": "Read source lines",
    "search_concepts": "Find documentation pages",
}


@functools.cache
def contract(tool: str, kind: str) -> dict[str, Any]:
    """The JSON schema ``contracts/<tool>.<kind>.json`` shipped in the package."""
    text = resources.files("okf_sphinx").joinpath("contracts", f"{tool}.{kind}.json").read_text(encoding="utf-8")
    return json.loads(text)


def _internal_error(exc: BaseException) -> dict[str, Any]:
    return {"error": {"code": "internal_error", "message": f"okf_sphinx failed unexpectedly ({type(exc).__name__}); "
                      "this is a bug — please report it with the request"}}


class SiteIndex:
    """The index a server answers from, opened on first use and reopened when the
    site is rebuilt (its ``manifest.js`` changes on disk), so ``okf mcp`` can be
    configured before the first build and never serves a stale mix of files."""

    def __init__(self, site: str, timeout: float | None = None, index: Any = None) -> None:
        self.site = site
        self.timeout = timeout
        self.location = site
        self._index = index
        self._stamp: Any = self._manifest_stamp(index) if index is not None else None
        self._lock = threading.Lock()

    @staticmethod
    def _manifest_stamp(index: Any) -> Any:
        directory = getattr(index.source, "index_dir", None)
        if directory is None:
            return None  # a URL: one snapshot for the server's lifetime
        try:
            st = os.stat(os.path.join(directory, "manifest.js"), follow_symlinks=False)
        except OSError:
            return ("missing",)
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def get(self) -> Any:
        from .cli import open_site

        with self._lock:
            index = self._index
            if index is not None and self._stamp is not None and self._manifest_stamp(index) != self._stamp:
                index = None  # rebuilt (or removed) since it was opened
            if index is None:
                self._index = None
                index = open_site(self.site, self.timeout)
                self._index, self._stamp = index, self._manifest_stamp(index)
                self.location = index.source.location
            return index


def build_server(site: Any) -> Any:
    """An MCP low-level ``Server`` answering the four tools from ``site`` (a
    :class:`SiteIndex`, or an opened :class:`~okf_sphinx.index.Index`)."""
    if not isinstance(site, SiteIndex):
        site = SiteIndex(site.source.location, index=site)
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from . import __version__

    tools = [
        types.Tool(
            name=name,
            title=TITLES[name],
            description=DESCRIPTIONS[name],
            input_schema=contract(name, "input"),
            output_schema=contract(name, "output"),
            annotations=types.ToolAnnotations(
                title=TITLES[name], read_only_hint=True, destructive_hint=False,
                idempotent_hint=True, open_world_hint=False,
            ),
        )
        for name in TOOL_NAMES
    ]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    def run(name: str, arguments: Any) -> tuple[dict[str, Any], bool]:
        try:
            return call_tool(site.get(), name, arguments), False
        except OkfError as err:
            return err.envelope, True
        except Exception as exc:  # a bug: log it here, never send a traceback
            log.exception("tool %s failed", name)
            return _internal_error(exc), True

    async def call(ctx: Any, params: Any) -> Any:
        answer, failed = await anyio.to_thread.run_sync(run, params.name, params.arguments, abandon_on_cancel=True)
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
            "Search this Sphinx documentation site with search_sections (AND of exact words, no stemming), then "
            "read exactly what you need with get_section (by locator or concept_id + heading) or read_lines. "
            "Quote locators and content_sha256 when you cite; find pages by name with search_concepts. "
            f"Site: {site.location}"
        ),
        on_list_tools=list_tools,
        on_call_tool=call,
    )


def serve(site: str, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765,
          timeout: float | None = None) -> int:
    """Run ``okf mcp``.  A site that is not built yet (or a URL that does not answer) is
    served anyway — each call answers the reason until the index exists; any other
    bad site argument fails at once (OkfError)."""
    from .cli import open_site

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="okf mcp: %(levelname)s: %(message)s")
    try:
        holder = SiteIndex(site, timeout, open_site(site, timeout))
    except OkfError as err:
        if err.code not in ("index_not_found", "source_unavailable"):
            raise
        # not built yet (or the server is down): serve anyway, every call says why until it is there
        log.warning("%s; serving anyway — tools answer %s until the index exists", err.message, err.code)
        holder = SiteIndex(site, timeout)
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
    print(f"okf mcp: serving {holder.location} at http://{host}:{port}/mcp (streamable HTTP)",
          file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
