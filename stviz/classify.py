"""Style classifiers: the estimators behind style transfer intensity, style masking and lexicons.

Two kinds, both scikit-learn style (``fit`` / ``predict_proba`` / ``predict``, parameters only in
``__init__``, learned attributes ending in ``_``):

* :class:`TfidfStyleClassifier` - logistic regression on TF-IDF word n-grams, as Mir et al.
  (NAACL 2019) used for their style lexicon; its largest absolute weights are the lexicon
  (:func:`learn_style_lexicon`).
* :class:`TransformerStyleClassifier` - a logistic head over the shipped MiniLM's mean-pooled,
  unit-normalised sentence vectors. The encoder stays frozen on CPU (the vectors then come from
  the shared embedding cache); with a GPU it is fine-tuned together with the head. Either way
  :meth:`TransformerStyleClassifier.torch_model` gives the differentiable encoder + head that
  token attributions (:mod:`stviz.attribute`) need.

:func:`train_style_classifier` holds out a test split, reports accuracy and a confusion matrix,
and caches the fitted estimator in the disk cache keyed by data and parameters;
:func:`save_classifier` / :func:`load_classifier` move one to and from a folder.
"""

from __future__ import annotations

import functools
import json
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from stviz.cache import Cache, default_cache
from stviz.data.schema import DataError

Progress = Callable[[int, int], None]
KINDS = ("lr", "transformer")


