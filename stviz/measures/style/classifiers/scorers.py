"""Style scorers for sentences rated by people for style (formality, sentiment strength, toxicity): regressors
learned from the ratings themselves, scored on held-out folds, and any style classifier's probability of a class.

Briakou et al. (2021) found a formality *regressor* trained on sentence-level human ratings to agree with people
best. A regressor trained and scored on the same sentences would agree with them trivially, so every sentence's
score here comes from a model that never saw it (k-fold cross-validation), and each scorer is named with its
held-out error. Two feature sets: TF-IDF word and character n-grams (any script), and MiniLM sentence vectors.

>>> parse_scorer_spec("learn:cds:shakespeare")
('learn:cds', 'shakespeare')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from stviz.data.schema import DataError

#: The regressors learned from a rated set's own scores, and their labels.
REGRESSORS = {"ridge-tfidf": "ridge on TF-IDF word + character n-grams", "ridge-minilm": "ridge on MiniLM vectors"}
#: Folds of the cross-validation (fewer for tiny sets).
FOLDS = 5


class StyleRegressor:
    """Ridge regression of a human style score on TF-IDF n-grams or MiniLM sentence vectors (scikit-learn style)."""

    def __init__(self, kind: str = "ridge-tfidf", alpha: float = 1.0):
        if kind not in REGRESSORS:
            raise DataError(f"unknown style regressor '{kind}'; choose one of {', '.join(REGRESSORS)}")
        self.kind = kind
        self.alpha = alpha

    def get_params(self) -> dict:
        """Constructor parameters (a natural cache key)."""
        return {"kind": self.kind, "alpha": self.alpha}

    def _features(self, texts: Sequence[str], fit: bool):
        if self.kind == "ridge-minilm":
            from stviz.embedders import embed

            return embed([str(t) for t in texts], "minilm")  # cached: every fold reads the same vectors
        if fit:
            from sklearn.feature_extraction.text import TfidfVectorizer
            from sklearn.pipeline import FeatureUnion

            # Character n-grams carry formality cues words miss (capitals, punctuation, contractions) in any script.
            self.vectorizer_ = FeatureUnion([
                ("words", TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, token_pattern=r"(?u)\b\w[\w']*\b")),
                ("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True, lowercase=False)),
            ])
            return self.vectorizer_.fit_transform([str(t) for t in texts])
        return self.vectorizer_.transform([str(t) for t in texts])

    def fit(self, texts: Sequence[str], scores: Sequence[float]):
        """Learn the scores from the texts; returns self."""
        from sklearn.linear_model import Ridge

        self.model_ = Ridge(alpha=self.alpha).fit(self._features(texts, fit=True), np.asarray(scores, float))
        return self

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """The predicted human score of each text."""
        return self.model_.predict(self._features(texts, fit=False))


@dataclass(frozen=True)
class HeldOut:
    """A scorer's held-out predictions for every sentence and its error on them."""

    name: str
    label: str
    values: np.ndarray
    mae: float
    folds: int


