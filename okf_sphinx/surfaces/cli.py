"""The ``okf`` command: search and read a built okf_sphinx site from a shell.

``okf search|section|object|lines|concepts`` answer one request and exit; ``--json``
prints exactly the structure the MCP tool of the same name returns (one line
of compact JSON, :func:`okf_sphinx.agent.answers.answer_json`).  ``okf mcp`` serves
the four tools over MCP.  ``okf index SITE_DIR`` indexes a site after its build
(Zensical, or MkDocs without the plugin: :mod:`okf_sphinx.capture.built.indexer`).  Refusals print the error envelope on stdout with
``--json`` (a one-line message on stderr without) and exit with the code's
status from :data:`okf_sphinx.core.errors.EXIT_CODES`; output is written only once
the whole answer exists, so an error never leaves partial results behind.

Imports neither Sphinx nor docutils (nor the MCP SDK unless ``okf mcp`` runs, nor MkDocs
and Python-Markdown unless ``okf index`` runs).
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any, NoReturn

from okf_sphinx.agent.sites import check_timeout, open_site
from okf_sphinx.core.errors import OkfError

PROG = "okf"


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # no abbreviations: `--jso` is not `--json`, so whether output is JSON never depends on
        # anything but the flag itself (see _wants_json)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # argparse's own exit(2) + usage → our envelope
        raise _UsageError(f"{self.prog}: {message}")


def _add_common(p: argparse.ArgumentParser, json_flag: bool = True, many: bool = False) -> None:
    if many:
        p.add_argument("site", nargs="+", help="one or more built sites (folders or http(s):// URLs); "
                       "name=SITE names one (else a short name comes from its project name)")
    else:
        p.add_argument("site", help="the built HTML site (folder holding _okf/), its _okf folder, or an http(s):// URL")
    if json_flag:
        p.add_argument("--json", action="store_true", help="print the MCP tool's exact JSON answer (one line)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="when SITE is a URL: the most one index file's request may take, connect to last byte (default 20)")


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
    p.add_argument("--limit", "-n", type=int, default=20, help="maximum hits (smart: pages), 1-100 (default 20)")
    p.add_argument("--mode", choices=("keyword", "smart", "semantic"), default=None,
                   help="keyword (default): exact words, sections; smart: pages ranked for readers, with stemming, "
                   "partial answers and spelling suggestions (and meaning, on a site built with a semantic model); "
                   "semantic: pages by meaning alone")
    p.add_argument("--prefix", action="store_true", help="smart: also complete the last word as a prefix")
    p.add_argument("--expand", action="store_true",
                   help="smart: also list up to 5 sections the hits link to (the site's own cross-references)")
    p.add_argument("--under", metavar="PATH", help="smart: only pages whose source path starts with these path units")
    p.add_argument("--meta", metavar="FIELD=VALUE", action="append",
                   help="smart: only pages whose metadata field has this value (repeat for several)")
    p.add_argument("--kind", metavar="KIND", action="append",
                   help="smart: only sections of this kind: 'section' or an object kind such as py:function (repeatable)")

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
    p.add_argument("--offset", type=int, default=None, metavar="N",
                   help="continue from this character offset (an outline: this entry) — the answer's next_offset")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="outline entries per answer (1-1000, default 1000)")

    p = sub.add_parser("lines", help="lines START..END of a captured file",
                       description="Print lines START..END (1-based, inclusive) of a captured source file, byte for byte.")
    _add_common(p)
    p.add_argument("path", help="the file's path relative to the source root, as hits show it")
    p.add_argument("start", type=int)
    p.add_argument("end", type=int)

    p = sub.add_parser("object", help="a documented object's section by name (function, class, option ...)",
                       description="Print the section of a documented object — its docstring where it is written, "
                       "or its description — by full name or dotted tail (Class.method, method).")
    _add_common(p)
    p.add_argument("name", help="the object's full name or a dotted tail of it, e.g. CacheStore.put")
    p.add_argument("--no-subsections", action="store_true", help="only the object's own lines, not its members")
    p.add_argument("--max-chars", type=int, default=None, metavar="N", help="characters per answer (default 20000, 1-200000)")
    p.add_argument("--offset", type=int, default=None, metavar="N", help="continue from this character offset (next_offset)")

    p = sub.add_parser("concepts", help="find pages by id or title substring",
                       description="Literal, case-insensitive substring search over concept ids and page titles.")
    _add_common(p)
    p.add_argument("query")
    p.add_argument("--limit", "-n", type=int, default=20, help="maximum concepts, 1-100 (default 20)")

    p = sub.add_parser("batch", help="several reads at once: a read_batch request from FILE or stdin",
                       description="Answer a read_batch request: a JSON object {\"items\": [{\"tool\": …, "
                       "\"arguments\": {…}}, …]} (or just the list) read from FILE, or from stdin when FILE "
                       "is omitted or '-'. Prints the MCP tool's JSON answer (one line).")
    _add_common(p)
    p.add_argument("file", nargs="?", default="-", help="the request's JSON file ('-' or omitted: stdin)")

    p = sub.add_parser("model", help="static embedding models for semantic search (okf model distill SRC OUT)",
                       description="Make the static embedding model a site's okf_search_semantic_model names.")
    models = p.add_subparsers(dest="action", metavar="ACTION", parser_class=_Parser)
    models.required = True
    d = models.add_parser("distill", help="distil a local sentence-transformer folder into a static model",
                          description="Distil the sentence-transformer saved in SRC (config.json, tokenizer.json, "
                          "weights) into a model2vec folder OUT, offline. Needs torch: pip install 'okf_sphinx[distill]'.")
    d.add_argument("src", help="the sentence-transformer folder")
    d.add_argument("out", help="a new folder for the static model")
    d.add_argument("--dims", type=int, default=256, help="PCA dimensions of the token vectors (default 256)")
    d.add_argument("--json", action="store_true", help="print what was made as JSON")

    p = sub.add_parser("index", help="add okf's index, llms.txt and dialog to a site built by Zensical or MkDocs",
                       description="Index the site a build wrote into SITE_DIR (Zensical, or MkDocs without the okf "
                       "plugin): every built page paired with its Markdown source, sections with exact source lines, "
                       "_okf/, llms.txt, llms-full.txt and the search dialog on every page. Reads the zensical.toml "
                       "or mkdocs.yml the site was built from (okf's options: its okf plugin entry).")
    p.add_argument("site_dir", help="the built site (the generator's site_dir)")
    p.add_argument("--source", default=None, metavar="DOCS_DIR",
                   help="the site's Markdown sources (default: the configuration's docs_dir)")
    p.add_argument("--config", default=None, metavar="FILE",
                   help="the zensical.toml or mkdocs.yml of the build (default: found in the current folder, "
                   "then beside SITE_DIR)")
    p.add_argument("--json", action="store_true", help="print what was written as JSON (one line)")

    p = sub.add_parser("mcp", help="serve the agent tools over MCP (stdio or streamable HTTP)",
                       description="Serve search_sections, get_section, read_lines, search_concepts, read_batch and "
                       "list_sites over MCP, for one site or several.")
    _add_common(p, json_flag=False, many=True)
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or streamable HTTP")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    p.add_argument("--cache-mb", type=int, default=None, metavar="MB",
                   help="memory bound of the server's index caches, in MiB (default 256; 0 caches nothing)")
    return parser


def _batch_request(source: str) -> Any:
    """The read_batch arguments in ``source`` (a file, or ``-`` for stdin); a bare list is ``{"items": list}``."""
    import json

    cap = 1024 * 1024  # 20 items of arguments are a few kB; this only stops a wrong file
    try:
        if source == "-":
            data = sys.stdin.buffer.read(cap + 1)
        else:
            with open(source, "rb") as fh:
                data = fh.read(cap + 1)
    except OSError as exc:
        raise OkfError("schema_validation", f"cannot read the batch request {source!r}: {exc.strerror}") from None
    if len(data) > cap:
        raise OkfError("resource_limit", f"the batch request is over {cap} bytes; a batch is at most 20 requests",
                       limit=cap)
    try:
        request = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise OkfError("schema_validation", "the batch request is not UTF-8 JSON: give {\"items\": [{\"tool\": …, "
                       "\"arguments\": {…}}, …]}") from None
    return {"items": request} if isinstance(request, list) else request


def request_of(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The MCP tool name and arguments a command line stands for."""
    if args.command == "batch":
        return "read_batch", _batch_request(args.file)
    if args.command == "search":
        request: dict[str, Any] = {"query": args.query, "limit": args.limit}
        if args.mode is not None:
            request["mode"] = args.mode
        if args.prefix:
            request["prefix"] = True
        if args.expand:
            request["expand"] = True
        if args.under is not None:
            request["under"] = args.under
        if args.meta:
            pairs = {}
            for item in args.meta:
                field, sep, value = item.partition("=")
                if not sep or not field:
                    raise OkfError("schema_validation", f"--meta takes FIELD=VALUE, got {item!r}", field="meta")
                pairs[field] = value
            request["meta"] = pairs
        if args.kind:
            request["kind"] = args.kind[0] if len(args.kind) == 1 else args.kind
        return "search_sections", request
    if args.command in ("section", "object"):
        arguments: dict[str, Any] = {}
        if args.command == "object":
            arguments["object"] = args.name
        elif args.locator is not None:
            arguments["locator"] = args.locator
        if getattr(args, "concept", None) is not None:
            arguments["concept_id"] = args.concept
        if getattr(args, "heading", None) is not None:
            arguments["heading"] = args.heading
        if args.no_subsections:
            arguments["include_subsections"] = False
        if args.max_chars is not None:
            arguments["max_chars"] = args.max_chars
        if args.offset is not None:
            arguments["offset"] = args.offset
        if getattr(args, "limit", None) is not None:
            arguments["limit"] = args.limit
        return "get_section", arguments
    if args.command == "lines":
        return "read_lines", {"path": args.path, "lines": [args.start, args.end]}
    return "search_concepts", {"query": args.query, "limit": args.limit}


