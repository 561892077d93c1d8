"""What ``llms.txt`` takes from a Sphinx project: the pages grouped by the root document's
toctrees, and the summary (writer/llms.py renders both files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes

from okf_sphinx.writer.llms import DEFAULT_GROUP, LLMS_FULL_TXT, LLMS_TXT, render, write


def groups_from_env(app: Any) -> list[tuple[str, list[str]]]:
    """``(caption, docnames)`` per toctree of the root document, in document order;
    each toctree's entries are followed by their own descendants (depth first).
    Toctrees without a caption share one group; a page appears once, first."""
    env = app.env
    root = app.config.root_doc
    try:
        doctree = env.get_doctree(root)
    except Exception:  # noqa: BLE001 - no root document: every page goes to the last group
        return []
    seen = {root}
    groups: dict[str, list[str]] = {}

    def walk(docname: str, into: list[str]) -> None:
        if docname in seen or docname not in env.all_docs:
            return
        seen.add(docname)
        into.append(docname)
        for child in env.toctree_includes.get(docname, []):
            walk(child, into)

    for node in doctree.findall(addnodes.toctree):
        caption = " ".join(str(node.get("caption") or "").split()) or DEFAULT_GROUP
        into = groups.setdefault(caption, [])
        for _title, ref in node.get("entries", []):
            if ref and ref != "self":
                walk(ref, into)
    return [(caption, docs) for caption, docs in groups.items() if docs]


def summary_from_env(app: Any) -> str:
    """The root document's first paragraph, as one line of plain text (or "")."""
    try:
        doctree = app.env.get_doctree(app.config.root_doc)
    except Exception:  # noqa: BLE001
        return ""
    for para in doctree.findall(nodes.paragraph):
        text = " ".join(para.astext().split())
        if text:
            return text
    return ""


def on_index_written(app: Any, files: dict[str, Any]) -> None:
    """Write both files into the output root (called by the extension after the index)."""
    if not app.config.okf_llms_txt:
        return
    summary = app.config.okf_llms_summary
    if summary is None:
        summary = summary_from_env(app)
    baseurl = str(getattr(app.config, "html_baseurl", "") or "")
    short, full = render(files, groups_from_env(app), project=str(app.config.project or ""), summary=summary,
                         root=app.config.root_doc, baseurl=baseurl)
    write(Path(app.outdir), ((LLMS_TXT, short), (LLMS_FULL_TXT, full)))
