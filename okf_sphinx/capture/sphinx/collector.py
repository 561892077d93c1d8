"""Read-phase collection: an EnvironmentCollector, so ``-j N`` and incremental
builds keep exactly the right per-document records in the pickled environment.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.environment.collectors import EnvironmentCollector

from okf_sphinx.core.records import CapturedFile, DocRecord, excluded, lexical

from .links import DocReferences, capture
from .myst_include import correct_included_lines
from .objects import Settings, collect as collect_objects
from .sections import split_document

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

ENV_DOCS = "okf_docs"  # env attribute: docname -> DocRecord
ENV_INCLUDES = "okf_includes"  # env attribute: docname -> [included absolute paths]
ENV_LINKS = "okf_links"  # env attribute: docname -> DocReferences (its references, unresolved)


def docs(env: BuildEnvironment) -> dict[str, DocRecord]:
    if not hasattr(env, ENV_DOCS):
        setattr(env, ENV_DOCS, {})
    return getattr(env, ENV_DOCS)


def links(env: BuildEnvironment) -> dict[str, DocReferences]:
    if not hasattr(env, ENV_LINKS):
        setattr(env, ENV_LINKS, {})
    return getattr(env, ENV_LINKS)


def _includes(env: BuildEnvironment) -> dict[str, list[str]]:
    if not hasattr(env, ENV_INCLUDES):
        setattr(env, ENV_INCLUDES, {})
    return getattr(env, ENV_INCLUDES)


def _current_docname(env: BuildEnvironment) -> str:
    current = getattr(env, "current_document", None)
    return current.docname if current is not None else env.docname


def page_title(env: BuildEnvironment, doctree: nodes.document, docname: str) -> str:
    """``env.titles`` as text, but ``""`` (not ``<no title>``) for a page without a title."""
    from docutils import nodes as dn

    if next(iter(doctree.findall(dn.section)), None) is None and "title" not in doctree:
        return ""
    title = env.titles.get(docname)
    return title.astext() if title is not None else ""


def on_include_read(app: Sphinx, relative_path: Path, parent_docname: str, content: list[str]) -> None:
    """Note every file an include directive reads (RST ``include`` and MyST ``{include}``)."""
    # MyST passes the including file's stem as parent_docname; the current document is exact.
    path = lexical(Path(app.srcdir) / relative_path)
    found = _includes(app.env).setdefault(_current_docname(app.env), [])
    if path not in found:
        found.append(path)


class OkfCollector(EnvironmentCollector):
    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        docs(env).pop(docname, None)
        links(env).pop(docname, None)
        _includes(env).pop(docname, None)

    def merge_other(self, app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
        theirs = docs(other)
        for docname in docnames:
            if docname in theirs:
                docs(env)[docname] = theirs[docname]
            if docname in links(other):
                links(env)[docname] = links(other)[docname]

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        env = app.env
        docname = _current_docname(env)
        main = lexical(env.doc2path(docname))  # where Sphinx sees the page: a link keeps its own path
        paths = [main] + [p for p in _includes(env).pop(docname, []) if p != main]
        markdown = [suffix for suffix, kind in app.config.source_suffix.items() if kind == "markdown"]
        correct_included_lines(doctree, paths[0], paths[1:], markdown, Path(app.srcdir))
        files = [CapturedFile.read(p) for p in paths]
        searchable = not excluded(docname, app.config.okf_search_exclude)
        title = page_title(env, doctree, docname)
        settings = Settings(autoclass_content=getattr(app.config, "autoclass_content", "class"),
                            inherit_docstrings=getattr(app.config, "autodoc_inherit_docstrings", True))
        hook = functools.partial(collect_objects, settings, env, docname) if app.config.okf_search_objects else None
        record = docs(env)[docname] = split_document(docname, title, searchable, doctree, files, Path(app.srcdir),
                                                     hook, app.config.source_encoding)
        links(env)[docname] = capture(doctree, record, Path(app.srcdir), getattr(app.config, "html_baseurl", "") or "")

    def get_updated_docs(self, app: Sphinx, env: BuildEnvironment) -> list[str]:
        return []


def all_records(env: BuildEnvironment) -> list[DocRecord]:
    """Records of the documents that exist now, in docname order."""
    records = docs(env)
    return [records[d] for d in sorted(records) if d in env.all_docs]
