"""The ``okf`` command: search and read a built okf_sphinx site from a shell.

``okf search|section|lines|concepts`` answer one request and exit; ``--json``
prints exactly the structure the MCP tool of the same name returns (one line
of compact JSON, :func:`okf_sphinx.reading.answer_json`).  ``okf mcp`` serves
the four tools over MCP.  Refusals print the error envelope on stdout with
``--json`` (a one-line message on stderr without) and exit with the code's
status from :data:`okf_sphinx.errors.EXIT_CODES`; output is written only once
the whole answer exists, so an error never leaves partial results behind.

Imports neither Sphinx nor docutils (nor the MCP SDK unless ``okf mcp`` runs).
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, NoReturn

from .errors import OkfError

PROG = "okf"


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's own exit(2) + usage → our envelope
        raise _UsageError(f"{self.prog}: {message}")


def _add_common(p: argparse.ArgumentParser, json_flag: bool = True) -> None:
    p.add_argument("site", help="the built HTML site (folder holding _okf/), its _okf folder, or an http(s):// URL")
    if json_flag:
        p.add_argument("--json", action="store_true", help="print the MCP tool's exact JSON answer (one line)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="HTTP timeout per index file when SITE is a URL (default 20)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Search and read a Sphinx site built with okf_sphinx: exact BM25 section search, "
        "sections and line ranges from the captured sources, and an MCP server for agents.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("search", help="search sections (AND of all words, no stemming)",
                       description="Search the site's sections: every word must occur (AND), no stemming.")
    _add_common(p)
    p.add_argument("--query", "-q", required=True, help="the words to find")
    p.add_argument("--limit", "-n", type=int, default=20, help="maximum hits, 1-100 (default 20)")

    p = sub.add_parser("section", help="one section by locator, or by --concept and --heading",
                       description="Print one section's exact source text (its subtree by default). "
                       "With --concept and no --heading: the page's outline.")
    _add_common(p)
    p.add_argument("locator", nargs="?", help="a locator from a hit, e.g. usage/install.rst#L8-L14")
    p.add_argument("--concept", metavar="ID", help="a concept id (docname), e.g. usage/install; beside a LOCATOR, "
                   "the page it belongs to (needed when several pages include the file)")
    p.add_argument("--heading", metavar="TEXT", help="the section heading (as hits show it or as written in the source)")
    p.add_argument("--no-subsections", action="store_true", help="only the section's own lines, not its subtree")
    p.add_argument("--max-chars", type=int, default=None, metavar="N", help="characters per answer (default 20000, 1-200000)")
    p.add_argument("--offset", type=int, default=None, metavar="N", help="continue from this character offset (next_offset)")

    p = sub.add_parser("lines", help="lines START..END of a captured file",
                       description="Print lines START..END (1-based, inclusive) of a captured source file, byte for byte.")
    _add_common(p)
    p.add_argument("path", help="the file's path relative to the source root, as hits show it")
    p.add_argument("start", type=int)
    p.add_argument("end", type=int)

    p = sub.add_parser("concepts", help="find pages by id or title substring",
                       description="Literal, case-insensitive substring search over concept ids and page titles.")
    _add_common(p)
    p.add_argument("query")
    p.add_argument("--limit", "-n", type=int, default=20, help="maximum concepts, 1-100 (default 20)")

    p = sub.add_parser("mcp", help="serve the four tools over MCP (stdio or streamable HTTP)",
                       description="Serve search_sections, get_section, read_lines and search_concepts over MCP.")
    _add_common(p, json_flag=False)
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or streamable HTTP")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    return parser


def open_site(site: str, timeout: float | None = None) -> Any:
    """An :class:`~okf_sphinx.index.Index` for a folder or URL, with an optional HTTP timeout."""
    from .index import Index
    from .source import UrlSource, open_source

    timeout = check_timeout(timeout)
    source = open_source(site)
    if timeout is not None and isinstance(source, UrlSource):
        source.timeout = timeout
    return Index(source)


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
        shown = repr(timeout) if len(repr(timeout)) <= 40 else f"a {len(str(timeout))}-digit number"
        raise OkfError(
            "schema_validation",
            f"--timeout must be a finite number of seconds above 0 and at most {MAX_TIMEOUT:g}, got {shown}",
            field="timeout", limit=MAX_TIMEOUT,
        )
    return float(timeout)


def request_of(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The MCP tool name and arguments a command line stands for."""
    if args.command == "search":
        return "search_sections", {"query": args.query, "limit": args.limit}
    if args.command == "section":
        arguments: dict[str, Any] = {}
        if args.locator is not None:
            arguments["locator"] = args.locator
        if args.concept is not None:
            arguments["concept_id"] = args.concept
        if args.heading is not None:
            arguments["heading"] = args.heading
        if args.no_subsections:
            arguments["include_subsections"] = False
        if args.max_chars is not None:
            arguments["max_chars"] = args.max_chars
        if args.offset is not None:
            arguments["offset"] = args.offset
        return "get_section", arguments
    if args.command == "lines":
        return "read_lines", {"path": args.path, "lines": [args.start, args.end]}
    return "search_concepts", {"query": args.query, "limit": args.limit}


