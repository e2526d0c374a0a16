"""Blind spots: which damage each measure misses, without human ratings (Sai et al. 2021, "Perturbation CheckLists
for Evaluating NLG Evaluation Metrics"; He et al. 2023, "On the Blind Spots of Model-Based Evaluation Metrics for
Text Generation"; Ribeiro et al. 2020, CheckList).

Each output of a set is damaged in known ways (:mod:`stviz.damages`: a negation flipped, half of it deleted, the input
copied, the words shuffled, ...), seeded, only where the damage changes it. Every measure Meta-evaluation computes
(content metrics, the style classifiers, fluency, the joint scores, an ``llm:`` judge the user names) scores the set
intact and damaged through the same code paths (:func:`stviz.analyses.meta_measures.measure_set`, so its caches are
shared), and :func:`stviz.meta.detection.detection` counts how often the damaged output scores strictly worse. A
measure should notice what breaks its own axis: a content measure that misses a negation has a blind spot, one that
also notices a shuffle does no harm. Precomputed columns of the file cannot be recomputed on damaged texts: said.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.analyses.common import pairs_reason
from stviz.damages import DamageContext, all_damages, damage_names, damage_outputs, fitting, get_damage
from stviz.data.schema import METRIC_PREFIX, DataError, Dataset
from stviz.progress import Reporter, reporter

TITLE = "Blind spots"
#: One language at a time: damages and measures depend on the language (the command line prints one table each).
ONE_LANGUAGE_AT_A_TIME = True
#: The axis every measure computed here is asked about: Meta-evaluation's "overall" computes every axis's measures.
EVERY_AXIS = {"blind spots": "overall"}
#: What a measure of each axis should notice (an overall measure: every damage).
SHOULD_NOTICE = {"content": ("content",), "style": ("style",), "fluency": ("fluency",),
                 "overall": ("content", "style", "fluency")}
#: The columns of the table (the command line's CSV, the page's download), in order.
COLUMNS = ["language", "damage", "breaks", "measure", "axis", "should_notice", "detected", "low", "high", "ties",
           "mean_change", "effect", "n"]


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """Which damages, which content measures, how many pairs, the seed and the resamples."""

    damages: tuple[str, ...] | None = option(
        None, "damages to apply (default: every one that fits the texts' language)", choices=damage_names())
    metrics: tuple[str, ...] | None = option(
        None, "content measures as for 'metrics' (bleu, chrf, cosine:SPEC, llm:MODEL[:ASPECT], ...; default: the "
              "standard set); the style, fluency and joint measures are always computed; a file's precomputed "
              "columns cannot be recomputed on damaged texts")
    # 500 pairs: a detection share within about +-4 points (95%), and a cold English run of every damage and measure
    # in a few minutes on 2 cores (each damage scores the sample again: a sentence encoder embeds it each time).
    max_pairs: int = option(500, "pairs damaged: a seeded sample stratified by system when the set has more "
                                 "(0: every pair)", low=0)
    seed: int = option(0, "seed of the sample and of every damage")
    bootstrap: int = option(1000, "bootstrap resamples for the 95% intervals", low=10)


@dataclass
class Result:
    """Detection of every damage by every measure, and what is needed to show examples of each cell."""

    table: pd.DataFrame  # COLUMNS: one row per (damage, measure)
    labels: dict[str, str]  # measure -> readable label
    damages: pd.DataFrame  # index damage name: label, breaks, description, applied (pairs it changed)
    texts: dict[str, pd.DataFrame]  # damage -> the pairs it changed: source, output, damaged
    intact: pd.DataFrame  # every measure's raw value per pair (as the measure reports it)
    damaged: dict[str, pd.DataFrame]  # damage -> raw values of the pairs it changed
    intact_oriented: pd.DataFrame  # the same, higher = better (what detection compares)
    damaged_oriented: dict[str, pd.DataFrame]
    language: str
    n_pairs: int
    total_pairs: int
    notes: list[str] = field(default_factory=list)


def applies_to(dataset: Dataset) -> str | None:
    """None when the set has pairs (outputs to damage), else why not."""
    return pairs_reason(dataset, "and blind-spot tests damage each output of a pair")


def sampled(dataset: Dataset, options: Options) -> tuple[Dataset, list[str]]:
    """The pairs damaged: all of them, or a seeded sample of ``max_pairs`` stratified by system (said)."""
    from stviz.analyses.preview import sample_dataset
    from stviz.languages.detect import same_language

    total = len(dataset.pairs)
    if not options.max_pairs or total <= options.max_pairs:
        return dataset, []
    sample = sample_dataset(dataset, options.max_pairs, by=("system",), seed=options.seed)
    sample = dataclasses.replace(sample, notes=dataset.notes)  # the preview's note would call this a preview
    same_language(dataset, sample)
    return sample, [f"{len(sample.pairs):,} of {total:,} pairs damaged (a seeded sample, seed {options.seed}, "
                    "stratified by system; --max-pairs changes it)"]


def style_words(dataset: Dataset) -> tuple[frozenset[str], tuple[frozenset[str], ...], str]:
    """The words that carry the set's styles (its own lexicon, else one learned from its style-labelled texts), the
    words of each pair's target style where the lexicon says which style a word marks, and a note; empty when none."""
    from stviz.analyses.common import style_lexicon

    for spec in (None, "learn"):
        try:
            lexicon, note = style_lexicon(dataset, spec, "'style words removed'")
        except DataError:
            continue
        targets = target_words(dataset, lexicon) if spec == "learn" else ()
        if targets:
            note += "; each output loses the words of its target style (the weight's sign says which style a word marks)"
        return frozenset(str(word).lower() for word in lexicon), targets, note
    return frozenset(), (), ""


