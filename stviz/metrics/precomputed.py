"""Precomputed metrics: a dataset's own ``metric:NAME`` columns (e.g. SGDD-TST's BLEURT), as metrics.

Their values are read from the pairs, never computed; they were computed on the original texts,
so they are left out when a view modifies the texts (style removal or masking).
"""

from __future__ import annotations

import re

import numpy as np

from stviz.data.schema import METRIC_PREFIX, short_name
from stviz.metrics.registry import MetricCard, metric_family

#: SGDD-TST's own NE columns (Babakov et al.): M_NE and p, inputs of the merge rather than metrics.
AUTHORS_NE_COLUMNS = ("metric:scipy_ner", "metric:scipy_proprotion")

#: Readable names for precomputed columns of the bundled corpora (SGDD-TST's, Babakov et al.).
KNOWN_COLUMNS = {
    "Elron/bleurt-large-512": "BLEURT-large-512", "bertscore/roberta-large": "BERTScore RoBERTa-large",
    "bertscore/bert-base-multilingual-cased": "BERTScore mBERT-base",
    "bertscore/microsoft/deberta-xlarge-mnli": "BERTScore DeBERTa-xlarge-MNLI",
    "fasttext_cossim": "fastText cosine", "w2v_cossim": "word2vec cosine", "bleu": "BLEU", "chrf": "chrF",
    "rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rouge3": "ROUGE-3", "rougeL": "ROUGE-L",
    "scipy_ner": "NE score", "scipy_proprotion": "entity-token share p",
}


#: Measures stviz writes on 0-100 (sacrebleu's scale, as TST papers print them): a file's column of one of them
#: on 0-1 is read x100, so that one measure has one scale in every table (the label says which).
PERCENT_SCALE = {"bleu": "BLEU", "chrf": "chrF", "chrf++": "chrF++", "sacrebleu": "BLEU"}


def on_percent_scale(name: str, values: np.ndarray) -> np.ndarray:
    """A precomputed column's values, x100 when it is a 0-100 measure (BLEU, chrF) given on 0-1."""
    finite = values[np.isfinite(values)]
    if short_name(name).lower() in PERCENT_SCALE and finite.size and finite.min() >= 0 and finite.max() <= 1:
        return values * 100
    return values


def metric_columns(dataset) -> list[str]:
    """The dataset's precomputed metric columns that are metrics (not the inputs of the authors' NE merge)."""
    return [c for c in dataset.metric_columns if c not in AUTHORS_NE_COLUMNS]


def _offered(dataset) -> list[str]:
    return metric_columns(dataset) if dataset is not None and dataset.pairs is not None else []


def _defaults(dataset, modification: str) -> tuple[list[str], list[str]]:
    columns = _offered(dataset)
    if modification == "none":
        return columns, []
    if not columns:
        return [], []
    return [], [f"the file's {len(columns)} precomputed metric columns are left out with modified texts: "
                "they were computed on the original texts"]


@metric_family(METRIC_PREFIX.rstrip(":"), "metric:COLUMN", offered=_offered, defaults=_defaults, after_named=True)
def precomputed_card(name: str) -> MetricCard:
    """The card of a precomputed column: a distance when its name says so (WMD, TER, edit distance)."""
    short = short_name(name)
    # Whole words only: a substring test would call "later_sim" or "water" a TER distance.
    words = set(re.split(r"[^a-z0-9]+", short.lower()))
    # Perplexities and losses are lower-is-better too (a fluency column 'gpt2_ppl' is read as given, then negated).
    distance = bool(words & {"wmd", "distance", "dist", "ter", "edit", "ppl", "perplexity", "nll", "loss"})
    percent = short.lower() in PERCENT_SCALE
    label = f"{PERCENT_SCALE[short.lower()]} (precomputed, 0-100)" if percent else f"{KNOWN_COLUMNS.get(short, short)} (precomputed)"
    return MetricCard(name=name, label=label, merge_scale=0.01 if percent else 1.0,
                      higher_is_better=not distance, value_range=(float("-inf"), float("inf")),
                      citation="precomputed column of the dataset", description="values as given in the file",
                      family="precomputed", precomputed=True)
