"""The choices a dataset offers, the same for every view and command.

Pages build their menus from these functions and the analyses' ``Options`` take their fixed
``choices=`` (and so the CLI flags and their help) from the tuples here, so a page cannot offer
what its command refuses, nor the other way round: which metrics, which style lexicons, which
style-word modifications (Mir et al.), which named-entity handling (Babakov et al.), which
failure directions and which style classifiers.
"""

from __future__ import annotations

from stviz.data.schema import Dataset
from stviz.metrics.modify import MODIFICATION_LABELS, MODIFICATIONS
from stviz.textform import TEXT_FORMS as TEXT_FORM_CHOICES

#: Failure-case directions: over-rated means the metric ranks a pair higher than the raters did.
DIRECTIONS = ("both", "over-rated", "under-rated")
#: Where M_NE and p of the named-entity merge come from (Babakov et al.).
NE_SOURCES = ("spacy", "columns")
NE_SOURCE_LABELS = {"spacy": "spaCy NER (ours)", "columns": "the file's NE columns"}
#: The metric that is named-entity overlap alone: a part of the merge, not a content metric of its own.
NE_METRIC = "ne"
#: Style classifiers every view trains the same way.
CLASSIFIERS = ("lr", "transformer")
#: How texts are compared: put into one form (tokenised, lower-cased) when needed, always, or never.
TEXT_FORMS = TEXT_FORM_CHOICES
CLASSIFIER_LABELS = {"lr": "TF-IDF LR", "transformer": "MiniLM + head"}


def metrics(dataset: Dataset | None) -> list[str]:
    """Every metric the dataset can be scored with in its language (built-ins, each embedder preset's cosine, its columns)."""
    from stviz.languages.measures import offered_metrics
    from stviz.metrics import available_metrics

    return offered_metrics(available_metrics(dataset), dataset)


def content_metrics(dataset: Dataset | None) -> list[str]:
    """The metrics a single content-preservation axis can be (entity overlap enters through the NE merge)."""
    return [n for n in metrics(dataset) if n != NE_METRIC]


def with_entities(metric: str, with_ne: bool) -> str:
    """The metric's name, merged with named-entity overlap when asked (``NAME+ne``, Babakov et al.)."""
    from stviz.metrics import with_ne_merge

    return with_ne_merge([metric])[-1] if with_ne else metric


def ne_sources(dataset: Dataset) -> list[str]:
    """Where the NE merge can take its entities from: spaCy always, the file's columns when it has them."""
    from stviz.metrics.precomputed import AUTHORS_NE_COLUMNS

    has_columns = dataset.pairs is not None and all(c in dataset.pairs for c in AUTHORS_NE_COLUMNS)
    return list(NE_SOURCES) if has_columns else ["spacy"]


def lexicons(dataset: Dataset) -> dict[str, str]:
    """Where a style lexicon can come from for the dataset: spec -> description, its own first."""
    from stviz.measures.style.lexicon import lexicon_sources

    return lexicon_sources(dataset)


def can_modify(dataset: Dataset) -> bool:
    """Whether a style lexicon can be had for removal / masking (shipped, or learnable from labelled texts)."""
    return bool(lexicons(dataset))


def modifications(dataset: Dataset) -> list[str]:
    """The style-word modifications the dataset allows: all three with a lexicon to hand, else none."""
    return list(MODIFICATIONS) if can_modify(dataset) else ["none"]


__all__ = ["style_data", "TEXT_FORMS", "CLASSIFIERS", "CLASSIFIER_LABELS", "DIRECTIONS", "MODIFICATIONS", "MODIFICATION_LABELS", "NE_METRIC",
           "NE_SOURCES", "NE_SOURCE_LABELS", "can_modify", "content_metrics", "lexicons", "metrics", "modifications",
           "ne_sources", "with_entities"]


def style_data(dataset: Dataset) -> dict[str, str]:
    """Where a view's style classifier, language model and naturalness may learn from: value -> label."""
    from stviz.data import corpus_of
    from stviz.data.corpora.sources import is_installed
    from stviz.data.labels import AUTO, OWN, TEXT_CORPORA, training_dataset_for

    automatic = training_dataset_for(dataset).name
    offered = {AUTO: f"automatic ({'its own texts' if automatic == dataset.name else automatic})",
               OWN: f"{dataset.name}'s own inputs and references"}
    offered.update({name: name for name in TEXT_CORPORA if name != dataset.name and is_installed(corpus_of(name))})
    return offered


def style_columns(dataset: Dataset) -> dict[str, str]:
    """The dataset's own style columns (short name -> what their name says they measure), for the page's choice of
    what each measures (``--poles``)."""
    from stviz.data.schema import short_name
    from stviz.measures.content import column_axis
    from stviz.measures.style.poles import orientation_from_name

    out = {}
    for column in (dataset.metric_columns or []) if dataset.pairs is not None else []:
        if column_axis(column) == "style":
            found = orientation_from_name(column)
            out[short_name(column)] = found.describe() if found else "its name does not say"
    return out


def measure_axes(dataset: Dataset) -> dict[str, str]:
    """The dataset's own measures (short name -> the axis their name says, '' for none), for the page's choice of
    what each measures (``--axes``)."""
    from stviz.data.meanings import measure_axis
    from stviz.data.schema import short_name

    columns = (dataset.metric_columns or []) if dataset.pairs is not None else []
    return {short_name(c): measure_axis(c) or "" for c in columns}


def pair_styles(dataset: Dataset) -> list[str]:
    """The styles a pair set's columns name (target styles first): the poles a style column may measure."""
    pairs = dataset.pairs
    if pairs is None:
        return []
    found = [pairs[c].dropna().astype(str) for c in ("target_style", "source_style") if c in pairs]
    return list(dict.fromkeys(s for column in found for s in column.unique() if s.strip()))


__all__ += ["measure_axes", "pair_styles", "style_columns"]
