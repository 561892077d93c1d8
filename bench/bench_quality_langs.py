"""Reader search quality in other languages: okf_sphinx (keyword and smart modes),
Sphinx's built-in search and Pagefind 1.6 on real Sphinx sites written in Chinese,
Japanese, Russian and German, in one run (bench/bench_quality.py's machinery).

Corpora (each a public repository at a pinned commit, read from a local clone; nothing
of them is committed here):

======================  ========  ===================================  ===========
corpus                  language  repository @ commit                  licence
======================  ========  ===================================  ===========
``cookbook-zh``         zh_CN     yidao620c/python3-cookbook @ 8c0b2ab Apache-2.0
``kumaroot-ja``         ja        shotakaha/kumaroot @ 63fd914         MIT
``pymorphy2-ru``        ru        pymorphy2/pymorphy2 @ 92d546f        MIT
``pymorphy-ru``         ru        kmike/pymorphy @ 9a66144             MIT
``basics-de``           de        veit/python-basics-tutorial-de @ 27fabb8  BSD-3-Clause
======================  ========  ===================================  ===========

All four are written in their language (the sources are the text readers see).  A site
translated with gettext catalogues (``locale_dirs``) is a different case: Sphinx renders
the translation while the sources stay English (okf_sphinx indexes the rendered
translation at the source lines: docs/contract.md, "Translated sites"); ``--corpus
django-ja`` (Django 5.1.2's docs from its PyPI sdist with the Japanese catalogues of
django/django-docs-translations @ b599584, branch stable/5.1.x, BSD-3-Clause) measures
that case.

Queries, split into ``tune`` / ``held-out`` halves by a hash of the query text
(bench_quality.half):

- known items from the site's own cross-references (bench_quality.known_items: link
  texts and targets' titles → the target page, API objects → their page);
- ``word``: short words a reader types, hand-written in bench/langs_queries.json for
  pages picked first (before any search was run): 2–4 characters of Chinese or Japanese
  that the page's text runs together with other characters, inflected forms in Russian
  and German that the page holds in another form;
- ``paragraph`` (``django-ja`` only): words of the translated paragraphs, drawn at
  random from the doctrees (:func:`paragraph_words`) — what a reader of a translated
  site reads in the body text.

Metrics as bench_quality: MRR@10, P@1 and found@10 of the first 10 distinct pages.

Usage::

    python bench/bench_quality_langs.py [--corpus cookbook-zh,kumaroot-ja,...] [--mirror DIR]
        [--work DIR] [--reuse] [--systems "okf smart,sphinx"]

``--mirror`` holds the clones, one ``<owner>+<name>`` folder each (a ``repo`` git
directory or checkout inside); clone them from GitHub there first.  Sphinx's Chinese
search segments with jieba when it is installed: install it (``pip install jieba``)
before building ``cookbook-zh`` so that Sphinx is measured as its users run it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_quality as bq  # noqa: E402

QUERIES = HERE / "langs_queries.json"

#: Per corpus: where its sources are, how to build them.  ``extensions``: the project's
#: extensions that are kept (the others need packages or services this benchmark does not
#: install: analytics, social cards, diagrams); ``exclude``: patterns added to the
#: project's own exclude_patterns; ``patch``: textual fixes to conf.py for Sphinx 9.
CORPORA: dict[str, dict[str, Any]] = {
    "cookbook-zh": {
        "repo": "yidao620c/python3-cookbook", "commit": "8c0b2ab251e0ac65b46e87dd511df41018f433bf",
        "licence": "Apache-2.0", "language": "zh_CN", "src": "source", "extensions": ["sphinx.ext.todo"],
    },
    "kumaroot-ja": {
        "repo": "shotakaha/kumaroot", "commit": "63fd914240e46a90a61ef235f461537444b4fc9c",
        "licence": "MIT", "language": "ja", "src": "docs/source",
        "extensions": ["myst_parser", "sphinx.ext.todo", "sphinx.ext.mathjax", "sphinx_copybutton",
                       "sphinx_design", "sphinx_rtd_theme", "sphinxcontrib.mermaid"],
    },
    "pymorphy2-ru": {
        "repo": "pymorphy2/pymorphy2", "commit": "92d546f042ff14601376d3646242908d5ab786c1",
        "licence": "MIT", "language": "ru", "src": "docs", "extensions": ["sphinx.ext.todo", "sphinx.ext.graphviz"],
        "patch": [("app.add_stylesheet(", "app.add_css_file(")],
    },
    "pymorphy-ru": {
        "repo": "kmike/pymorphy", "commit": "9a6614449447c6ceee35e6d0dfe36903ebc80c5f",
        "licence": "MIT", "language": "ru", "src": "docs", "extensions": ["sphinx.ext.todo"],
    },
    "basics-de": {
        "repo": "veit/python-basics-tutorial-de", "commit": "27fabb8f0e32483cbf9258149b54f12befecd85d",
        "licence": "BSD-3-Clause", "language": "de", "src": "docs",
        "extensions": ["sphinx.ext.autodoc", "sphinx.ext.graphviz", "sphinx_copybutton", "sphinx_inline_tabs"],
        "exclude": ["**/*.ipynb"],
    },
    "django-ja": {
        "repo": "django/django-docs-translations", "commit": "b599584e1790241518b95844be27460fa85960a7",
        "licence": "BSD-3-Clause", "language": "ja", "sdist": "django==5.1.2", "catalogues": "translations/ja",
        "extensions": ["djangodocs", "sphinx.ext.extlinks", "sphinx.ext.autosectionlabel"],
        "exclude": ["releases/*"],
    },
}
DEFAULT_CORPORA = "cookbook-zh,kumaroot-ja,pymorphy2-ru,pymorphy-ru,basics-de"


def _git_dir(mirror: Path, repo: str) -> Path:
    base = mirror / repo.replace("/", "+")
    for cand in (base / "repo" / ".git", base / "repo", base / ".git", base):
        if (cand / "HEAD").is_file():
            return cand
    raise SystemExit(f"no clone of {repo} under {base}: git clone https://github.com/{repo} {base / 'repo'}")


def _export(git_dir: Path, commit: str, dest: Path, sub: str | None = None) -> None:
    """The tree at ``commit`` into ``dest``; only ``sub`` when the whole tree cannot be read
    (a clone without its largest files)."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    cmd = ["git", "--git-dir", str(git_dir), "archive", commit]
    run = subprocess.run(cmd, capture_output=True)
    if run.returncode and sub:
        run = subprocess.run([*cmd, sub], capture_output=True)
    if run.returncode:
        raise SystemExit(f"git archive {commit} failed: {run.stderr.decode(errors='replace')}")
    subprocess.run(["tar", "x", "-C", str(dest)], input=run.stdout, check=True)


