"""Size and speed of the generated stemmers, per language, against snowballstemmer 3.0.1.

    python bench/bench_stemmer.py [--languages ru,fr] [--repeat 3] [--json out.json]

Size: each algorithm's Python module (okf_sphinx/core/snowball/<algorithm>.py) and JavaScript
file (okf_sphinx/static/okf-stemmer-<algorithm>.js), raw and gzip -9, beside the shared
parts every site loads with it (runtime.py; okf-stemmer.js) and, for reference, Sphinx's own
minified browser stemmer of the same algorithm (sphinx/search/minified-js, plus its
base-stemmer.js).  Speed: words per second over the language's word list of
tests/test_stemmer.py (tests/support/stem_words.py, at least 50,000 distinct words), best of
``--repeat`` runs, for okf's Python (no memo), snowballstemmer's generated pure-Python class
(the baseline: what the build would use otherwise) and okf's JavaScript in Node (first
pass over distinct words: the memo never hits).  Ratios are okf / baseline, measured in one run.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from okf_sphinx.core.stemmer import algorithm_for, supported_languages  # noqa: E402

STATIC = REPO / "okf_sphinx" / "static"
PY_DIR = REPO / "okf_sphinx" / "core" / "snowball"
NODE_TIMER = r"""
const file = process.argv[2], language = process.argv[3], repeat = +process.argv[4];
const words = JSON.parse(require('fs').readFileSync(0, 'utf8'));
let best = Infinity;
for (let r = 0; r < repeat; r++) {
  for (const k of Object.keys(require.cache)) delete require.cache[k];  // a fresh memo
  const stem = require(file).forLanguage(language);
  const t = process.hrtime.bigint();
  for (const w of words) stem(w);
  best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9);
}
process.stdout.write(JSON.stringify({ seconds: best }));
"""


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def sizes(algorithm: str) -> dict[str, int | None]:
    py = (PY_DIR / f"{algorithm}.py").read_bytes()
    js = (STATIC / f"okf-stemmer-{algorithm}.js").read_bytes()
    out: dict[str, int | None] = {"py_raw": len(py), "py_gzip": gz(py), "js_raw": len(js), "js_gzip": gz(js),
                                  "sphinx_js_gzip": None}
    try:
        import sphinx

        sphinx_js = Path(sphinx.__file__).parent / "search" / "minified-js" / f"{algorithm}-stemmer.js"
        if sphinx_js.is_file():
            out["sphinx_js_gzip"] = gz(sphinx_js.read_bytes())
    except ImportError:
        pass
    return out


def best_rate(stem, words: tuple[str, ...], repeat: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for w in words:
            stem(w)
        best = min(best, time.perf_counter() - t)
    return len(words) / best


def node_rate(language: str, words: tuple[str, ...], repeat: int) -> float | None:
    node = subprocess.run(["which", "node"], capture_output=True, text=True).stdout.strip()
    if not node:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as f:
        f.write(NODE_TIMER)
    proc = subprocess.run([node, f.name, str(STATIC / "okf-stemmer.js"), language, str(repeat)],
                          input=json.dumps(words), capture_output=True, text=True, check=True)
    Path(f.name).unlink()
    return len(words) / json.loads(proc.stdout)["seconds"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--languages", default=",".join(supported_languages()))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    from support.stem_words import word_list

    shared = {
        "runtime.py": (PY_DIR / "runtime.py").read_bytes(),
        "okf-stemmer.js": (STATIC / "okf-stemmer.js").read_bytes(),
    }
    report: dict[str, object] = {"shared": {k: {"raw": len(v), "gzip": gz(v)} for k, v in shared.items()}, "languages": {}}
    print("shared: " + ", ".join(f"{k} {len(v):,} B raw / {gz(v):,} B gzip" for k, v in shared.items()))
    print("| language | words | Python raw / gzip | JS raw / gzip | Sphinx's JS gzip | okf Python w/s | snowballstemmer w/s "
          "| Python ratio | Node w/s | Node ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for language in args.languages.split(","):
        algorithm = str(algorithm_for(language))
        words = word_list(language)
        ours = importlib.import_module(f"okf_sphinx.core.snowball.{algorithm}").stem
        reference = getattr(importlib.import_module(f"snowballstemmer.{algorithm}_stemmer"), f"{algorithm.capitalize()}Stemmer")()
        row: dict[str, object] = {"words": len(words), **sizes(algorithm)}
        row["python_wps"] = best_rate(ours, words, args.repeat)
        row["snowballstemmer_wps"] = best_rate(reference.stemWord, words, args.repeat)
        row["node_wps"] = node_rate(language, words, args.repeat)
        report["languages"][language] = row  # type: ignore[index]
        base = float(row["snowballstemmer_wps"])  # type: ignore[arg-type]
        node = row["node_wps"]
        print(f"| {language} ({algorithm}) | {len(words):,} | {row['py_raw']:,} / {row['py_gzip']:,} | "
              f"{row['js_raw']:,} / {row['js_gzip']:,} | {row['sphinx_js_gzip'] or '-':,} | {row['python_wps']:,.0f} | "
              f"{base:,.0f} | {float(row['python_wps']) / base:.2f} | "  # type: ignore[arg-type]
              f"{'-' if node is None else f'{node:,.0f}'} | {'-' if node is None else f'{float(node) / base:.1f}'} |")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
