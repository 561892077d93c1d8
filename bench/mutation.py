"""Mutation testing of the contract-critical modules with mutmut.

    python bench/mutation.py [--modules okf_sphinx/core/index_format.py ...] [--tests tests/x.py ...]
                             [--jobs 2] [--examples 100] [--out bench/results/mutation.json]

mutmut rewrites each function of the chosen modules into variants (an operator
flipped, a constant changed, an argument dropped …) and runs, for each variant,
the tests that reach that function: a variant no test notices "survived".

The run happens in a scratch copy of the repository (mutmut writes its
``mutants/`` tree next to the sources), at the lowest CPU priority. The default
test selection is the fast one — tests that need no Sphinx build
(tests/test_contract_rules.py writes a real index from hand-made records) plus
the Unicode term properties with ``--examples`` Hypothesis examples each —
because a Sphinx build per variant would take hours. The result (counts,
score, surviving variants) is printed and written to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["okf_sphinx/core/index_format.py", "okf_sphinx/engine/query.py", "okf_sphinx/core/terms.py", "okf_sphinx/agent/answers.py", "okf_sphinx/agent/files.py", "okf_sphinx/agent/pages.py", "okf_sphinx/agent/headings.py", "okf_sphinx/agent/read_lines.py", "okf_sphinx/agent/search_concepts.py", "okf_sphinx/agent/get_section.py", "okf_sphinx/agent/dispatch.py", "okf_sphinx/core/locators.py",
           "okf_sphinx/core/lines.py"]
#: build-free tests only (see the module docstring)
TESTS = [
    "tests/test_contract_rules.py",
    "tests/test_terms.py",
    "tests/test_reading.py::test_norm_and_markup_helpers",
    "tests/test_contract.py::test_shipped_unicode_tables_equal_this_pythons_unicodedata",
]


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def prepare(work: Path, modules: list[str], tests: list[str]) -> None:
    for name in ("okf_sphinx", "tests", "example_site"):
        shutil.copytree(ROOT / name, work / name, ignore=shutil.ignore_patterns("__pycache__", "_build", ".hypothesis"))
    config = (
        "\n[tool.mutmut]\n"
        'source_paths = ["okf_sphinx/"]\n'
        'also_copy = ["example_site/"]\n'
        f"only_mutate = {_toml_list(modules)}\n"
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:benchmark", "-x", "-q"]\n'
    )
    (work / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8") + config, encoding="utf-8")


def mutmut(work: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("mutmut")
    cmd = [exe] if exe else [sys.executable, "-m", "mutmut"]
    nice = ["nice", "-n", "19"] if shutil.which("nice") else []
    return subprocess.run(nice + cmd + list(args), cwd=work, env=env, capture_output=True, text=True)


_STRING = re.compile(r"""[rbfuRBFU]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")


def kind(diff: str) -> str:
    """``"string"`` when a surviving mutant changes only the text of string literals
    (message wording, case), else ``"logic"`` — the ones a contract test must kill."""
    old = [line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    new = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    same = [_STRING.sub("S", x) for x in old] == [_STRING.sub("S", x) for x in new]
    return "string" if old and same else "logic"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="+", default=MODULES)
    parser.add_argument("--tests", nargs="+", default=TESTS)
    parser.add_argument("--jobs", type=int, default=2, help="mutants run in parallel (default 2)")
    parser.add_argument("--examples", type=int, default=100, help="Hypothesis examples per property (default 100)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "mutation.json")
    parser.add_argument("--only", nargs="+", default=[], metavar="MUTANT",
                        help="run only these mutants, names or fnmatch patterns such as "
                             "'okf_sphinx.agent.get_section.x_get_section__mutmut_*' (e.g. the survivors of an earlier run's report)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy (to inspect mutants with `mutmut show`)")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="okf-mutation-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # mutmut's mutants/ tree must win
    env["OKF_PROPERTY_EXAMPLES"] = str(args.examples)
    started = time.monotonic()
    try:
        prepare(work, args.modules, args.tests)
        run = mutmut(work, "run", "--max-children", str(args.jobs), *args.only, env=env)
        if run.returncode != 0:
            sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
            return 1
        stats_run = mutmut(work, "export-cicd-stats", env=env)
        stats_file = work / "mutants" / "mutmut-cicd-stats.json"
        if not stats_file.exists():
            sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:] + stats_run.stderr)
            return 1
        stats = json.loads(stats_file.read_text(encoding="utf-8"))
        # mutants that were run (an --only run leaves the others unchecked: no exit code)
        ran = sum(code is not None for meta in (work / "mutants").rglob("*.py.meta")
                  for code in json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"].values())
        listing = mutmut(work, "results", env=env).stdout
        names = sorted(m.group(1) for m in re.finditer(r"^\s*(\S+): survived\s*$", listing, re.M))
        survivors = [{"mutant": n, "kind": kind(mutmut(work, "show", n, env=env).stdout)} for n in names]
        if args.keep:
            print(f"scratch copy kept in {work}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.only:  # mutants not named (names may be fnmatch patterns) stay unchecked: count the ones run
        stats["total"] = ran
    judged = stats["killed"] + stats["survived"] + stats["no_tests"] + stats["timeout"] + stats["suspicious"]
    score = (stats["killed"] + stats["timeout"]) / judged if judged else 0.0
    report = {
        "modules": args.modules,
        "tests": args.tests,
        "hypothesis_examples": args.examples,
        "stats": stats,
        "score": round(score, 4),
        "seconds": round(time.monotonic() - started, 1),
        "survivors_logic": [x["mutant"] for x in survivors if x["kind"] == "logic"],
        "survivors_string": [x["mutant"] for x in survivors if x["kind"] == "string"],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"mutation score {score:.1%}: {stats['killed']} killed, {stats['timeout']} timed out, "
          f"{stats['survived']} survived, {stats['no_tests']} reached by no selected test, of {stats['total']} "
          f"({report['seconds']} s); report in {args.out}")
    for x in survivors:
        print(f"  survived ({x['kind']}): {x['mutant']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