def target_words(dataset: Dataset, lexicon: dict[str, float]) -> tuple[frozenset[str], ...]:
    """Per pair, the lexicon's words of its target style: a lexicon learned from two styles weighs a word toward the
    second style (in sorted order) with a positive sign (:func:`learn_style_lexicon`); () when that cannot be told."""
    from stviz.data.labels import labelled_texts

    try:
        styles = sorted(labelled_texts(dataset)["style"].astype(str).unique())
    except DataError:
        return ()
    if len(styles) != 2 or "target_style" not in dataset.pairs:
        return ()
    marks = {styles[1]: frozenset(w for w, v in lexicon.items() if v > 0),
             styles[0]: frozenset(w for w, v in lexicon.items() if v < 0)}
    return tuple(marks.get(str(target), frozenset()) for target in dataset.pairs["target_style"])


def content_metrics(dataset: Dataset, options: Options) -> tuple[list[str], list[str]]:
    """The content measures to recompute (the standard set, or the user's) without the file's precomputed columns."""
    from stviz.analyses import metrics_vs_humans

    names, notes = metrics_vs_humans.resolve_metrics(dataset, metrics_vs_humans.Options(metrics=options.metrics))
    kept = [n for n in names if not n.startswith(METRIC_PREFIX)]
    dropped = [n[len(METRIC_PREFIX):] for n in names if n.startswith(METRIC_PREFIX)]
    if dropped:
        notes.append(f"the file's own measure columns ({', '.join(dropped)}) are not tested: their values cannot be "
                     "recomputed on damaged texts")
    if not kept:
        raise DataError("no measure to test: the chosen metrics are all the file's precomputed columns, which cannot "
                        "be recomputed on damaged texts")
    return kept, notes


class _Staged(Reporter):
    """A reporter that puts which damage is being scored in front of every stage ('[3/12] half deleted: ...')."""

    def __init__(self, inner: Reporter, prefix: str):
        self.inner, self.prefix = inner, prefix

    def stage(self, label: str):
        """The inner reporter's stage, named with the prefix."""
        return self.inner.stage(f"{self.prefix}{label}")


def score(dataset: Dataset, metrics: list[str], progress: Reporter):
    """Every measure of every axis for the set's pairs (:func:`measure_set`), as Meta-evaluation computes them."""
    from stviz.analyses.meta_measures import measure_set

    return measure_set(dataset, EVERY_AXIS, metrics, progress)


