"""A style scorer named by the user (``--style-scorer SPEC``) applied to texts, and to the outputs of pairs.

A spec names a saved regressor (:mod:`stviz.measures.style.saved`: a name, a folder, or ``pt16-formality``, the
public formality regressor) or a classifier's probability of one class (``FOLDER:CLASS``, ``learn:DATASET:CLASS``,
``hf:MODEL:LABEL``; :func:`stviz.measures.style.classifiers.scorers.classifier_scorer`). Either measures one pole of
a style: the regressor its rating's, the classifier its class. On pairs the values are turned toward each pair's target
(:mod:`stviz.measures.style.poles`) before they meet a rating or a leaderboard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.data.schema import DataError
from stviz.measures.cards import POLE, Orientation
from stviz.measures.style.formality import PT16_SCORER, formality_scorer, serves
from stviz.measures.style.orient import SCORER_PREFIX
from stviz.measures.style.poles import turn_toward_target
from stviz.measures.style.saved import load_scorer, scorer_folder


@dataclass
class ScoredTexts:
    """A scorer's value for every text, what it is called, and the style its high values mean."""

    name: str  # the measure's name: scorer:SPEC
    label: str
    values: np.ndarray
    pole: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def orientation(self) -> Orientation | None:
        """A pole measure's orientation (None when the pole is unknown)."""
        return Orientation(POLE, self.pole) if self.pole else None


def score_texts(spec: str, texts: Sequence[str], hint: str = "") -> ScoredTexts:
    """The scorer ``spec``'s value for each text (see the module docstring); ``hint`` names the rating, from which a
    classifier's class is guessed when the spec names none."""
    texts = [str(t) for t in texts]
    if spec == PT16_SCORER and scorer_folder(spec) is None:
        scorer = formality_scorer()
    elif scorer_folder(spec) is not None or (":" not in spec and not Path(spec).expanduser().exists()):
        scorer = load_scorer(spec)  # a saved scorer's name (a name that is none says which are saved)
    else:
        from stviz.measures.style.classifiers.scorers import classifier_scorer

        held = classifier_scorer(spec, texts, hint=hint)
        found = re.match(r"^p\((.+?)\)", held.label)  # the class whose probability it is: the pole it measures
        return ScoredTexts(held.name, held.label, held.values, found.group(1) if found else "")
    notes = [f"{scorer.name} scored the very sentences it learned from: its agreement here is not a test (its "
             f"{scorer.held_out_text()})"] if scorer.is_own_set(texts) else []
    return ScoredTexts(SCORER_PREFIX + spec, scorer.label, scorer.predict(texts), scorer.pole, notes)


def pair_scorers(pairs: pd.DataFrame, specs: Sequence[str]) -> tuple[list[str], list[str]]:
    """The scorers for a set's pairs: those named, and the public formality regressor when the target styles are
    formal / informal; and notes on a default that could not be used."""
    chosen, notes = list(dict.fromkeys(specs)), []
    if "target_style" in pairs and serves(pairs["target_style"].dropna()) and PT16_SCORER not in chosen:
        try:
            formality_scorer()
            chosen.append(PT16_SCORER)
        except DataError as exc:
            notes.append(str(exc))
    return chosen, notes


def score_outputs(pairs: pd.DataFrame, spec: str) -> ScoredTexts:
    """A scorer's values for the pairs' outputs, turned toward each pair's target (its label says how)."""
    scored = score_texts(spec, pairs["output"].astype(str).tolist())
    if "target_style" not in pairs:
        raise DataError(f"style scorer {spec}: the pairs have no target style, so its {scored.pole or 'scores'} "
                        "cannot be turned toward each pair's target (give --direction)")
    if not scored.pole:
        raise DataError(f"style scorer {spec}: which style do its high scores mean? Retrain it with --pole STYLE")
    targets = pairs["target_style"].astype(str).tolist()
    values, rule = turn_toward_target(scored.values, targets, scored.pole)
    others = sorted({t for t in targets if t.strip().lower() != scored.pole.lower()})
    how = f", {rule} for {', '.join(others)} targets" if others else ""
    scored.notes.append(f"{spec} measures {scored.pole} (higher = more {scored.pole}), turned toward each pair's "
                        f"target: as it is for {scored.pole} targets{how}")
    scored.label += f" [{scored.pole} pole, toward target]" if others else f" [{scored.pole} pole]"
    scored.values = values
    return scored


def leaderboard_style_score(pairs: pd.DataFrame, spec: str, notes: list[str]) -> np.ndarray:
    """The Leaderboard's style scorer per output, turned toward each pair's target (NaN, said, when none applies):
    ``spec`` a scorer, ``auto`` (the PT16 formality regressor for formal / informal targets) or ``none``."""
    missing = np.full(len(pairs), np.nan)
    if spec == "none":
        return missing
    chosen, unavailable = pair_scorers(pairs, [] if spec == "auto" else [spec])
    if not chosen:  # said, so a chosen column that is not there has its reason where the user looks
        notes.extend(unavailable or ["style scorer not computed: none applies to these targets (the built-in one, "
                                     f"{PT16_SCORER}, rates formal / informal targets); name one with --style-scorer"])
        return missing
    try:
        scored = score_outputs(pairs, chosen[0])
    except DataError as exc:
        notes.append(f"style scorer not computed: {exc}")
        return missing
    notes.extend([f"style scorer: {scored.label}"] + scored.notes)
    return scored.values


__all__ = ["ScoredTexts", "leaderboard_style_score", "pair_scorers", "score_outputs", "score_texts"]
