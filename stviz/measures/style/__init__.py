"""The style family: how much of the target style an output carries, and which way each style measure points.

* toward the target: the style classifier's target-style probability and accuracy, and style transfer intensity
  (direction-corrected EMD, Mir et al. 2019), computed by :mod:`stviz.measures.style.intensity` from the style
  distributions of a classifier of :mod:`stviz.measures.style.classifiers` (TF-IDF logistic regression, MiniLM +
  logistic head); and in any language, a classifier learned from the set's own human texts
  (:mod:`stviz.measures.style.own_text`);
* one pole of a style: a dataset's precomputed columns (P(formal), a formality or toxicity score), style scorers
  learned from ratings (:mod:`stviz.measures.style.saved`: saved, named and reusable) and the public formality
  regressor trained on PT16 (:mod:`stviz.measures.style.formality`); each is turned toward each pair's target
  before it meets a rating (:mod:`stviz.measures.style.poles`).

Where the style sits in a text: token attributions from the classifier and style masking
(:mod:`stviz.measures.style.attribution`, Integrated Gradients), and style lexicons
(:mod:`stviz.measures.style.lexicon`, a logistic regression's largest weights, Mir et al. 2019).
"""

from __future__ import annotations

from stviz.measures.cards import TARGET, MeasureCard, Orientation, register

register(
    MeasureCard("target_style_probability", "target-style probability", "style", Orientation(TARGET),
                "the style classifier's probability of the pair's target style for the output"),
    MeasureCard("target_style_accuracy", "target-style accuracy", "style", Orientation(TARGET),
                "1 when the style classifier's likeliest style for the output is the target style, else 0"),
    MeasureCard("direction_corrected_emd", "style transfer intensity (EMD)", "style", Orientation(TARGET),
                "Earth Mover's Distance between the input's and the output's style distributions, signed by "
                "whether the output moved toward the target (Mir et al. 2019)"),
    # The classifier learned from a set's own human texts, in any language (stviz.measures.style.own_text).
    MeasureCard("own_style_relative", "own-text style classifier: P(target) gain", "style", Orientation(TARGET),
                "P(target style | output) - P(target style | input), by character n-gram logistic regression learned "
                "from the set's own inputs and references, cross-fitted"),
    MeasureCard("own_style_probability", "own-text style classifier: P(target)", "style", Orientation(TARGET),
                "P(target style | output) by the classifier learned from the set's own human texts"),
    MeasureCard("own_style_accuracy", "own-text style classifier: accuracy", "style", Orientation(TARGET),
                "1 when the classifier learned from the set's own human texts finds the target style likeliest"),
    # The same on the sentence vectors of the language's multilingual encoder (USE for Russian, multilingual-e5 ...).
    MeasureCard("own_vector_style_relative", "own-text style classifier on vectors: P(target) gain", "style",
                Orientation(TARGET), "P(target style | output) - P(target style | input), by logistic regression on the "
                "language's multilingual sentence vectors learned from the set's own inputs and references, "
                "cross-fitted"),
    MeasureCard("own_vector_style_probability", "own-text style classifier on vectors: P(target)", "style",
                Orientation(TARGET), "P(target style | output) by the vector classifier learned from the set's own "
                "human texts"),
    MeasureCard("own_vector_style_accuracy", "own-text style classifier on vectors: accuracy", "style",
                Orientation(TARGET), "1 when the vector classifier learned from the set's own human texts finds the "
                "target style likeliest"),
)
