"""The cached embedding facade: :func:`embed` puts the disk cache, and the engine, in front of any embedder."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from stviz import engine
from stviz.cache import Cache, MixedDimensionsError, default_cache
from stviz.embedders.base import Embedder, EmbedderError, vector_cache_id
from stviz.embedders.specs import parse_embedder
from stviz.progress import Progress


def embed(texts: Sequence[str], embedder: Embedder | str, cache: Cache | None = None,
          progress: Progress | None = None) -> np.ndarray:
    """Vectors for ``texts`` (float32, one row each), reading what the disk cache has."""
    if isinstance(embedder, str):
        embedder = parse_embedder(embedder)
    try:
        # Only the missing texts go to the engine (this process, or a Ray cluster), which stores them.
        return engine.cached_vectors(as_encoder(embedder), texts, cache or default_cache(), progress)
    except MixedDimensionsError as exc:
        raise EmbedderError(str(exc)) from exc


def as_encoder(embedder: Embedder) -> engine.TextEncoder:
    """The embedder as the engine runs it: stviz's own are already; another gets its ``vector_id`` attached."""
    return embedder if hasattr(embedder, "vector_id") else KeyedEmbedder(embedder)


@dataclass
class KeyedEmbedder:
    """An embedder from outside stviz (just ``id``, ``label``, ``encode``) with the key of its cached vectors."""

    embedder: Embedder
    vector_id: str = field(init=False)
    label: str = field(init=False)

    def __post_init__(self) -> None:
        self.vector_id = vector_cache_id(self.embedder)
        self.label = self.embedder.label

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """The wrapped embedder's vectors."""
        return self.embedder.encode(texts, progress=progress)
