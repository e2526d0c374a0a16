"""A style classifier learned from a set's own human texts: a style measure in any language, with no model of it.

A pair file holds human-written texts of both styles: its inputs (of their source style) and its references (of
their target style). A classifier of TF-IDF character 1-4-grams (inside word boundaries: any script, any morphology)
and logistic regression learns the styles from them, cross-fitted over two halves of the inputs
(:func:`stviz.measures.fluency.own_texts.own_text_folds`): each output is scored by a model that never saw its input
or its references. Three measures per output, all toward each pair's target:

* ``own_style_relative``: P(target | output) - P(target | input), how far the output moved toward the target (the
  form the held-out nine-language detoxification study agreed with people best in, Spearman .31-.51 per language);
* ``own_style_probability``: P(target | output);
* ``own_style_accuracy``: 1 when the target is the output's likeliest style.

Where a sentence encoder covers the set's language, the same cross-fitted classifier on the encoder's vectors
(:class:`~stviz.measures.style.classifiers.vectors.VectorStyleClassifier`) gives the same three measures named
``own_vector_style_*``: n-grams see the words of a style, vectors its meaning.

Learned per set, said where it learned from; a set without human texts of two styles (or with too few in a half)
gets no such measure, with the reason.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stviz.cache import default_cache, fingerprint
from stviz.data.schema import DataError
from stviz.embedders import embedder_name
from stviz.measures.fluency.own_texts import FOLDS, MINIMUM, Fold, own_text_folds
from stviz.measures.style.classifiers.tfidf import TfidfStyleClassifier
from stviz.measures.style.classifiers.training import TrainedClassifier, confusion_frame
from stviz.measures.style.classifiers.vectors import VectorStyleClassifier
from stviz.progress import Progress

MEASURES = ("own_style_relative", "own_style_probability", "own_style_accuracy")
#: The same measures from the classifier on a sentence encoder's vectors.
VECTOR_MEASURES = ("own_vector_style_relative", "own_vector_style_probability", "own_vector_style_accuracy")
#: Bump when the classifier or its measures change.
CACHE_VERSION = 2


def classifier(encoder: str = "") -> TfidfStyleClassifier | VectorStyleClassifier:
    """The own-text classifier: character 1-4-grams inside word boundaries, or (``encoder``) the encoder's sentence
    vectors; logistic regression."""
    if encoder:
        return VectorStyleClassifier(encoder, C=4.0)
    return TfidfStyleClassifier(ngram_range=(1, 4), C=4.0, analyzer="char_wb")


class CrossFittedStyleClassifier:
    """The own-text style classifier as one estimator: one model per half of the inputs, each learned from the other
    half's human texts, so a pair (an input with its output or reference) is judged by the model that never saw that
    input or its references. ``held_out_``: each half's own human texts, their true and predicted styles."""

    kind = "lr"

    def __init__(self, encoder: str = ""):
        self.encoder = encoder

    def get_params(self) -> dict:
        """The halves' model parameters, marked cross-fitted (a cache key part)."""
        return {"cross_fitted": FOLDS, "model": classifier(self.encoder).get_params()}

    def fit(self, pairs: pd.DataFrame, folds: list[Fold]) -> "CrossFittedStyleClassifier":
        """One model per half (``folds``, from :func:`own_text_folds` on ``pairs``); returns self."""
        sources = pairs["source"].astype(str).to_numpy()
        self.models_, self.seen_, self.fold_of_ = [], [], {}
        truth, predicted = [], []
        for k, fold in enumerate(folds):
            texts = [t for style in sorted(fold.training) for t in fold.training[style]]
            labels = [style for style in sorted(fold.training) for _ in fold.training[style]]
            model = classifier(self.encoder).fit(texts, labels)
            self.models_.append(model)
            self.seen_.append(set(texts))
            self.fold_of_.update(dict.fromkeys(sources[fold.scored].tolist(), k))
            held = [(t, style) for style in sorted(fold.held_out) for t in fold.held_out[style]]
            if held:
                truth += [style for _, style in held]
                predicted += [str(c) for c in model.predict([t for t, _ in held])]
        self.held_out_ = (truth, predicted)
        self.classes_ = np.array(self.models_[0].classes_)
        return self

    def held_out_report(self) -> tuple[float, int, float]:
        """(accuracy, count, the commonest style's share) of each half's own human texts by the other half's model."""
        truth, predicted = self.held_out_
        if not truth:
            return float("nan"), 0, float("nan")
        right = int((np.array(truth) == np.array(predicted)).sum())
        return right / len(truth), len(truth), pd.Series(truth).value_counts().iloc[0] / len(truth)

    def pair_distributions(self, sources, outputs, progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Style distributions of each pair's source and output, both by the model of the half that never saw the
        source (a source of neither half, from another file: :meth:`predict_proba`)."""
        sources, outputs = [str(t) for t in sources], [str(t) for t in outputs]
        half = np.array([self.fold_of_.get(s, -1) for s in sources], dtype=int)
        p, q = np.empty((len(sources), len(self.classes_))), np.empty((len(sources), len(self.classes_)))
        for done, k in enumerate([*range(len(self.models_)), -1]):
            rows = np.flatnonzero(half == k)
            if len(rows):
                texts = list(dict.fromkeys([sources[i] for i in rows] + [outputs[i] for i in rows]))
                probs = self.models_[k].predict_proba(texts) if k >= 0 else self.predict_proba(texts)
                at = {t: i for i, t in enumerate(texts)}
                p[rows] = probs[[at[sources[i]] for i in rows]]
                q[rows] = probs[[at[outputs[i]] for i in rows]]
            if progress:
                progress(done + 1, len(self.models_) + 1)
        return p, q

    def predict_proba(self, texts, progress: Progress | None = None) -> np.ndarray:
        """Style distributions of texts without their pair: a text one half's model learned from is judged by the
        other; any other text by the mean of both (one of them may have seen the input it was written from)."""
        texts = [str(t) for t in texts]
        probs = np.stack([model.predict_proba(texts) for model in self.models_])
        unseen = np.array([[t not in seen for t in texts] for seen in self.seen_], dtype=float)
        either = unseen.sum(0)
        unseen[:, (either == 0) | (either == len(self.models_))] = 1.0
        return (unseen[:, :, None] * probs).sum(0) / unseen.sum(0)[:, None]

    def predict(self, texts) -> np.ndarray:
        """Most probable style per text."""
        return self.classes_[self.predict_proba(texts).argmax(1)]


def cross_fitted_classifier(dataset, progress: Progress | None = None) -> TrainedClassifier:
    """The own-text classifier of ``dataset`` (character n-grams), cross-fitted, with its held-out report: each
    half's human texts classified by the other half's model; cached on disk. DataError when the pairs cannot train
    it (why)."""
    pairs, references = dataset.pairs, dataset.reference_columns
    columns = pairs[["source", "output", "source_style", "target_style", *references]].astype(str)
    data = fingerprint(columns.to_numpy().tolist())
    source = (f"{dataset.name}'s own inputs and references, cross-fitted over two halves of the inputs: each pair "
              "judged by the half's model that never saw its input")

    def compute() -> TrainedClassifier:  # (a DataError raised here is not cached: said again on the next ask)
        folds, _ = _folds(pairs, references)
        if progress:
            progress(0, 1)
        model = CrossFittedStyleClassifier().fit(pairs, folds)
        accuracy, n_held_out, _ = model.held_out_report()
        learned = {t for fold in folds for texts in fold.training.values() for t in texts}
        if progress:
            progress(1, 1)
        return TrainedClassifier(model, float(accuracy), confusion_frame(*model.held_out_, model.classes_),
                                 len(learned), n_held_out, source, data_fingerprint=data)

    key = {"data": data, "params": CrossFittedStyleClassifier().get_params(), "source": source}
    return default_cache().memo("style-classifier-cross-fitted", key, compute, version=CACHE_VERSION)


def _folds(pairs: pd.DataFrame, references: list[str]) -> tuple[list[Fold], str]:
    """The two halves and the line saying what they learned from; DataError why the pairs cannot train it."""
    if "source_style" not in pairs or "target_style" not in pairs:
        raise DataError("the pairs have no style columns (give their direction)")
    styles = sorted({str(s) for s in pd.concat([pairs["source_style"], pairs["target_style"]]).dropna()} - {""})
    if len(styles) < 2:
        raise DataError("the pairs name one style only")
    folds, line, missing = own_text_folds(pairs, references, styles)
    if missing:
        raise DataError(f"fewer than {MINIMUM} human-written texts of {', '.join(missing)} in a half of the inputs "
                        "(inputs count by their source style, references by their target style; outputs never)")
    return folds, line


def own_text_style(pairs: pd.DataFrame, references: list[str], progress: Progress | None = None, encoder: str = ""
                   ) -> tuple[pd.DataFrame, list[str]]:
    """The three measures per pair (NaN where a pair has no target style) and notes: where it learned, or why not;
    on character n-grams, or on ``encoder``'s vectors."""
    frame, notes, _ = own_text_classifier(pairs, references, progress, encoder)
    return frame, notes


def own_text_classifier(pairs: pd.DataFrame, references: list[str], progress: Progress | None = None,
                        encoder: str = "") -> tuple[pd.DataFrame, list[str], tuple[float, int, float]]:
    """The three measures per pair, notes, and the held-out report (accuracy, count, the commonest style's share):
    each half's own human texts (inputs and references, never seen by the model that scores them) classified by the
    other half's model. On character n-grams, or on ``encoder``'s sentence vectors (``own_vector_style_*``)."""
    what = f"own-text style classifier on {embedder_name(encoder)} vectors" if encoder else "own-text style classifier"
    try:
        folds, line = _folds(pairs, references)
    except DataError as exc:
        return pd.DataFrame(index=pairs.index), [f"no {what}: {exc}"], (float("nan"), 0, float("nan"))
    key = {"pairs": pairs[["source", "output", "source_style", "target_style", *references]].reset_index(drop=True),
           "classifier": classifier(encoder).get_params(), "folds": len(folds)}
    values, held_out = default_cache().memo("own-text-style", key,
                                            lambda: _scores(pairs, folds, progress, encoder), version=CACHE_VERSION)
    frame = pd.DataFrame(values, index=pairs.index, columns=list(VECTOR_MEASURES if encoder else MEASURES))
    features = "sentence vectors" if encoder else "character n-grams"
    return frame, [line.replace("the n-gram language model", f"the {what} ({features}, logistic regression)")], \
        held_out


def _scores(pairs: pd.DataFrame, folds: list[Fold], progress: Progress | None,
            encoder: str = "") -> tuple[np.ndarray, tuple[float, int, float]]:
    """(relative, probability, accuracy) per pair, each half scored by the model of the other half's texts; and the
    held-out accuracy on the halves' own human texts, their count, and the commonest style's share of them."""
    model = CrossFittedStyleClassifier(encoder).fit(pairs, folds)
    out = np.full((len(pairs), 3), np.nan)
    column = {str(c): i for i, c in enumerate(model.classes_)}
    targets = pairs["target_style"].astype(str)
    rows = np.flatnonzero(targets.isin(column).to_numpy())
    p_in, p_out = model.pair_distributions(pairs["source"].to_numpy()[rows], pairs["output"].to_numpy()[rows],
                                           progress)
    target = targets.iloc[rows].map(column).to_numpy(dtype=int)
    reached = p_out[np.arange(len(rows)), target]
    out[rows, 0] = reached - p_in[np.arange(len(rows)), target]
    out[rows, 1] = reached
    out[rows, 2] = (p_out.argmax(1) == target).astype(float)
    return out, model.held_out_report()


__all__ = ["CrossFittedStyleClassifier", "MEASURES", "VECTOR_MEASURES", "classifier", "cross_fitted_classifier",
           "own_text_classifier", "own_text_style"]
