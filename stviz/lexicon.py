"""Style lexicons (Mir et al., NAACL 2019): the words that carry style, for style removal and masking.

A lexicon is a word -> weight dict. It comes from one of three places, named by a *lexicon spec*
(the same string on the command line, in a page and in a shared URL):

* ``None`` / ``"dataset"``: the lexicon the dataset ships (Mir-Yelp), if any;
* ``"learn[:DATASET][:K]"``: the K words (default 500) with the largest TF-IDF logistic-regression
  weights on a dataset's style-labelled texts (this dataset's own when DATASET is left out);
* a path to a JSON file: ``{"word": weight, ...}`` or ``["word", ...]``;
* ``"none"``: no lexicon.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

from stviz.cache import Cache, default_cache
from stviz.classify.checks import check_training_data
from stviz.data.labels import labelled_texts
from stviz.data.schema import DataError, Dataset

#: Words in a learned style lexicon unless asked otherwise.
DEFAULT_LEXICON_SIZE = 500
#: Style-labelled corpora a lexicon can be learned from, besides the dataset itself.
LEXICON_CORPORA = ("yelp-sentiment", "cds")
CACHE_VERSION = 1


def learn_style_lexicon(texts: Sequence[str], labels: Sequence[str], top_k: int = DEFAULT_LEXICON_SIZE,
                        ngram_range: tuple[int, int] = (1, 1), C: float = 4.0,
                        cache: Cache | None = None) -> dict[str, float]:
    """Style lexicon: the ``top_k`` words with the largest absolute logistic-regression weights (Mir et al. 2019).

    Weights are signed toward the second class for two styles; for more styles each word gets
    its largest-magnitude weight over the styles. A small ``top_k`` favours precision over
    recall, as Mir et al. recommend for style removal.
    """
    from stviz.classify.tfidf import TfidfStyleClassifier

    if top_k < 1:
        raise DataError(f"top_k must be at least 1, got {top_k}")
    texts, labels = check_training_data(texts, labels)
    cache = cache or default_cache()
    params = {"texts": texts, "labels": labels, "top_k": int(top_k), "ngram_range": list(ngram_range), "C": C}

    def compute() -> dict[str, float]:
        clf = TfidfStyleClassifier(ngram_range=ngram_range, C=C).fit(texts, labels)
        weights = clf.feature_weights()
        values = weights.to_numpy()
        idx = np.abs(values).argmax(1)
        signed = values[np.arange(len(values)), idx]
        order = np.argsort(-np.abs(signed), kind="stable")[:top_k]
        return {str(weights.index[i]): float(signed[i]) for i in order}

    return cache.memo("style-lexicon", params, compute, version=CACHE_VERSION)


def lexicon_from_dataset(dataset: Dataset, top_k: int = DEFAULT_LEXICON_SIZE, max_texts: int = 20_000,
                         cache: Cache | None = None) -> dict[str, float]:
    """Style lexicon learned from a dataset's style-labelled texts (Mir et al. 2019), on at most
    ``max_texts`` of them (a stratified sample: Yelp sentiment has 190,000 lines)."""
    from sklearn.model_selection import train_test_split

    frame = labelled_texts(dataset)
    texts, labels = frame["text"].astype(str).tolist(), frame["style"].astype(str).tolist()
    if len(texts) > max_texts:
        texts, _, labels, _ = train_test_split(texts, labels, train_size=max_texts, stratify=labels, random_state=0)
    return learn_style_lexicon(texts, labels, top_k=top_k, cache=cache)


def lexicon_sources(dataset: Dataset) -> dict[str, str]:
    """Where a lexicon can come from for ``dataset``: spec -> description, the dataset's own first."""
    from stviz.data import available_datasets

    sources = {}
    if dataset.lexicon:
        sources["dataset"] = f"shipped with the dataset ({len(dataset.lexicon):,} words)"
    try:
        if labelled_texts(dataset)["style"].nunique() >= 2:
            sources["learn"] = "learned from this dataset's style-labelled texts"
    except DataError:
        pass
    installed = {i.name: i.title for i in available_datasets() if i.available}
    for name in LEXICON_CORPORA:
        if name in installed and name != dataset.name:
            sources[f"learn:{name}"] = f"learned from {installed[name]}"
    return sources


def default_lexicon_spec(dataset: Dataset) -> str:
    """The lexicon used unless the user chooses: the dataset's own, else none."""
    return "dataset" if dataset.lexicon else "none"


def resolve_lexicon(spec: str | None, dataset: Dataset, size: int | None = None) -> dict[str, float] | None:
    """The lexicon a spec names (see the module docstring); None for ``"none"``. ``size`` overrides K."""
    from stviz.data import load_dataset

    if spec in (None, "dataset"):
        return dataset.lexicon
    if spec == "none":
        return None
    if spec == "learn" or spec.startswith("learn:"):
        parts = spec.split(":")[1:]
        top_k = int(parts.pop()) if parts and parts[-1].isdigit() else DEFAULT_LEXICON_SIZE
        source = load_dataset(parts[0]) if parts and parts[0] else dataset
        lexicon = lexicon_from_dataset(source, top_k=size or top_k)
        if not lexicon:
            raise DataError(f"no style words could be learned from '{source.name}'")
        return lexicon
    return read_lexicon_file(spec)


def read_lexicon_file(path: str) -> dict[str, float]:
    """A lexicon from a JSON file: an object word -> weight, or a list of words."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read the lexicon {path}: {exc}") from exc
    if isinstance(raw, dict) and all(isinstance(v, (int, float)) for v in raw.values()):
        return {str(k): float(v) for k, v in raw.items()}
    if isinstance(raw, list):
        return {str(w if isinstance(w, str) else w[0]): 1.0 for w in raw}
    raise DataError(f"{path}: expected a JSON object word -> weight or a list of words")


def describe_lexicon(spec: str | None, lexicon: dict[str, float] | None, dataset: Dataset) -> str:
    """One line saying which lexicon is in use, for notes on the page and the command line."""
    if not lexicon:
        return "no style lexicon"
    origin = {"dataset": "shipped with the dataset", None: "shipped with the dataset"}.get(spec)
    if origin is None:
        origin = (f"learned from {spec.split(':')[1] or dataset.name}" if spec.startswith("learn:")
                  else f"learned from {dataset.name}" if spec == "learn" else f"read from {spec}")
    return f"style lexicon: {len(lexicon):,} words {origin}"
