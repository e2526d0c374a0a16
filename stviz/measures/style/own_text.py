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

from stviz.cache import default_cache
from stviz.embedders import embedder_name
from stviz.measures.fluency.own_texts import MINIMUM, own_text_folds
from stviz.measures.style.classifiers.tfidf import TfidfStyleClassifier
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

    def refused(why: str):
        return pd.DataFrame(index=pairs.index), [f"no {what}: {why}"], (float("nan"), 0, float("nan"))

    if "source_style" not in pairs or "target_style" not in pairs:
        return refused("the pairs have no style columns (give their direction)")
    styles = sorted({str(s) for s in pd.concat([pairs["source_style"], pairs["target_style"]]).dropna()} - {""})
    if len(styles) < 2:
        return refused("the pairs name one style only")
    folds, line, missing = own_text_folds(pairs, references, styles)
    if missing:
        return refused(f"fewer than {MINIMUM} human-written texts of {', '.join(missing)} in a half of the inputs "
                       "(inputs count by their source style, references by their target style; outputs never)")
    key = {"pairs": pairs[["source", "output", "source_style", "target_style", *references]].reset_index(drop=True),
           "classifier": classifier(encoder).get_params(), "folds": len(folds)}
    values, held_out = default_cache().memo("own-text-style", key,
                                            lambda: _scores(pairs, folds, progress, encoder), version=CACHE_VERSION)
    frame = pd.DataFrame(values, index=pairs.index, columns=list(VECTOR_MEASURES if encoder else MEASURES))
    features = "sentence vectors" if encoder else "character n-grams"
    return frame, [line.replace("the n-gram language model", f"the {what} ({features}, logistic regression)")], \
        held_out


def _scores(pairs: pd.DataFrame, folds, progress: Progress | None,
            encoder: str = "") -> tuple[np.ndarray, tuple[float, int, float]]:
    """(relative, probability, accuracy) per pair, each half scored by the model of the other half's texts; and the
    held-out accuracy on the halves' own human texts, their count, and the commonest style's share of them."""
    out = np.full((len(pairs), 3), np.nan)
    right, truth = 0, []
    targets = pairs["target_style"].astype(str).to_numpy()
    for k, fold in enumerate(folds):
        rows = np.flatnonzero(fold.scored)
        texts = [t for style in sorted(fold.training) for t in fold.training[style]]
        labels = [style for style in sorted(fold.training) for _ in fold.training[style]]
        model = classifier(encoder).fit(texts, labels)
        held = [(t, style) for style in sorted(fold.held_out) for t in fold.held_out[style]]
        if held:
            right += int((model.predict([t for t, _ in held]) == np.array([s for _, s in held])).sum())
            truth += [s for _, s in held]
        column = {str(c): i for i, c in enumerate(model.classes_)}
        known = np.array([t in column for t in targets[rows]])
        rows = rows[known]
        target = np.array([column[t] for t in targets[rows]], dtype=int)
        p_out = model.predict_proba(pairs["output"].astype(str).to_numpy()[rows].tolist())
        p_in = model.predict_proba(pairs["source"].astype(str).to_numpy()[rows].tolist())
        reached = p_out[np.arange(len(rows)), target]
        out[rows, 0] = reached - p_in[np.arange(len(rows)), target]
        out[rows, 1] = reached
        out[rows, 2] = (p_out.argmax(1) == target).astype(float)
        if progress:
            progress(k + 1, len(folds))
    if not truth:
        return out, (float("nan"), 0, float("nan"))
    return out, (right / len(truth), len(truth), pd.Series(truth).value_counts().iloc[0] / len(truth))


__all__ = ["MEASURES", "VECTOR_MEASURES", "classifier", "own_text_classifier", "own_text_style"]
