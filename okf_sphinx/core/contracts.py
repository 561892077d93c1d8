"""The agent tools' JSON schemas (``okf_sphinx/contracts/<tool>.input.json`` and
``.output.json``): the one definition of every tool's arguments.  The MCP server declares
them as they are; :func:`arguments` gives the dispatch the names each tool takes and
requires, so no argument list is written by hand beside them."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any


@functools.cache
def contract(tool: str, kind: str) -> dict[str, Any]:
    """The JSON schema ``contracts/<tool>.<kind>.json`` shipped in the package (``kind``:
    ``input`` or ``output``); cached, so callers copy it before changing it."""
    text = resources.files("okf_sphinx").joinpath("contracts", f"{tool}.{kind}.json").read_text(encoding="utf-8")
    return json.loads(text)


@functools.cache
def arguments(tool: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(the arguments tool takes, in the schema's order; those it requires)``."""
    schema = contract(tool, "input")
    return tuple(schema.get("properties", {})), tuple(schema.get("required", ()))
