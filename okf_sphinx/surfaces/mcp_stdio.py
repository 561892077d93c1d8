"""The stdio transport of ``okf mcp``: JSON-RPC lines in, JSON-RPC lines out.

The MCP SDK's own ``stdio_server`` reads stdin through anyio's default worker
threads — the threads tool calls run in — so calls waiting on a slow site can
starve the reader, and then even a ``ping`` waits behind them; and it drops a
line it cannot read, so the client waits forever for that request's answer.
This transport differs in exactly these points:

- the reader and the writer each have a thread of their own (their own
  ``CapacityLimiter``), so no number of pending tool calls can hold them back;
- every message is stamped with the moment its line was read
  (:class:`Arrival`, handed to handlers as the request context), so a
  deadline — ``read_batch``'s 10 s — counts from then;
- a line that is not a JSON-RPC message is answered at once and the server
  goes on: ``-32700`` (parse error) when it is not JSON, ``-32600`` (invalid
  request) when it is JSON the server cannot take (a number of more than 4,300
  digits, nesting deeper than the SDK's parser reads, a lone surrogate, or no
  JSON-RPC message at all) — carrying the request's ``id`` whenever one can be
  found in the line, so the client stops waiting for it, else ``null``;
- a line longer than :data:`MAX_LINE_BYTES` is refused the same way without
  being held in memory.

Bytes that are not UTF-8 read as U+FFFD, as the SDK reads them.  While
serving, file descriptor 0 reads from the null device and 1 writes to stderr,
so stray output of a library cannot corrupt the wire (the SDK does the same).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import IO, Any

#: The longest request line read (bytes): an MCP request is a few kB; this only stops a runaway client.
MAX_LINE_BYTES = 16 * 1024 * 1024
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


@dataclass(frozen=True)
class Arrival:
    """When a message's line was read (``time.monotonic()``), the request context of a stdio call."""

    monotonic: float


def arrived(ctx: Any) -> float | None:
    """The arrival time of the request ``ctx`` belongs to, when the transport recorded one."""
    request = getattr(ctx, "request", None)
    return request.monotonic if isinstance(request, Arrival) else None


# -- lines the server cannot read ------------------------------------------------------------

_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[{}\[\],:]|[^"{}\[\],:\s]++|\s++', re.S)
_INT_ID = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")


def request_id(text: str) -> int | str | None:
    """The ``id`` of the top-level object in ``text``, found without parsing the rest
    (a line may be too deep or too odd for a parser): a string, or an integer of at most
    18 digits; ``None`` when there is none, or it is anything else."""
    return _top_level_id(text)[1]


def _top_level_id(text: str) -> tuple[bool, int | str | None]:
    """``(has an id member, its value as request_id reads it)``."""
    depth, expect, key, found, present = 0, "start", "", None, False
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.isspace():
            continue
        if depth == 0:
            if expect != "start" or tok != "{":
                break
            depth, expect = 1, "key"
        elif depth > 1:  # inside a member's value: only its end matters
            depth += 1 if tok in ("{", "[") else -1 if tok in ("}", "]") else 0
        elif expect == "key" and tok.startswith('"'):
            key, expect = tok, ":"
        elif expect == ":" and tok == ":":
            expect = "value"
        elif expect == "value":
            if key == '"id"':
                present, found = True, _id_value(tok)
            if tok in ("{", "["):
                depth += 1
            expect = "after"
        elif expect == "after" and tok == ",":
            expect = "key"
        else:  # the object's end, or something that is not JSON
            break
    return present, found


def _id_value(tok: str) -> int | str | None:
    if _INT_ID.fullmatch(tok):
        return int(tok)
    if len(tok) >= 2 and tok.startswith('"') and tok.endswith('"'):
        try:
            value = json.loads(tok)
            value.encode("utf-8")  # a lone surrogate cannot go back on the wire
        except (ValueError, UnicodeEncodeError):
            return None
        return value if isinstance(value, str) else None
    return None


def _is_json(text: str) -> bool:
    try:
        json.loads(text, parse_int=len)  # the value does not matter: no 4,300-digit limit
    except RecursionError:
        return True  # deeper than Python's parser goes, but JSON
    except ValueError:
        return False
    return True


def refusal(text: str, why: str, reader: str = "") -> Any:
    """The JSON-RPC error answering a line that is no message the server can take:
    ``why`` it is refused, or what the JSON ``reader`` said about it."""
    import mcp_types as types

    if _is_json(text):
        code, message = INVALID_REQUEST, f"Invalid request: {why or f'the JSON reader refuses it ({reader})'}"
    else:
        detail = reader or why
        code, message = PARSE_ERROR, "Parse error: the line is not JSON" + (f" ({detail})" if detail else "")
    return types.JSONRPCError(jsonrpc="2.0", id=request_id(text), error=types.ErrorData(code=code, message=message))


def read_message(line: bytes) -> tuple[Any, Any]:
    """``(message, None)`` for a JSON-RPC message, ``(None, error answer)`` for anything
    else, ``(None, None)`` for a blank line."""
    import mcp_types as types
    from pydantic import ValidationError

    text = line.decode("utf-8", errors="replace")
    if not text.strip():
        return None, None
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False, include_input=False)
        if any(str(e.get("type")) == "json_invalid" for e in errors):
            reader = "; ".join(sorted({str(e.get("msg", "")).removeprefix("Invalid JSON: ") for e in errors}))
            return None, refusal(text, "", reader[:300])
        return None, refusal(text, "not a JSON-RPC 2.0 request, notification or response")
    if isinstance(message, types.JSONRPCNotification) and _top_level_id(text)[0]:
        # an id that is neither a string nor an integer: no notification, a request without a usable id
        return None, refusal(text, "the id must be a string or an integer")
    return message, None


