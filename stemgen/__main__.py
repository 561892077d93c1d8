"""``python -m stemgen [--check] [name...]``: write (or check) the generated stemmers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .definitions import read_algorithm
from .emit import javascript, python

ROOT = Path(__file__).resolve().parent.parent
ALGORITHMS = Path(__file__).resolve().parent / "algorithms"
PYTHON_DIR = ROOT / "okf_sphinx" / "core" / "snowball"
JS_DIR = ROOT / "okf_sphinx" / "static"
VERSION = "3.0.1"  # the Snowball release whose algorithms the definitions describe


def outputs(name: str) -> dict[Path, str]:
    """The files stemgen writes for algorithm ``name`` and their text."""
    definition = ALGORITHMS / f"{name}.sx"
    algorithm = read_algorithm(definition)
    source = definition.relative_to(ROOT).as_posix()
    return {
        PYTHON_DIR / f"{name}.py": python(algorithm, source, VERSION),
        JS_DIR / f"okf-stemmer-{name}.js": javascript(algorithm, source, VERSION),
    }


def names() -> list[str]:
    return sorted(p.stem for p in ALGORITHMS.glob("*.sx"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stemgen", description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; fail when a file differs")
    parser.add_argument("names", nargs="*", help="algorithms (default: every definition)")
    args = parser.parse_args(argv)
    stale = []
    for name in args.names or names():
        for path, text in outputs(name).items():
            current = path.read_text("utf-8") if path.is_file() else None
            if current == text:
                continue
            if args.check:
                stale.append(path)
            else:
                path.write_text(text, "utf-8")
                print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print("not what stemgen writes (run python -m stemgen):", *(str(p.relative_to(ROOT)) for p in stale), sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