# -- text rendering ------------------------------------------------------------------------


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line.rstrip("\r") for line in text.split("\n"))


def _render_search(index: Any, r: dict[str, Any]) -> str:
    titles = {c[0]: c[1] for c in index.concepts()} if r["hits"] else {}
    shown = len(r["hits"])
    head = f"{r['total']} section{'s match' if r['total'] != 1 else ' matches'} {r['query']!r}"
    head += f" (showing {shown})" if r["truncated"] else ""
    out = [head + f"  [terms: {' '.join(r['terms'])}]"]
    for h in r["hits"]:
        out.append("")
        out.append(f"{h['path']}:{h['line_start']}-{h['line_end']}  {h['heading'] or '(no heading)'}")
        title = titles.get(h["concept_id"], "")
        out.append(f"  {h['concept_id']}" + (f" — {title}" if title else "") + f"  score {h['score']:.4f}")
        out.append(_indent(h["snippet"], "    "))
    return "\n".join(out) + "\n"


def _render_section(r: dict[str, Any]) -> str:
    if r["kind"] == "outline":
        out = [f"{r['concept_id']} — {r['title']}" if r["title"] else r["concept_id"]]
        if r["url"]:
            out.append(r["url"])
        for s in r["outline"]:
            out.append(f"{'  ' * max(s['level'], 1)}{s['heading'] or '(no heading)'}  {s['locator']}")
        return "\n".join(out) + "\n"
    out = [f"{r['path']}:{r['line_start']}-{r['line_end']}  {r['heading'] or '(no heading)'}"]
    if r["breadcrumb"]:
        out.append("  " + " › ".join(r["breadcrumb"]))
    out.append(f"  {r['concept_id']}" + (f"  {r['url']}" if r["url"] else "") + f"  sha256 {r['content_sha256']}")
    out.append("")
    out.append(r["content"])
    if r["truncated"]:
        out.append("")
        out.append(f"[truncated ({r['truncation_reason']}): {r['content_chars'] - r['next_offset']} more characters; "
                   f"continue with --offset {r['next_offset']}]")
    if r["subsections"]:
        out.append("")
        out.append("subsections:")
        out.extend(f"  {s['heading'] or '(no heading)'}  {s['locator']}" for s in r["subsections"])
    return "\n".join(out) + "\n"


def _render_lines(r: dict[str, Any]) -> str:
    content = r["content"]
    return content if content.endswith("\n") else content + "\n"


def _render_concepts(r: dict[str, Any]) -> str:
    head = f"{r['total']} concept{'s match' if r['total'] != 1 else ' matches'} {r['query']!r}"
    head += f" (showing {len(r['concepts'])})" if r["truncated"] else ""
    out = [head]
    for c in r["concepts"]:
        out.append(f"{c['concept_id']}  {c['title']}" + ("" if c["searchable"] else "  (not searchable)"))
    return "\n".join(out) + "\n"


def render_text(index: Any, tool: str, answer: dict[str, Any]) -> str:
    if tool == "search_sections":
        return _render_search(index, answer)
    if tool == "get_section":
        return _render_section(answer)
    if tool == "read_lines":
        return _render_lines(answer)
    return _render_concepts(answer)


# -- entry point -----------------------------------------------------------------------------


def _write(stream: Any, text: str) -> None:
    data = text.encode("utf-8")
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        stream.flush()
        buffer.write(data)
        buffer.flush()
    else:  # a replaced stream (tests)
        stream.write(text)
        stream.flush()


def _fail(err: OkfError, as_json: bool) -> int:
    from .reading import answer_json

    if as_json:
        _write(sys.stdout, answer_json(err.envelope) + "\n")
    else:
        _write(sys.stderr, f"{PROG}: error: {err.code}: {' '.join(err.message.split())}\n")
    return err.exit_code


def _bad_argv(argv: list[str]) -> int | None:
    for i, arg in enumerate(argv):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return i
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv
    try:
        bad = _bad_argv(argv)
        if bad is not None:
            raise OkfError("schema_validation", f"command-line argument {bad + 1} is not valid UTF-8", argument=bad + 1)
        try:
            args = build_parser().parse_args(argv)
        except _UsageError as exc:
            raise OkfError("schema_validation", str(exc)) from None
        check_timeout(args.timeout)
        if args.command == "mcp":
            from .mcp_server import serve

            return serve(args.site, transport=args.transport, host=args.host, port=args.port, timeout=args.timeout)
        from .reading import answer_json, call_tool

        index = open_site(args.site, args.timeout)
        tool, arguments = request_of(args)
        answer = call_tool(index, tool, arguments)
        text = answer_json(answer) + "\n" if args.json else render_text(index, tool, answer)
    except OkfError as err:
        return _fail(err, as_json)
    except KeyboardInterrupt:
        return _fail(OkfError("cancelled", "interrupted; nothing was printed"), as_json)
    try:
        _write(sys.stdout, text)
    except BrokenPipeError:  # `okf ... | head`: the reader left; not an error of ours
        try:
            sys.stdout = None  # type: ignore[assignment]
        except Exception:
            pass
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