def next_message(stream: IO[bytes]) -> tuple[Arrival, Any, Any] | None:
    """``(arrival, message, error answer)`` of the next line (see :func:`read_message`),
    ``None`` at the end of input.  A line over :data:`MAX_LINE_BYTES` is dropped to its
    end without being held, and refused."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None
    arrival = Arrival(time.monotonic())
    if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
        while True:
            rest = stream.readline(MAX_LINE_BYTES)
            if not rest or rest.endswith(b"\n"):
                break
        import mcp_types as types

        return arrival, None, types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
            code=INVALID_REQUEST, message=f"Invalid request: the line is over {MAX_LINE_BYTES} bytes"))
    return (arrival, *read_message(line))


# -- the transport ------------------------------------------------------------------------------


@contextlib.contextmanager
def _claimed() -> Iterator[tuple[IO[bytes], IO[bytes]]]:
    """Private copies of stdin and stdout for the wire, while fd 0 reads the null device
    and fd 1 writes to stderr; restored on the way out."""
    try:
        wire_in, wire_out = os.dup(sys.stdin.fileno()), os.dup(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # not real descriptors (embedded): use the streams as they are
        yield sys.stdin.buffer, sys.stdout.buffer
        return
    sys.stdout.flush()
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    try:
        # never closed: a reader thread may still block on it after the server stops
        yield os.fdopen(wire_in, "rb", closefd=False), os.fdopen(wire_out, "wb", closefd=False)
    finally:
        with contextlib.suppress(OSError):
            os.dup2(wire_in, 0)
            os.dup2(wire_out, 1)


@contextlib.asynccontextmanager
async def stdio_transport() -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run`` over this process's stdio."""
    import anyio
    from mcp.shared.message import ServerMessageMetadata, SessionMessage

    reads = anyio.CapacityLimiter(1)
    writes = anyio.CapacityLimiter(1)
    with _claimed() as (wire_in, wire_out):
        read_send, read_receive = anyio.create_memory_object_stream[Any](0)
        write_send, write_receive = anyio.create_memory_object_stream[Any](0)

        async def reader() -> None:
            async with read_send:
                while True:
                    got = await anyio.to_thread.run_sync(next_message, wire_in, limiter=reads, abandon_on_cancel=True)
                    if got is None:
                        return
                    arrival, message, error = got
                    if error is not None:
                        await write_send.send(SessionMessage(error))
                    elif message is not None:
                        metadata = ServerMessageMetadata(request_context=arrival)
                        await read_send.send(SessionMessage(message, metadata=metadata))

        def write(data: bytes) -> None:
            wire_out.write(data)
            wire_out.flush()

        async def writer() -> None:
            async with write_receive:
                async for item in write_receive:
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
                    await anyio.to_thread.run_sync(write, data, limiter=writes)

        async with anyio.create_task_group() as tg:
            tg.start_soon(writer)
            async with anyio.create_task_group() as reading:
                reading.start_soon(reader)
                try:
                    yield read_receive, write_send.clone()
                finally:
                    reading.cancel_scope.cancel()  # the server is done: stop reading (the writer drains)
                    write_send.close()
