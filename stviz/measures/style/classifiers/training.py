"""Training style classifiers with a held-out report, caching them, and moving them to folders.

:func:`train_style_classifier` holds out a test split, reports accuracy and a confusion matrix, and
caches the fitted estimator in the disk cache keyed by its training data and parameters;
:func:`default_classifier` is the classifier every view of a dataset uses;
:func:`save_classifier` / :func:`load_classifier` move one to and from a folder.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.cache import Cache, default_cache, fingerprint
from stviz.data.labels import GROUP, StyleTexts, labelled_texts, require_two_styles
from stviz.data.schema import DataError
from stviz.measures.style.classifiers.checks import check_training_data
from stviz.measures.style.classifiers.tfidf import TfidfStyleClassifier
from stviz.measures.style.classifiers.transformer import TransformerStyleClassifier
from stviz.progress import Progress

KINDS = ("lr", "transformer")
#: 3: the classes moved from stviz.classify (issue 41), so entries pickled before name modules that are gone.
CACHE_VERSION = 3


def reliability_warning(accuracy: float, chance: float, n_test: int, min_test: int = 20) -> str | None:
    """A warning when a held-out accuracy cannot vouch for a classifier: too few test sentences, or near chance
    (below halfway from always guessing the commonest style to perfect)."""
    if n_test < min_test:
        return (f"The style classifier was tested on only {n_test} held-out sentences: its accuracy is "
                "a rough guess, and so is everything computed from it here.")
    if accuracy < chance + 0.5 * (1 - chance):
        return (f"The style classifier is weak (held-out accuracy {accuracy:.2f}, "
                f"{chance:.2f} by always guessing one style): read its figures with care.")
    return None


@dataclass
class TrainedClassifier:
    """A fitted style classifier with its held-out accuracy and confusion matrix."""

    estimator: TfidfStyleClassifier | TransformerStyleClassifier
    accuracy: float
    confusion: pd.DataFrame
    n_train: int
    n_test: int
    source: str = ""
    notes: list[str] = field(default_factory=list)
    #: Fingerprint of the training texts and labels: two classifiers trained alike on different data differ.
    data_fingerprint: str = ""

    @property
    def kind(self) -> str:
        """'lr' or 'transformer'."""
        return self.estimator.kind

    @property
    def classes(self) -> list[str]:
        """Style names in column order of ``predict_proba``."""
        return [str(c) for c in self.estimator.classes_]

    @property
    def id(self) -> str:
        """Stable identity of this classifier (a cache key for results that depend on it)."""
        return fingerprint({"params": self.estimator.get_params(), "data": self.data_fingerprint,
                            "n_train": self.n_train})

    def predict_proba(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Style distributions from the wrapped estimator."""
        return self.estimator.predict_proba(texts, progress=progress)

    def summary(self) -> str:
        """One line for captions: kind, data, held-out accuracy."""
        label = "TF-IDF logistic regression" if self.kind == "lr" else "MiniLM + logistic head"
        if self.kind == "transformer" and getattr(self.estimator, "fine_tuned_", False):
            label += " (fine-tuned)"
        return (f"{label} trained on {self.source or 'labelled texts'} ({self.n_train:,} sentences); "
                f"held-out accuracy {self.accuracy:.3f} on {self.n_test:,} "
                f"(always guessing the commonest style: {self.chance_accuracy:.3f})")

    def reliability_warning(self, min_test: int = 20) -> str | None:
        """A warning when the held-out report cannot vouch for the classifier (tiny test set, or near chance)."""
        return reliability_warning(self.accuracy, self.chance_accuracy, self.n_test, min_test)

    @property
    def chance_accuracy(self) -> float:
        """Held-out accuracy of always predicting the commonest true style: the floor to read accuracy against."""
        counts = self.confusion.to_numpy().sum(axis=1)
        return float(counts.max() / counts.sum()) if counts.sum() else float("nan")


def make_classifier(kind: str, **params):
    """A fresh estimator of ``kind`` ('lr' or 'transformer')."""
    if kind == "lr":
        return TfidfStyleClassifier(**params)
    if kind == "transformer":
        return TransformerStyleClassifier(**params)
    raise DataError(f"unknown classifier kind '{kind}'; choose one of {', '.join(KINDS)}")


