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

Learned per set, said where it learned from; a set without human texts of two styles (or with too few in a half)
gets no such measure, with the reason.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stviz.cache import default_cache
from stviz.measures.fluency.own_texts import MINIMUM, own_text_folds
from stviz.measures.style.classifiers.tfidf import TfidfStyleClassifier
from stviz.progress import Progress

MEASURES = ("own_style_relative", "own_style_probability", "own_style_accuracy")
#: Bump when the classifier or its measures change.
CACHE_VERSION = 1

def classifier() -> TfidfStyleClassifier:
    """The own-text classifier: character 1-4-grams inside word boundaries, logistic regression."""
    return TfidfStyleClassifier(ngram_range=(1, 4), C=4.0, analyzer="char_wb")


def own_text_style(pairs: pd.DataFrame, references: list[str], progress: Progress | None = None
                   ) -> tuple[pd.DataFrame, list[str]]:
    """The three measures per pair (NaN where a pair has no target style) and notes: where it learned, or why not."""
    empty = pd.DataFrame(index=pairs.index)
    if "source_style" not in pairs or "target_style" not in pairs:
        return empty, ["no own-text style classifier: the pairs have no style columns (give their direction)"]
    styles = sorted({str(s) for s in pd.concat([pairs["source_style"], pairs["target_style"]]).dropna()} - {""})
    if len(styles) < 2:
        return empty, ["no own-text style classifier: the pairs name one style only"]
    folds, line, missing = own_text_folds(pairs, references, styles)
    if missing:
        return empty, [f"no own-text style classifier: fewer than {MINIMUM} human-written texts of "
                       f"{', '.join(missing)} in a half of the inputs (inputs count by their source style, references "
                       "by their target style; outputs never)"]
    key = {"pairs": pairs[["source", "output", "source_style", "target_style", *references]].reset_index(drop=True),
           "classifier": classifier().get_params(), "folds": len(folds)}
    values = default_cache().memo("own-text-style", key, lambda: _scores(pairs, folds, progress),
                                  version=CACHE_VERSION)
    frame = pd.DataFrame(values, index=pairs.index, columns=list(MEASURES))
    return frame, [line.replace("the n-gram language model", "the own-text style classifier (character n-grams, "
                                "logistic regression)")]


def _scores(pairs: pd.DataFrame, folds, progress: Progress | None) -> np.ndarray:
    """(relative, probability, accuracy) per pair, each half scored by the model of the other half's texts."""
    out = np.full((len(pairs), 3), np.nan)
    targets = pairs["target_style"].astype(str).to_numpy()
    for k, fold in enumerate(folds):
        rows = np.flatnonzero(fold.scored)
        texts = [t for style in sorted(fold.training) for t in fold.training[style]]
        labels = [style for style in sorted(fold.training) for _ in fold.training[style]]
        model = classifier().fit(texts, labels)
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
    return out


__all__ = ["MEASURES", "classifier", "own_text_style"]