def cross_validated(texts: Sequence[str], scores: Sequence[float], kind: str, seed: int = 0) -> HeldOut:
    """Every sentence scored by a regressor trained on the other folds (k-fold, seeded), and the held-out MAE."""
    from sklearn.model_selection import KFold

    texts, y = list(map(str, texts)), np.asarray(scores, float)
    keep = np.isfinite(y)
    if keep.sum() < 10:
        raise DataError(f"a style regressor needs at least 10 rated sentences to be scored on held-out folds; "
                        f"{int(keep.sum())} have a score")
    refuse_flat_ratings(y[keep])
    folds = min(FOLDS, int(keep.sum()) // 5)
    out = np.full(len(y), np.nan)
    index = np.flatnonzero(keep)
    for train, test in KFold(folds, shuffle=True, random_state=seed).split(index):
        model = StyleRegressor(kind).fit([texts[i] for i in index[train]], y[index[train]])
        out[index[test]] = model.predict([texts[i] for i in index[test]])
    mae = float(np.mean(np.abs(out[keep] - y[keep])))
    # The label names the method (the same in every set); each set's held-out error is said in its notes.
    label = f"{REGRESSORS[kind]} (learned from the ratings, held-out folds)"
    return HeldOut(kind, label, out, mae, folds)


#: Fewest sentences whose rating differs from the most common one before a regressor may learn from the ratings.
MIN_VARYING = 5


def refuse_flat_ratings(y: np.ndarray) -> None:
    """Refuse ratings a regressor can learn nothing from: all one value, or all but a handful (issue 56: 40 sentences
    rated 1.0 gave a scorer whose correlation was NaN, saved without a word)."""
    values, counts = np.unique(y, return_counts=True)
    if len(values) < 2:
        raise DataError(f"every one of the {len(y):,} ratings is {values[0]:g}: a scorer cannot learn a style "
                        "from ratings that do not vary; give sentences rated across the scale")
    varying = len(y) - int(counts.max())
    if varying < MIN_VARYING:
        raise DataError(f"only {varying} of the {len(y):,} ratings differ from {values[counts.argmax()]:g}: too little "
                        f"variation to learn a style from (at least {MIN_VARYING} are needed)")


def parse_scorer_spec(spec: str) -> tuple[str, str | None]:
    """``FOLDER[:CLASS]``, ``learn:DATASET[:CLASS]`` or ``hf:MODEL[:LABEL]`` -> (classifier, class or None)."""
    parts = spec.split(":")
    if parts[0] == "hf":
        model, _, label = spec[3:].partition(":") if not Path(spec[3:]).exists() else (spec[3:], "", "")
        if not model:
            raise DataError(f"style scorer '{spec}': write hf:MODEL[:LABEL], e.g. hf:s-nlp/roberta-base-formality-"
                            "ranker:formal")
        return f"hf:{model}", label or None
    if parts[0] == "learn":
        if len(parts) < 2 or not parts[1]:
            raise DataError(f"style scorer '{spec}': write learn:DATASET[:CLASS], e.g. learn:yelp-sentiment:positive")
        return f"learn:{parts[1]}", (parts[2] if len(parts) > 2 and parts[2] else None)
    folder, _, cls = spec.rpartition(":") if ":" in spec else (spec, "", "")
    return folder, cls or None


def classifier_scorer(spec: str, texts: Sequence[str], hint: str = "", progress=None) -> HeldOut:
    """p(CLASS) of every text under a named classifier: a ``classify train`` folder or one learned on a dataset's
    style-labelled texts (``learn:DATASET``); the class defaults to the one the rating's name mentions."""
    from stviz.measures.style.classifiers import default_classifier, load_classifier

    source, cls = parse_scorer_spec(spec)
    if source.startswith("hf:"):
        return pretrained_scorer(spec, source[3:], cls, texts, hint)
    if source.startswith("learn:"):
        from stviz.data import load_dataset

        trained = default_classifier(load_dataset(source[len("learn:"):]), "lr", progress=progress)
    else:
        trained = load_classifier(source)
    classes = [str(c) for c in trained.classes]
    cls = _class_named(spec, classes, cls, hint)
    probs = trained.predict_proba([str(t) for t in texts])
    label = (f"p({cls}) by a {'TF-IDF logistic regression' if trained.kind == 'lr' else 'MiniLM classifier'} on "
             f"{trained.source or source} (held-out accuracy {trained.accuracy:.2f})")
    return HeldOut(f"scorer:{spec}", label, probs[:, classes.index(cls)], float("nan"), 0)


def _class_named(spec: str, classes: list[str], chosen: str | None, hint: str) -> str:
    """The class whose probability is the score: the one named, else the one the rating's name mentions."""
    chosen = chosen or next((c for c in classes if c.lower() in hint.lower() or hint.lower() in c.lower()), None)
    if chosen not in classes:
        raise DataError(f"style scorer '{spec}': name the class whose probability is the score (SCORER:CLASS); its "
                        f"classes: {', '.join(classes)}")
    return chosen


def pretrained_scorer(spec: str, model_id: str, label: str | None, texts: Sequence[str], hint: str = "") -> HeldOut:
    """p(LABEL) of every text under a pretrained sequence classifier (a hub id or a local folder; ids need internet)."""
    tokenizer, model = _sequence_classifier(model_id)
    verify_sequence_classifier(model_id)
    labels = [str(model.config.id2label[i]) for i in range(model.config.num_labels)]
    label = _class_named(spec, labels, label, hint)
    probabilities = class_probabilities(model_id, texts)
    return HeldOut(f"scorer:{spec}", f"p({label}) by the pretrained classifier {model_id}",
                   probabilities[:, labels.index(label)], float("nan"), 0)


def _sequence_classifier(model_id: str):
    """(tokenizer, model) of a sequence classifier, loaded verified (stviz.models.loading) once per content."""
    from stviz.models.loading import content_key

    return _load_sequence_classifier(model_id, content_key(model_id))


@functools.lru_cache(maxsize=2)
def _load_sequence_classifier(model_id: str, content: str):
    from stviz.models.loading import ModelLoadError, load_pretrained, load_tokenizer

    try:
        return load_tokenizer(model_id), load_pretrained(model_id, "sequence-classification", label=f"hf:{model_id}")
    except ModelLoadError as exc:
        raise DataError(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - any loading failure gets one clear message
        raise DataError(f"could not load the classifier '{model_id}' ({type(exc).__name__}); a hub id needs internet "
                        "access or a copy in the Hugging Face cache, or give a local folder") from exc


def class_probabilities(model_id: str, texts: Sequence[str]) -> np.ndarray:
    """Every class's probability for each text under a pretrained sequence classifier (rows sum to 1)."""
    import torch

    tokenizer, model = _sequence_classifier(model_id)
    scores = []
    for lo in range(0, len(texts), 32):
        batch = tokenizer([str(t) for t in texts[lo:lo + 32]], padding=True, truncation=True, max_length=256,
                          return_tensors="pt")
        with torch.inference_mode():
            scores.append(torch.softmax(model(**batch).logits.float(), -1).numpy())
    return np.concatenate(scores) if scores else np.zeros((0, model.config.num_labels))


def verify_sequence_classifier(model_id: str):
    """A user's classifier checked before use: load complete, probabilities finite, the same twice and alone as in
    a batch (stviz.models.known_answers); DataError naming the reason when it fails."""
    from stviz.models import known_answers as ka
    from stviz.models.loading import config_bound, content_key

    use = ka.ModelUse("style scorer", f"hf:{model_id}", model_id, content_key(model_id))
    try:
        return ka.verify(use, None, lambda texts: class_probabilities(model_id, texts),
                         bound=lambda: config_bound(model_id))
    except ka.KnownAnswerError as exc:
        raise DataError(str(exc)) from exc


__all__ = ["FOLDS", "HeldOut", "REGRESSORS", "StyleRegressor", "classifier_scorer", "cross_validated",
           "parse_scorer_spec", "pretrained_scorer"]