# -- text rendering ------------------------------------------------------------------------

#: What text output never writes raw (index text, and a URL site's, is not trusted with a
#: terminal): C0 controls but line feed and tab, DEL, the C1 controls (U+0080-U+009F) and the
#: bidirectional formatting characters (Trojan Source: U+061C, U+200E-U+200F, U+202A-U+202E,
#: U+2066-U+2069).  They show as Python writes them in a string: ``\x1b``, ``\u202e``.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """``text`` with the characters of :data:`_CONTROL` escaped (``--json`` stays exact)."""
    return _CONTROL.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def _index(args: argparse.Namespace) -> int:
    """``okf index``: the report on stderr (the build log's lines), JSON or nothing on stdout."""
    import json

    from okf_sphinx.capture.built.indexer import index_built_site

    lines: list[str] = []
    done = index_built_site(args.site_dir, args.source, args.config, lines.append)
    if args.json:
        s = done.summary
        _write(sys.stdout, json.dumps({
            "generator": done.generator, "pages": len(done.pages), "sections": s.sections, "terms": s.terms,
            "bytes": s.written, "index_dir": s.index_dir, "agent_files": list(s.agent_files),
            "search_page": done.search_page, "injected": done.injected, "notes": done.notes,
        }, sort_keys=True) + "\n")
    else:
        _write(sys.stderr, "".join(f"{PROG} index: {line}\n" for line in lines))
    return 0


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


