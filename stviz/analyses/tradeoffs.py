"""Tradeoffs (Mir et al. 2019, Figure 2 and Table 7): style transfer intensity against content
preservation and naturalness, one row per system and setting; how intensity measures agree with
human intensity; how the adversarial naturalness classifier agrees with raters; and intensity and
content of system outputs against human references (Cloudera Fast Forward Labs, Figs. 6 and 8)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.analyses import choices
from stviz.analyses.choices import CLASSIFIER_LABELS as KIND_LABELS, CLASSIFIERS as KINDS, MODIFICATIONS
from stviz.analyses.common import pairs_reason, style_lexicon
from stviz.data.schema import DataError, Dataset, short_name
from stviz.progress import Reporter, reporter

TITLE = "Tradeoffs"
NATURALNESS = ("unigram", "neural", "none")
HUMAN_INTENSITY = "human:style_transfer_intensity"
INTENSITY_MEASURES = ("direction_corrected_emd", "normalised_intensity", "target_style_probability",
                      "target_style_accuracy")
#: What each automatic measure of the table is, for axes and headers (human columns say "(human)").
MEASURE_LABELS = {
    "direction_corrected_emd": "style transfer intensity (direction-corrected EMD, higher = further toward the target)",
    "normalised_intensity": "normalised intensity (share of the possible move toward the target, higher = more)",
    "target_style_probability": "target-style probability of outputs (higher = more target-like)",
    "target_style_accuracy": "target-style accuracy (share of outputs classified as the target)",
    "emd": "EMD between source and output style (undirected, higher = more change)",
    "p_target_source": "target-style probability of sources",
    "p_human_output": "naturalness: P(human) of outputs (higher = more natural)",
    "p_human_source": "naturalness: P(human) of sources",
    "output_more_natural": "naturalness: share of outputs more natural than their input (higher = better)",
}


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """Classifier, content metric, modification and naturalness model (page controls, ``tradeoff`` flags)."""

    classifier_kind: str = option("lr", "style classifier: TF-IDF logistic regression or MiniLM + logistic head",
                                  choices=KINDS)
    classifier: str | None = option(None, "folder written by 'classify train' (default: a cached classifier trained "
                                          "on the dataset's companion corpus or its own style texts)", url=False)
    content_metric: str = option("cosine:minilm", "content-preservation metric name (any metric but 'ne', which "
                                                  "enters through --with-ne)")
    with_ne: bool = option(False, "merge the content metric with named-entity overlap, M*(1-p)+M_NE*p "
                                  "(Babakov et al.)")
    modification: str = option("none", "style-word modification before the content metric (needs a lexicon)",
                               choices=MODIFICATIONS)
    lexicon: str | None = option(None, "style lexicon for removal/masking: 'dataset', learn[:DATASET][:K], a JSON "
                                       "file (default: the dataset's own)")
    naturalness: str = option("unigram", "adversarial naturalness classifier", choices=NATURALNESS)


@dataclass
class Result:
    """Per-pair measures, the per-setting table, and the comparisons with people and references."""

    classifier: object  # stviz.measures.style.classifiers.TrainedClassifier
    per_pair: pd.DataFrame
    table: pd.DataFrame  # one row per system (and setting): means, human means, n
    content_label: str
    intensity_vs_human: pd.DataFrame | None = None  # Mir et al. Table 7
    naturalness_agreement: pd.DataFrame | None = None
    references: pd.DataFrame | None = None  # measures of the human references, for the distributions
    notes: list[str] = field(default_factory=list)

    def axis_label(self, column: str) -> str:
        """What a column of the table is, with its direction; human scores marked '(human)'."""
        if column == "content_preservation":
            return self.content_label
        if str(column).startswith("human:"):
            return f"{short_name(column).replace('_', ' ')} (human, higher = more)"
        return MEASURE_LABELS.get(column, column)

    @property
    def axes(self) -> list[str]:
        """The table's columns that can be plotted (every row has a value somewhere), automatic ones first."""
        # p_target_output is target_style_probability under another name: offered once.
        columns = [c for c in self.table.columns if c not in ("n", "p_target_output") and self.table[c].notna().any()]
        return ([c for c in columns if not str(c).startswith("human:")]
                + [c for c in columns if str(c).startswith("human:")])


#: The choices whose models are English's (MiniLM): in another language the TF-IDF classifier learned from the set's
#: own texts and the unigram naturalness classifier take their place.
ENGLISH_KINDS, ENGLISH_NATURALNESS = ("transformer",), ("neural",)


def applies_to(dataset: Dataset) -> str | None:
    """None when the pairs have a target style and a style classifier can be trained on them, in any language."""
    from stviz.analyses.attributions import applies_to as classifier_applies

    if reason := pairs_reason(dataset, "and tradeoffs compare system outputs with their sources"):
        return reason
    if "target_style" not in dataset.pairs:
        return (f"{dataset.title or dataset.name} has pairs without a target-style column. Tradeoffs measure how far "
                "outputs move toward a target style: choose the demo, Mir et al. Yelp outputs or Li et al. 2018, or "
                "upload pairs with a target-style column.")
    return classifier_applies(dataset, english_only=None)


