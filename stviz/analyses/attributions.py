"""Token attributions and style masking (Cloudera Fast Forward Labs 2022; Mir et al. 2019).

Integrated Gradients from the MiniLM style classifier colour each word of a pair's source and
output; the words making up the top X% of attribution mass (or a style lexicon's words) are
removed or replaced, and content preservation (embedding cosine) is measured on the masked texts
next to the unmasked ones. The masking sweep repeats this over thresholds and strategies on a
sample of pairs drawn across systems and settings, and correlates each setting with people.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.analyses.common import human_columns, pairs_reason, style_lexicon
from stviz.data.schema import DataError, Dataset, short_name
from stviz.progress import Reporter, reporter
from stviz.measures.tradeoffs import setting_value  # noqa: F401 - settings in hyper-parameter order, for pair pickers

TITLE = "Token attributions"
STRATEGIES = ("remove", "placeholder", "lexicon-remove", "lexicon-placeholder")
CONTENT_METRIC = "cosine:minilm"
#: The share of attribution mass above which the top word "stands out" when asked (1.5x an even spread).
STANDOUT = 1.5


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """Masking settings, the pair opened and the sweep sample (page controls, ``attribute`` flags)."""

    style: str | None = option(None, "style to attribute toward (default: each text's predicted style)")
    threshold: float = option(0.3, "share of attribution mass to mask (0-1)", low=0.01)
    strategy: str = option("remove", "remove or replace the top words; lexicon-*: mask a style lexicon's words "
                                     "instead", choices=STRATEGIES)
    placeholder: str = option("[PAD]", "replacement for masked words")
    standout: bool = option(False, f"mask nothing when the top word's share is below {STANDOUT}x an even spread")
    lexicon: str | None = option(None, "with lexicon-* strategies: 'dataset', learn[:DATASET][:K], a JSON file "
                                       "(default: the dataset's own)")
    pair: int | None = option(None, "the pair shown word by word (its row number)")
    sample: int = option(100, "pairs in the masking sweep, drawn across systems and settings (seeded)", low=1)
    sweep: bool = option(False, "run the masking sweep (Cloudera Fig. 5) on the sample")
    seed: int = option(0, "random seed of the sample")


@dataclass
class PairView:
    """One pair attributed word by word, masked, and scored."""

    pair: int
    attributions: dict  # "source" / "output" -> stviz.measures.style.attribution.WordAttribution
    masked: dict[str, str]  # "source" / "output" -> masked text
    chosen: dict[str, np.ndarray]  # "source" / "output" -> boolean mask over words
    content_unmasked: float
    content_masked: float


@dataclass
class Result:
    """The classifier, an opened pair, and (when asked) the masked sample and the sweep."""

    classifier: object  # stviz.measures.style.classifiers.TrainedClassifier
    pair: PairView | None = None
    masked: pd.DataFrame | None = None  # the sample: masked texts and content, unmasked and masked
    sweep: pd.DataFrame | None = None
    sweep_correlations: pd.DataFrame | None = None
    human: str | None = None
    notes: list[str] = field(default_factory=list)


#: Why Token attributions is English's only: what it reads are a MiniLM classifier's attributions.
ENGLISH_MODELS = ("this view's style classifier and content measure are the shipped all-MiniLM-L6-v2, trained on "
                  "English: its attributions would follow word pieces, not style. Available: Metrics vs humans, "
                  "Failure cases and the Leaderboard with the measures valid for the language (docs/languages.md).")


def applies_to(dataset: Dataset, english_only: str | None = ENGLISH_MODELS) -> str | None:
    """None when the dataset has pairs and two styles to train a classifier on, in English (``english_only``: why
    another language is not, said after the language's name; None: in any language)."""
    from stviz.data.labels import check_style_labels

    if reason := pairs_reason(dataset, "and this view compares a source with its rewrite"):
        return reason
    try:
        check_style_labels(dataset)
    except DataError as exc:
        return (f"{exc}. The other side of its pairs is system output, which cannot serve as examples of the "
                "target style. Not available here: token attributions, masking by attribution, style transfer "
                "intensity, naturalness. Available: content preservation against the human scores on Metrics vs "
                "humans and Failure cases.")
    if english_only is None:
        return None
    from stviz.languages import dataset_language, is_valid, language_name

    language = dataset_language(dataset).language
    if not is_valid(("en",), language):
        return f"the texts are in {language_name(language)}, and {english_only}"
    return None


def has_lexicon_source(dataset: Dataset) -> bool:
    """Whether a style lexicon can be had (shipped, or learned from labelled texts) for the lexicon strategies."""
    from stviz.analyses.choices import can_modify

    return can_modify(dataset)


def classifier(dataset: Dataset, progress: Reporter | None = None):
    """The (disk-cached) MiniLM style classifier the attributions explain."""
    from stviz.measures.style.classifiers import default_classifier

    return default_classifier(dataset, "transformer",
                              progress=reporter(progress).later("Training the MiniLM style classifier"))


def sample_pairs(pairs: pd.DataFrame, size: int, seed: int = 0) -> pd.DataFrame:
    """A seeded sample of ``size`` pairs stratified by system and setting (every group represented)."""
    from stviz.reduce import sample_rows

    groups = [c for c in ("system", "setting") if c in pairs]
    strata = pairs[groups].astype(str).agg(" ".join, axis=1) if groups else None
    return pairs.iloc[sample_rows(len(pairs), size, seed, strata)]


def run(dataset: Dataset, options: Options, progress: Reporter | None = None, trained=None) -> Result:
    """Train (or take) the classifier, open the chosen pair, and run the sweep when asked."""
    if reason := applies_to(dataset):
        raise NotApplicable(reason)
    report_to = reporter(progress)
    trained = trained or classifier(dataset, report_to)
    if options.style is not None and options.style not in trained.classes:
        raise DataError(f"the classifier knows the styles {', '.join(trained.classes)}, not '{options.style}'")
    lexicon = _lexicon(dataset, options)
    result = Result(trained)
    if options.pair is not None:
        result.pair = open_pair(dataset, options, trained, lexicon)
    if options.sweep:
        _sweep(dataset, options, trained, lexicon, report_to, result)
    report_to.finish()
    return result


def _lexicon(dataset: Dataset, options: Options):
    if not options.strategy.startswith("lexicon-"):
        return None
    lexicon, _ = style_lexicon(dataset, options.lexicon, f"the strategy {options.strategy}",
                               instead="choose the strategy remove or placeholder")
    return lexicon


def mask_text(text: str, attribution, options: Options, lexicon) -> tuple[str, np.ndarray]:
    """(masked text, words masked) by attribution mass or, for lexicon-* strategies, by the lexicon."""
    from stviz.measures.style.attribution import mask_by_attribution, mask_by_lexicon

    if options.strategy.startswith("lexicon-"):
        strategy = options.strategy.split("-", 1)[1]
        words = {w.lower() for w in lexicon}
        return (mask_by_lexicon([text], lexicon, strategy, options.placeholder)[0],
                np.array([w.lower() in words for w in attribution.words]))
    return mask_by_attribution(attribution, options.threshold, options.strategy, placeholder=options.placeholder,
                               standout=STANDOUT if options.standout else None)


def open_pair(dataset: Dataset, options: Options, trained, lexicon) -> PairView:
    """One pair's word attributions, masked texts and content preservation before and after masking."""
    from stviz.measures.style.attribution import attribute_text, content_preservation

    if options.pair not in dataset.pairs.index:
        raise DataError(f"there is no pair {options.pair}; pairs are numbered 0 to {len(dataset.pairs) - 1}")
    row = dataset.pairs.loc[options.pair]
    texts = {side: str(row[side]) for side in ("source", "output")}
    attributions = {side: attribute_text(text, trained, options.style) for side, text in texts.items()}
    masked, chosen = {}, {}
    for side, text in texts.items():
        masked[side], chosen[side] = mask_text(text, attributions[side], options, lexicon)
    unmasked = float(content_preservation([texts["source"]], [texts["output"]], CONTENT_METRIC)[0])
    after = float(content_preservation([masked["source"]], [masked["output"]], CONTENT_METRIC)[0])
    return PairView(options.pair, attributions, masked, chosen, unmasked, after)


def _sweep(dataset: Dataset, options: Options, trained, lexicon, report_to: Reporter, result: Result) -> None:
    """The masked sample at the chosen setting, the sweep over settings, and its correlations with people."""
    from stviz.measures.style.attribution import (attribute_texts, content_preservation, masking_sweep,
                                                  sweep_correlations)

    sample = sample_pairs(dataset.pairs, options.sample, options.seed)
    groups = [c for c in ("system", "setting") if c in sample]
    result.notes.append(f"the sweep uses {len(sample):,} of {len(dataset.pairs):,} pairs, a random sample (seed "
                        f"{options.seed})" + (f" stratified by {' and '.join(groups)}" if groups else ""))
    texts = list(dict.fromkeys(sample["source"].astype(str).tolist() + sample["output"].astype(str).tolist()))
    attributions = dict(zip(texts, attribute_texts(texts, trained, options.style, progress=report_to.later(
        f"Integrated Gradients for {len(texts):,} texts"))))
    masked = {t: mask_text(t, a, options, lexicon) for t, a in attributions.items()}
    sources, outputs = sample["source"].astype(str).tolist(), sample["output"].astype(str).tolist()
    table = sample[[c for c in ("system", "setting", "source", "output") if c in sample]].copy()
    table["masked_source"] = [masked[t][0] for t in sources]
    table["masked_output"] = [masked[t][0] for t in outputs]
    table["content_unmasked"] = content_preservation(sources, outputs, CONTENT_METRIC)
    table["content_masked"] = content_preservation(table["masked_source"], table["masked_output"], CONTENT_METRIC)
    result.masked = table
    result.sweep = masking_sweep(sample, trained, placeholder=options.placeholder,
                                 standout=STANDOUT if options.standout else None)
    humans = human_columns(dataset)
    if humans:
        result.human = humans[0]
        table = sweep_correlations(result.sweep, dataset.oriented_human(humans[0])[
            dataset.pairs.index.get_indexer(sample.index)])
        if table.empty:
            result.notes.append(f"{len(sample)} pairs are too few to correlate the sweep's settings with people")
        else:
            result.sweep_correlations = table
    else:
        result.notes.append("no human content score, so the sweep's settings cannot be compared with people")


def content_summary(masked: pd.DataFrame) -> pd.DataFrame:
    """Mean, median, min and max content preservation of the sample, unmasked and masked."""
    scores = masked[["content_unmasked", "content_masked"]]
    return scores.agg(["mean", "median", "min", "max"]).T.assign(pairs=len(scores))


def human_label(result: Result) -> str:
    """The human score the sweep is compared with, for titles."""
    return short_name(result.human) if result.human else ""


__all__ = ["has_lexicon_source", "setting_value", "CONTENT_METRIC", "Options", "PairView", "Result", "STRATEGIES", "TITLE", "applies_to", "classifier",
           "content_summary", "human_label", "mask_text", "open_pair", "run", "sample_pairs"]