def sources(name: str, spec: dict[str, Any], work: Path, mirror: Path) -> tuple[Path, list[str]]:
    """(source folder, extra -D options) of a corpus, exported into ``work``."""
    root = work / "src" / name
    options: list[str] = []
    if "sdist" in spec:  # the English sources from PyPI, the catalogues from their repository
        dl = work / "src" / "sdist"
        dl.mkdir(parents=True, exist_ok=True)
        pkg, version = spec["sdist"].split("==")
        tarball = next(dl.glob(f"{pkg.capitalize()}-{version}.tar.gz"), None) or next(dl.glob(f"{pkg}-{version}.tar.gz"), None)
        if tarball is None:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                            spec["sdist"], "-d", str(dl)], check=True)
            tarball = next(dl.glob(f"*{version}.tar.gz"))
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        subprocess.run(["tar", "xzf", str(tarball), "-C", str(root)], check=True)
        src = next(root.glob("*/docs"))
        cat = work / "src" / f"{name}-catalogues"
        _export(_git_dir(mirror, spec["repo"]), spec["commit"], cat)
        lang = spec["language"]
        (cat / "locale").mkdir(exist_ok=True)
        shutil.move(str(cat / spec["catalogues"]), str(cat / "locale" / lang))
        options += ["-D", f"locale_dirs={cat / 'locale'}"]
        sys.path.insert(0, str(src / "_ext"))
    else:
        _export(_git_dir(mirror, spec["repo"]), spec["commit"], root, spec["src"])
        src = root / spec["src"]
    conf = src / "conf.py"
    text = conf.read_text("utf-8")
    for old, new in spec.get("patch", []):
        text = text.replace(old, new)
    conf.write_text(text, "utf-8")
    return src, options


