"""The generators okf runs in, as its messages name them: each setting as the host spells it.

An author reads a build error in the terms of the tool they configure: a Sphinx
user sets ``okf_search_limits`` in ``conf.py``, a MkDocs user ``limits:`` under
the ``okf`` plugin in ``mkdocs.yml``.  Every message of the build side that names
a setting takes it from the :class:`Host` of the build (:data:`SPHINX`,
:data:`MKDOCS`), so no MkDocs user is sent to ``conf.py``.  Imports no host.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

#: okf's settings by their short name (the MkDocs option's name).
SETTINGS = ("exclude", "limits", "output_dir", "source_root", "weights", "index_files", "objects",
            "llms_txt", "llms_summary", "language", "semantic_model", "source_maps")


class Placeholder(str):
    """A value shown as written in a message (``N``), never quoted."""


@dataclass(frozen=True)
class Host:
    """One generator: its name, the prefix of okf's messages there, where its settings
    are written and how it spells each of okf's settings."""

    name: str  # "Sphinx", "MkDocs": what read the sources
    prefix: str  # before every build message of okf's (the host's own log may add more)
    where: str  # where an author writes the settings
    output: str  # the folder the index goes into, as the author knows it
    names: Mapping[str, str]  # short name (:data:`SETTINGS`) -> the setting as the host spells it
    yaml: bool = False  # values are shown as YAML (else as Python)

    def setting(self, key: str) -> str:
        """The setting ``key`` as the author writes it (``okf_search_limits``, ``limits``)."""
        return self.names[key]

    def assignment(self, key: str, value: Any) -> str:
        """``setting = value`` as the author writes it (``okf_search_limits = {'terms': N}``,
        ``limits: {terms: N}``), without where."""
        if self.yaml:
            return f"{self.setting(key)}: {_yaml(value)}"
        return f"{self.setting(key)} = {_python(value)}"

    def change(self, key: str, value: Any) -> str:
        """``okf_search_limits = {'terms': N} in conf.py``: what to write, and where."""
        return f"{self.assignment(key, value)} in {self.where}"

    def configured_in(self, config_file: str) -> Host:
        """This host with its settings in ``config_file`` (MkDocs: ``mkdocs.yml``, ProperDocs'
        ``properdocs.yml``, or the file given with ``-f``)."""
        return replace(self, where=f"the okf plugin's options in {config_file}")


def _python(value: Any) -> str:
    if isinstance(value, Placeholder):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_python(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_python(v) for v in value) + "]"
    return repr(value)


def _yaml(value: Any) -> str:
    if isinstance(value, Placeholder):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return repr(value)


SPHINX = Host(
    name="Sphinx",
    prefix="okf_sphinx: ",
    where="conf.py",
    output="the HTML output",
    names={key: ("language" if key == "language" else f"okf_{key}" if key.startswith("llms") else f"okf_search_{key}")
           for key in SETTINGS},  # smart search's language is Sphinx's own ``language``
)
MKDOCS = Host(
    name="MkDocs",
    prefix="okf: ",
    where="the okf plugin's options in mkdocs.yml",  # the build's own file: Host.configured_in
    output="site_dir",
    names={key: key for key in SETTINGS},
    yaml=True,
)
