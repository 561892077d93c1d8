"""One dispatch for every surface: the tools' argument table and
:func:`call_tool`, through which the Python API, the CLI, the MCP server and
``read_batch`` run a tool, so their answers and refusals are the same bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from okf_sphinx.core.contracts import arguments
from okf_sphinx.core.errors import OkfError

from .get_section import get_section
from .read_lines import read_lines
from .search_concepts import search_concepts

if TYPE_CHECKING:
    from okf_sphinx.engine.index import Index


# -- one dispatch for every surface ------------------------------------------------------------

#: Tool name → (arguments it takes, arguments it requires), as its input schema declares them.
TOOL_ARGUMENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    tool: arguments(tool) for tool in ("search_sections", "get_section", "read_lines", "search_concepts")
}


def call_tool(index: Index, name: str, arguments: Any) -> dict[str, Any]:
    """Run tool ``name`` with a JSON ``arguments`` object; the CLI and the MCP server
    both come through here, so their answers (and refusals) are the same bytes."""
    if name not in TOOL_ARGUMENTS:
        raise OkfError("schema_validation", f"unknown tool {name!r}; the tools are {', '.join(TOOL_ARGUMENTS)}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise OkfError("schema_validation", "tool arguments must be a JSON object")
    allowed, required = TOOL_ARGUMENTS[name]
    unknown = sorted(k for k in arguments if k not in allowed)
    if unknown:
        raise OkfError(
            "schema_validation", f"{name} does not take {', '.join(map(repr, unknown))}; it takes {', '.join(allowed)}",
            field=unknown[0],
        )
    nulls = sorted(k for k, v in arguments.items() if v is None)
    if nulls:
        raise OkfError("schema_validation", f"{nulls[0]} must not be null: leave it out for its default", field=nulls[0])
    if name == "read_lines" and "path" not in arguments:
        raise OkfError("missing_path", "read_lines needs path: a captured file's path relative to the source root", field="path")
    for key in required:
        if key not in arguments:
            raise OkfError("schema_validation", f"{name} needs {key!r}", field=key)
    return index.consistent(_dispatch, index, name, arguments)


def _dispatch(index: Index, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    # the arguments are checked against TOOL_ARGUMENTS: each is a parameter of its tool, and
    # one left out takes the tool's own default (one place for every default)
    if name == "search_sections":
        return index.search(**arguments)
    if name == "get_section":
        return get_section(index, **arguments)
    if name == "read_lines":
        return read_lines(index, **arguments)
    return search_concepts(index, **arguments)
