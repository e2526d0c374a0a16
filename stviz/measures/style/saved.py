"""Style scorers learned from human ratings: trained once, saved under a name, reused anywhere.

"Does a scorer trained on these ratings generalise?" needs a scorer that outlives the set it learned from. A
:class:`SavedScorer` is a ridge regressor (:class:`stviz.measures.style.classifiers.scorers.StyleRegressor`: TF-IDF
n-grams or MiniLM vectors) fitted on every rated sentence of one set, with the error it made on that set's held-out
folds (k-fold, Briakou et al. 2021's recommended formality regressor, here without a transformer). Saved as
``$STVIZ_HOME/scorers/NAME`` (or a folder), it scores another set's sentences (its agreement there is the answer),
the outputs of pairs in a meta-evaluation, and a leaderboard's outputs; each time it is turned toward each pair's
target, as a measure of one pole (the style its high scores mean).

    python -m stviz classify train --ratings pt16-train --name pt16-tfidf
    python -m stviz meta-eval --datasets pt16-test --style-scorer pt16-tfidf
"""

from __future__ import annotations

import json
import pickle
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from stviz.cache import default_cache, fingerprint, stviz_home
from stviz.data.schema import DataError, Dataset, short_name
from stviz.measures.style.classifiers.scorers import REGRESSORS, StyleRegressor, cross_validated
from stviz.measures.style.classifiers.training import load_pickled
from stviz.measures.style.poles import orientation_from_name

SCORER_FILE, REPORT_FILE = "scorer.pkl", "report.json"
#: Each regressor's method as a table's label says it.
METHODS = {"ridge-tfidf": "TF-IDF ridge", "ridge-minilm": "MiniLM ridge"}
#: Bump when a saved scorer's training or its report changes. 2: StyleRegressor moved from stviz.classify.scorers
#: (issue 41), so entries pickled before name a module that is gone.
CACHE_VERSION = 2
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def scorers_dir() -> Path:
    """Where named scorers are saved (``$STVIZ_HOME/scorers``)."""
    return stviz_home() / "scorers"


@dataclass
class SavedScorer:
    """A style regressor fitted on one set's ratings, with its held-out error there and what its scores mean."""

    name: str
    kind: str
    model: StyleRegressor
    trained_on: str  # the set's name
    rating: str  # the rating's short name
    pole: str  # the style its high scores mean ('' when unknown: say it with --pole)
    n_train: int
    held_out: dict = field(default_factory=dict)  # mae, spearman, pearson, folds (on its own set)
    texts_fingerprint: str = ""  # of the training sentences: a set scored on them is its own set

    @property
    def label(self) -> str:
        """The scorer as tables name it: name, method, training set and held-out error on it."""
        h = self.held_out
        return (f"{self.name} ({METHODS[self.kind]} on {self.trained_on} '{self.rating}'; held-out MAE {h['mae']:.2f}, "
                f"ρ {h['spearman']:.2f})")

    def held_out_text(self) -> str:
        """'held-out MAE 0.71, Spearman 0.62 on its own set (5 folds)'."""
        h = self.held_out
        return (f"held-out MAE {h['mae']:.2f}, Spearman {h['spearman']:.2f} on its own set ({h['folds']} folds, "
                f"{self.n_train:,} sentences)")

    def summary(self) -> str:
        """One line for the command and the page: what was learned, how well, what it measures, where it is."""
        pole = f"higher = more {self.pole}" if self.pole else "its pole unknown: say it with --pole STYLE"
        return (f"style scorer {self.name}: {REGRESSORS[self.kind]}, trained on {self.trained_on} '{self.rating}'; "
                f"{self.held_out_text()}; {pole}")

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """The predicted rating of each text."""
        return self.model.predict([str(t) for t in texts])

    def is_own_set(self, texts: Sequence[str]) -> bool:
        """Whether ``texts`` are the very sentences it learned from (its agreement there is not a test)."""
        return fingerprint(sorted(map(str, texts))) == self.texts_fingerprint

    def report(self) -> dict:
        """What ``report.json`` holds, for people."""
        return {"name": self.name, "kind": self.kind, "method": REGRESSORS[self.kind], "trained_on": self.trained_on,
                "rating": self.rating, "pole": self.pole, "n_train": self.n_train, "held_out": self.held_out}


def _rating_column(dataset: Dataset, rating: str | None) -> str:
    """The human rating a scorer learns: the one named, else the set's only one."""
    from stviz.data.intake.rated_sentences import sentence_ratings

    ratings = sentence_ratings(dataset)
    if not ratings:
        raise DataError(f"{dataset.name} has no rated sentences (a text column and a numeric rating, no output "
                        "column), so no scorer can learn from it")
    if rating is None:
        if len(ratings) > 1:
            raise DataError(f"{dataset.name} has {len(ratings)} ratings ({', '.join(map(short_name, ratings))}); "
                            "choose one (--rating COLUMN)")
        return ratings[0]
    chosen = [c for c in ratings if short_name(c) == short_name(rating)]
    if not chosen:
        raise DataError(f"{dataset.name} has no rating '{rating}'; its ratings: {', '.join(map(short_name, ratings))}")
    return chosen[0]


