"""Add semantic vectors to an index that was built without them, as a build with the model would.

    python bench/add_vectors.py SITE_OR_OKF_DIR MODEL OUT_SITE [--copy-site]

Reads every file of the index, runs ``writer/semantic_index.py`` over it (the same
``add_semantic`` the hosts call after ``build_index``) and writes the whole index to
``OUT_SITE/_okf`` (``--copy-site`` copies the rest of the site, e.g. ``_sources/``, first).
The result is a build with ``okf_search_semantic_model = MODEL`` but for ``t/``: such a build
sizes ``t/`` for questions (writer/sizing.py ``VECTOR_POSTING_SCALE``), this keeps the index's
own ``t/`` files; every other file holds what the build's holds and the answers are the same
(``tests/test_semantic.py`` checks it on a real build).  So benchmarks can compare one build's
index with and without vectors and time only what the vectors cost; for the cold bytes of a
build with vectors, re-index with ``reindex_doctrees.py --vectors``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.hosts import SPHINX
from okf_sphinx.writer.disk import write_index


def read_index(folder: Path) -> dict:
    """Every file of the index folder as ``{name: JSON value}`` (the manifest without its revision)."""
    files = {}
    for path in sorted(folder.rglob("*.js")):
        name = path.relative_to(folder).as_posix()[: -len(".js")]
        files[name] = fmt.unwrap(name, path.read_bytes())
    files["manifest"].pop("index_revision", None)
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("index", type=Path, help="a built site or its _okf folder")
    ap.add_argument("model", help="a model2vec folder (or id)")
    ap.add_argument("out", type=Path, help="the site folder to write _okf/ into")
    ap.add_argument("--copy-site", action="store_true", help="copy the rest of the site (not _okf/) to OUT first")
    args = ap.parse_args(argv)
    from okf_sphinx.writer.semantic_index import add_semantic, load_model

    src = args.index / "_okf" if (args.index / "_okf" / "manifest.js").is_file() else args.index
    if args.copy_site and src.parent != args.out:
        shutil.copytree(src.parent, args.out, dirs_exist_ok=True, ignore=shutil.ignore_patterns("_okf"))
    files = read_index(src)
    t0 = time.process_time()
    model = load_model(args.model, Path.cwd(), "model")
    t1 = time.process_time()
    block = add_semantic(files, model)
    t2 = time.process_time()
    write_index(args.out / "_okf", files, SPHINX)
    print(f"model loaded in {t1 - t0:.2f} s CPU, vectors added in {t2 - t1:.2f} s CPU: {block}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
