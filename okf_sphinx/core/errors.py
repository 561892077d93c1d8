"""The one error type every query surface raises, carrying the contract's envelope.

Codes are those of docs/contract.md ("Errors") and docs/agents.md ("Errors").  The CLI maps
each code to its own exit status, the MCP server returns the envelope as an
error result, and the browser runtime shows ``message``.  Messages quote the
values of a request as JSON (:func:`json_text`), the same bytes in every engine.
The browser runtime's twin is ``okf_sphinx/js/core/errors.js``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .hosts import Host, Placeholder

#: Every error code a surface may produce, with the CLI exit status for it.
EXIT_CODES: dict[str, int] = {
    "schema_validation": 2,
    "resource_limit": 3,
    "index_not_found": 4,
    "index_corrupt": 5,
    "index_version_unsupported": 6,
    "cancelled": 7,
    # reading tools (docs/agents.md, "Errors")
    "not_found": 8,
    "missing_path": 9,
    "path_outside_root": 10,
    "path_too_long": 11,
    "invalid_line_range": 12,
    "range_out_of_bounds": 13,
    "ambiguous_section": 14,
    "section_not_found": 15,
    "page_too_large": 16,
    "source_unavailable": 17,
    # read_batch (docs/agents.md): the whole call refused, never cut; one item that cannot fit
    "missing_items": 18,
    "too_many_items": 19,
    "item_too_large": 20,
    # `okf mcp` in an environment without the MCP SDK
    "missing_dependency": 21,
    # mode "semantic" on an index whose site names no embedding model (docs/smart.md, "Meaning")
    "semantic_unavailable": 22,
    # a file of another build than the manifest (a rebuild, a deployment, a cache serving two builds)
    "index_changed": 23,
    # `okf index SITE_DIR` (docs/zensical.md): no build there, sources that do not match it, an index that
    # cannot be written (a cap, a heading too long); nothing is written
    "site_not_built": 24,
    "source_mismatch": 25,
    "build_failed": 26,
    # an unexpected failure inside a server: reported as an envelope, never a traceback
    "internal_error": 70,
}


class OkfError(Exception):
    """A refused operation: ``code`` is one of :data:`EXIT_CODES`.

    ``details`` are extra envelope fields (``candidates``, ``suggestions``,
    ``limit`` …) and must be JSON-serialisable.
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        if code not in EXIT_CODES:
            raise ValueError(f"unknown okf error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    @property
    def envelope(self) -> dict[str, Any]:
        """``{"error": {"code", "message", **details}}`` — the wire form."""
        return {"error": {"code": self.code, "message": self.message, **self.details}}

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.code]

    def __repr__(self) -> str:
        return f"OkfError({self.code!r}, {self.message!r})"


def json_text(value: Any) -> str:
    """``value`` as an error message quotes it: JSON as JavaScript's ``JSON.stringify`` writes
    it — numbers in ECMAScript's shortest form (RFC 8785), object keys sorted by UTF-16 code
    units — so every engine quotes a request's value with the same bytes (``core/errors.js``
    ``jsonText``).  ``NaN`` and infinities are written as JavaScript's ``String`` writes them;
    a Python value JSON has no form for is shown by its ``repr``."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(value) if abs(value) <= 1 << 53 else _ecma_number(_as_float(value))
    if isinstance(value, float):
        return _ecma_number(value)
    if isinstance(value, str):
        # json's escapes are JSON.stringify's; a lone surrogate is escaped as JSON.stringify does
        text = json.dumps(value, ensure_ascii=False)
        return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = {(k if isinstance(k, str) else json_text(k)): v for k, v in value.items()}
        order = sorted(keys, key=lambda k: k.encode("utf-16-be", "surrogatepass"))
        return "{" + ",".join(f"{json_text(k)}:{json_text(keys[k])}" for k in order) + "}"
    return repr(value)


def _as_float(n: int) -> float:
    try:
        return float(n)
    except OverflowError:
        return math.inf if n > 0 else -math.inf


def _ecma_number(x: float) -> str:
    """ECMAScript's Number::toString (what ``String(x)`` gives in JavaScript): the shortest
    round-trip digits (Python's ``repr`` finds the same ones), placed by ECMAScript's rule."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mantissa, _, exp = repr(abs(x)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac.rstrip("0")).lstrip("0") if frac.rstrip("0") else whole.lstrip("0")
    # the decimal point's place: value = 0.<digits> × 10^n
    n = len(whole.lstrip("0")) if whole.strip("0") else -(len(frac) - len(frac.lstrip("0")))
    n += int(exp or 0)
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    return sign + digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e > 0 else "-") + str(abs(e))


def shown(value: Any) -> str:
    """``value`` as an error message quotes it (:func:`json_text`), or — for a long one (a
    400-digit weight, an integer Python will not even print) — what it is."""
    try:
        text = str(value) if isinstance(value, int) and not isinstance(value, bool) else json_text(value)
    except ValueError:  # an int past Python's 4,300-digit conversion limit
        return "an integer of more than 4300 digits"
    if len(text) <= 60:
        return text
    if isinstance(value, int) and not isinstance(value, bool):
        return f"a {len(text) - (value < 0)}-digit number"
    return f"{text[:40]}… ({len(text)} characters)"


class BuildError(Exception):
    """The index cannot be written; the message says what to change, in the terms of the
    :class:`~okf_sphinx.core.hosts.Host` that runs the build."""


class SourceChangedError(BuildError):
    """A captured file's bytes are not those the host read earlier in this build."""

    def __init__(self, path: str, why: str, host: Host) -> None:
        super().__init__(f"{host.prefix}{path} {why}; run the build again. No search index was written")


class NotAnIndexError(BuildError):
    """The index folder's place holds something okf did not write."""

    def __init__(self, target: object, host: Host) -> None:
        super().__init__(
            f"{host.prefix}{target} exists and is not an okf_sphinx index (no okf manifest.js), so it was "
            f"left untouched; set {host.setting('output_dir')} to a free folder name in {host.where}, or remove it "
            "yourself. No search index was written"
        )


class BuildLimitError(BuildError):
    """A build-time corpus cap was exceeded."""

    def __init__(self, limit: str, value: int, maximum: int, host: Host) -> None:
        self.limit = limit
        self.value = value
        self.maximum = maximum
        super().__init__(
            f"{host.prefix}limit {limit!r} exceeded: {value} > {maximum}; raise it with "
            f"{host.change('limits', {limit: Placeholder('N')})} (or fix the input); "
            "no search index was written"
        )


class PathLimitError(BuildError):
    """A captured file's path (relative to the source root) is over a fixed format limit."""

    def __init__(self, path: str, unit: str, value: int, maximum: int, host: Host) -> None:
        self.path = path
        self.unit = unit
        self.value = value
        self.maximum = maximum
        shown = path if len(path) <= 200 else path[:100] + "…" + path[-100:]
        super().__init__(
            f"{host.prefix}the path of captured file {shown!r} (relative to the source root) has {value} {unit}; "
            f"the index format allows at most {maximum} (a fixed limit, which no setting raises): "
            "move or rename the file so that its path is shorter; "
            "no search index was written"
        )
