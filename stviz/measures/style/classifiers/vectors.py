"""A style classifier on a sentence encoder's vectors: logistic regression over the frozen, unit-normalised vectors of
any embedder spec (the shipped multilingual encoders, MiniLM, a model the user names), read from the vector cache.

It is what the own-text style classifier uses beside its character n-grams where an encoder covers the set's
language (:mod:`stviz.measures.style.own_text`): n-grams see words, the vectors see meaning, and a style expressed in
words the training texts never held (a rude word spelt another way) still moves the vector.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from stviz.measures.style.classifiers.checks import check_training_data
from stviz.progress import Progress


class VectorStyleClassifier:
    """Logistic regression on an embedder's unit sentence vectors (scikit-learn style: fit, predict_proba, predict)."""

    kind = "vectors"

    def __init__(self, embedder: str, C: float = 4.0, random_state: int = 0):
        self.embedder = embedder
        self.C = C
        self.random_state = random_state

    def get_params(self) -> dict:
        """Constructor parameters, the embedder by its vectors' cache id (which model, backend and precision)."""
        from stviz.embedders import parse_embedder, vector_cache_id

        return {"kind": self.kind, "embedder": vector_cache_id(parse_embedder(self.embedder)), "C": self.C,
                "random_state": self.random_state}

    def _vectors(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        from stviz.embedders import embed, unit_normalise

        return unit_normalise(embed([str(t) for t in texts], self.embedder, progress=progress))

    def fit(self, texts: Sequence[str], labels: Sequence[str], progress: Progress | None = None):
        """Fit the logistic regression on the texts' vectors; returns self."""
        from sklearn.linear_model import LogisticRegression

        texts, labels = check_training_data(texts, labels)
        self.model_ = LogisticRegression(C=self.C, max_iter=2000, random_state=self.random_state)
        self.model_.fit(self._vectors(texts, progress), labels)
        self.classes_ = np.array(self.model_.classes_)
        return self

    def predict_proba(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Style distribution per text, columns in the order of ``classes_``."""
        return self.model_.predict_proba(self._vectors(texts, progress))

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Most probable style per text."""
        return self.classes_[self.predict_proba(texts).argmax(1)]


__all__ = ["VectorStyleClassifier"]
