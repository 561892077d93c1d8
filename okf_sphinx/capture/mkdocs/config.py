"""The okf plugin's options in ``mkdocs.yml`` (docs/mkdocs.md, "Configuration"), checked by
MkDocs' own configuration machinery with the Sphinx extension's rules, each error naming
the option as it is written there (:data:`~okf_sphinx.core.hosts.MKDOCS`)."""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c

from okf_sphinx.core.hosts import MKDOCS
from okf_sphinx.core.records import DEFAULT_EXCLUDE
from okf_sphinx.writer.build import DEFAULT_OUTPUT_DIR, index_folder_name
from okf_sphinx.writer.limits import resolve_limits
from okf_sphinx.writer.sizing import check_file_scale
from okf_sphinx.writer.smart_index import DEFAULT_WEIGHTS, check_weights


class _Limits(c.BaseConfigOption):
    """``"default"``, ``"reference"`` or a mapping of caps (docs/configuration.md)."""

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default

    def run_validation(self, value: object) -> dict[str, int]:
        try:
            return resolve_limits(value, MKDOCS)
        except ValueError as exc:
            raise base.ValidationError(str(exc)) from None


class _IndexFiles(c.BaseConfigOption):
    """A factor on the index's file counts, 0.25 to 16 (okf_search_index_files in Sphinx)."""

    def __init__(self, default: float) -> None:
        super().__init__()
        self.default = default

    def run_validation(self, value: object) -> float:
        try:
            return check_file_scale(value, MKDOCS)
        except ValueError as exc:
            raise base.ValidationError(str(exc)) from None


class _Weights(c.BaseConfigOption):
    """Docname pattern -> page weight (okf_search_weights in Sphinx), as a list of pairs."""

    def __init__(self, default: dict[str, float]) -> None:
        super().__init__()
        self.default = default

    def run_validation(self, value: object) -> list[tuple[str, float]]:
        try:
            return check_weights(value, MKDOCS)
        except ValueError as exc:
            raise base.ValidationError(str(exc)) from None


class _OutputDir(c.Type):
    """A non-empty relative folder name inside ``site_dir`` (the index is replaced wholesale),
    by the Sphinx extension's rule (writer/build.py); where it leads is checked in ``on_config``."""

    def __init__(self, default: str) -> None:
        super().__init__(str, default=default)

    def run_validation(self, value: object) -> str:
        try:
            return index_folder_name(super().run_validation(value), MKDOCS)
        except ValueError as exc:
            raise base.ValidationError(str(exc)) from None


class OkfConfig(base.Config):
    """The options under ``- okf:`` in ``plugins:``."""

    exclude = c.ListOfItems(c.Type(str), default=list(DEFAULT_EXCLUDE))
    limits = _Limits(default="default")
    output_dir = _OutputDir(default=DEFAULT_OUTPUT_DIR)
    source_root = c.Optional(c.Type(str))
    weights = _Weights(default=dict(DEFAULT_WEIGHTS))
    replace_builtin = c.Type(bool, default=True)
    dialog = c.Type(bool, default=True)
    title = c.Type(str, default="Search")
    language = c.Optional(c.Type(str))
    unmatched_headings = c.Choice(("warn", "info"), default="warn")
    objects = c.Type(bool, default=True)
    index_files = _IndexFiles(default=1.0)
    source_maps = c.Type(bool, default=True)
    llms_txt = c.Type(bool, default=True)
    llms_summary = c.Optional(c.Type(str))
    semantic_model = c.Optional(c.Type(str))
