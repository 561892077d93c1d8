"""Docstrings located when the documented package is installed non-editable: the API objects of
real projects' docs located in their Python source, built the way Read the Docs builds by
default (the docs from the repository, the package from a wheel), before and after.

Usage: ``python bench/bench_installed.py [--work DIR] [--baseline CHECKOUT] [--json FILE]``

For each project of bench/bench_objects.py (attrs and click) the repository is the sdist
(docs/ and src/), the package is its released wheel installed with ``pip install --no-deps``
into one virtual environment (``--system-site-packages``: Sphinx and the themes come from the
interpreter). The docs are built three times with okf_sphinx appended to the project's own
extensions (bench/bench_objects.py's wrapper conf.py):

* **in-tree**: the sdist's ``src/`` first on ``sys.path`` (what an editable install gives), this checkout;
* **installed, baseline**: the venv's interpreter imports the wheel, the okf_sphinx of ``--baseline``;
* **installed**: the same, this checkout.

Reported: Python objects, how many are located in a ``.py`` file of the project (and are
read back by ``read_lines`` with the captured SHA-256) and how many are generated (located
at their directive line).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import okf_sphinx  # noqa: E402
from bench_objects import PROJECTS, build, fetch  # noqa: E402


def venv_with_wheels(work: Path, dists: list[str]) -> str:
    """The interpreter of a venv (system site packages visible) holding the released wheels of ``dists``."""
    venv = work / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    wheels = work / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:", *dists,
                    "-d", str(wheels)], check=True)
    for dist in dists:
        name, version = dist.split("==")
        wheel = next(wheels.glob(f"{name}-{version}-*.whl"))
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)], check=True)
    return str(python)


def located(site: Path) -> dict[str, int]:
    index = okf_sphinx.open_index(site)
    out = {"objects": 0, "located": 0, "generated": 0, "read_back": 0}
    for _name, kind, _page, _i, sid in index.objects():
        if not kind.startswith("py:"):
            continue
        record = index.section(sid)
        out["objects"] += 1
        if record.get("generated"):
            out["generated"] += 1
        elif record["path"].endswith(".py"):
            out["located"] += 1
            read = index.read_lines(record["path"], [record["line_start"], record["line_end"]])
            out["read_back"] += read["content_sha256"] == record["content_sha256"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=None, help="folder for sdists, wheels, the venv and builds")
    ap.add_argument("--baseline", type=Path, default=None, help="an okf_sphinx checkout to compare with (e.g. main's)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--projects", nargs="*", default=sorted(PROJECTS))
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="okf-bench-installed-"))
    work.mkdir(parents=True, exist_ok=True)
    python = venv_with_wheels(work, [PROJECTS[n]["dist"] for n in args.projects])
    results: dict[str, Any] = {}
    for name in args.projects:
        spec = PROJECTS[name]
        tree = fetch(spec["dist"], work)
        # nothing of the sdist on sys.path: autodoc imports the wheel from the venv's site-packages
        installed = {**spec, "src": str(work / "nothing")}
        runs = [("in-tree", spec, ROOT, sys.executable), ("installed", installed, ROOT, python)]
        if args.baseline:
            runs.insert(1, ("installed, baseline", installed, args.baseline.resolve(), python))
        results[name] = {}
        for label, run_spec, okf, py in runs:
            out = work / f"{name}-{label.replace(', ', '-')}"
            seconds = build(tree, run_spec, out, True, okf=okf, python=py)
            results[name][label] = {**located(out), "build_seconds": round(seconds, 1)}
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for name, rows in results.items():
        print(f"\n{name} ({PROJECTS[name]['dist']})")
        print(f"  {'build':<22}{'objects':>8}{'located':>9}{'generated':>10}{'read back':>10}")
        for label, r in rows.items():
            print(f"  {label:<22}{r['objects']:>8}{r['located']:>9}{r['generated']:>10}{r['read_back']:>10}")


if __name__ == "__main__":
    main()