def _render_smart(r: dict[str, Any]) -> str:
    shown = len(r["pages"])
    partial = bool(r["pages"]) and r["pages"][0]["partial"]
    head = f"{r['total']} page{'s' if r['total'] != 1 else ''} {'hold some of' if partial else 'match'} {r['query']!r}"
    head += f" (showing {shown})" if r["truncated"] else ""
    out = [head + f"  [terms: {' '.join(r['terms'])}]"]
    for s in r["suggestions"]:
        out.append(f"no page has {s['term']!r}" + (f"; did you mean: {', '.join(s['candidates'])}?" if s["candidates"] else ""))
    for page in r["pages"]:
        out.append("")
        out.append(f"{page['title'] or page['concept_id']}  ({page['concept_id']})  score {page['score']:.4f}"
                   + (f"  lacks: {' '.join(page['missing_terms'])}" if page["partial"] else ""))
        for h in page["hits"]:
            how = f"  [{h['matched']}]" if "matched" in h else ""
            out.append(f"  {h['path']}:{h['line_start']}-{h['line_end']}  {h['heading'] or '(no heading)'}{how}")
            out.append(_indent(h["snippet"], "      "))
    if r.get("expanded"):
        out.append("")
        out.append("linked from these hits:")
        for e in r["expanded"]:
            out.append(f"  {e['path']}:{e['line_start']}-{e['line_end']}  {e['heading'] or '(no heading)'}"
                       f"  ({e['via']} from {e['from']})")
    return "\n".join(out) + "\n"