def with_outputs(dataset: Dataset, texts: list[str | None]) -> Dataset:
    """The set with each output replaced by its damaged text where there is one (the others kept as they are)."""
    pairs = dataset.pairs.copy()
    damaged = [t if t is not None else o for t, o in zip(texts, pairs["output"].astype(str))]
    pairs["output"] = damaged
    from stviz.languages.detect import same_language

    return same_language(dataset, dataclasses.replace(dataset, pairs=pairs))


def detections(damage, axes: dict[str, str], intact, damaged, rows: list[int], language: str,
               options: Options) -> list[dict]:
    """One table row per measure both runs computed: how often the damaged outputs score worse."""
    from stviz.meta.detection import detection

    out = []
    for measure in intact.oriented.columns:
        if measure not in damaged.oriented:
            continue
        found = detection(intact.oriented[measure].to_numpy()[rows], damaged.oriented[measure].to_numpy()[rows],
                          options.bootstrap, options.seed)
        axis = axes.get(measure, "")
        out.append({"language": language, "damage": damage.name, "breaks": damage.breaks, "measure": measure,
                    "axis": axis, "should_notice": damage.breaks in SHOULD_NOTICE.get(axis, ()),
                    **dataclasses.asdict(found)})
    return out


def run(dataset: Dataset, options: Options, progress: Reporter | None = None) -> Result:
    """Damage every output each way that fits the language, score intact and damaged, and count what is noticed."""
    from stviz.languages import dataset_language, one_language

    if reason := applies_to(dataset):
        raise NotApplicable(reason)
    report_to = reporter(progress)
    dataset, notes = one_language(dataset, "a blind-spot table")
    total = len(dataset.pairs)
    dataset, sample_notes = sampled(dataset, options)
    language = dataset_language(dataset).language
    # A lexicon is learned (a classifier fitted on the set's style texts) only when its damage may run.
    wanted = options.damages is None or "style-words-removed" in options.damages
    words, targets, words_note = style_words(dataset) if wanted else (frozenset(), (), "")
    pairs = dataset.pairs
    context = DamageContext(language, tuple(pairs["source"].astype(str)), tuple(pairs["output"].astype(str)), words,
                            targets)
    chosen, left_out = fitting(options.damages, context)
    metrics, metric_notes = content_metrics(dataset, options)
    notes += sample_notes + left_out + metric_notes + ([words_note] if words_note and any(
        d.name == "style-words-removed" for d in chosen) else [])
    if not chosen:
        raise DataError("no damage applies here: " + "; ".join(left_out))
    intact = score(dataset, metrics, _Staged(report_to, "intact outputs: "))
    notes += [f"{what}: {why}" for what, why in intact.skipped]
    axes = {m: intact.axes.get(m, ("", ""))[0] for m in intact.raw.columns}
    rows, texts, damaged_values, damaged_oriented, applied = [], {}, {}, {}, {}
    for number, damage in enumerate(chosen, 1):
        step = report_to.stage(f"[{number}/{len(chosen)}] {damage.label}: damaging {len(pairs):,} outputs")
        damaged_texts = damage_outputs(damage, context, options.seed)
        step(1, 1)
        changed = [i for i, text in enumerate(damaged_texts) if text is not None]
        applied[damage.name] = len(changed)
        if not changed:
            notes.append(f"{damage.label}: changes none of the {len(pairs):,} outputs here")
            continue
        damaged = score(with_outputs(dataset, damaged_texts), metrics,
                        _Staged(report_to, f"[{number}/{len(chosen)}] {damage.label}: "))
        rows += detections(damage, axes, intact, damaged, changed, language, options)
        if missing := [intact.labels[m] for m in intact.raw.columns if m not in damaged.raw]:
            notes.append(f"{damage.label}: not scored by {', '.join(missing)} on the damaged outputs "
                         f"({'; '.join(why for _, why in damaged.skipped) or 'no reason given'})")
        index = pairs.index[changed]
        texts[damage.name] = pd.DataFrame({"source": pairs["source"].to_numpy()[changed],
                                           "output": pairs["output"].to_numpy()[changed],
                                           "damaged": [damaged_texts[i] for i in changed]}, index=index)
        damaged_values[damage.name] = damaged.raw.iloc[changed]
        damaged_oriented[damage.name] = damaged.oriented.iloc[changed]
    report_to.finish()
    return Result(pd.DataFrame(rows, columns=COLUMNS), intact.labels, damage_table(chosen, applied), texts, intact.raw,
                  damaged_values, intact.oriented, damaged_oriented, language, len(pairs), total, notes)


