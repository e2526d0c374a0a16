"""Meta-evaluation: which automatic measure agrees with people, per aspect, across every human-rated set.

For each chosen set and each human column (mapped to an aspect: content, style, fluency, overall),
the measures of that aspect are correlated with the ratings at the sentence level (Pearson /
Spearman / Kendall, bootstrap intervals over items) and, for sets with systems, at the system level
(correlation of system means and pairwise accuracy, Kocmi et al. 2021; intervals from resampling the
items within systems, Deutsch et al. 2021), as Lai et al. (2022) report for formality transfer. The
measures not significantly worse than the best (paired resampling test; Williams' test beside it at
the sentence level) form the best group; an aggregate over sets gives each measure's mean rank, wins
and best-group share per aspect. Per set, a measure x measure rank-agreement matrix and sanity flags
on precomputed columns whose values disagree with their names.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.analyses.meta_notes import (HOW, NOT_CHECKED, NOT_COMPUTED, ORIENTATION, Said, every_note, grouped,
                                       needs_direction, notes_by_title, part_name, parts_reporter, said_of,
                                       skipped_kind, undirected_names)
from stviz.analyses.meta_measures import ASPECTS, NO_ASPECT, human_aspects, measure_set, parse_aspects, parse_axes
from stviz.analyses.meta_tables import (axis_text, best_groups, heatmap_frame, only_languages,  # noqa: F401
                                        raters_agreement, readable_aggregate, readable_table, with_axes)
from stviz.cache import default_cache
from stviz.data.schema import DataError, Dataset, short_name
from stviz.measures.style.poles import POLES_HELP, parse_poles
from stviz.meta.system import METHODS, STATISTIC_LABELS, SYSTEM_STATISTICS, system_units  # noqa: F401
from stviz.progress import Reporter, reporter

TITLE = "Meta-evaluation"
#: Bump when anything this analysis caches changes.
CACHE_VERSION = 2
#: The public human-rated sets stviz reads, in the order they are listed.
HUMAN_RATED = ("sgdd-tst", "mir-yelp", "li2018-yelp", "li2018-amazon", "li2018-captions", "russe2022-humaneval",
               "informal")
#: Public rated sentences offered beside them (not run by default: they compare style scorers, not system outputs).
RATED_SENTENCES = ("pt16-train", "pt16-test")
LEVELS = ("sentence", "system")


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """Which sets, aspects, measures, levels and statistics (the page's controls, ``meta-eval`` flags)."""

    datasets: tuple[str, ...] | None = option(
        None, "human-rated sets: names (see 'data list') or, on the command line, pair files (default: every "
              "installed public human-rated set)")
    aspects: tuple[str, ...] = option((), "aspect of a human column, COLUMN=ASPECT with ASPECT content, style, "
                                          "fluency, overall or none (default: guessed from the column's name)")
    metrics: tuple[str, ...] | None = option(None, "content metrics (default: as Metrics vs humans, with each "
                                                   "set's own metric columns)")
    levels: tuple[str, ...] = option(LEVELS, "sentence level, system level (sets with systems)", choices=LEVELS,
                                     flag="--level")
    methods: tuple[str, ...] = option(METHODS, "correlations", choices=METHODS, flag="--method")
    bootstrap: int = option(200, "resamples for the 95% intervals and the paired tests", low=10)
    alpha: float = option(0.05, "significance level of the best group", low=0.0001)
    seed: int = option(0, "random seed of resampling (and of --max-pairs' sample)")
    direction: str = option("", "transfer direction of pair sets without style columns, for every pair "
                                "('informal>formal') or per system ('A=informal>formal;B=formal>informal'); needed "
                                "by style and fluency measures, said in every output")
    language_model: str = option("ngram", "fluency's language model: 'ngram' (offline Kneser-Ney trigram on "
                                          "target-style texts), hf:MODEL (a causal LM's perplexity) or mlm:MODEL "
                                          "(a masked LM's pseudo-perplexity); by id or folder, ids need internet")
    style_scorers: tuple[str, ...] = option((), "style scorers: a saved scorer's NAME (classify train --ratings; "
                                                 "pt16-formality, the public formality regressor, is used by itself "
                                                 "for formal/informal targets), or a classifier's probability of a "
                                                 "class: a classify-train FOLDER:CLASS or learn:DATASET:CLASS; beside "
                                                 "the regressors learned from rated sentences, and on pairs turned "
                                                 "toward each pair's target", flag="--style-scorer")
    poles: tuple[str, ...] = option((), POLES_HELP)
    axes: tuple[str, ...] = option((), "what a set's own measure (a precomputed column) measures, COLUMN=AXIS with "
                                       "AXIS content, style, fluency, overall, or any (compared with every aspect, a "
                                       "candidate on each); default: read from its name, and a name that says no axis "
                                       "is any. Every such column is shown on every aspect; the best of an aspect is "
                                       "chosen among those of its axis and of none")
    language: str = option("", "compare only this language's pairs of every set (an ISO 639 code or a name: uk, "
                               "Ukrainian); default: a set of several languages gives one table per language")
    pooled: bool = option(False, "also evaluate every set of several languages with its languages pooled (marked "
                                 "'all languages'; a correlation across languages also ranks the languages)")
    max_pairs: int | None = option(None, "evaluate a seeded random sample of at most this many pairs per set, "
                                         "whole inputs stratified by system and setting (default: every pair)", low=1)

    def __post_init__(self) -> None:
        super().__post_init__()
        parse_aspects(self.aspects)  # a bad COLUMN=ASPECT fails here, before any work
        parse_axes(self.axes)  # and a bad COLUMN=AXIS
        parse_poles(self.poles)  # and so does a bad COLUMN=POLE
        from stviz.measures.fluency.language_models import parse_lm

        parse_lm(self.language_model)  # so does an unknown language model


@dataclass
class Result:
    """The tidy statistics of every set, the aggregate, and per set the agreement matrix and flags."""

    table: pd.DataFrame  # set, human, aspect, level, statistic, metric, n, r, ci_low, ci_high, p_value, ...
    aggregate: pd.DataFrame  # aspect, level, statistic, metric, mean_rank, wins, in_best_group, tasks
    labels: dict[str, str]  # measure name -> label
    aspects: dict[str, dict[str, str]]  # set -> human column -> aspect
    agreement: dict[str, pd.DataFrame] = field(default_factory=dict)  # set -> measure x measure Spearman rho
    flags: pd.DataFrame = field(default_factory=pd.DataFrame)  # set, column, kind, other, rho, reason, message
    skipped: pd.DataFrame = field(default_factory=pd.DataFrame)  # set, what, why
    notes: list[str] = field(default_factory=list)  # every note, each once per set with its languages (below)
    orientation: list[str] = field(default_factory=list)  # how each style measure of one pole was turned, per set
    #: Sets with style or fluency ratings and no direction: stviz's own style and fluency measures wait for it.
    undirected: list[str] = field(default_factory=list)
    raters: list[str] = field(default_factory=list)  # each set's raters' alpha, said (raters_agreement)
    said: list[Said] = field(default_factory=list)  # every note of every evaluated set, by kind (meta_notes)

    def __post_init__(self) -> None:
        if self.said:  # notes and orientation are said once per set with their languages
            self.notes, self.orientation = every_note(self.said), grouped(self.said, (ORIENTATION,))

    @property
    def sets(self) -> list[str]:
        """The sets evaluated, in the order chosen."""
        return list(self.aspects)


def installed_sets(names: Sequence[str] = HUMAN_RATED) -> list[str]:
    """The public human-rated sets installed here (of ``names``)."""
    from stviz.data import available_datasets

    here = {info.name for info in available_datasets() if info.available}
    return [name for name in names if name in here]


def dataset_choices(current: Dataset | None = None) -> list[str]:
    """The sets a user can choose: installed public ones (rated sentences too), the demo, and the current dataset
    when it is rated."""
    from stviz.analyses.common import human_columns
    from stviz.data.intake.rated_sentences import sentence_ratings

    names = installed_sets() + installed_sets(RATED_SENTENCES) + ["demo"]
    if current is not None and current.name not in names and (human_columns(current) or sentence_ratings(current)):
        names.append(current.name)
    return names


def default_sets(current: Dataset | None = None) -> list[str]:
    """What runs unless chosen: the installed public sets (the demo when none is) and a rated upload."""
    from stviz.data import DATASET_NAMES

    names = installed_sets() or ["demo"]
    if current is not None and current.name not in DATASET_NAMES and current.name in dataset_choices(current):
        names.append(current.name)
    return names


def applies_to(dataset: Dataset | None) -> str | None:
    """None: the view compares the public human-rated sets (or the demo) whatever the current dataset is."""
    return None


def resolve_sets(dataset: Dataset | None, options: Options, uploads: Sequence[Dataset] = ()) -> list[Dataset]:
    """The datasets to evaluate: the current one and uploads by name, the rest loaded by name."""
    from stviz.analyses.common import human_columns
    from stviz.data import load_dataset
    from stviz.data.intake.rated_sentences import sentence_ratings

    given = {d.name: d for d in ([dataset] if dataset is not None else []) + list(uploads)}
    names = list(dict.fromkeys(options.datasets or default_sets(dataset)))
    sets = [given[name] if name in given else load_dataset(name) for name in names]
    unrated = [d.name for d in sets if not human_columns(d) and not sentence_ratings(d)]
    if unrated:
        raise NotApplicable(f"{', '.join(unrated)} has no numeric human scores, so there is nothing to meta-evaluate "
                            f"against; choose human-rated sets ({', '.join(HUMAN_RATED)}, demo) or upload pairs with "
                            "a human-score column")
    return [_sampled(part, options) for ds in sets for part in _languages(_directed(ds, options.direction), options)]


#: The language column's value of a pooled evaluation (every language of a set together).
POOLED = "all languages"


def _languages(ds: Dataset, options: Options) -> list[Dataset]:
    """The set's pairs per language, one part each (named 'SET [code]'), or the language ``options.language`` names;
    with ``pooled`` a mixed set once more whole ('SET [all languages]'). Never changes the dataset it is given (a
    loaded corpus or the session's upload is shared)."""
    from stviz.languages import language_parts, with_language
    from stviz.languages.detect import pooled

    if ds.pairs is None:
        return [ds]
    if options.language:
        ds = with_language(ds, options.language)
    parts = language_parts(ds)
    if len(parts) == 1:
        return parts
    named = [_renamed(part, f"{ds.name} [{part_code(part)}]") for part in parts]
    return named + ([_renamed(pooled(ds), f"{ds.name} [{POOLED}]")] if options.pooled else [])


def _renamed(ds: Dataset, name: str) -> Dataset:
    """A copy of a dataset (its kept language report too) under another name."""
    out = dataclasses.replace(ds, name=name)
    out.__dict__.update({k: v for k, v in ds.__dict__.items() if k.startswith("_language")})
    return out


def part_code(ds: Dataset) -> str:
    """The language of a set's pairs (a part's), or :data:`POOLED` for a set of several."""
    from stviz.languages import dataset_language

    report = dataset_language(ds)
    return report.language if not report.mixed else POOLED


def _directed(ds: Dataset, direction: str) -> Dataset:
    """A pair set without style columns with the direction given (said in its notes); any other set as it is."""
    if not direction or ds.pairs is None or "target_style" in ds.pairs:
        return ds
    from stviz.data.intake.file_direction import apply_direction

    return apply_direction(ds, direction)


def _sampled(ds: Dataset, options: Options) -> Dataset:
    """The set itself, or with ``max_pairs`` a seeded sample of it: whole inputs (every system's output for them,
    so systems are still compared on the same inputs), stratified by system and setting."""
    if ds.pairs is None or not options.max_pairs or len(ds.pairs) <= options.max_pairs:
        return ds
    from stviz.analyses.preview import sample_dataset

    return sample_dataset(ds, options.max_pairs, by=("system", "setting"), seed=options.seed,
                          unit="source" if "system" in ds.pairs else None)


def preview_total(dataset: Dataset | None, options: Options, uploads: Sequence[Dataset] = ()) -> list[int]:
    """The pairs evaluated in each chosen set (a preview evaluates a sample of each through ``max_pairs``)."""
    return [len(ds.pairs if ds.pairs is not None else ds.texts) for ds in resolve_sets(dataset, options, uploads)]


def estimate(dataset: Dataset | None, options: Options, uploads: Sequence[Dataset] = ()):
    """The uncached work: the content metrics the cache lacks on every chosen set (style and fluency not priced)."""
    from stviz.analyses import metrics_vs_humans
    from stviz.costs import Cost

    cost = Cost()
    for ds in resolve_sets(dataset, options, uploads):
        if ds.pairs is None:
            continue  # rated sentences: regressors on TF-IDF and cached MiniLM vectors, seconds
        part = metrics_vs_humans.estimate(ds, metrics_vs_humans.Options(metrics=options.metrics))
        cost.merge(part, prefix=f"{ds.name}: ")
    return cost


def run(dataset: Dataset | None, options: Options, progress: Reporter | None = None,
        uploads: Sequence[Dataset] = ()) -> Result:
    """Evaluate every chosen set, then aggregate per aspect (see the module docstring)."""
    from stviz.languages import dataset_language
    from stviz.meta.system import aggregate

    report_to = reporter(progress)
    overrides = parse_aspects(options.aspects)
    sets = resolve_sets(dataset, options, uploads)
    rated = check_sets(sets, overrides, options)  # everything that will be refused is refused here, before any measure
    tables, labels, aspects, agreement, flags, skipped, said = [], {}, {}, {}, [], [], []
    undirected = [ds.name for ds in sets if ds.pairs is not None and needs_direction(ds, rated[ds.name])]
    parts = parts_reporter(report_to, sets)
    for index, ds in enumerate(sets):
        parts.part(index, part_name(ds))
        evaluate = evaluate_set if ds.pairs is not None else evaluate_sentences
        part = evaluate(ds, rated[ds.name], options, parts)
        tables.append(part["table"].assign(set=ds.name, language=part_code(ds) if ds.pairs is not None else ""))
        labels.update(part["labels"])
        aspects[ds.name] = part["aspects"]
        agreement[ds.name] = part["agreement"]
        flags += [dict(f, set=ds.name) for f in part["flags"]]
        skipped += [{"set": ds.name, "what": what, "why": why} for what, why in part["skipped"]]
        told = [(HOW, dataset_language(ds).line())] + ([(HOW, ds.direction)] if ds.direction else [])
        code = part_code(ds) if ds.pairs is not None else ""
        said += said_of(ds.name, code, told + part["notes"] + [(ORIENTATION, n) for n in part.get("orientation", [])]
                        + [(skipped_kind(why), why) for _, why in part["skipped"]])
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    table = table[["set", "language"] + [c for c in table.columns if c not in ("set", "language")]]
    report_to.finish()
    # The aggregate ranks each aspect's candidates (its axis and none): a content measure is no style winner.
    ranked = aggregate(table[table["candidate"].astype(bool)]) if not table.empty else aggregate(table)
    return Result(table, ranked, labels, aspects, agreement, pd.DataFrame(flags), pd.DataFrame(skipped),
                  undirected=undirected, raters=raters_agreement(sets), said=said)


def check_sets(sets: Sequence[Dataset], overrides: dict[str, str], options: Options | None = None
               ) -> dict[str, dict[str, str]]:
    """Each set's human columns and aspects, or a refusal naming the fix: ``--aspects`` or ``--poles`` naming no
    column, a set whose every rating is 'none', style or fluency ratings without a transfer direction."""
    from stviz.data.intake.rated_sentences import sentence_ratings
    from stviz.measures.style.orient import SCORER_PREFIX, check_declared
    from stviz.measures.style.poles import parse_poles

    if options is not None and options.poles:
        columns = [c for ds in sets for c in (ds.metric_columns or [])]
        check_declared(parse_poles(options.poles), columns + [SCORER_PREFIX + s for s in options.style_scorers],
                       "the chosen sets")
    if options is not None and options.axes:
        offered = {short_name(c) for ds in sets for c in (ds.metric_columns or [])}
        if unknown := sorted(set(parse_axes(options.axes)) - offered):
            raise DataError(f"--axes names {', '.join(unknown)}, which the chosen sets do not have; their own "
                            f"measures: {', '.join(sorted(offered)) or 'none'}")

    rated = {ds.name: human_aspects(ds, overrides) if ds.pairs is not None
             else {c: overrides.get(short_name(c), "style") for c in sentence_ratings(ds)} for ds in sets}
    known = {short_name(c) for aspects in rated.values() for c in aspects}
    if unknown := sorted(set(overrides) - known):
        raise DataError(f"--aspects names {', '.join(unknown)}, which no chosen set has; their human columns: "
                        f"{', '.join(sorted(known)) or 'none'}")
    for ds in sets:
        aspects = rated[ds.name]
        if all(a == NO_ASPECT for a in aspects.values()):
            raise NotApplicable(f"{ds.name}: every human column is set to aspect 'none', so nothing is left to "
                                "meta-evaluate")
        if ds.pairs is None:
            if other := sorted(short_name(c) for c, a in aspects.items() if a not in ("style", NO_ASPECT)):
                raise DataError(f"{ds.name}: rated sentences are compared with style scorers only; "
                                f"{', '.join(other)} cannot be content or fluency here (--aspects COLUMN=style)")
    return rated


def evaluate_set(ds: Dataset, aspects: dict[str, str], options: Options, progress: Reporter) -> dict:
    """One set: its measures (cached where they are computed), then the statistics (cached here)."""
    from stviz.meta.sanity import constant_rating, identified, rank_agreement, reference_values, sanity_flags, unchecked
    from stviz.metrics import metric_label

    measures = measure_set(ds, aspects, options.metrics, progress, options.language_model, options.poles,
                           options.style_scorers, options.axes)
    rated = {h: a for h, a in aspects.items() if a != NO_ASPECT}
    notes = [f"'{short_name(h)}' is not meta-evaluated (aspect none: it rates the input, or was set so)"
             for h, a in aspects.items() if a == NO_ASPECT]
    notes += [n for n in [needs_direction(ds, rated), *(constant_rating(h, ds.pairs[h]) for h in rated)] if n]
    units = system_units(ds.pairs)
    if "system" in options.levels and units is None:
        notes.append("no system level: the set has no systems (or fewer than three)")
    notes = [(NOT_COMPUTED, n) for n in notes]
    frame = measures.oriented.assign(**{h: ds.oriented_human(h) for h in rated})
    if units is not None:
        frame["__system__"] = units
    candidates = {a: measures.candidates(a) for a in ASPECTS}
    key = {"data": frame.reset_index(drop=True), "aspects": rated, "by_aspect": measures.by_aspect,
           "candidates": candidates, "levels": list(options.levels), "methods": list(options.methods),
           "n": options.bootstrap, "alpha": options.alpha, "seed": options.seed}
    step = progress.later(f"{ds.name}: correlations, intervals and tests")
    table = default_cache().memo("meta-evaluation", key, lambda: _statistics(frame, rated, measures.by_aspect,
                                                                           options, step, candidates),
                                 version=CACHE_VERSION)
    table = with_axes(table, measures.axes)
    # Flags read the columns as given (every aspect's), beside stviz's source- and reference-side namesakes; the
    # matrix shown is oriented (higher = better), as its labels say.
    outputs = ds.pairs["output"].astype(str).tolist()
    checked = measures.raw.join(reference_values(measures.raw, ds.pairs))
    labels = dict(measures.labels, **{c: metric_label(c) for c in checked.columns if c not in measures.labels})
    found = sanity_flags(checked, ds.pairs["source"].astype(str).tolist(), outputs) + _direction_flags(ds, measures,
                                                                                                     rated)
    agreement = rank_agreement(measures.oriented)
    # A style column is checked against the pairs' directions (direction flags) where style ratings and targets are.
    direction_checked = ({c for c, (axis, _) in measures.axes.items() if axis == "style"}
                         if "target_style" in ds.pairs and "style" in rated.values() else set())
    flags = [{"column": f.column, "kind": f.kind, "other": f.other, "rho": f.rho,
              "reason": f.reason or (f"ranks as {f.twin}" if f.twin else ""), "message": f.message(labels)}
             for f in found]
    return {"table": table, "labels": measures.labels, "aspects": aspects, "flags": flags,
            "agreement": agreement.rename(index=measures.labels, columns=measures.labels),
            "skipped": measures.skipped, "orientation": measures.notes, "notes": notes + [(HOW, n) for n in identified(
                checked)] + [(NOT_CHECKED, n) for n in unchecked(checked, [c for c in ds.metric_columns
                                                                           if c not in direction_checked])]}


def _direction_flags(ds: Dataset, measures, rated: dict[str, str]) -> list:
    """Style columns nobody declared whose values (as compared) follow the pairs' direction more than a style rating."""
    from stviz.meta.sanity import direction_flags

    if "target_style" not in ds.pairs:
        return []
    columns = [c for c in measures.by_aspect["style"] if str(c).startswith("metric:") and c not in measures.declared]
    humans = {h: ds.oriented_human(h) for h, a in rated.items() if a == "style"}
    return direction_flags(measures.oriented, columns, ds.pairs["target_style"].astype(str).tolist(), humans)


def evaluate_sentences(ds: Dataset, aspects: dict[str, str], options: Options, progress: Reporter) -> dict:
    """Rated sentences: regressors learned from the ratings (held-out folds) and named style scorers, against the
    ratings at the sentence level (there are no systems), with the same intervals, tests and best groups."""
    from stviz.data.meanings import measure_axis
    from stviz.languages import dataset_language
    from stviz.languages.cards import is_valid, language_name
    from stviz.measures.style.classifiers.scorers import REGRESSORS, cross_validated
    from stviz.measures.style.scoring import score_texts

    rated = {h: a for h, a in aspects.items() if a != NO_ASPECT}
    texts = ds.texts["text"].astype(str).tolist()
    frame, labels, skipped, maes, said = pd.DataFrame(index=ds.texts.index), {}, [], [], []
    language = dataset_language(ds).language
    english = is_valid(("en",), language)
    for human in rated:
        scores = ds.texts[human].to_numpy(float)
        for kind in REGRESSORS:
            if kind == "ridge-minilm" and not english:  # MiniLM's vectors are English-only (docs/languages.md)
                skipped.append(("style", f"{REGRESSORS[kind]} left out: MiniLM is English-only and these sentences "
                                         f"are in {language_name(language)}"))
                continue
            step = progress.later(f"{ds.name}: {REGRESSORS[kind]}, cross-validated on '{short_name(human)}'")
            held = cross_validated(texts, scores, kind, seed=options.seed)
            name = f"{kind}:{short_name(human)}" if len(rated) > 1 else kind
            frame[name], labels[name] = held.values, held.label
            maes.append(f"{REGRESSORS[kind]}: MAE {held.mae:.2f} on '{short_name(human)}' ({held.folds} folds)")
            step(1, 1)
    for spec in options.style_scorers:
        try:
            scored = score_texts(spec, texts, hint=" ".join(short_name(h) for h in rated))
        except DataError as exc:
            skipped.append(("style", f"style scorer {spec} not used: {exc}"))
            continue
        frame[scored.name], labels[scored.name] = scored.values, scored.label
        said += scored.notes
    for column in (c for c in ds.texts.columns if str(c).startswith("metric:")):
        frame[column], labels[column] = ds.texts[column].astype(float), f"{short_name(column)} (precomputed)"
    data = frame.assign(**{h: ds.texts[h].astype(float) for h in rated})
    sentence_only = dataclasses.replace(options, levels=("sentence",))
    key = {"data": data.reset_index(drop=True), "aspects": rated, "methods": list(options.methods),
           "n": options.bootstrap, "alpha": options.alpha, "seed": options.seed, "kind": "rated sentences"}
    by_aspect = {a: list(frame.columns) if a == "style" else [] for a in ASPECTS}
    table = default_cache().memo("meta-evaluation", key, lambda: _statistics(data, rated, by_aspect, sentence_only),
                                 version=CACHE_VERSION)
    # Rated sentences are compared on style only: regressors and scorers are style measures of stviz's, a file's own
    # columns have the axis their name says (or none).
    table = with_axes(table, {m: ((measure_axis(m) or "", "name" if measure_axis(m) else "not assigned")
                                   if str(m).startswith("metric:") else ("style", "card")) for m in frame.columns})
    notes = [(HOW, n) for n in ["rated sentences: each regressor scores a sentence with a model trained on the other "
                                "folds, never on its own rating; held-out error " + "; ".join(maes)] + said]
    return {"table": table, "labels": labels, "aspects": aspects, "flags": [],
            "agreement": frame.corr(method="spearman").rename(index=labels, columns=labels),
            "skipped": skipped, "notes": notes}


def _statistics(frame: pd.DataFrame, aspects: dict[str, str], by_aspect: dict[str, list[str]], options: Options,
                progress=None, candidates: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """Every (human, level, statistic, measure) row with intervals, the paired p against the best, the best group
    (chosen among the aspect's ``candidates``; the other measures of its table are compared with that best)."""
    from stviz.meta import williams_matrix
    from stviz.meta.system import best_group, sentence_level, system_level

    rows = []
    for k, (human, aspect) in enumerate(aspects.items()):
        rated = frame[np.isfinite(frame[human].to_numpy(float))]
        measures = [m for m in by_aspect[aspect] if rated[m].notna().any()]
        eligible = set(measures if candidates is None else candidates[aspect])
        if not measures:
            continue
        if "sentence" in options.levels:
            table, reps = sentence_level(rated, measures, human, options.methods, options.bootstrap, seed=options.seed)
            table = best_group(table, reps, options.alpha, eligible)
            table["williams_p"] = _williams_p(rated, table, measures, human, williams_matrix, eligible)
            rows.append(table.assign(human=short_name(human), aspect=aspect, level="sentence"))
        if "system" in options.levels and "__system__" in frame:
            table, reps = system_level(rated, measures, human, "__system__", options.bootstrap, seed=options.seed)
            if not table.empty:
                keep = table["statistic"].isin(list(options.methods) + ["pairwise_accuracy"])
                table = best_group(table[keep], reps, options.alpha, eligible).assign(williams_p=np.nan)
                rows.append(table.assign(human=short_name(human), aspect=aspect, level="system"))
        if progress:
            progress(k + 1, len(aspects))
    columns = ["human", "aspect", "level", "statistic", "metric", "n", "r", "ci_low", "ci_high", "p_value",
               "p_vs_best", "williams_p", "best_group", "candidate"]
    return pd.concat(rows, ignore_index=True)[columns] if rows else pd.DataFrame(columns=columns)


def _williams_p(frame: pd.DataFrame, table: pd.DataFrame, measures: list[str], human: str, williams_matrix,
                eligible: set[str] | None = None) -> list:
    """Williams' p that the best measure's correlation (among ``eligible``) exceeds each other's (Pearson and Spearman
    rows only)."""
    out = []
    matrices = {m: williams_matrix(frame, measures, human, m) for m in ("pearson", "spearman")
                if m in set(table["statistic"])}
    for statistic, rows in table.groupby("statistic", sort=False):
        finite = rows[np.isfinite(rows["r"].to_numpy(float)) & rows["metric"].isin(eligible or set(measures))]
        best = finite.loc[finite["r"].idxmax(), "metric"] if len(finite) else None
        for index, metric in rows["metric"].items():
            matrix = matrices.get(statistic)
            value = np.nan if matrix is None or best is None or metric == best else matrix.loc[best, metric]
            out.append((index, value))
    return pd.Series(dict(out)).reindex(table.index).to_numpy()


__all__ = ["ASPECTS", "HUMAN_RATED", "LEVELS", "METHODS", "Options", "POOLED", "RATED_SENTENCES", "Result",
           "STATISTIC_LABELS", "axis_text", "needs_direction", "notes_by_title", "only_languages", "part_code",
           "raters_agreement", "TITLE", "applies_to", "best_groups", "dataset_choices", "default_sets", "estimate",
           "heatmap_frame", "installed_sets", "preview_total", "readable_aggregate", "readable_table", "resolve_sets",
           "run", "undirected_names"]
