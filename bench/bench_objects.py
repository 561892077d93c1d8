"""Object-name and docstring-phrase queries over real autodoc-heavy projects, okf_sphinx
keyword and smart modes next to Sphinx's built-in search, and what the API content adds to the index.

Usage: ``python bench/bench_objects.py [--work DIR] [--json FILE]``

For each project (attrs, click, Flask and pytest by default; ``--projects`` picks some,
``--tree NAME=DIR`` uses an unpacked source tree instead of the sdist) the bench downloads the sdist with pip
(``--no-deps --no-binary :all:``: the source tree with docs/ and src/), and builds its
docs twice with okf_sphinx appended to the project's own extensions — documented
objects on (the default) and off (``okf_search_objects = False``). The project's
``conf.py`` runs unchanged inside a wrapper ``conf.py`` (``-c``) that puts the sdist's
``src/`` first on ``sys.path`` (so autodoc reads the sdist's modules, not an installed
copy), stubs the imports of theme helpers that are not installed, drops extensions
that are not installed and intersphinx (no network), and uses the alabaster theme.

Queries are not tuned: they are every Python object of Sphinx's own object inventory
(``searchindex.js`` ``objects``), each asked as its full name, its last two dotted
parts and its last part — each form only where it names one object of the project —
plus, for every object whose docstring okf located in the source, the first four
words of that docstring (a docstring phrase) and its first 2, 3, 5 and 8 words
(docstring words: what a reader pastes). The known item is the page and anchor
Sphinx registered for the object. A hash of query and object puts each query in a
fixed half (``tune``: choose constants there, ``--sentence-terms``; ``held-out``: report).

Reported per project, engine and form: the object's page ranked first, and the
object's section in the top 3 (okf: the hit whose heading is the object's full name on
its page; Sphinx: a result with the object's page and anchor). Sphinx's search runs
in Node (bench/objects_sphinx.js: the site's own searchtools.js, unchanged).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import okf_sphinx  # noqa: E402
from okf_sphinx.core.terms import terms  # noqa: E402

#: The projects (sdists: docs and sources; their licences let us build their docs, nothing is kept).
PROJECTS = {
    "attrs": {"dist": "attrs==25.4.0", "docs": "docs", "src": "src", "licence": "MIT"},
    "click": {"dist": "click==8.3.1", "docs": "docs", "src": "src", "licence": "BSD-3-Clause"},
    "flask": {"dist": "flask==3.1.3", "docs": "docs", "src": "src", "licence": "BSD-3-Clause"},
    "pytest": {"dist": "pytest==9.0.3", "docs": "doc/en", "src": "src", "licence": "MIT"},
}

WRAPPER = '''\
# conf.py wrapper written by bench/bench_objects.py: the project's own conf.py, run offline.
import importlib.util, os, sys, types

sys.path.insert(0, {src!r})
_orig = {conf!r}


class _Anything(types.ModuleType):
    """A stand-in for a theme helper module that is not installed."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: ("0", "0")


