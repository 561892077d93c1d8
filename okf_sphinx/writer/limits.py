"""The build's caps: the author's corpus limits (``okf_search_limits``) and the format's
fixed path limits, checked before any captured byte is read (``terms`` once the
sections are counted)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from okf_sphinx.core.errors import BuildLimitError, PathLimitError
from okf_sphinx.core.hosts import Host
from okf_sphinx.core.locators import MAX_PATH_BYTES, MAX_PATH_COMPONENTS
from okf_sphinx.core.records import CapturedFile, DocRecord

#: Build-time caps: ten times the reference implementation's per-query caps.
DEFAULT_LIMITS = {
    "files": 100_000,
    "bytes": 640 * 1024 * 1024,
    "file_bytes": 16 * 1024 * 1024,
    "sections": 1_000_000,
    "terms": 10_000_000,
}
#: ``okf_search_limits = "reference"``: the reference implementation's exact caps.
REFERENCE_LIMITS = {
    "files": 10_000,
    "bytes": 64 * 1024 * 1024,
    "file_bytes": 16 * 1024 * 1024,
    "sections": 100_000,
    "terms": 1_000_000,
}


def resolve_limits(value: Any, host: Host) -> dict[str, int]:
    """The caps the author's setting names (ValueError naming it as ``host`` spells it)."""
    if value in (None, "default"):
        return dict(DEFAULT_LIMITS)
    if value == "reference":
        return dict(REFERENCE_LIMITS)
    if not isinstance(value, dict) or not all(k in DEFAULT_LIMITS for k in value) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value.values()
    ):
        raise ValueError(
            f"{host.setting('limits')} must be 'default', 'reference' or a dict of positive integers with keys "
            f"{sorted(DEFAULT_LIMITS)}; got {value!r}"
        )
    return {**DEFAULT_LIMITS, **value}


def check_cap(limit: str, value: int, limits: dict[str, int], host: Host) -> None:
    """``value`` is within the cap ``limit``, or :class:`BuildLimitError`."""
    if value > limits[limit]:
        raise BuildLimitError(limit, value, limits[limit], host)


def check_path(rel: str, host: Host) -> None:
    """A captured path must fit the format's fixed path limits (the reading tools' own)."""
    nbytes = len(rel.encode("utf-8"))
    parts = len(PurePosixPath(rel).parts)
    if nbytes > MAX_PATH_BYTES:
        raise PathLimitError(rel, "bytes in UTF-8", nbytes, MAX_PATH_BYTES, host)
    if parts > MAX_PATH_COMPONENTS:
        raise PathLimitError(rel, "components", parts, MAX_PATH_COMPONENTS, host)


def check_captured(records: list[DocRecord], files: dict[str, CapturedFile], relative: Callable[[str], str],
                   limits: dict[str, int], host: Host) -> None:
    """Every cap but ``terms`` (known only once sections are counted), before any byte is read;
    ``relative(path)``: a captured file's path as the index names it."""
    check_cap("files", len(files), limits, host)
    total = 0
    for f in files.values():
        check_cap("file_bytes", f.size, limits, host)
        total += f.size
        check_path(relative(f.path), host)
    check_cap("bytes", total, limits, host)
    check_cap("sections", sum(len(r.sections) for r in records), limits, host)