def train_style_classifier(texts: Sequence[str], labels: Sequence[str], kind: str = "lr", *,
                           test_size: float = 0.2, max_texts: int | None = None, source: str = "",
                           random_state: int = 0, cache: Cache | None = None,
                           progress: Progress | None = None, groups: Sequence[str] | None = None,
                           **params) -> TrainedClassifier:
    """Fit a style classifier on a stratified split and report held-out accuracy; cached on disk.

    ``groups`` (one per text: the input a pair-derived text belongs to) keeps each group on one side of the split."""
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split

    texts, labels = check_training_data(texts, labels)  # (keeps every row: the groups stay in step)
    if groups is not None:
        if len(groups) != len(texts):
            raise DataError(f"{len(texts)} texts but {len(groups)} groups")
        groups = [str(g) for g in groups]
    if max_texts is not None and len(texts) > max_texts:
        # A stratified sample keeps training time modest on big corpora (e.g. Yelp's 190k lines).
        rows, _ = train_test_split(range(len(texts)), train_size=max_texts, stratify=labels, random_state=random_state)
        texts, labels = [texts[i] for i in rows], [labels[i] for i in rows]
        groups = [groups[i] for i in rows] if groups is not None else None
    estimator = make_classifier(kind, **params)
    cache = cache or default_cache()
    data = fingerprint([list(texts), list(labels)])
    key = {"data": data, "params": estimator.get_params(), "test_size": test_size, "random_state": random_state}
    if groups is not None:
        key["groups"] = fingerprint(list(groups))

    def compute() -> TrainedClassifier:
        train, test = held_out_split(labels, groups, test_size, random_state)
        x_train, x_test = [texts[i] for i in train], [texts[i] for i in test]
        y_train, y_test = [labels[i] for i in train], [labels[i] for i in test]
        estimator.fit(x_train, y_train, progress=progress)
        predicted = estimator.predict(x_test)
        confusion = confusion_frame(y_test, predicted, estimator.classes_)
        return TrainedClassifier(estimator, float(accuracy_score(y_test, predicted)), confusion,
                                 len(x_train), len(x_test), source, data_fingerprint=data)

    return cache.memo("style-classifier", key, compute, version=CACHE_VERSION)


def confusion_frame(truth: Sequence[str], predicted: Sequence[str], classes) -> pd.DataFrame:
    """Counts of each true style (rows) predicted as each style (columns), in the classifier's class order."""
    from sklearn.metrics import confusion_matrix

    names = [str(c) for c in classes]
    matrix = confusion_matrix(list(truth), list(predicted), labels=list(classes)) if len(truth) else \
        np.zeros((len(names), len(names)), dtype=int)
    return pd.DataFrame(matrix, index=pd.Index(names, name="true"), columns=pd.Index(names, name="predicted"))


def held_out_split(labels: Sequence[str], groups: Sequence[str] | None, test_size: float,
                   random_state: int) -> tuple[list[int], list[int]]:
    """Rows to train on and rows to test on: stratified by style, and with ``groups`` never a group on both sides
    (scikit-learn's StratifiedGroupKFold, its first fold held out; a plain stratified split where too few groups)."""
    from sklearn.model_selection import StratifiedGroupKFold, train_test_split

    rows = list(range(len(labels)))
    folds = max(2, round(1 / test_size))
    if groups is not None and len(set(groups)) >= folds:
        splitter = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=random_state)
        train, test = next(splitter.split(rows, labels, groups))
        if len({labels[i] for i in test}) == len(set(labels)):  # every style tested
            return train.tolist(), test.tolist()
    train, test = train_test_split(rows, test_size=test_size, stratify=labels, random_state=random_state)
    return list(train), list(test)