def _installed(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


for _name in {stubs!r}:
    if not _installed(_name):
        sys.modules[_name] = _Anything(_name)

__file__ = _orig
exec(compile(open(_orig, encoding="utf-8").read(), _orig, "exec"))
__file__ = {wrapper!r}

extensions = [e for e in extensions if _installed(e) and e != "sphinx.ext.intersphinx" and not isinstance(sys.modules.get(e), _Anything)]
extensions.append("okf_sphinx")
html_theme = "alabaster"
html_theme_options = {{}}
html_sidebars = {{}}
html_static_path = []
templates_path = []
html_logo = None
html_favicon = None
okf_search_exclude = []
okf_search_objects = {objects!r}
'''
STUBS = ["pallets_sphinx_themes"]
#: Lengths of the "docstring words" queries (a docstring's first N words).
SENTENCE_LENGTHS = (2, 3, 5, 8)


def half(query: str, name: str) -> str:
    """The fixed half a query falls in: ``tune`` (choose constants here) or ``held-out``."""
    return "tune" if hashlib.sha256(f"{query}\0{name}".encode()).digest()[0] % 2 == 0 else "held-out"


def fetch(dist: str, work: Path) -> Path:
    """The extracted sdist of ``dist`` (``name==version``) under ``work``."""
    dl = work / "sdist"
    dl.mkdir(parents=True, exist_ok=True)
    name, version = dist.split("==")
    folder = work / f"{name}-{version}"
    if folder.is_dir():
        return folder
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:", dist,
                    "-d", str(dl)], check=True)
    archive = next(dl.glob(f"{name}-{version}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(work, filter="data")
    return folder


def build(tree: Path, spec: dict[str, str], out: Path, objects: bool, okf: Path = ROOT, python: str = sys.executable) -> float:
    """Build the project's HTML with the okf_sphinx of the checkout ``okf``, Sphinx run by
    ``python``; returns the wall time in seconds."""
    docs = tree / spec["docs"]
    confdir = out.parent / f"conf-{out.name}"
    confdir.mkdir(parents=True, exist_ok=True)
    wrapper = confdir / "conf.py"
    wrapper.write_text(WRAPPER.format(src=str(tree / spec["src"]), conf=str(docs / "conf.py"), stubs=STUBS,
                                      wrapper=str(wrapper), objects=objects), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(okf), "PYTHONHASHSEED": "0"}
    # Sphinx's object index (searchindex.js) is compared: keep Sphinx's search
    cmd = [python, "-m", "sphinx", "-q", "-b", "html", "-c", str(confdir), "-D", "okf_search_replace_builtin=0",
           "-d", str(out / ".doctrees"), str(docs), str(out)]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=docs)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"build of {tree.name} failed:\n{proc.stderr[-3000:]}")
    return elapsed


def sphinx_objects(site: Path) -> list[dict[str, str]]:
    """Python objects of Sphinx's own search index: full name, page, anchor."""
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    data = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    names = data["objnames"]
    out = []
    for prefix, rows in data["objects"].items():
        for doc, objtype, _prio, anchor, name in rows:
            domain, kind = names[str(objtype)][0], names[str(objtype)][1]
            if domain != "py":
                continue
            full = f"{prefix}.{name}" if prefix else name
            if anchor == "":
                anchor = full
            elif anchor == "-":
                anchor = f"{kind}-{full}"
            out.append({"name": full, "page": data["docnames"][doc], "anchor": anchor, "kind": f"py:{kind}"})
    return sorted(out, key=lambda o: o["name"])


def query_sets(objects: list[dict[str, str]], index: Any) -> dict[str, list[tuple[str, dict[str, str]]]]:
    forms: dict[str, list[tuple[str, dict[str, str]]]] = {"full name": [], "Class.member": [], "short name": [],
                                                            "docstring phrase": [], "docstring words": []}
    tails: dict[str, dict[str, list[dict[str, str]]]] = {"Class.member": {}, "short name": {}}
    for o in objects:
        parts = o["name"].split(".")
        forms["full name"].append((o["name"], o))
        if len(parts) >= 3:
            tails["Class.member"].setdefault(".".join(parts[-2:]), []).append(o)
        tails["short name"].setdefault(parts[-1], []).append(o)
    for form, table in tails.items():
        forms[form] = [(q, items[0]) for q, items in sorted(table.items()) if len(items) == 1]
    by_name = {o["name"]: o for o in objects}
    for name, _kind, _page, _i, sid in index.objects():
        s = index.section(sid)
        if name not in by_name or s.get("generated") or not s["path"].endswith(".py"):
            continue
        first = next((line for line in s["text"].split("\n") if terms(line)), "")
        words = terms(re.sub(r"[`*:]+", " ", first))
        if len(words) >= 4:
            forms["docstring phrase"].append((" ".join(words[:4]), by_name[name]))
        # the docstring's opening as a reader might paste it: its first 2, 3, 5 and 8 words
        opening = terms(re.sub(r"[`*:]+", " ", " ".join(s["text"].split("\n")[:12])))
        for n in SENTENCE_LENGTHS:
            if len(opening) >= n:
                forms["docstring words"].append((" ".join(opening[:n]), by_name[name]))
    return forms


def run_sphinx(site: Path, queries: list[str]) -> list[list[list[Any]]]:
    node = shutil.which("node")
    if not node:
        raise SystemExit("node is needed to run Sphinx's searchtools.js")
    proc = subprocess.run([node, str(Path(__file__).with_name("quality_sphinx.js")), str(site)],
                          input=json.dumps(queries), capture_output=True, text=True, check=True)
    return [json.loads(line)[:10] for line in proc.stdout.splitlines()]


def score(project: str, site: Path, index: Any) -> dict[str, Any]:
    objects = sphinx_objects(site)
    forms = query_sets(objects, index)
    report: dict[str, Any] = {"objects": len(objects)}
    for form, items in forms.items():
        queries = [q for q, _ in items]
        sphinx = run_sphinx(site, queries)
        row = {"queries": len(items), "halves": {h: {"n": 0, "okf": [0, 0], "okf_smart": [0, 0]} for h in ("tune", "held-out")},
               "okf": {"page_first": 0, "section_top3": 0},
               "okf_smart": {"page_first": 0, "section_top3": 0},
               "sphinx": {"page_first": 0, "section_top3": 0}, "misses": []}
        for (q, o), sres in zip(items, sphinx):
            hits = index.search(q, limit=10)["hits"]
            okf_page = bool(hits) and hits[0]["concept_id"] == o["page"]
            okf_sec = any(h["concept_id"] == o["page"] and h["heading"] == o["name"] for h in hits[:3])
            sph_page = bool(sres) and sres[0][0] == o["page"]
            sph_sec = any(r[0] == o["page"] and r[1].lstrip("#") == o["anchor"] for r in sres[:3])
            pages = index.search(q, limit=10, mode="smart")["pages"]
            shits = [h for p in pages for h in p["hits"]]
            row["okf_smart"]["page_first"] += bool(pages) and pages[0]["concept_id"] == o["page"]
            row["okf_smart"]["section_top3"] += any(h["concept_id"] == o["page"] and h["heading"] == o["name"] for h in shits[:3])
            part = row["halves"][half(q, o["name"])]
            part["n"] += 1
            part["okf"][0] += okf_page
            part["okf"][1] += okf_sec
            part["okf_smart"][0] += bool(pages) and pages[0]["concept_id"] == o["page"]
            part["okf_smart"][1] += any(h["concept_id"] == o["page"] and h["heading"] == o["name"] for h in shits[:3])
            row["okf"]["page_first"] += okf_page
            row["okf"]["section_top3"] += okf_sec
            row["sphinx"]["page_first"] += sph_page
            row["sphinx"]["section_top3"] += sph_sec
            if not okf_sec and len(row["misses"]) < 5:
                row["misses"].append({"query": q, "want": o["name"],
                                      "okf_top": [h["heading"] or h["concept_id"] for h in hits[:3]]})
        report[form] = row
    return report


def tune_sentences(site: Path, index: Any, values: list[int]) -> dict[int, dict[str, list[int]]]:
    """Smart mode's page first / section in the top 3 on the tune half of the docstring forms,
    for each value of ``SENTENCE_TERMS`` (engine/phrases.py)."""
    from okf_sphinx.engine import smart

    forms = query_sets(sphinx_objects(site), index)
    items = [(q, o) for form in ("docstring phrase", "docstring words") for q, o in forms[form] if half(q, o["name"]) == "tune"]
    out: dict[int, dict[str, list[int]]] = {}
    keep = smart.SENTENCE_TERMS
    try:
        for v in values:
            smart.SENTENCE_TERMS = v
            got = [0, 0, len(items)]
            for q, o in items:
                pages = index.search(q, limit=10, mode="smart")["pages"]
                shits = [h for p in pages for h in p["hits"]]
                got[0] += bool(pages) and pages[0]["concept_id"] == o["page"]
                got[1] += any(h["concept_id"] == o["page"] and h["heading"] == o["name"] for h in shits[:3])
            out[v] = {"tune": got}
    finally:
        smart.SENTENCE_TERMS = keep
    return out


def index_size(site: Path) -> dict[str, int]:
    index = okf_sphinx.open_index(site)
    files = index.files()
    return {
        "sections": index.section_count,
        "captured_files": len(files),
        "captured_py_files": sum(1 for f in files if f["path"].endswith(".py")),
        "index_bytes": sum(p.stat().st_size for p in (site / "_okf").rglob("*.js")),
        "object_sections": len(index.objects()),
        "generated": sum(1 for *_, sid in index.objects() if index.section(sid).get("generated")),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=None, help="folder for sdists and builds (default: a temp folder)")
    ap.add_argument("--json", type=Path, default=None, help="also write the numbers to this file")
    ap.add_argument("--projects", nargs="*", default=sorted(PROJECTS))
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=DIR",
                    help="use this unpacked source tree of project NAME (a checkout) instead of its sdist")
    ap.add_argument("--okf", type=Path, default=ROOT,
                    help="build with the okf_sphinx of this checkout (a baseline; default: this one)")
    ap.add_argument("--reuse", action="store_true", help="reuse the builds already under --work")
    ap.add_argument("--sentence-terms", default=None, metavar="N,N,...",
                    help="only score smart mode on the tune half of the docstring forms for these SENTENCE_TERMS values")
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree)
    work = args.work or Path(tempfile.mkdtemp(prefix="okf-bench-objects-"))
    results: dict[str, Any] = {}
    for name in args.projects:
        spec = PROJECTS[name]
        tree = Path(trees[name]) if name in trees else fetch(spec["dist"], work)
        on, off = work / f"{name}-html-objects", work / f"{name}-html-plain"
        seconds = {}
        if args.sentence_terms:
            if not args.reuse or not (on / "_okf" / "manifest.js").is_file():
                build(tree, spec, on, True, okf=args.okf)
            values = [int(v) for v in args.sentence_terms.split(",")]
            for v, r in tune_sentences(on, okf_sphinx.open_index(on), values).items():
                page_first, top3, n = r["tune"]
                print(f"{name} SENTENCE_TERMS={v}: tune n={n} smart page first {page_first / n:.1%}, "
                      f"section top3 {top3 / n:.1%}")
            continue
        for out, objects in ((off, False), (on, True)):
            if args.reuse and (out / "_okf" / "manifest.js").is_file():
                seconds[objects] = float("nan")
                continue
            if out.exists():
                shutil.rmtree(out)
            seconds[objects] = build(tree, spec, out, objects, okf=args.okf)
        index = okf_sphinx.open_index(on)
        results[name] = {"dist": spec["dist"], "with_objects": {**index_size(on), "build_seconds": seconds[True]},
                         "without_objects": {**index_size(off), "build_seconds": seconds[False]},
                         "quality": score(name, on, index)}
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for name, r in results.items():
        w, wo = r["with_objects"], r["without_objects"]
        print(f"\n{name} ({r['dist']}, {PROJECTS[name]['licence']}): {r['quality']['objects']} Python objects in "
              f"Sphinx's inventory; okf objects {w['object_sections']}: located {w['object_sections'] - w['generated']}, "
              f"generated {w['generated']}")
        print(f"  index: {wo['sections']} -> {w['sections']} sections (+{w['sections'] - wo['sections']}, "
              f"{w['object_sections']} objects), captured files {wo['captured_files']} -> {w['captured_files']} "
              f"(+{w['captured_py_files']} .py), index bytes {wo['index_bytes']:,} -> {w['index_bytes']:,} "
              f"(x{w['index_bytes'] / wo['index_bytes']:.2f}); clean build {wo['build_seconds']:.1f} s -> "
              f"{w['build_seconds']:.1f} s (one run each, shared machine)")
        print(f"  {'queries':<18}{'n':>5}  {'okf page 1st':>13} {'okf sec top3':>13}  {'smart page 1st':>15} {'smart sec top3':>15}"
              f"  {'sphinx page 1st':>16} {'sphinx sec top3':>16}")
        for form, row in r["quality"].items():
            if not isinstance(row, dict):
                continue
            n = row["queries"] or 1
            print(f"  {form:<18}{row['queries']:>5}  {row['okf']['page_first'] / n:>13.1%} {row['okf']['section_top3'] / n:>13.1%}"
                  f"  {row['okf_smart']['page_first'] / n:>15.1%} {row['okf_smart']['section_top3'] / n:>15.1%}"
                  f"  {row['sphinx']['page_first'] / n:>16.1%} {row['sphinx']['section_top3'] / n:>16.1%}")
            if form.startswith("docstring"):
                held = row["halves"]["held-out"]
                m = held["n"] or 1
                print(f"  {'  held-out':<18}{held['n']:>5}  {held['okf'][0] / m:>13.1%} {held['okf'][1] / m:>13.1%}"
                      f"  {held['okf_smart'][0] / m:>15.1%} {held['okf_smart'][1] / m:>15.1%}")


if __name__ == "__main__":
    main()
