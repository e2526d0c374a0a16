"""Style lexicons (Mir et al., NAACL 2019): the words that carry style, for style removal and masking.

A lexicon is a word -> weight dict. It comes from one of three places, named by a *lexicon spec*
(the same string on the command line, in a page and in a shared URL), read once by :class:`LexiconSpec`:

* ``None`` / ``"dataset"`` / ``"shipped"``: the lexicon the dataset ships (Mir-Yelp), if any;
* ``"learn[:DATASET][:K]"``: the K words (default 500) with the largest TF-IDF logistic-regression
  weights on a dataset's style-labelled texts (this dataset's own when DATASET is left out);
* a path to a JSON file: ``{"word": weight, ...}`` or ``["word", ...]``;
* ``"none"``: no lexicon.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from stviz.cache import Cache, default_cache
from stviz.data.labels import labelled_texts
from stviz.data.schema import DataError, Dataset
from stviz.measures.style.classifiers.checks import check_training_data

#: Words in a learned style lexicon unless asked otherwise.
DEFAULT_LEXICON_SIZE = 500
#: Style-labelled corpora a lexicon can be learned from, besides the dataset itself.
LEXICON_CORPORA = ("yelp-sentiment", "paradetox", "cds")
CACHE_VERSION = 1


def learn_style_lexicon(texts: Sequence[str], labels: Sequence[str], top_k: int = DEFAULT_LEXICON_SIZE,
                        ngram_range: tuple[int, int] = (1, 1), C: float = 4.0,
                        cache: Cache | None = None) -> dict[str, float]:
    """Style lexicon: the ``top_k`` words with the largest absolute logistic-regression weights (Mir et al. 2019).

    Weights are signed toward the second class for two styles; for more styles each word gets
    its largest-magnitude weight over the styles. A small ``top_k`` favours precision over
    recall, as Mir et al. recommend for style removal.
    """
    from stviz.measures.style.classifiers.tfidf import TfidfStyleClassifier

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


#: Spellings of "the lexicon the dataset ships" (None or '': no choice made).
SHIPPED = (None, "", "dataset", "shipped")


@dataclass(frozen=True)
class LexiconSpec:
    """A lexicon spec read once (see the module docstring): what every page, command and note goes by.

    ``kind`` is ``shipped``, ``learn``, ``file`` or ``none``; a learned lexicon names its ``corpus``
    (None: the dataset's own texts) and its ``size`` (None: :data:`DEFAULT_LEXICON_SIZE`).
    """

    kind: str
    corpus: str | None = None
    size: int | None = None
    path: str | None = None

    @classmethod
    def parse(cls, spec: str | None) -> "LexiconSpec":
        """The spec a string names: ``dataset``/``shipped``/None, ``none``, ``learn[:DATASET][:K]``, else a path."""
        if spec in SHIPPED:
            return cls("shipped")
        if spec == "none":
            return cls("none")
        if spec == "learn" or spec.startswith("learn:"):
            parts = spec.split(":")[1:]
            # The size is the last part when it is a number: 'learn:300' is 300 words of the dataset's own texts.
            size = int(parts.pop()) if parts and parts[-1].isdigit() else None
            return cls("learn", corpus=parts[0] if parts and parts[0] else None, size=size)
        return cls("file", path=spec)

    @property
    def text(self) -> str:
        """The spec as written on the command line and in URLs (the inverse of :meth:`parse`)."""
        if self.kind == "learn":
            return ":".join(["learn"] + [str(p) for p in (self.corpus, self.size) if p])
        return {"shipped": "dataset", "none": "none"}.get(self.kind, self.path or "")

    @property
    def source(self) -> str:
        """The spec without its size, i.e. where the words come from ('learn:cds:300' -> 'learn:cds')."""
        return LexiconSpec(self.kind, self.corpus, None, self.path).text

    @property
    def words(self) -> int:
        """How many words a learned lexicon keeps."""
        return self.size or DEFAULT_LEXICON_SIZE

    def with_size(self, size: int) -> "LexiconSpec":
        """The same source with ``size`` words (a learned lexicon only; others have no size)."""
        return LexiconSpec(self.kind, self.corpus, int(size), self.path) if self.kind == "learn" else self

    def resolve(self, dataset: Dataset) -> dict[str, float] | None:
        """The lexicon itself (None for ``none``, or a dataset that ships none); DataError when it cannot be had."""
        from stviz.data import load_dataset

        if self.kind == "shipped":
            return dataset.lexicon
        if self.kind == "none":
            return None
        if self.kind == "file":
            return read_lexicon_file(self.path)
        source = load_dataset(self.corpus) if self.corpus else dataset
        lexicon = lexicon_from_dataset(source, top_k=self.words)
        if not lexicon:
            raise DataError(f"no style words could be learned from '{source.name}'")
        return lexicon

    def describe(self, dataset: Dataset, lexicon: dict[str, float] | None = None) -> str:
        """One line saying which lexicon is in use ('style lexicon: 300 words learned from ...')."""
        if self.kind == "none" or (lexicon is not None and not lexicon):
            return "no style lexicon"
        if self.kind == "shipped":
            if not dataset.lexicon:
                return "no style lexicon"
            return f"style lexicon: {len(lexicon or dataset.lexicon):,} words shipped with the dataset"
        if self.kind == "file":
            return f"style lexicon: {len(lexicon):,} words read from {self.path}" if lexicon else \
                f"style lexicon read from {self.path}"
        origin = self.corpus or f"{dataset.name}'s own style-labelled texts"
        return f"style lexicon: {len(lexicon) if lexicon else self.words:,} words learned from {origin}"


def resolve_lexicon(spec: str | None, dataset: Dataset, size: int | None = None) -> dict[str, float] | None:
    """The lexicon a spec names (see the module docstring); None for ``"none"``. ``size`` overrides K."""
    parsed = LexiconSpec.parse(spec)
    return (parsed.with_size(size) if size else parsed).resolve(dataset)


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
    return LexiconSpec.parse(spec).describe(dataset, lexicon)
