"""Real Zensical builds of small projects for the tests, and ``okf index`` run over them.

``python -m zensical build --clean`` in the project folder (Zensical is in the test extras),
then ``python -m okf_sphinx index`` with this checkout first on PYTHONPATH.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.build import write_files
from support.mkdocs_sites import build_env

PROJECT = {
    "zensical.toml": """[project]
site_name = "Zen test"
site_description = "A small Zensical site"
nav = ["index.md", {"Guide" = ["guide/install.md", {"Using it" = "guide/usage.md"}]}, "notes.md"]
""",
    "docs/index.md": "# Welcome\n\nIntro text about widgets.\n\n## Getting started\n\n"
                     "Read the [install guide](guide/install.md#requirements).\n",
    "docs/guide/install.md": "---\ntitle: Installing\n---\n\n# Install\n\nInstall the frobnicator.\n\n"
                             "## Requirements\n\nPython 3.11 and a toaster.\n\n### Optional extras\n\n"
                             "!!! note\n    Extra note about toasters.\n\n"
                             "```bash\n# not a heading\npip install frob\n```\n",
    "docs/guide/usage.md": "# Usage\n\nUse it with care.\n\n## Options\n\nThe `--fast` option retries quickly.\n\n"
                           "Setext heading\n--------------\n\nUnder a setext heading: quokka.\n",
    "docs/notes.md": "Notes without a heading: zebra crossing.\n",
}


def run_okf(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "okf_sphinx", *args], capture_output=True, text=True,
                          env=build_env(), cwd=cwd, timeout=600)


def zensical_build(project: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "zensical", "build", "--clean"], cwd=project, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def make_site(root: Path, files: dict[str, str] = PROJECT) -> Path:
    write_files(root, dict(files))
    zensical_build(root)
    return root / "site"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