# -- TF-IDF logistic regression -----------------------------------------------------------------
class TfidfStyleClassifier:
    """Logistic regression on TF-IDF word n-grams (Mir et al. 2019, style lexicon classifier)."""

    kind = "lr"

    def __init__(self, ngram_range: tuple[int, int] = (1, 2), C: float = 4.0, min_df: int = 2,
                 max_features: int | None = 300_000, random_state: int = 0):
        self.ngram_range = tuple(ngram_range)
        self.C = C
        self.min_df = min_df
        self.max_features = max_features
        self.random_state = random_state

    def get_params(self) -> dict:
        """Constructor parameters (a natural cache key)."""
        return {"kind": self.kind, "ngram_range": list(self.ngram_range), "C": self.C,
                "min_df": self.min_df, "max_features": self.max_features, "random_state": self.random_state}

    def fit(self, texts: Sequence[str], labels: Sequence[str], progress: Progress | None = None):
        """Fit the vectoriser and the logistic regression; returns self."""
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        texts, labels = _check_training_data(texts, labels)
        # min_df=2 drops one-off typos that would otherwise top the lexicon; tiny data keeps all.
        min_df = self.min_df if len(texts) >= 50 else 1
        self.vectorizer_ = TfidfVectorizer(ngram_range=self.ngram_range, min_df=min_df,
                                           max_features=self.max_features, sublinear_tf=True,
                                           token_pattern=r"(?u)\b\w[\w']*\b")
        features = self.vectorizer_.fit_transform(texts)
        self.model_ = LogisticRegression(C=self.C, max_iter=2000, random_state=self.random_state)
        self.model_.fit(features, labels)
        self.classes_ = np.array(self.model_.classes_)
        if progress:
            progress(1, 1)
        return self

    def predict_proba(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Style distribution per text, columns in the order of ``classes_``."""
        probs = self.model_.predict_proba(self.vectorizer_.transform([str(t) for t in texts]))
        if progress:
            progress(len(texts), len(texts))
        return probs

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Most probable style per text."""
        return self.classes_[self.predict_proba(texts).argmax(1)]

    def feature_weights(self) -> pd.DataFrame:
        """One row per n-gram: its weight per style (binary: one 'weight' column toward classes_[1])."""
        names = self.vectorizer_.get_feature_names_out()
        coef = self.model_.coef_
        if coef.shape[0] == 1:
            return pd.DataFrame({"weight": coef[0]}, index=names)
        return pd.DataFrame(coef.T, index=names, columns=[str(c) for c in self.classes_])


def learn_style_lexicon(texts: Sequence[str], labels: Sequence[str], top_k: int = 500,
                        ngram_range: tuple[int, int] = (1, 1), C: float = 4.0,
                        cache: Cache | None = None) -> dict[str, float]:
    """Style lexicon: the ``top_k`` words with the largest absolute logistic-regression weights (Mir et al. 2019).

    Weights are signed toward the second class for two styles; for more styles each word gets
    its largest-magnitude weight over the styles. A small ``top_k`` favours precision over
    recall, as Mir et al. recommend for style removal.
    """
    if top_k < 1:
        raise DataError(f"top_k must be at least 1, got {top_k}")
    texts, labels = _check_training_data(texts, labels)
    cache = cache or default_cache()
    params = {"texts": texts, "labels": labels, "top_k": int(top_k),
              "ngram_range": list(ngram_range), "C": C, "v": 1}

    def compute() -> dict[str, float]:
        clf = TfidfStyleClassifier(ngram_range=ngram_range, C=C).fit(texts, labels)
        weights = clf.feature_weights()
        values = weights.to_numpy()
        idx = np.abs(values).argmax(1)
        signed = values[np.arange(len(values)), idx]
        order = np.argsort(-np.abs(signed), kind="stable")[:top_k]
        return {str(weights.index[i]): float(signed[i]) for i in order}

    return cache.memo("style-lexicon", params, compute)


#: Words in a learned style lexicon unless asked otherwise.
DEFAULT_LEXICON_SIZE = 500


def lexicon_from_dataset(dataset, top_k: int = DEFAULT_LEXICON_SIZE, max_texts: int = 20_000,
                         cache: Cache | None = None) -> dict[str, float]:
    """Style lexicon learned from a dataset's style-labelled texts (Mir et al. 2019), on at most
    ``max_texts`` of them (a stratified sample: Yelp sentiment has 190,000 lines)."""
    from sklearn.model_selection import train_test_split

    frame = labelled_texts(dataset)
    texts, labels = frame["text"].astype(str).tolist(), frame["style"].astype(str).tolist()
    if len(texts) > max_texts:
        texts, _, labels, _ = train_test_split(texts, labels, train_size=max_texts, stratify=labels, random_state=0)
    return learn_style_lexicon(texts, labels, top_k=top_k, cache=cache)


# -- MiniLM + logistic head ---------------------------------------------------------------------
class TransformerStyleClassifier:
    """A logistic head over MiniLM mean-pooled unit vectors; the encoder is fine-tuned only on a GPU."""

    kind = "transformer"

    def __init__(self, embedder: str = "minilm", C: float = 4.0, fine_tune: str | bool = "auto",
                 epochs: int = 2, learning_rate: float = 2e-5, max_length: int = 128, random_state: int = 0):
        self.embedder = embedder
        self.C = C
        self.fine_tune = fine_tune
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.max_length = max_length
        self.random_state = random_state

    def get_params(self) -> dict:
        """Constructor parameters (a natural cache key)."""
        return {"kind": self.kind, "embedder": self.embedder, "C": self.C, "fine_tune": self.fine_tune,
                "epochs": self.epochs, "learning_rate": self.learning_rate,
                "max_length": self.max_length, "random_state": self.random_state}

    def _will_fine_tune(self) -> bool:
        from stviz.embed import select_device

        if self.fine_tune == "auto":
            # On CPU a fine-tuning epoch over tens of thousands of sentences takes hours; the
            # frozen encoder with a trained head is the practical default there.
            return select_device() == "cuda"
        return bool(self.fine_tune)

    def fit(self, texts: Sequence[str], labels: Sequence[str], progress: Progress | None = None):
        """Train the head on cached MiniLM vectors, then (GPU) fine-tune encoder and head; returns self."""
        from sklearn.linear_model import LogisticRegression

        from stviz.embed import embed, unit_normalise

        if self.embedder != "minilm":
            raise DataError("the transformer classifier supports the shipped MiniLM ('minilm') only")
        texts, labels = _check_training_data(texts, labels)
        vectors = unit_normalise(embed(texts, "minilm", progress=progress))
        head = LogisticRegression(C=self.C, max_iter=2000, random_state=self.random_state).fit(vectors, labels)
        self.classes_ = np.array(head.classes_)
        self.head_weight_, self.head_bias_ = _softmax_head(head)
        self.encoder_state_ = None
        self.fine_tuned_ = False
        if self._will_fine_tune():
            self._fine_tune(texts, labels)
        return self

    def _fine_tune(self, texts: list[str], labels: list[str]) -> None:
        import torch

        torch.manual_seed(self.random_state)
        model = self.torch_model()
        model.train()
        device = next(model.parameters()).device
        target = torch.tensor([int(np.flatnonzero(self.classes_ == y)[0]) for y in labels], device=device)
        optimiser = torch.optim.AdamW(model.parameters(), lr=self.learning_rate)
        tokenizer = minilm_tokenizer()
        rng = np.random.default_rng(self.random_state)
        for _ in range(self.epochs):
            for batch in np.array_split(rng.permutation(len(texts)), max(1, len(texts) // 32)):
                enc = tokenizer([texts[i] for i in batch], padding=True, truncation=True,
                                max_length=self.max_length, return_tensors="pt").to(device)
                loss = torch.nn.functional.cross_entropy(model(enc["input_ids"], enc["attention_mask"]), target[batch])
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
        model.eval()
        self.head_weight_ = model.head.weight.detach().cpu().numpy().copy()
        self.head_bias_ = model.head.bias.detach().cpu().numpy().copy()
        self.encoder_state_ = {k: v.detach().cpu().numpy() for k, v in model.encoder.state_dict().items()}
        self.fine_tuned_ = True
        self._torch_model = None

    def torch_model(self):
        """The differentiable MiniLM encoder + linear head (logits), built once and kept."""
        model = getattr(self, "_torch_model", None)
        if model is None:
            model = _build_torch_model(self)
            self._torch_model = model
        return model

    def predict_proba(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Style distribution per text (softmax of the head), columns in the order of ``classes_``."""
        from stviz.embed import embed, unit_normalise

        texts = [str(t) for t in texts]
        if self.fine_tuned_:
            return self._predict_fine_tuned(texts)
        vectors = unit_normalise(embed(texts, "minilm", progress=progress))
        return _softmax(vectors @ self.head_weight_.T + self.head_bias_)

    def _predict_fine_tuned(self, texts: list[str]) -> np.ndarray:
        import torch

        model = self.torch_model()
        device = next(model.parameters()).device
        tokenizer = minilm_tokenizer()
        out = []
        for start in range(0, len(texts), 64):
            enc = tokenizer(texts[start:start + 64], padding=True, truncation=True,
                            max_length=self.max_length, return_tensors="pt").to(device)
            with torch.inference_mode():
                out.append(torch.softmax(model(enc["input_ids"], enc["attention_mask"]), -1).cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, len(self.classes_)))

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Most probable style per text."""
        return self.classes_[self.predict_proba(texts).argmax(1)]

    def __getstate__(self) -> dict:
        # The torch module is rebuilt from the stored weights after unpickling.
        state = dict(self.__dict__)
        state.pop("_torch_model", None)
        return state


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def _softmax_head(head) -> tuple[np.ndarray, np.ndarray]:
    """(weight, bias) of a softmax layer equal to a fitted scikit-learn LogisticRegression."""
    coef, intercept = head.coef_.astype(np.float32), head.intercept_.astype(np.float32)
    if coef.shape[0] == 1:
        # Binary LR: p(class 1) = sigmoid(w.x + b) = softmax([0, w.x + b])[1].
        coef = np.vstack([np.zeros_like(coef), coef])
        intercept = np.array([0.0, intercept[0]], dtype=np.float32)
    return coef, intercept


@functools.lru_cache(maxsize=1)
def minilm_tokenizer():
    """The shipped MiniLM's (fast) tokenizer, loaded once per process."""
    from transformers import AutoTokenizer

    from stviz.embed import shipped_minilm_path

    return AutoTokenizer.from_pretrained(str(shipped_minilm_path()))


def _build_torch_model(clf: TransformerStyleClassifier):
    import torch
    from transformers import AutoModel

    from stviz.embed import select_device, shipped_minilm_path

    class MiniLMStyleModel(torch.nn.Module):
        """MiniLM -> masked mean pooling -> unit length -> linear head (what encode() + the head compute)."""

        def __init__(self, encoder, weight: np.ndarray, bias: np.ndarray):
            super().__init__()
            self.encoder = encoder
            self.head = torch.nn.Linear(weight.shape[1], weight.shape[0])
            with torch.no_grad():
                self.head.weight.copy_(torch.from_numpy(np.asarray(weight, np.float32)))
                self.head.bias.copy_(torch.from_numpy(np.asarray(bias, np.float32)))

        def forward(self, input_ids, attention_mask):
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return self.head(torch.nn.functional.normalize(pooled, p=2, dim=1))

    encoder = AutoModel.from_pretrained(str(shipped_minilm_path()))
    if clf.encoder_state_ is not None:
        encoder.load_state_dict({k: torch.from_numpy(v) for k, v in clf.encoder_state_.items()})
    model = MiniLMStyleModel(encoder, clf.head_weight_, clf.head_bias_).to(select_device())
    model.eval()
    return model


# -- training with a held-out report ---------------------------------------------------------------
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
        from stviz.cache import fingerprint

        return fingerprint({"params": self.estimator.get_params(), "source": self.source,
                            "n_train": self.n_train, "accuracy": round(self.accuracy, 6)})

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
        if self.n_test < min_test:
            return (f"The style classifier was tested on only {self.n_test} held-out sentences: its accuracy is "
                    "a rough guess, and so is everything computed from it here.")
        if self.accuracy < self.chance_accuracy + 0.5 * (1 - self.chance_accuracy):
            return (f"The style classifier is weak (held-out accuracy {self.accuracy:.2f}, "
                    f"{self.chance_accuracy:.2f} by always guessing one style): read its figures with care.")
        return None

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
                           progress: Progress | None = None, **params) -> TrainedClassifier:
    """Fit a style classifier on a stratified split and report held-out accuracy; cached on disk."""
    from sklearn.metrics import accuracy_score, confusion_matrix
    from sklearn.model_selection import train_test_split

    texts, labels = _check_training_data(texts, labels)
    if max_texts is not None and len(texts) > max_texts:
        # A stratified sample keeps training time modest on big corpora (e.g. Yelp's 190k lines).
        texts, _, labels, _ = train_test_split(texts, labels, train_size=max_texts,
                                               stratify=labels, random_state=random_state)
    estimator = make_classifier(kind, **params)
    cache = cache or default_cache()
    key = {"texts": list(texts), "labels": list(labels), "params": estimator.get_params(),
           "test_size": test_size, "random_state": random_state, "v": 1}

    def compute() -> TrainedClassifier:
        x_train, x_test, y_train, y_test = train_test_split(
            texts, labels, test_size=test_size, stratify=labels, random_state=random_state)
        estimator.fit(x_train, y_train, progress=progress)
        predicted = estimator.predict(x_test)
        classes = [str(c) for c in estimator.classes_]
        matrix = confusion_matrix(y_test, predicted, labels=estimator.classes_)
        confusion = pd.DataFrame(matrix, index=pd.Index(classes, name="true"),
                                 columns=pd.Index(classes, name="predicted"))
        return TrainedClassifier(estimator, float(accuracy_score(y_test, predicted)), confusion,
                                 len(x_train), len(x_test), source)

    return cache.memo("style-classifier", key, compute)


def labelled_texts(dataset) -> pd.DataFrame:
    """Style-labelled texts of a dataset: its texts, else pair sources by source style plus references by target style.

    References are human-written texts in the target style, so a pair file with one source style
    (e.g. informal -> formal) still yields two styles when it has a reference column. System
    outputs are never used: whether they carry the target style is what is being evaluated.
    """
    if dataset.texts is not None or dataset.pairs is None:
        return dataset.style_texts()
    pairs = dataset.pairs
    frames = []
    if "source_style" in pairs:
        frames.append(pairs[["source", "source_style"]].set_axis(["text", "style"], axis=1))
    if "reference" in pairs and "target_style" in pairs:
        frames.append(pairs[["reference", "target_style"]].set_axis(["text", "style"], axis=1))
    if not frames:
        raise DataError(f"dataset '{dataset.name}' has no style labels (map a source style column, or "
                        "target style with references)")
    frame = pd.concat(frames, ignore_index=True).dropna().drop_duplicates()
    return frame.astype({"text": str, "style": str}).reset_index(drop=True)


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
    _require_two_styles(dataset.name, frame["style"])
    return train_style_classifier(frame["text"].tolist(), frame["style"].astype(str).tolist(), kind,
                                  max_texts=max_texts, source=dataset.name, cache=cache,
                                  progress=progress, **params)


class OneStyleError(DataError):
    """The labelled texts hold fewer than two styles, so no style classifier can be trained from them."""


def check_style_labels(dataset) -> None:
    """Raise OneStyleError, before any training, when :func:`default_classifier` would have one style to learn."""
    training = training_dataset_for(dataset)
    _require_two_styles(training.name, labelled_texts(training)["style"])


def _require_two_styles(name: str, styles: pd.Series) -> None:
    styles = sorted(styles.astype(str).unique())
    if len(styles) < 2:
        # Say which views this rules out: a one-style dataset (SGDD-TST: informal sources only) still has content.
        raise OneStyleError(f"dataset '{name}' has human-written texts of one style only "
                            f"({', '.join(styles) or 'none'}), so no style classifier can be trained on it: style "
                            "transfer intensity, token attributions and naturalness do not apply (content "
                            "metrics do)")


def _check_training_data(texts: Sequence[str], labels: Sequence[str]) -> tuple[list[str], list[str]]:
    texts = [str(t) for t in texts]
    labels = [str(y) for y in labels]
    if len(texts) != len(labels):
        raise DataError(f"{len(texts)} texts but {len(labels)} labels")
    styles, counts = np.unique(labels, return_counts=True) if labels else (np.array([]), np.array([]))
    if len(styles) < 2:
        raise OneStyleError("a style classifier needs texts of at least two styles; "
                        f"found {len(styles)} ({', '.join(map(str, styles)) or 'none'})")
    if counts.min() < 2:
        raise DataError(f"every style needs at least two texts; '{styles[counts.argmin()]}' has {counts.min()}")
    return texts, labels


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
    try:
        with path.open("rb") as fh:
            trained = pickle.load(fh)
    except Exception as exc:  # noqa: BLE001 - a damaged or foreign file gets one clear message
        raise DataError(f"could not read {path}: {type(exc).__name__}: {exc}") from exc
    if not isinstance(trained, TrainedClassifier):
        raise DataError(f"{path} does not hold an stviz style classifier")
    return trained


# -- the classifier a dataset's views use ------------------------------------------------------------
#: Datasets whose pairs are judged by a classifier trained on a bigger corpus of the same styles.
COMPANION_CORPORA = {"mir-yelp": "yelp-sentiment", "li2018-yelp": "yelp-sentiment"}
#: Training sample sizes that keep training modest on 2 CPU cores (LR: seconds; MiniLM head: minutes,
#: the embeddings are cached).
DEFAULT_MAX_TEXTS = {"lr": 40_000, "transformer": 8_000}


def training_dataset_for(dataset):
    """The dataset a style classifier for ``dataset`` is trained on (its companion corpus, else itself)."""
    from stviz.data import load_dataset

    companion = COMPANION_CORPORA.get(dataset.name)
    return load_dataset(companion) if companion else dataset


def default_classifier(dataset, kind: str = "lr", *, cache: Cache | None = None,
                       progress: Progress | None = None) -> TrainedClassifier:
    """The (cached) classifier for a dataset: trained on its companion corpus or its own style texts.

    Sentences that occur as sources or outputs of the dataset's pairs are left out of training.
    """
    training = training_dataset_for(dataset)
    exclude: list[str] = []
    if dataset.pairs is not None and training is not dataset:
        exclude = list(set(dataset.pairs["source"].astype(str)) | set(dataset.pairs["output"].astype(str)))
    return train_on_dataset(training, kind, max_texts=DEFAULT_MAX_TEXTS.get(kind), exclude=exclude,
                            cache=cache, progress=progress)


def human_reference_texts(dataset, n: int = 1500, random_state: int = 0) -> list[str]:
    """Human-written sentences of the dataset's domain for naturalness classifiers (companion corpus sample)."""
    training = training_dataset_for(dataset)
    if training is dataset or training.texts is None:
        return []
    taken = set(dataset.pairs["source"].astype(str)) if dataset.pairs is not None else set()
    texts = training.texts.loc[~training.texts["text"].isin(taken), "text"]
    return texts.sample(min(n, len(texts)), random_state=random_state).astype(str).tolist()
