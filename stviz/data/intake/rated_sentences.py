"""Sentences rated by people for style, without pairs: a text column, a human style score (formality 1-7, a
sentiment strength, a toxicity rating), optionally a style label. Such a set asks "which style scorer agrees with
human ratings?", and a regressor can learn from it (:mod:`stviz.measures.style.classifiers.scorers`).

A file is read as rated sentences when its mapping has a text (mapped as *source*), no *output* and at least one
human score or rater group; the same reading rules as pairs apply (conversions and dropped rows said), then the
sentences become the dataset's ``texts`` with their ``human:`` columns.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from stviz.data.intake.mapping import ColumnMapping
from stviz.data.schema import HUMAN_PREFIX, Dataset

#: The style of a rated sentence whose file has no style label column.
UNLABELLED = "rated"
_TEXT_COPY = "__stviz_text__"


def is_rated_sentences(mapping: ColumnMapping) -> bool:
    """Whether a mapping describes rated sentences: a text (as source), no output, and human scores or raters."""
    return bool(mapping.roles.get("source")) and not mapping.roles.get("output") and bool(mapping.human or
                                                                                       mapping.raters)


def sentence_ratings(dataset: Dataset) -> list[str]:
    """The numeric human-score columns of a dataset's sentences (``human:`` columns of ``texts``)."""
    texts = dataset.texts
    if texts is None:
        return []
    return [c for c in texts.columns if str(c).startswith(HUMAN_PREFIX) and pd.api.types.is_numeric_dtype(texts[c])]


def rated_sentences(frame: pd.DataFrame, mapping: ColumnMapping, build, name: str, title: str | None) -> Dataset:
    """The rated sentences of ``frame``: read through ``build`` (the pair builder, every rule and note kept) with
    the text standing in as its own output, then kept as ``texts`` (text, style, human and rater columns)."""
    frame = frame.assign(**{_TEXT_COPY: frame[mapping.roles["source"]]})
    roles = dict(mapping.roles, output=_TEXT_COPY)
    as_pairs = build(frame, dataclasses.replace(mapping, roles=roles), name=name, title=title)
    pairs = as_pairs.pairs
    texts = pd.DataFrame({"text": pairs["source"],
                          "style": pairs["source_style"] if "source_style" in pairs else UNLABELLED})
    for column in pairs.columns:
        if str(column).startswith(("human:", "metric:", "rater:")):
            texts[column] = pairs[column]
    # The text stands in as its own output: notes about that copy say nothing new, and an empty text is a row
    # without a text.
    notes = [n.replace("an empty source or output", "no text") for n in as_pairs.notes if _TEXT_COPY not in n]
    notes.append(f"Read as {len(texts):,} rated sentences (a text and its human scores, no output column): "
                 "Meta-evaluation compares style scorers with the ratings.")
    return dataclasses.replace(as_pairs, pairs=None, texts=texts.reset_index(drop=True), notes=notes)


__all__ = ["UNLABELLED", "is_rated_sentences", "rated_sentences", "sentence_ratings"]
