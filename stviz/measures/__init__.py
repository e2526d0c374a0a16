"""Measures by axis: one family per aspect of style transfer a person rates, each measure with its card.

* :mod:`stviz.measures.style`: how much of the target style an output carries: the style classifiers
  (:mod:`stviz.measures.style.classifiers`) and their target-style probability, accuracy and intensity (toward the
  target), style scorers learned from ratings, a public formality regressor (PT16), the rule that turns a measure of
  one pole (P(formal), a formality score) toward each pair's target (:mod:`stviz.measures.style.poles`), and where
  the style sits in a text: token attributions and style lexicons;
* :mod:`stviz.measures.content`: how much meaning is kept: the content metrics of the metric registry
  (:mod:`stviz.metrics`) and a dataset's own precomputed columns;
* :mod:`stviz.measures.fluency`: how natural the output reads: perplexity under a language model
  (:mod:`stviz.measures.fluency.language_models`: an n-gram model trained on human-written texts of the target
  style, a causal or a masked LM), and adversarial naturalness;
* :mod:`stviz.measures.overall`: joint scores of style and content per output (G2, H2, p(target) x cosine);
  :mod:`stviz.measures.tradeoffs`: intensity against content and naturalness per system (Mir et al. 2019).

A card (:class:`~stviz.measures.cards.MeasureCard`) says what a measure measures (its axis) and which way it points
(its orientation: higher / lower is better, toward the target, or one pole of a style). A new measure of an axis
is one module of its family that registers its card.

Imports run one way: the families' modules compute with :mod:`stviz.metrics`, :mod:`stviz.embedders`,
:mod:`stviz.models` and :mod:`stviz.data`, and none of those imports anything of ``stviz.measures``. This package
imports every family's ``__init__`` at once, and those import only :mod:`stviz.measures.cards`, so that importing any
measure (``stviz.measures.fluency.language_models`` too) registers every card and loads nothing else.
"""

from __future__ import annotations

from stviz.measures import content, fluency, overall, style  # noqa: F401 - each family registers its cards
from stviz.measures.cards import AXES, HIGHER, LOWER, POLE, TARGET, MeasureCard, Orientation, registered


def measure_card(name: str) -> MeasureCard:
    """The card of a measure: a family's own, else one built from the metric registry (content metrics,
    precomputed columns with the axis and orientation their names say, ``llm:`` judges)."""
    return registered(name) or content.registry_card(name)


__all__ = ["AXES", "HIGHER", "LOWER", "MeasureCard", "Orientation", "POLE", "TARGET", "measure_card"]
