"""Logistic regression on TF-IDF word n-grams: the style classifier Mir et al. (NAACL 2019) used for
their style lexicon (its largest absolute weights are the lexicon, see :mod:`stviz.measures.style.lexicon`)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from stviz.embedders.word_vectors import UNSPACED
from stviz.measures.style.classifiers.checks import check_training_data
from stviz.progress import Progress

#: Words as scikit-learn's default sees them (apostrophes kept), each character of an unspaced script (Chinese,
#: Japanese, Thai) a word of its own: for English the same tokens as before.
WORD_PATTERN = rf"(?u)[{UNSPACED}]|\b(?:(?![{UNSPACED}])\w)(?:(?![{UNSPACED}])[\w'])*\b"


class TfidfStyleClassifier:
    """Logistic regression on TF-IDF word n-grams (Mir et al. 2019, style lexicon classifier), or with
    ``analyzer="char_wb"`` on character n-grams inside word boundaries: a classifier of any script and any
    language's morphology, learned from a set's own texts (:mod:`stviz.measures.style.own_text`)."""

    kind = "lr"

    def __init__(self, ngram_range: tuple[int, int] = (1, 2), C: float = 4.0, min_df: int = 2,
                 max_features: int | None = 300_000, random_state: int = 0, analyzer: str = "word"):
        self.ngram_range = tuple(ngram_range)
        self.C = C
        self.min_df = min_df
        self.max_features = max_features
        self.random_state = random_state
        self.analyzer = analyzer

    def get_params(self) -> dict:
        """Constructor parameters (a natural cache key; the word analyzer keeps the key it always had)."""
        params = {"kind": self.kind, "ngram_range": list(self.ngram_range), "C": self.C,
                  "min_df": self.min_df, "max_features": self.max_features, "random_state": self.random_state}
        analyzer = getattr(self, "analyzer", "word")  # a classifier saved before the attribute: words
        return params if analyzer == "word" else {**params, "analyzer": analyzer}

    def fit(self, texts: Sequence[str], labels: Sequence[str], progress: Progress | None = None):
        """Fit the vectoriser and the logistic regression; returns self."""
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        texts, labels = check_training_data(texts, labels)
        # min_df=2 drops one-off typos that would otherwise top the lexicon; tiny data keeps all.
        min_df = self.min_df if len(texts) >= 50 else 1
        analyzer = getattr(self, "analyzer", "word")
        words = {"token_pattern": WORD_PATTERN} if analyzer == "word" else {"analyzer": analyzer}
        self.vectorizer_ = TfidfVectorizer(ngram_range=self.ngram_range, min_df=min_df,
                                           max_features=self.max_features, sublinear_tf=True, **words)
        features = self.vectorizer_.fit_transform(texts)
        self.model_ = LogisticRegression(C=self.C, max_iter=2000, random_state=self.random_state)
        self.model_.fit(features, labels)
        self.classes_ = np.array(self.model_.classes_)
        if progress:
            progress(1, 1)
        return self

    def predict_proba(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Style distribution per text, columns in the order of ``classes_``."""
        probs = self.model_.predict_proba(self.vectorizer_.transform([str(t) for t in texts]))
        if progress:
            progress(len(texts), len(texts))
        return probs

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Most probable style per text."""
        return self.classes_[self.predict_proba(texts).argmax(1)]

    def feature_weights(self) -> pd.DataFrame:
        """One row per n-gram: its weight per style (binary: one 'weight' column toward classes_[1])."""
        names = self.vectorizer_.get_feature_names_out()
        coef = self.model_.coef_
        if coef.shape[0] == 1:
            return pd.DataFrame({"weight": coef[0]}, index=names)
        return pd.DataFrame(coef.T, index=names, columns=[str(c) for c in self.classes_])