def build(name: str, spec: dict[str, Any], work: Path, mirror: Path) -> tuple[Path, Path]:
    src, options = sources(name, spec, work, mirror)
    html, doctrees = work / name / "html", work / name / "doctrees"
    shutil.rmtree(html, ignore_errors=True)
    shutil.rmtree(doctrees, ignore_errors=True)
    (work / name).mkdir(parents=True, exist_ok=True)
    exclude = ["_build", *spec.get("exclude", [])]
    if "sdist" in spec:
        exclude += ["_theme", "requirements.txt"]
    cmd = [sys.executable, str(HERE / "sphinx_driver.py"), "--okf", "-j", "2", "-q", "-b", "html",
           "-D", "nitpicky=0", "-D", "okf_search_replace_builtin=0", "-D", f"language={spec['language']}",
           "-D", "extensions=" + ",".join(spec["extensions"]), "-D", "exclude_patterns=" + ",".join(exclude),
           *options, "-d", str(doctrees), str(src), str(html)]
    t0 = time.monotonic()
    print(f"{name}: building with okf_sphinx ...", file=sys.stderr, flush=True)
    env = dict(os.environ)
    if "sdist" in spec:
        env["PYTHONPATH"] = os.pathsep.join([str(src / "_ext"), env.get("PYTHONPATH", "")])
    with (work / name / "build.log").open("w", encoding="utf-8") as log:
        subprocess.run(cmd, check=True, stdout=log, stderr=subprocess.STDOUT, env=env)
    print(f"{name}: built in {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    return html, doctrees


def hand_queries(name: str) -> list[dict[str, Any]]:
    """The hand-written ``word`` queries of a corpus (bench/langs_queries.json)."""
    data = json.loads(QUERIES.read_text("utf-8"))
    return [{"query": q["query"], "target": q["target"], "source": "", "kind": "word", "section": None,
             "half": bq.half(q["query"])} for q in data.get(name, {}).get("queries", [])]


#: A Japanese word a reader types: a whole run of katakana (3-8) or of kanji (2-4).
_JA_WORD = re.compile("(?<![\u30a1-\u30fa\u30fc])[\u30a1-\u30fa\u30fc]{3,8}(?![\u30a1-\u30fa\u30fc])"
                      "|(?<![\u4e00-\u9fff])[\u4e00-\u9fff]{2,4}(?![\u4e00-\u9fff])")


def paragraph_words(doctrees: Path, count: int = 80, seed: int = 26) -> list[dict[str, Any]]:
    """Words of translated paragraphs (a site translated with catalogues): pages drawn at random
    (``seed``), from each one word of its translated paragraphs that at most 3 pages' translated
    paragraphs hold, drawn at random too; kind ``paragraph``.  Chosen from the doctrees alone,
    before any system is asked."""
    import pickle
    import random

    from docutils import nodes

    texts: dict[str, str] = {}
    for path in sorted(doctrees.rglob("*.doctree")):
        tree = pickle.loads(path.read_bytes())
        texts[path.relative_to(doctrees).with_suffix("").as_posix()] = "\n".join(
            p.astext() for p in tree.findall(nodes.paragraph) if p.get("translated") is True)
    rng = random.Random(seed)
    pages = sorted(d for d, t in texts.items() if t)
    rng.shuffle(pages)
    out: list[dict[str, Any]] = []
    for page in pages:
        rare = sorted(w for w in set(_JA_WORD.findall(texts[page])) if sum(w in t for t in texts.values()) <= 3)
        if rare:
            word = rng.choice(rare)
            out.append({"query": word, "target": page, "source": "", "kind": "paragraph", "section": None,
                        "half": bq.half(word)})
        if len(out) == count:
            break
    return out


GROUPS = (("links", ("link", "title")), ("objects", ("object",)), ("words", ("word",)),
          ("paragraph words", ("paragraph",)))


def rows(items: list[dict[str, Any]]) -> list[tuple[str, str, list[int]]]:
    """(group, half, indexes) of this benchmark's query groups: link texts, objects, hand-written words."""
    return bq.groups(items, GROUPS)


def rankings_for(html: Path, items: list[dict[str, Any]], systems: set[str], work: Path,
                 name: str) -> dict[str, list[list[str]] | None]:
    queries = [i["query"] for i in items]
    ranks: dict[str, list[list[str]] | None]
    okf = {s for s in systems if s.startswith("okf")}
    if okf:
        from okf_sphinx.engine import smart as engine

        ranks, _sections = bq.okf_rankings(html, items, okf, [engine.SUB_HIT_FLOOR])
    else:
        ranks = {"okf keyword": None, "okf smart": None}
    ranks["sphinx"] = bq.sphinx_rankings(html, queries) if "sphinx" in systems else None
    ranks["pagefind"] = bq.pagefind_rankings(html, work / name / "pagefind", queries) if "pagefind" in systems else None
    return ranks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=DEFAULT_CORPORA, help="comma-separated: " + ", ".join(CORPORA))
    ap.add_argument("--mirror", default="/work/.mirror", help="clones, one <owner>+<name> folder each")
    ap.add_argument("--work", default=str(HERE / "results" / "quality-langs"), help="builds and outputs")
    ap.add_argument("--reuse", action="store_true", help="reuse finished builds under --work")
    ap.add_argument("--systems", default=",".join(bq.SYSTEMS), help="comma-separated subset of: " + ", ".join(bq.SYSTEMS))
    args = ap.parse_args(argv)
    systems = {s.strip() for s in args.systems.split(",") if s.strip()}
    work, mirror = Path(args.work).resolve(), Path(args.mirror)
    work.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {}
    for name in [c.strip() for c in args.corpus.split(",") if c.strip()]:
        if name not in CORPORA:
            raise SystemExit(f"unknown corpus {name!r}: use {', '.join(CORPORA)}")
        spec = CORPORA[name]
        if spec["language"].startswith("zh"):
            try:
                import jieba  # noqa: F401
            except ImportError:
                raise SystemExit("pip install jieba first: Sphinx's Chinese search segments with it") from None
        html, doctrees = work / name / "html", work / name / "doctrees"
        if not (args.reuse and (html / "_okf" / "manifest.js").is_file() and (doctrees / "environment.pickle").is_file()):
            html, doctrees = build(name, spec, work, mirror)
        elif "sdist" in spec:
            sys.path.insert(0, str(next((work / "src" / name).glob("*/docs")) / "_ext"))
        items = bq.query_set(bq.known_items(doctrees)) + hand_queries(name)
        if "catalogues" in spec and spec["language"] == "ja":
            items += paragraph_words(doctrees)
        print(f"{name}: {len(items)} queries", file=sys.stderr, flush=True)
        ranks = rankings_for(html, items, systems, work, name)
        print(bq.table(f"{name} ({spec['language']}; {spec['repo']} @ {spec['commit'][:7]}, {spec['licence']})",
                       items, ranks, rows=rows(items)) + "\n", flush=True)
        (work / f"{name}-queries.json").write_text(json.dumps(
            [{**it, "ranks": {s: (bq.rank_of(it["target"], r[i]) if r is not None else None) for s, r in ranks.items()}}
             for i, it in enumerate(items)], indent=1, ensure_ascii=False), "utf-8")
        summary[name] = {
            "language": spec["language"], "repo": spec["repo"], "commit": spec["commit"], "licence": spec["licence"],
            "metrics": {f"{g} {w}": {s: (None if r is None else bq.metrics([bq.rank_of(items[i]["target"], r[i]) for i in chosen]))
                                     for s, r in ranks.items()} for g, w, chosen in rows(items)},
        }
    (work / "summary.json").write_text(json.dumps(summary, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