def _english(dataset: Dataset) -> bool:
    from stviz.languages import dataset_language, is_valid

    return is_valid(("en",), dataset_language(dataset).language)


def offered_kinds(dataset: Dataset) -> tuple[str, ...]:
    """The style classifiers valid for the dataset's language (MiniLM's head is English's)."""
    return KINDS if _english(dataset) else tuple(k for k in KINDS if k not in ENGLISH_KINDS)


def offered_naturalness(dataset: Dataset) -> tuple[str, ...]:
    """The naturalness classifiers valid for the dataset's language (the MLP on MiniLM vectors is English's)."""
    return NATURALNESS if _english(dataset) else tuple(n for n in NATURALNESS if n not in ENGLISH_NATURALNESS)


def for_language(dataset: Dataset, options: Options) -> tuple[Options, list[str]]:
    """The options with each choice valid for the dataset's language, and a note for each one replaced: the content
    metric by the language's encoder's cosine (else chrF), MiniLM's classifiers by the TF-IDF and unigram ones."""
    from stviz.languages import dataset_language, language_name
    from stviz.languages.measures import board_encoder, fit_metric

    code = dataset_language(dataset).language
    encoder = board_encoder("auto", code)
    metric, notes = fit_metric(dataset, options.content_metric, f"cosine:{encoder}" if encoder else "chrf")
    options, kind_notes = fit_kind(dataset, options.changed(content_metric=metric))
    notes += kind_notes
    if options.naturalness not in offered_naturalness(dataset):
        notes.append(f"the {options.naturalness} naturalness classifier reads MiniLM's English vectors and the texts "
                     f"are in {language_name(code)}: the unigram one is used in its place")
        options = options.changed(naturalness="unigram")
    return options, notes


def fit_kind(dataset: Dataset, options: Options) -> tuple[Options, list[str]]:
    """The options with a style classifier valid for the dataset's language (a folder given is the user's), and the
    note when MiniLM's head was asked for texts in another language."""
    from stviz.languages import dataset_language, language_name

    if options.classifier_kind in offered_kinds(dataset) or options.classifier:
        return options, []
    return options.changed(classifier_kind="lr"), [
        f"the {KIND_LABELS[options.classifier_kind]} style classifier is English's and the texts are in "
        f"{language_name(dataset_language(dataset).language)}: the {KIND_LABELS['lr']} classifier learned from the "
        "set's own texts is used in its place"]


def classifier(dataset: Dataset, options: Options, progress: Reporter | None = None, style_texts=None):
    """The style classifier: the folder given; else, where the style texts are the pairs' own, the own-text classifier
    cross-fitted so no pair is judged by a model that saw its input; else the (disk-cached) default for the dataset."""
    from stviz.data.labels import StyleTexts
    from stviz.measures.style.classifiers import default_classifier, load_classifier
    from stviz.measures.style.own_text import cross_fitted_classifier

    if options.classifier:
        return load_classifier(options.classifier)
    stage = reporter(progress).later(f"Training the {KIND_LABELS[options.classifier_kind]} style classifier")
    style_texts = style_texts or StyleTexts.resolve(dataset)
    fallback = ""
    if options.classifier_kind == "lr" and style_texts.from_pairs:
        try:
            return cross_fitted_classifier(dataset, progress=stage)
        except DataError as exc:  # too few texts in a half: one model of them all, said
            fallback = (f"the style classifier could not be cross-fitted ({exc}): it learned from every input, so it "
                        "has seen the input of each output it judges, and its intensities lean toward the source style")
    trained = default_classifier(dataset, options.classifier_kind, style_texts=style_texts, progress=stage)
    if fallback:
        trained = dataclasses.replace(trained, notes=[*trained.notes, fallback])
    return trained


def content_metric(options: Options) -> str:
    """The content metric's full name: the chosen metric, merged with named-entity overlap when asked."""
    if options.content_metric == choices.NE_METRIC:
        raise DataError("'ne' (named-entity overlap alone) is not a content metric here: choose a metric and merge "
                        "it with the entities (with_ne, --with-ne)")
    return choices.with_entities(options.content_metric, options.with_ne)