def _render_section(r: dict[str, Any], exact: bool = False) -> str:
    if r["kind"] == "outline":
        out = [f"{r['concept_id']} — {r['title']}" if r["title"] else r["concept_id"]]
        if r["url"]:
            out.append(r["url"])
        for s in r["outline"]:
            out.append(f"{'  ' * max(s['level'], 1)}{s['heading'] or '(no heading)'}  {s['locator']}")
        if r["truncated"]:
            shown = f"{r['offset'] + 1}-{r['next_offset']}" if r["outline"] else "none"
            out.append(f"[entries {shown} of {r['total']} ({r['truncation_reason']}); "
                       f"continue with --offset {r['next_offset']}]")
        return visible("\n".join(out) + "\n")
    out = [f"{r['path']}:{r['line_start']}-{r['line_end']}  {r['heading'] or '(no heading)'}"]
    if "object" in r:
        obj = r["object"]
        out.append(f"  [{obj['kind']}] {obj['signature']}" + ("  (generated: no source file holds it)" if obj.get("generated") else ""))
    if r["breadcrumb"]:
        out.append("  " + " › ".join(r["breadcrumb"]))
    out.append(f"  {r['concept_id']}" + (f"  {r['url']}" if r["url"] else "") + f"  sha256 {r['content_sha256']}")
    head = visible("\n".join(out) + "\n\n")
    out = []
    if r["truncated"]:
        out.append("")
        out.append(f"[truncated ({r['truncation_reason']}): {r['content_chars'] - r['next_offset']} more characters; "
                   f"continue with --offset {r['next_offset']}]")
    if r["subsections"]:
        out.append("")
        out.append("subsections:")
        out.extend(f"  {s['heading'] or '(no heading)'}  {s['locator']}" for s in r["subsections"])
    return head + (r["content"] if exact else visible(r["content"])) + visible("\n".join(["", *out]) + "\n")


def _render_lines(r: dict[str, Any], exact: bool = False) -> str:
    content = r["content"] if exact else visible(r["content"])
    return content if content.endswith("\n") else content + "\n"


def _render_concepts(r: dict[str, Any]) -> str:
    head = f"{r['total']} concept{'s match' if r['total'] != 1 else ' matches'} {r['query']!r}"
    head += f" (showing {len(r['concepts'])})" if r["truncated"] else ""
    out = [head]
    for c in r["concepts"]:
        out.append(f"{c['concept_id']}  {c['title']}" + ("" if c["searchable"] else "  (not searchable)"))
    if "objects" in r:
        head = f"{r['objects_total']} object{'s match' if r['objects_total'] != 1 else ' matches'} {r['query']!r}"
        out.append(head + (f" (showing {len(r['objects'])})" if r["objects_truncated"] else ""))
        out.extend(f"{o['heading']}  [{o['kind']}]  {o['locator']}  ({o['concept_id']})" for o in r["objects"])
    return "\n".join(out) + "\n"


def render_text(index: Any, tool: str, answer: dict[str, Any], exact: bool = False) -> str:
    """The text output of ``answer``.  Every character of :data:`_CONTROL` shows escaped,
    except in the captured text of ``read_lines`` and of a section when ``exact`` (a pipe
    or a file, not a terminal: the bytes as captured)."""
    if tool == "read_batch":  # one JSON answer, with or without --json
        from okf_sphinx.agent.answers import answer_json

        return answer_json(answer) + "\n"
    if tool == "search_sections":
        return visible(_render_smart(answer) if answer.get("mode") in ("smart", "semantic") else _render_search(index, answer))
    if tool == "get_section":
        return _render_section(answer, exact)
    if tool == "read_lines":
        return _render_lines(answer, exact)
    return visible(_render_concepts(answer))


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


def _terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _fail(err: OkfError, as_json: bool) -> int:
    from okf_sphinx.agent.answers import answer_json

    if as_json:
        _write(sys.stdout, answer_json(err.envelope) + "\n")
    else:
        _write(sys.stderr, visible(f"{PROG}: error: {err.code}: {' '.join(err.message.split())}\n" + _choices(err)))
    return err.exit_code


def _choices(err: OkfError) -> str:
    """The candidates / suggestions an error names, one per line (text mode shows what it mentions)."""
    lines = []
    for key in ("candidates", "suggestions"):
        items = err.details.get(key) or []
        if items:
            lines.append(f"{key}:")
        for item in items:
            if isinstance(item, dict):
                lines.append(f"  {item.get('heading') or '(no heading)'}  {item.get('locator', '')}".rstrip())
            else:
                lines.append(f"  {item}")
        if err.details.get(f"{key}_truncated"):
            lines.append("  …")
    return "".join(line + "\n" for line in lines)


