"""The one way a site's index is built: section records in, the index and the agent files
on disk, a summary out.

Every host calls :func:`build_site` once it has captured the pages — the Sphinx
extension at ``build-finished``, the MkDocs plugin at ``on_post_build``, and any
caller that captures records itself (a command indexing an already built site)
— so the chores of a build are done once: the output folder checked
(:func:`index_folder`), the index built with cyclic GC off, written and swapped
in atomically, removed again when the build fails (never a folder okf did not
write), ``llms.txt`` / ``llms-full.txt`` rendered from the same index and
written atomically, and one :class:`Summary` for the host's log.  Messages name
each setting as the host spells it (:class:`~okf_sphinx.core.hosts.Host`).
Imports no host.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from okf_sphinx.core.errors import BuildError, NotAnIndexError
from okf_sphinx.core.hosts import Host
from okf_sphinx.core.records import DocRecord
from okf_sphinx.core.stemmer import supported_languages

from .disk import remove_index, write_index
from .index_writer import Site, build_index, project_folder, source_root
from .llms import LLMS_FULL_TXT, LLMS_TXT, render, write

DEFAULT_OUTPUT_DIR = "_okf"


# -- where the index goes ----------------------------------------------------------------------


def index_folder_name(value: Any, host: Host) -> str:
    """The author's output folder setting as a relative POSIX path (``"search/./idx"`` →
    ``"search/idx"``): a non-empty relative path without ``..`` parts, else ValueError
    naming the setting (nothing is deleted)."""

    def refuse(why: str) -> ValueError:
        return ValueError(
            f"{host.assignment('output_dir', value)} {why}; give a relative folder name inside {host.output}, "
            f"such as {DEFAULT_OUTPUT_DIR!r} (the default). Nothing was deleted"
        )

    if not isinstance(value, str):
        raise refuse("is not a string")
    if PurePosixPath(value).is_absolute() or PureWindowsPath(value).is_absolute() or PureWindowsPath(value).drive:
        raise refuse("is an absolute path")
    parts = [p for p in value.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise refuse("climbs out with '..'")
    if not parts or not value.strip():
        raise refuse("names the output folder itself")
    return "/".join(parts)


def index_folder(outdir: Path, value: Any, host: Host) -> Path:
    """The index folder the author's setting names: strictly inside the output folder
    ``outdir``, symbolic links resolved (a link must not lead the index, or its removal,
    elsewhere), else ValueError naming the setting."""
    name = index_folder_name(value, host)
    root = Path(outdir).resolve()
    target = root.joinpath(*name.split("/"))
    # every existing component is followed: a link must not lead the index (or its removal) elsewhere
    resolved = target.parent.resolve() / target.name
    if not resolved.is_relative_to(root) or resolved == root:
        raise ValueError(
            f"{host.assignment('output_dir', value)} leads outside the output folder {root} through a symbolic "
            f"link; give a relative folder name inside {host.output}, such as {DEFAULT_OUTPUT_DIR!r} (the default). "
            "Nothing was deleted"
        )
    return target


def discard_index(target: Path, host: Host) -> str | None:
    """Clean-up after a failed build: remove okf's index at ``target`` (a stale index would not
    match the new pages), never anything else; returns why something was left, or None."""
    try:
        remove_index(target, host)
    except BuildError as exc:
        return str(exc)
    return None


# -- the build ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AgentFiles:
    """``llms.txt`` and ``llms-full.txt``: what the host knows of the site's structure."""

    groups: list[tuple[str, list[str]]]  # (caption, concept ids) in the site's reading order
    summary: str  # the ``> summary`` line ("" for none)
    root: str  # the home page's concept id: first in llms-full.txt ("" for none)
    baseurl: str = ""  # the site's published address: links are absolute under it