def rating_pole(dataset: Dataset, rating: str) -> str:
    """The style a rating's high values mean, from its name, else the set's title ('PT16 formality ...' -> formal)."""
    for text in (rating, dataset.title or "", dataset.name):
        found = orientation_from_name(text)
        if found is not None and found.pole:
            return found.pole
    return ""


def train_scorer(dataset: Dataset, name: str, kind: str = "ridge-tfidf", rating: str | None = None,
                 pole: str | None = None, seed: int = 0) -> SavedScorer:
    """Learn a rating from a set's rated sentences: the held-out error from k folds, then the model on them all
    (cached on disk by the sentences, ratings and parameters)."""
    from scipy.stats import pearsonr, spearmanr

    if not _NAME.match(name):
        raise DataError(f"scorer name '{name}': use letters, digits, '.', '_' or '-' (at most 64), e.g. pt16-tfidf")
    if kind not in REGRESSORS:
        raise DataError(f"unknown scorer kind '{kind}'; choose one of {', '.join(REGRESSORS)}")
    column = _rating_column(dataset, rating)
    rows = dataset.texts[np.isfinite(dataset.texts[column].to_numpy(float))]
    texts, scores = rows["text"].astype(str).tolist(), rows[column].to_numpy(float)
    key = {"texts": texts, "scores": scores.tolist(), "kind": kind, "seed": seed}

    def compute() -> tuple[StyleRegressor, dict]:
        held = cross_validated(texts, scores, kind, seed=seed)
        errors = {"mae": held.mae, "spearman": float(spearmanr(held.values, scores)[0]),
                  "pearson": float(pearsonr(held.values, scores)[0]), "folds": held.folds}
        return StyleRegressor(kind).fit(texts, scores), errors

    model, held_out = default_cache().memo("style-scorer", key, compute, version=CACHE_VERSION)
    if not np.isfinite(held_out["spearman"]):
        raise DataError(f"the scorer learned nothing from '{short_name(column)}': its held-out scores do not vary, so "
                        "it cannot rank sentences; it was not saved")
    chosen_pole = pole if pole is not None else rating_pole(dataset, column)
    return SavedScorer(name, kind, model, dataset.name, short_name(column), chosen_pole, len(texts), held_out,
                       fingerprint(sorted(texts)))


def save_scorer(scorer: SavedScorer, folder: str | Path | None = None) -> Path:
    """Write a scorer to ``folder`` (default: ``$STVIZ_HOME/scorers/NAME``): scorer.pkl and report.json."""
    folder = Path(folder) if folder else scorers_dir() / scorer.name
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / SCORER_FILE).open("wb") as fh:
        pickle.dump(scorer, fh, protocol=pickle.HIGHEST_PROTOCOL)
    (folder / REPORT_FILE).write_text(json.dumps(scorer.report(), indent=2), encoding="utf-8")
    return folder


def scorer_folder(spec: str) -> Path | None:
    """The folder of a saved scorer named ``spec`` (a name, or a folder holding scorer.pkl); None if there is none."""
    for folder in ((scorers_dir() / spec) if _NAME.match(spec) else None, Path(spec).expanduser()):
        if folder is not None and (folder / SCORER_FILE).is_file():
            return folder
    return None


def load_scorer(spec: str) -> SavedScorer:
    """A saved scorer by name or folder; DataError naming the saved ones when there is none."""
    folder = scorer_folder(spec)
    if folder is None and not _NAME.match(spec) and not Path(spec).expanduser().exists():
        raise DataError(f"no such file or folder: '{spec}' (a style scorer: a saved name, or the folder of one)")
    if folder is None:
        raise DataError(f"no saved style scorer '{spec}' (saved: {', '.join(saved_scorers()) or 'none'}); train one "
                        "with 'python -m stviz classify train --ratings FILE --name NAME'")
    return load_pickled(folder / SCORER_FILE, SavedScorer, "an stviz style scorer")


def saved_scorers() -> list[str]:
    """The names of the scorers saved in ``$STVIZ_HOME/scorers``."""
    root = scorers_dir()
    return sorted(p.name for p in root.iterdir() if (p / SCORER_FILE).is_file()) if root.is_dir() else []


__all__ = ["SavedScorer", "load_scorer", "rating_pole", "save_scorer", "saved_scorers", "scorer_folder",
           "scorers_dir", "train_scorer"]
