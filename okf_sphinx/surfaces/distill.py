"""``okf model distill SRC OUT``: a static embedding model from a local sentence-transformer folder.

model2vec's distillation runs the transformer once over its vocabulary, reduces the
token vectors with PCA (``--dims``, 256 by default: okf_sphinx keeps the first 128)
and writes the model2vec format that ``okf_search_semantic_model`` reads.  No model
hub is needed: SRC is a folder (a sentence-transformer's ``config.json``,
``tokenizer.json`` and weights).  It needs torch and transformers, only here: the
``[distill]`` extra (``pip install "okf_sphinx[distill]"``); building and searching
a site never do.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from okf_sphinx.core.errors import OkfError

DEFAULT_DIMS = 256


def distill(src: str, out: str, dims: Any = DEFAULT_DIMS) -> dict[str, Any]:
    """Distil the sentence-transformer folder ``src`` into the model2vec folder ``out``."""
    source, target = Path(src), Path(out)
    if not isinstance(dims, int) or isinstance(dims, bool) or not 8 <= dims <= 4096:
        raise OkfError("schema_validation", f"--dims must be an integer from 8 to 4096, got {dims!r}", field="dims")
    if not (source / "config.json").is_file() or not (source / "tokenizer.json").is_file():
        raise OkfError("not_found", f"{src} is not a sentence-transformer folder (it needs config.json and "
                       "tokenizer.json beside the weights); give the folder the model was saved to",
                       path=str(src))
    if target.exists() and any(target.iterdir()):
        raise OkfError("schema_validation", f"{out} exists and is not empty: give a new folder for the model",
                       path=str(out))
    try:
        from model2vec.distill import distill as run
    except ImportError as exc:
        raise OkfError("missing_dependency", f"okf model distill needs model2vec's distillation (torch, transformers), "
                       f"which is not installed here ({exc}); install it into this environment ({sys.executable}) "
                       "with: pip install 'okf_sphinx[distill]'", package="model2vec[distill]") from None
    model = run(model_name=str(source), pca_dims=dims)
    target.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(target))
    return {"model": str(target), "dims": int(model.dim), "vocabulary": len(model.tokens)}