@dataclass(frozen=True)
class Summary:
    """What a build wrote, for the host's log (:meth:`report`, :meth:`stemmer_note`)."""

    sections: int  # searchable sections
    pages: int  # searchable pages
    excluded: list[str] = field(default_factory=list)  # concept ids excluded from search
    terms: int = 0  # distinct terms
    files: int = 0  # captured files
    written: int = 0  # bytes of the index
    index_dir: str = DEFAULT_OUTPUT_DIR  # the index folder, relative to the output folder
    language: str = "en"  # smart search's language
    stemmer: bool = True  # does smart search stem that language?
    segmented: bool = False  # are its words split into units instead (Chinese, Japanese, Korean)?
    agent_files: tuple[str, ...] = ()  # llms.txt, llms-full.txt when written

    def report(self, host: Host) -> list[str]:
        """The summary's lines (info), settings named as ``host`` spells them."""
        also = f" and {', '.join(self.agent_files)}" if self.agent_files else ""
        lines = [
            f"indexed {self.sections} sections of {self.pages} pages ({self.terms} distinct terms, {self.files} "
            f"captured files; smart search language {self.language!r}); wrote {self.written} bytes to "
            f"{self.index_dir}/{also}"
        ]
        if self.excluded:
            shown = ", ".join(self.excluded[:5]) + (" …" if len(self.excluded) > 5 else "")
            lines.append(f"{len(self.excluded)} pages excluded from search by {host.setting('exclude')} ({shown}); "
                         f"set {host.change('exclude', [])} to include them")
        return lines

    def stemmer_note(self) -> str | None:
        """Why smart search matches exact words only on this site (None: it stems, or splits
        CJK words into units)."""
        if self.stemmer or self.segmented:
            return None
        return (f"no stemmer for language {self.language!r}: smart search on this site matches exact words only "
                f"(no plural or tense forms); keyword search is unaffected. Stemmers exist for: "
                f"{', '.join(supported_languages())}")


def build_site(
    records: list[DocRecord],
    site: Site,
    *,
    outdir: Path,
    index_dir: Path,
    source_dir: Path,
    source_root_setting: str | None = None,
    project_dir: Path | None = None,
    limits: dict[str, int],
    agent_files: AgentFiles | None = None,
    semantic_model: Any = None,
    encoding: str = "utf-8",
    progress: Callable[[list[DocRecord]], Iterable[DocRecord]] = iter,
) -> Summary:
    """Build and write the index of ``records`` (in concept-id order) into ``index_dir``
    (from :func:`index_folder`) and, with ``agent_files``, ``llms.txt`` / ``llms-full.txt``
    into ``outdir``, the site's root.  Captured paths are relative to ``source_dir`` (the
    documentation sources) or the folder the author's ``source_root_setting`` names, or
    the nearest folder holding every captured file within the project (the nearest folder
    at or above ``project_dir`` — default ``source_dir`` — that holds a repository or a
    Python project; files beyond it are published under ``_outside/``).  With ``semantic_model`` (writer/semantic_index.py's
    ``load_model``, loaded by the host before the pages are read) the index gets semantic vectors.

    A :class:`BuildError` (a cap exceeded, a source changed, a folder okf did not write in
    the way) leaves no index of okf's behind, and the error names what to change."""
    project = project_folder(project_dir, project_dir) if project_dir is not None else None
    root = source_root(records, source_dir, source_root_setting, project)
    # The index is built from many small containers while the host holds millions of
    # objects: without this, cyclic-GC passes over them cost more than the work itself.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        files = build_index(records, root, site, limits, progress, encoding, vectors=semantic_model is not None)
        if semantic_model is not None:  # the vectors (writer/semantic_index.py: numpy, only with a model)
            from .semantic_index import add_semantic  # noqa: PLC0415

            add_semantic(files, semantic_model)
        written = write_index(index_dir, files, site.host)
    except BuildError as exc:
        if not isinstance(exc, NotAnIndexError):
            discard_index(index_dir, site.host)  # a failed build leaves no stale index behind
        raise
    finally:
        if gc_was_enabled:
            gc.enable()
    names: tuple[str, ...] = ()
    if agent_files is not None:
        short, full = render(files, agent_files.groups, project=site.project, summary=agent_files.summary,
                             root=agent_files.root, baseurl=agent_files.baseurl)
        write(outdir, ((LLMS_TXT, short), (LLMS_FULL_TXT, full)))
        names = (LLMS_TXT, LLMS_FULL_TXT)
    manifest = files["manifest"]
    smart = manifest["smart"]
    terms = sum(len(v["terms"]) for k, v in files.items() if k.startswith("t/") and isinstance(v, dict))
    return Summary(
        sections=manifest["sections"],
        pages=sum(1 for r in records if r.searchable),
        excluded=[r.docname for r in records if not r.searchable],
        terms=terms,
        files=manifest["files"],
        written=written,
        index_dir=_below(index_dir, outdir),
        language=smart["language"],
        stemmer=smart["stemmer"],
        segmented="segmenter" in smart,
        agent_files=names,
    )


def _below(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder`` (its name when it is not below it)."""
    try:
        return path.relative_to(Path(folder).resolve()).as_posix()
    except ValueError:
        return path.name
