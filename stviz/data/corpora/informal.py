"""InFormal (Krishna, Nathani, Garcia, Samanta, Talukdar, ACL 2022): formality transfer in Hindi, Bengali, Telugu and
Kannada, judged by three crowd workers per pair, read as released (``{hi,bn,te,kn}_annotations.jsonl``).

Which candidate is the source? The files say ``candidate_0`` and ``candidate_1`` only. The release's README says how
they were made: source sentences were taken from Samanantar, then "style transferred ... using our style transfer
model with best output diversity (UR-INDIC + BT in paper)", and workers chose the more formal of the pair and rated
how similar they are. ``candidate_0`` is read as the source (the Samanantar sentence) and ``candidate_1`` as the
output, as the README lists them. The direction is not fixed: workers found the output more formal in 1,220 votes of
Hindi's 3,000 and the input in 1,360 (the model was asked for diversity, not one pole), so the formality votes are a
**relative** style rating, not a rating of a target reached:

* ``similarity_1..3``: each worker's similarity (Approximately Same Meaning 1, Slight Difference 0.5, Different
  Meaning 0, the README's numbers), kept as raters (Krippendorff's alpha, interval) and averaged into the content
  rating ``similarity_mean``; similarity is symmetric, so the reading of which candidate is the source does not
  change it;
* ``formality_gain``: per pair the mean of +1 (the output judged more formal), -1 (the input) and 0 (equal): how far
  the output moved toward formal, a style rating of one candidate against the other (aspect style);
* ``labse``: the authors' LaBSE cosine of the two candidates, a published content measure.

Each pair's language is its file's (a ``language`` column), so every view compares one language at a time and
Meta-evaluation gives one table per language.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from stviz.data.schema import HUMAN_PREFIX, METRIC_PREFIX, RATER_PREFIX, DataError, Dataset

CORPUS = "informal"
LANGUAGES = ("hi", "bn", "te", "kn")
#: The similarity labels as the release's README scores them.
SIMILARITY = {"Approximately Same Meaning": 1.0, "Slight Difference in Meaning": 0.5, "Different Meaning": 0.0}
#: A formality vote as a step toward formal for the output: more formal, equal, or the input more formal.
FORMALITY = {"candidate_1": 1.0, "Equal": 0.0, "candidate_0": -1.0}
RATERS = 3
TITLE = "InFormal: formality transfer in Hindi, Bengali, Telugu, Kannada (4,041 pairs, 3 raters, LaBSE)"


def load_informal(folder: Path) -> Dataset:
    """The four languages' pairs with their raters, the two human ratings and the authors' LaBSE cosine."""
    frames = [_language(folder / f"{code}_annotations.jsonl", code) for code in LANGUAGES]
    pairs = pd.concat(frames, ignore_index=True)
    ds = Dataset(name=CORPUS, title=TITLE, pairs=pairs, human_direction={HUMAN_PREFIX + "similarity_mean": True,
                                                                        HUMAN_PREFIX + "formality_gain": True},
                 description=("Krishna et al. (ACL 2022). Pairs of a Samanantar sentence (read as the source) and "
                              "its transfer by UR-INDIC + BT, judged by three workers for similarity (1 / 0.5 / 0) "
                              "and for which is more formal (a relative style rating); LaBSE is the authors'."))
    counts = ", ".join(f"{code} {n:,}" for code, n in pairs["language"].value_counts().reindex(LANGUAGES).items())
    ds.notes = [f"{len(pairs):,} pairs ({counts}); candidate_0 is read as the source, candidate_1 as the output (the "
                "README's order; similarity does not depend on it)",
                f"similarity of {RATERS} workers per pair, their mean the content rating 'similarity_mean'; "
                f"Krippendorff's alpha (interval) per language: {_alphas(pairs)}",
                "'formality_gain': the mean of +1 (output judged more formal), 0 (equal), -1 (input more formal): a "
                "relative style rating with no target style"]
    return ds


def _alphas(pairs: pd.DataFrame) -> str:
    """Each language's Krippendorff's alpha of the similarity workers (its own workers: never pooled)."""
    from stviz.data.schema import krippendorff_alpha

    raters = [f"{RATER_PREFIX}similarity_{k + 1}" for k in range(RATERS)]
    return ", ".join(f"{code} {krippendorff_alpha(part[raters].to_numpy(float).T):.3f}"
                     for code, part in pairs.groupby("language", sort=False))


def _language(path: Path, code: str) -> pd.DataFrame:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not rows:
        raise DataError(f"{path.name} holds no pairs: import the corpus again")
    return release_pairs(rows, code)


def release_pairs(rows: list[dict], code: str | None) -> pd.DataFrame:
    """One release file's records as pairs: raters, the two human ratings and LaBSE (a user's copy of the file too,
    :mod:`stviz.data.corpora.releases`)."""
    frame = pd.DataFrame({"source": [r["candidate_0"] for r in rows], "output": [r["candidate_1"] for r in rows],
                          "system": "UR-INDIC + BT", "language": code})
    for k in range(RATERS):
        frame[f"{RATER_PREFIX}similarity_{k + 1}"] = [_vote(r, k, "semantic_similarity", SIMILARITY) for r in rows]
    frame[HUMAN_PREFIX + "similarity_mean"] = frame[[f"{RATER_PREFIX}similarity_{k + 1}" for k in range(RATERS)]].mean(
        axis=1)
    frame[HUMAN_PREFIX + "formality_gain"] = [np.nanmean([_vote(r, k, "formal_sent", FORMALITY) for k in range(RATERS)])
                                              for r in rows]
    if all("labse" in r for r in rows):
        frame[METRIC_PREFIX + "labse"] = [float(r["labse"]) for r in rows]
    return frame


def _vote(row: dict, k: int, field: str, scale: dict) -> float:
    """One worker's label as a number (NaN when the worker gave none)."""
    annotations = row.get("annotations") or []
    return scale.get(annotations[k].get(field), np.nan) if k < len(annotations) else np.nan


__all__ = ["CORPUS", "LANGUAGES", "TITLE", "load_informal", "release_pairs"]