def train_on_dataset(dataset, kind: str = "lr", *, max_texts: int | None = None, split: str | None = None,
                     exclude: Sequence[str] = (), cache: Cache | None = None,
                     progress: Progress | None = None, **params) -> TrainedClassifier:
    """Train on a Dataset's style-labelled texts (optionally one split), leaving out ``exclude`` texts."""
    frame = labelled_texts(dataset)
    if split is not None and "split" in frame:
        frame = frame[frame["split"] == split]
    if len(exclude):
        # Evaluation sentences must not be training sentences (Mir-Yelp inputs come from Yelp test).
        frame = frame[~frame["text"].isin(set(exclude))]
    require_two_styles(dataset.name, frame["style"])
    groups = frame[GROUP].tolist() if GROUP in frame else None  # texts from the pairs: an input and its references
    return train_style_classifier(frame["text"].tolist(), frame["style"].astype(str).tolist(), kind,
                                  max_texts=max_texts, source=dataset.name, cache=cache,
                                  progress=progress, groups=groups, **params)


# -- folders ---------------------------------------------------------------------------------------
def save_classifier(trained: TrainedClassifier, folder: str | Path) -> Path:
    """Write a trained classifier to ``folder`` (classifier.pkl + report.json for people)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "classifier.pkl").open("wb") as fh:
        pickle.dump(trained, fh, protocol=pickle.HIGHEST_PROTOCOL)
    report = {"kind": trained.kind, "classes": trained.classes, "accuracy": trained.accuracy,
              "n_train": trained.n_train, "n_test": trained.n_test, "source": trained.source,
              "params": trained.estimator.get_params(),
              "confusion": trained.confusion.to_dict(orient="split")}
    (folder / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    return folder


def load_classifier(folder: str | Path) -> TrainedClassifier:
    """Read a classifier written by :func:`save_classifier`; DataError if the folder holds none."""
    path = Path(folder) / "classifier.pkl"
    if not path.exists():
        raise DataError(f"no classifier in {folder} (expected classifier.pkl; train one with "
                        "'python -m stviz classify train --dataset NAME --kind lr --out DIR')")
    return load_pickled(path, TrainedClassifier, "an stviz style classifier")


#: Where the classes of a classifier or scorer saved before issue 41 were defined: the style classifiers moved from
#: ``stviz.classify`` into the style family. A file saved then names the old modules; it is read with its classes
#: from where they live now (entries of the disk cache are not read so: their versions were bumped, they are computed
#: again).
MOVED_MODULES = {f"stviz.classify.{name}": f"stviz.measures.style.classifiers.{name}"
                 for name in ("checks", "scorers", "tfidf", "training", "transformer")}


class _SavedFileUnpickler(pickle.Unpickler):
    """Finds each class of a saved file where it lives now (:data:`MOVED_MODULES`)."""

    def find_class(self, module: str, name: str):
        return super().find_class(MOVED_MODULES.get(module, module), name)


def load_pickled(path: Path, kind: type, what: str):
    """The object pickled in ``path``, refused with one clear message when it is damaged or not a ``kind``."""
    try:
        with path.open("rb") as fh:
            found = _SavedFileUnpickler(fh).load()
    except Exception as exc:  # noqa: BLE001 - a damaged or foreign file gets one clear message
        raise DataError(f"could not read {path}: {type(exc).__name__}: {exc}") from exc
    if not isinstance(found, kind):
        raise DataError(f"{path} does not hold {what}")
    return found


#: Training sample sizes that keep training modest on 2 CPU cores (LR: seconds; MiniLM head: minutes,
#: the embeddings are cached).
DEFAULT_MAX_TEXTS = {"lr": 40_000, "transformer": 8_000}


def default_classifier(dataset, kind: str = "lr", *, cache: Cache | None = None, progress: Progress | None = None,
                       style_texts: StyleTexts | None = None) -> TrainedClassifier:
    """The (cached) classifier for a dataset: trained on its companion corpus or its own style texts.

    Sentences that occur as sources or outputs of the dataset's pairs are left out of training.
    ``style_texts`` is the run's resolution of those texts (resolved here when not given).
    """
    texts = style_texts or StyleTexts.resolve(dataset)
    return train_on_dataset(texts.corpus, kind, max_texts=DEFAULT_MAX_TEXTS.get(kind),
                            exclude=texts.classifier_exclude(), cache=cache, progress=progress)
