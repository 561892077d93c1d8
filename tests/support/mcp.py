"""A real MCP SDK client over stdio for the tests (``python -m okf_sphinx mcp SITE``)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from jsonschema import Draft202012Validator
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from okf_sphinx.agent.answers import answer_json
from okf_sphinx.core.contracts import contract


@contextlib.asynccontextmanager
async def session_for(site: str | Path, *extra: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "okf_sphinx", "mcp", str(site), *extra])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


def structured(result: Any) -> dict[str, Any]:
    """The answer of a tool result, after checking its text is the canonical JSON of it."""
    assert len(result.content) == 1 and result.content[0].type == "text"
    data = result.structured_content
    assert result.content[0].text == answer_json(data)
    return data


def validate(tool: str, answer: dict[str, Any]) -> None:
    Draft202012Validator(contract(tool, "output")).validate(answer)