def _bad_argv(argv: list[str]) -> int | None:
    for i, arg in enumerate(argv):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return i
    return None


class _Interrupts:
    """Remembers a SIGINT while a command runs.  An interrupt can come back from a
    library as an ordinary error (urllib wraps what breaks a socket call, an EINTR
    surfaces as an OSError …), which would otherwise print ``source_unavailable``:
    once Ctrl-C was pressed, the answer is ``cancelled`` whatever error follows."""

    def __init__(self) -> None:
        self.seen = False
        self._previous: Any = None

    def _handler(self, signum: int, frame: Any) -> None:
        self.seen = True
        raise KeyboardInterrupt

    def __enter__(self) -> _Interrupts:
        import signal
        import threading

        # a SIGINT the parent ignores (a background job, nohup) stays ignored, as Python leaves it
        if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._previous is not None:
            import signal

            signal.signal(signal.SIGINT, self._previous)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["mcp"]:  # the server keeps Python's own Ctrl-C handling
        return _main(argv, None)
    with _Interrupts() as interrupts:
        return _main(argv, interrupts)


#: Options whose value is free text: it may start with "-" (``--query --no-deps``).
_TEXT_OPTIONS = frozenset({"--query", "-q", "--heading"})


def _attach_text_values(argv: list[str]) -> list[str]:
    """``--query VALUE`` → ``--query=VALUE``, so argparse never reads a value such as
    ``-x`` or ``--no-deps`` as an option of its own."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        value = next(it, None) if arg in _TEXT_OPTIONS else None
        out.append(arg if value is None else f"{arg}={value}")
    return out


def _wants_json(argv: list[str]) -> bool:
    """Does the command line (text values attached) give ``--json``?  Only before a ``--``,
    where it is the flag: what a refusal prints before (or when) parsing fails."""
    for arg in argv:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


def _main(argv: list[str], interrupts: _Interrupts | None) -> int:
    argv = _attach_text_values(argv)
    as_json = _wants_json(argv) or argv[:1] == ["batch"]  # batch always answers JSON
    try:
        bad = _bad_argv(argv)
        if bad is not None:
            raise OkfError("schema_validation", f"command-line argument {bad + 1} is not valid UTF-8", argument=bad + 1)
        try:
            args = build_parser().parse_args(argv)
        except _UsageError as exc:
            raise OkfError("schema_validation", str(exc)) from None
        as_json = bool(getattr(args, "json", False)) or args.command == "batch"  # as parsed, from here on
        if args.command == "model":
            import json

            from .distill import distill

            made = distill(args.src, args.out, args.dims)
            text = json.dumps(made) + "\n" if args.json else (
                f"wrote {made['model']} ({made['dims']} dimensions, {made['vocabulary']} tokens); "
                f"name it in conf.py: okf_search_semantic_model = {made['model']!r}\n")
            _write(sys.stdout, text)
            return 0
        if args.command == "index":
            return _index(args)
        check_timeout(args.timeout)
        if args.command == "mcp":
            try:
                import anyio  # noqa: F401 - the MCP SDK's runtime; checked here to name what is missing
                import mcp  # noqa: F401
            except ImportError as exc:
                raise OkfError(
                    "missing_dependency",
                    f"okf mcp needs the MCP SDK, which is not installed here ({exc}); install it into this "
                    f"environment ({sys.executable}) with: pip install 'okf_sphinx[mcp]' (or pip install mcp)",
                    package="mcp",
                ) from None
            from .mcp_server import serve

            return serve(args.site, transport=args.transport, host=args.host, port=args.port, timeout=args.timeout,
                         cache_mb=args.cache_mb)
        from okf_sphinx.agent.answers import answer_json
        from okf_sphinx.agent.dispatch import call_tool

        index = open_site(args.site, args.timeout)
        tool, arguments = request_of(args)
        if tool == "read_batch":  # the MCP server's own dispatch, so the bytes are the server's
            from okf_sphinx.agent.sites import Opened, Sites, name_sites

            ((name, _, _),) = name_sites([args.site], lambda _site: index)
            answer = Sites([(name, Opened(index))]).call(tool, arguments)
        else:
            answer = call_tool(index, tool, arguments)
        text = answer_json(answer) + "\n" if args.json else render_text(index, tool, answer, exact=not _terminal())
    except OkfError as err:
        if interrupts is not None and interrupts.seen:
            return _fail(OkfError("cancelled", "interrupted; nothing was printed"), as_json)
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