def run(dataset: Dataset, options: Options, progress: Reporter | None = None, trained=None) -> Result:
    """Intensity, content and naturalness per pair, the per-setting table and the comparisons."""
    from stviz.data.labels import StyleTexts
    from stviz.formatting import higher_label
    from stviz.metrics import get_card
    from stviz.measures.fluency.naturalness import NATURALNESS_RELATIVE, naturalness_agreement
    from stviz.measures.style.intensity import correlation_with_humans
    from stviz.measures.tradeoffs import tradeoff_pairs, tradeoff_table

    if reason := applies_to(dataset):
        raise NotApplicable(reason)
    report_to = reporter(progress)
    options, language_notes = for_language(dataset, options)  # each choice valid for the texts' language
    metric = content_metric(options)
    style_texts = StyleTexts.resolve(dataset)  # once: the classifier and naturalness learn from the same corpus
    trained = trained or classifier(dataset, options, report_to, style_texts)
    lexicon = (style_lexicon(dataset, options.lexicon, f"'{options.modification}'")[0]
               if options.modification != "none" else None)
    naturalness = None if options.naturalness == "none" else options.naturalness
    card = get_card(metric)
    pairs = dataset.pairs
    per_pair = tradeoff_pairs(pairs, trained, content_metric=metric,
                              modification=options.modification, lexicon=lexicon, naturalness=naturalness,
                              human_texts=style_texts.naturalness_texts() if naturalness else (),
                              progress=report_to)
    result = Result(trained, per_pair, tradeoff_table(pairs, per_pair),
                    f"content preservation ({higher_label(card.label, card.higher_is_better)})")
    result.notes += language_notes + list(getattr(trained, "notes", []))
    if HUMAN_INTENSITY in pairs:
        result.intensity_vs_human = correlation_with_humans(pairs, per_pair, measures=INTENSITY_MEASURES)
    if naturalness and NATURALNESS_RELATIVE in pairs:
        result.naturalness_agreement = naturalness_agreement(pairs, per_pair)
    result.references = reference_measures(dataset, trained, options, lexicon)
    if result.table.isna().any().any():
        result.notes.append("'–' in the table: no value for that row (e.g. a human score the raters did not give "
                            "for that setting)")
    report_to.finish()
    return result


def intensity(dataset: Dataset, options: Options, progress: Reporter | None = None):
    """Per-pair style transfer intensity (with the pairs' labels), its mean per system / setting, the classifier, and
    notes (a choice replaced for the language, a classifier that could not be cross-fitted)."""
    from stviz.measures.style.intensity import style_transfer_intensity
    from stviz.measures.tradeoffs import order_settings

    if reason := applies_to(dataset):
        raise NotApplicable(reason)
    report_to = reporter(progress)
    options, notes = fit_kind(dataset, options)
    trained = classifier(dataset, options, report_to)
    notes += list(getattr(trained, "notes", []))
    pairs = dataset.pairs
    scores = style_transfer_intensity(pairs, trained, progress=report_to.later("Style distributions"))
    keep = [c for c in ("source", "output", "system", "setting", "source_style", "target_style") if c in pairs]
    out = pd.concat([pairs[keep], scores], axis=1)
    keys = [k for k in ("system", "setting") if k in pairs]
    if keys:
        # One readable row per system/setting (settings in hyper-parameter order), not tuple-valued index cells.
        summary = order_settings(out.groupby(keys, sort=False)[list(scores.columns)].mean())
        summary = summary.reset_index().set_index(keys[0])
    else:
        summary = scores.mean().to_frame("mean").T
    report_to.finish()
    return out, summary, trained, notes


def reference_measures(dataset: Dataset, trained, options: Options, lexicon) -> pd.DataFrame | None:
    """Intensity (and content, unless the metric is a precomputed column) of the human references."""
    from stviz.measures.style.intensity import style_transfer_intensity
    from stviz.metrics import get_card, metric_frame

    pairs = dataset.pairs
    if "reference" not in pairs or pairs["reference"].isna().all():
        return None
    refs = pairs[pairs["reference"].notna()].drop_duplicates(["source", "reference"])
    ref_pairs = refs.assign(output=refs["reference"])
    scores = style_transfer_intensity(ref_pairs, trained)
    metric = content_metric(options)
    card = get_card(metric)
    # A precomputed metric column belongs to the system outputs: it cannot score the references.
    if not card.precomputed:
        content = metric_frame(ref_pairs, [metric], modification=options.modification, lexicon=lexicon)[metric]
        scores["content_preservation"] = content if card.higher_is_better else -content
    return scores


def readable_table(result: Result) -> pd.DataFrame:
    """The per-setting table for people: every column numeric, human columns named as such."""
    shown = result.table.apply(pd.to_numeric, errors="coerce")
    return shown.rename(columns=lambda c: f"{short_name(c)} (human)" if str(c).startswith("human:") else c)


__all__ = ["HUMAN_INTENSITY", "INTENSITY_MEASURES", "KINDS", "KIND_LABELS", "MEASURE_LABELS", "NATURALNESS", "Options",
           "Result", "TITLE", "applies_to", "classifier", "content_metric", "fit_kind", "for_language", "intensity",
           "offered_kinds", "offered_naturalness", "readable_table", "reference_measures", "run"]
