"""Naturalness by adversarial classifiers (Mir et al., NAACL 2019, after Bowman et al. 2016).

A classifier learns to tell human-written texts from one system's outputs; the more natural an
output, the likelier it fools the classifier. Per output we report P(human); per pair whether the
output looks more natural than its input (P(human | output) > P(human | input)); per system the
share of such outputs; and the agreement of those judgments with human relative naturalness
judgments (Mir-Yelp: raters chose the more natural of input and output).

Two classifiers, as in the paper: a unigram logistic regression, and a small neural model (here
a one-hidden-layer perceptron on MiniLM sentence vectors, where Mir et al. used an LSTM).

Scores are cross-fitted so no text is scored by a classifier that saw it: pairs are split into
folds by source sentence (a source and all its outputs share a fold); each fold is scored by a
classifier trained on the other folds' sources and outputs of the same system, plus optional extra
human-written texts of the same domain (e.g. Yelp sentences for Mir-Yelp) that balance the classes.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from stviz.cache import Cache, default_cache
from stviz.data.schema import DataError
from stviz.progress import Progress

KINDS = ("unigram", "neural")
KIND_LABELS = {"unigram": "unigram logistic regression", "neural": "MLP on MiniLM vectors"}
#: Bump when a cached computation below changes, so results of the old code are never served.
CACHE_VERSION = 2


def _make_classifier(kind: str, random_state: int):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline

    if kind == "unigram":
        # Punctuation counts as a unigram: repeated or missing punctuation is a tell of generated text.
        return make_pipeline(CountVectorizer(token_pattern=r"[^\s]+", binary=True),
                             LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced",
                                                random_state=random_state))
    if kind == "neural":
        return MLPClassifier(hidden_layer_sizes=(64,), alpha=1e-3, max_iter=400, early_stopping=True,
                             random_state=random_state)
    raise DataError(f"unknown naturalness classifier '{kind}'; choose one of {', '.join(KINDS)}")


def _features(kind: str, texts: list[str], cache: Cache, progress: Progress | None):
    if kind == "unigram":
        return np.array(texts, dtype=object)
    from stviz.embedders import embed, unit_normalise

    return unit_normalise(embed(texts, "minilm", cache=cache, progress=progress))


def adversarial_naturalness(pairs: pd.DataFrame, kind: str = "unigram", *, human_texts: Sequence[str] = (),
                            n_folds: int = 5, random_state: int = 0, cache: Cache | None = None,
                            progress: Progress | None = None) -> pd.DataFrame:
    """P(human) of each output and of its source, cross-fitted per system (module docstring).

    Returns columns p_human_output, p_human_source and output_more_natural (1.0 / 0.0, NaN on ties),
    aligned with ``pairs``.
    """
    for col in ("source", "output"):
        if col not in pairs:
            raise DataError(f"naturalness needs a '{col}' column")
    cache = cache or default_cache()
    human_texts = [str(t) for t in human_texts]
    systems = pairs["system"].astype(str) if "system" in pairs else pd.Series("all", index=pairs.index)
    params = {"sources": pairs["source"].astype(str).to_numpy(), "outputs": pairs["output"].astype(str).to_numpy(),
              "systems": systems.to_numpy(), "human": human_texts, "kind": kind, "folds": n_folds,
              "seed": random_state}

    def compute() -> pd.DataFrame:
        frames = []
        for system in systems.unique():
            rows = pairs[systems == system]
            frames.append(_score_system(rows, kind, human_texts, n_folds, random_state, cache, progress))
        return pd.concat(frames).loc[pairs.index]

    return cache.memo("naturalness", params, compute, version=CACHE_VERSION)


def _score_system(rows: pd.DataFrame, kind: str, human_texts: list[str], n_folds: int, random_state: int,
                  cache: Cache, progress: Progress | None) -> pd.DataFrame:
    sources = rows["source"].astype(str).tolist()
    outputs = rows["output"].astype(str).tolist()
    unique_sources = list(dict.fromkeys(sources))
    if len(unique_sources) < n_folds:
        raise DataError(f"adversarial naturalness needs at least {n_folds} distinct sources per system; "
                        f"found {len(unique_sources)}")
    extra = [t for t in human_texts if t not in set(unique_sources)]
    vocab = list(dict.fromkeys(unique_sources + outputs + extra))
    features = _features(kind, vocab, cache, progress)
    index = {t: i for i, t in enumerate(vocab)}
    source_fold = _source_folds(unique_sources, n_folds, random_state)
    p_out = np.full(len(rows), np.nan)
    p_src = np.full(len(rows), np.nan)
    fold_of_pair = np.array([source_fold[s] for s in sources])
    for fold in range(n_folds):
        train_sources = [s for s in unique_sources if source_fold[s] != fold]
        train_outputs = [o for o, f in zip(outputs, fold_of_pair) if f != fold]
        human = train_sources + extra
        x = [index[t] for t in human + train_outputs]
        y = np.r_[np.ones(len(human)), np.zeros(len(train_outputs))]
        clf = _make_classifier(kind, random_state)
        clf.fit(features[x], y)
        test = np.flatnonzero(fold_of_pair == fold)
        human_col = list(clf.classes_).index(1.0)
        p_out[test] = clf.predict_proba(features[[index[outputs[i]] for i in test]])[:, human_col]
        p_src[test] = clf.predict_proba(features[[index[sources[i]] for i in test]])[:, human_col]
    more = np.where(np.isclose(p_out, p_src), np.nan, (p_out > p_src).astype(float))
    return pd.DataFrame({"p_human_output": p_out, "p_human_source": p_src, "output_more_natural": more},
                        index=rows.index)


def _source_folds(sources: list[str], n_folds: int, random_state: int) -> dict[str, int]:
    """Each distinct source gets a fold, at random but balanced (a source and its outputs stay together)."""
    rng = np.random.default_rng(random_state)
    order = rng.permutation(len(sources))
    return {sources[i]: int(k % n_folds) for k, i in enumerate(order)}


def naturalness_summary(pairs: pd.DataFrame, scores: pd.DataFrame, by: Sequence[str] = ("system", "setting")) -> pd.DataFrame:
    """Per group: mean P(human) of outputs and of inputs, share of outputs judged more natural than input."""
    keys = [k for k in by if k in pairs]
    frame = pd.concat([pairs[keys], scores], axis=1) if keys else scores.assign(all="all")
    grouped = frame.groupby(keys or ["all"], sort=False)
    return pd.DataFrame({
        "mean_p_human_output": grouped["p_human_output"].mean(),
        "mean_p_human_source": grouped["p_human_source"].mean(),
        "share_more_natural": grouped["output_more_natural"].mean(),
        "n": grouped.size(),
    })


def relative_judgments(scores: pd.DataFrame) -> pd.Series:
    """'input' / 'output' / None: which text of each pair the classifier finds more natural."""
    labels = {1.0: "output", 0.0: "input"}
    return pd.Series([labels.get(v) for v in scores["output_more_natural"]], index=scores.index, dtype=object)


def agreement_with_humans(scores: pd.DataFrame, human_relative: Sequence) -> dict[str, float]:
    """Agreement of the classifier's relative judgments with human ones (Mir et al. percent agreement).

    ``agreement`` is over pairs with a human judgment; ``agreement_all_rows`` divides by every
    pair, as the authors' code does (a missing human judgment then counts as disagreement).
    """
    human = pd.Series([v if v in ("input", "output") else None for v in human_relative], index=scores.index,
                      dtype=object)
    machine = relative_judgments(scores)
    judged = human.notna()
    hits = (machine[judged] == human[judged]).sum()
    return {"agreement": float(hits / judged.sum()) if judged.any() else float("nan"),
            "agreement_all_rows": float(hits / len(human)) if len(human) else float("nan"),
            "n_judged": int(judged.sum())}


#: The Mir-Yelp column holding which text of a pair the raters found more natural ('input' / 'output').
NATURALNESS_RELATIVE = "human:naturalness_relative"


def naturalness_agreement(pairs: pd.DataFrame, scores: pd.DataFrame, by: str = "system") -> pd.DataFrame:
    """Agreement with the raters' relative naturalness judgments per ``by`` group and over all pairs."""
    human = pairs[NATURALNESS_RELATIVE]
    groups = list(pairs.groupby(by, sort=False).groups.items()) if by in pairs else []
    rows = {str(name): agreement_with_humans(scores.loc[idx], human.loc[idx]) for name, idx in groups}
    rows["all pairs"] = agreement_with_humans(scores, human)
    table = pd.DataFrame.from_dict(rows, orient="index")[["agreement", "n_judged"]]
    table.index.name = by if by in pairs else "group"
    return table
