"""Static sentence embeddings (model2vec): the fast choice for huge corpora.

model2vec (Tulkens & van Dongen, 2024) distils a sentence transformer into one vector per
vocabulary token: each token is encoded alone by the transformer, the vectors are reduced by PCA
and weighted by Zipf-style SIF weights; a sentence is then the mean of its tokens' vectors, with no
transformer at run time. Distilled from the shipped all-MiniLM-L6-v2 on first use (about two
minutes on 2 CPU cores, once per stviz cache) and saved under ``<cache>/model2vec``; its agreement
with MiniLM is measured in ``benchmarks/embed_backends.py`` (docs/benchmarks.md).

``model2vec`` is an optional extra (``pip install -r requirements-fast.txt``).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from stviz.cache import default_cache
from stviz.embedders.base import EmbedderBase, EmbedderError, local_id, shipped_minilm_path
from stviz.progress import Progress
from stviz.shared import load_once

#: What the shipped-MiniLM distillation is made with; part of its folder name and cache id.
DISTILL = {"version": 1, "pca_dims": 256}
SHIPPED = "minilm"


def _require_model2vec():
    try:
        import model2vec  # noqa: F401
    except ImportError as exc:
        raise EmbedderError("the model2vec embedder needs the optional package model2vec: "
                            "pip install -r requirements-fast.txt") from exc


def distilled_minilm_path() -> Path:
    """Folder of the model2vec model distilled from the shipped MiniLM (made on first call)."""
    folder = default_cache().root / "model2vec" / f"minilm-pca{DISTILL['pca_dims']}-v{DISTILL['version']}"
    if (folder / "config.json").exists():
        return folder
    _require_model2vec()
    from stviz.models.loading import load_pretrained, load_tokenizer

    try:
        from model2vec.distill import distill_from_model
    except ImportError as exc:
        raise EmbedderError("distilling needs model2vec's distill dependencies (skeletoken): "
                            "pip install -r requirements-fast.txt") from exc
    source = str(shipped_minilm_path())
    from model2vec.distill import inference

    bar = inference.tqdm
    inference.tqdm = _SilentBar  # its per-token bar would interleave with our own progress output
    try:
        static = distill_from_model(load_pretrained(source, "encoder", label="MiniLM (to distil)"),
                                    load_tokenizer(source), pca_dims=DISTILL["pca_dims"], device="cpu")
    finally:
        inference.tqdm = bar
    tmp = folder.with_name(f".{os.getpid()}-{folder.name}")
    static.save_pretrained(str(tmp))
    try:
        os.replace(tmp, folder)
    except OSError:  # another process finished first: keep its copy
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


class _SilentBar:
    """Stands in for tqdm's bar during distillation."""

    def __init__(self, *args, **kwargs):
        pass

    def update(self, n: int = 1) -> None:
        """Ignored."""

    def close(self) -> None:
        """Ignored."""


@load_once(maxsize=2)  # one load even when several sessions ask at once
def load_static_model(model: str, stamp: str = ""):
    """A model2vec StaticModel: the MiniLM distillation for 'minilm', else a local folder or hub id.

    ``stamp`` is the embedder's id, which carries a local model's content key: a replaced model loads anew."""
    _require_model2vec()
    from model2vec import StaticModel

    path = distilled_minilm_path() if model == SHIPPED else model
    try:
        return StaticModel.from_pretrained(str(path))
    except Exception as exc:  # noqa: BLE001 - one clear message for any loading failure
        raise EmbedderError(f"could not load the model2vec model '{model}': {type(exc).__name__}: {str(exc)[:300]}. "
                            "Give a folder saved by model2vec, a hub id with internet access, or 'minilm'.") from exc


@dataclass
class StaticEmbedder(EmbedderBase):
    """model2vec static embeddings (mean of distilled token vectors, unit-normalised)."""

    model: str = SHIPPED
    id: str = field(init=False)
    label: str = field(init=False)

    def __post_init__(self) -> None:
        if self.model == SHIPPED:
            self.id = f"m2v:minilm:pca{DISTILL['pca_dims']}:v{DISTILL['version']}"
            self.label = "model2vec distilled from MiniLM-L6 (static, fast)"
        else:
            path = Path(self.model).expanduser()
            # Keyed by content, as every local model: a replaced folder must not return the old vectors.
            key = local_id(path) if path.exists() else self.model
            self.id = f"m2v:{key}"
            self.label = f"{self.model} (model2vec)"

    def verify(self, precision: str = "fp32"):
        """Check the static model before use: finite, deterministic vectors (model2vec has no recorded answer).

        Its distillation from the shipped MiniLM loads MiniLM verified (:mod:`stviz.models.loading`).
        """
        from stviz.models import known_answers as ka
        from stviz.models.loading import content_key, rounding_bound

        source = str(distilled_minilm_path()) if self.model == SHIPPED else self.model
        use = ka.ModelUse("static sentence vectors", self.label, source, content_key(source), "model2vec")
        return ka.verify(use, None, self.encode, bound=rounding_bound(1, 64))

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Unit-normalised static sentence vectors."""
        self.verify()
        static = load_static_model(self.model, self.id)
        out = []
        step = 10_000
        for start in range(0, len(texts), step):
            out.append(np.asarray(static.encode(list(texts[start:start + step]), show_progress_bar=False),
                                  dtype=np.float32))
            if progress:
                progress(min(start + step, len(texts)), len(texts))
        return np.concatenate(out) if out else np.zeros((0, 0), np.float32)
