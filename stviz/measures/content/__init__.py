"""The content family: how much of the input's meaning an output keeps.

Its measures are the metric registry's (:mod:`stviz.metrics`: n-gram overlap, embedding cosines, WMD, BERTScore,
named entities, learned metrics, LLM judges) and a dataset's own precomputed columns; each registry card already
says its direction. :func:`registry_card` turns such a card into a measure card, with the axis a precomputed
column's name says (a ``formality_*`` column is a style measure, ``gpt2_ppl`` a fluency one) and, for style
columns, the orientation the name says (:mod:`stviz.measures.style.poles`).
"""

from __future__ import annotations

from stviz.data.meanings import measure_axis
from stviz.data.schema import METRIC_PREFIX
from stviz.measures.cards import HIGHER, LOWER, MeasureCard, Orientation


def column_axis(name: str) -> str:
    """The axis of a precomputed column by its name (a style measure also when it names one pole, 'positive'), or ''
    when the name says none: such a column is compared with every aspect (:mod:`stviz.data.meanings`)."""
    return measure_axis(name) or ""


def registry_card(name: str) -> MeasureCard:
    """A measure card for a metric of the registry, a precomputed column or an ``llm:`` judge."""
    from stviz.metrics import get_card
    from stviz.measures.style.poles import orientation_from_name

    card = get_card(name)
    orientation = Orientation(HIGHER if card.higher_is_better else LOWER)
    if name.startswith("llm:"):
        from stviz.metrics.llm import parse_spec

        axis = parse_spec(name)[1]
    elif name.startswith(METRIC_PREFIX):
        axis = column_axis(name)
        if axis == "style" and card.higher_is_better:
            orientation = orientation_from_name(name) or orientation
    else:
        axis = "content"  # the registry's own metrics compare the output with its source
    return MeasureCard(name, card.label, axis, orientation, card.description)


__all__ = ["column_axis", "registry_card"]