def damage_table(chosen, applied: dict[str, int]) -> pd.DataFrame:
    """The damages applied: label, what each breaks, what it does, and how many outputs it changed."""
    return pd.DataFrame([{"damage": d.name, "label": d.label, "breaks": d.breaks, "description": d.description,
                          "applied": applied.get(d.name, 0)} for d in chosen]).set_index("damage")


def readable_table(result: Result) -> pd.DataFrame:
    """The detection table as people read it: labels, detected and its interval in percent of pairs."""
    table = result.table
    labels = result.damages["label"].to_dict()
    return pd.DataFrame({
        "damage": table["damage"].map(labels), "breaks": table["breaks"],
        "measure": table["measure"].map(lambda m: result.labels.get(m, m)), "axis": table["axis"],
        "should notice": table["should_notice"].map({True: "yes", False: ""}),
        "detected %": 100 * table["detected"], "95% CI low": 100 * table["low"], "95% CI high": 100 * table["high"],
        "ties %": 100 * table["ties"], "effect (SD)": table["effect"], "n": table["n"]})


def blind_spots(result: Result, threshold: float = 0.5) -> pd.DataFrame:
    """The cells a measure should notice and mostly misses (detected below ``threshold``), worst first."""
    table = result.table
    missed = table[table["should_notice"] & (table["detected"] < threshold)]
    return missed.sort_values(["detected", "measure"]).reset_index(drop=True)


def uncovered(result: Result) -> str:
    """What no measure here could judge ('' when every axis a damage breaks has a measure): a table without blind
    spots is only as complete as its measures."""
    axes = set(result.table["axis"])
    broken = list(dict.fromkeys(result.table["breaks"]))
    missing = [axis for axis in broken if axis not in axes and "overall" not in axes]
    if not missing:
        return ""
    return (f"no {' or '.join(missing)} measure could be computed here (the notes say why): the {' and '.join(missing)} "
            "damages are tested only on measures that need not notice them")


def examples(result: Result, damage: str, measure: str, limit: int = 20) -> pd.DataFrame:
    """The pairs of one cell, missed ones first: both texts and the measure's value on each, and the verdict."""
    texts = result.texts.get(damage)
    if texts is None or measure not in result.intact:
        return pd.DataFrame(columns=["source", "output", "damaged", "intact", "after damage", "verdict"])
    from stviz.meta.detection import TIE_ATOL, TIE_RTOL

    before = result.intact_oriented.loc[texts.index, measure].to_numpy(dtype=float)
    after = result.damaged_oriented[damage][measure].to_numpy(dtype=float)
    tie = np.isclose(after, before, rtol=TIE_RTOL, atol=TIE_ATOL)
    verdict = np.where(tie, "tie (missed)", np.where(after < before, "noticed", "missed (scored better)"))
    frame = texts.assign(intact=result.intact.loc[texts.index, measure].to_numpy(),
                         **{"after damage": result.damaged[damage][measure].to_numpy()}, verdict=verdict,
                         _order=np.where(verdict == "noticed", 1, 0))
    frame = frame[~(np.isnan(before) | np.isnan(after))]
    return frame.sort_values(["_order"], kind="stable").drop(columns="_order").head(limit)


__all__ = ["COLUMNS", "Options", "Result", "SHOULD_NOTICE", "TITLE", "all_damages", "applies_to", "blind_spots",
           "examples", "get_damage", "readable_table", "run", "uncovered"]
