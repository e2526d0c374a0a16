"""Metrics vs humans (Babakov et al. 2022; Mir et al. 2019): every content-preservation metric for
every pair, its correlation with a human score (95% bootstrap intervals; pooled, per system, or
averaged over systems as Mir et al.), the named-entity merge laid out like Babakov et al.'s
Table 4, and Williams tests between metrics."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.analyses import choices
from stviz.analyses.common import choose_human, direction_note, human_columns, pairs_reason, style_lexicon
from stviz.analyses.judges import judge_notes
from stviz.data.schema import DataError, Dataset, short_name
from stviz.measures.style.poles import POLES_HELP, parse_poles
from stviz.progress import Reporter, reporter
# Names the page and the command line show as they are.
from stviz.meta import format_p_value  # noqa: F401
from stviz.analyses.choices import MODIFICATION_LABELS, MODIFICATIONS, can_modify  # noqa: F401
from stviz.metrics.reference import side_labels
from stviz.metrics.registry import metric_label  # noqa: F401
from stviz.metrics.precomputed import AUTHORS_NE_COLUMNS  # noqa: F401

TITLE = "Metrics vs humans"
#: A file of several languages is compared one language at a time (the page's Language facet; the command line
#: prints one table per language in one run): a correlation or a ranking across languages also ranks the languages.
ONE_LANGUAGE_AT_A_TIME = True
METHODS = ("pearson", "spearman", "kendall")
GROUPINGS = ("system", "setting")
LEVELS = ("sentence", "system")
BOOTSTRAP_CHOICES = (100, 200, 500, 1000, 2000)


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """Which metrics, texts, human score and correlations (the page's controls, ``metrics``/``correlate`` flags)."""

    metrics: tuple[str, ...] | None = option(
        None, "metric names (bleu, chrf, chrf++, rouge1, rouge2, rouge3, rougeL, meteor, wmd, wmd-sim, bertscore, ne, "
              "cosine:SPEC, metric:COLUMN, llm:MODEL[:style|fluency], comet:MODEL, bleurt:MODEL, ref:METRIC: METRIC "
              "against the references); 'default' stands for the standard set plus the dataset's own metric "
              "columns (BERTScore only up to 3,000 pairs; with references, the n-grams against them too)")
    modification: str = option("none", "style modification before the metrics (Mir et al.)", choices=MODIFICATIONS)
    lexicon: str | None = option(None, "style lexicon for removal/masking: 'dataset' (the one it ships), "
                                       "learn[:DATASET][:K], a JSON file, or none (default: the dataset's own)")
    with_ne: bool = option(False, "add each metric's named-entity merge M*(1-p)+M_NE*p (Babakov et al.)")
    ne_source: str = option("spacy", "M_NE and p from spaCy NER, or the dataset's metric:scipy_ner / "
                                     "metric:scipy_proprotion columns (SGDD-TST)", choices=choices.NE_SOURCES)
    human: str | None = option(None, "human-score column (the prefix 'human:' may be left out; default: the "
                                     "dataset's main one)")
    methods: tuple[str, ...] = option(("pearson", "spearman"), "correlations", choices=METHODS, flag="--method")
    by: str | None = option(None, "group pairs by system (settings pooled, with Mir et al.'s mean |r| over "
                                  "systems) or by system/setting (default: all pairs pooled)", choices=GROUPINGS)
    bootstrap: int = option(200, "bootstrap resamples for the 95% intervals", low=10)
    williams_method: str = option("pearson", "correlation of the Williams tests between metrics",
                                  choices=("pearson", "spearman"))
    compare_texts: bool = option(False, "also correlate every metric on unmodified, style-removed and style-masked "
                                        "texts side by side (Mir et al.'s comparison; needs a style lexicon)")
    levels: tuple[str, ...] = option(("sentence",), "sentence level (pairs), and system level (correlation of system "
                                                    "means and pairwise accuracy; needs systems)", choices=LEVELS,
                                     flag="--level")
    poles: tuple[str, ...] = option((), POLES_HELP)

    def __post_init__(self) -> None:
        super().__post_init__()
        parse_poles(self.poles)  # a bad COLUMN=POLE fails here, before any work


@dataclass
class Result:
    """Metric values, correlations, the NE table and Williams tests for one human score."""

    values: pd.DataFrame  # one column per metric, indexed like the pairs
    metrics: list[str]
    labels: dict[str, str]  # metric name -> readable label
    distances: dict[str, bool]  # metric name -> lower is better
    human: str | None
    human_values: np.ndarray | None  # oriented: higher = more content kept
    correlations: pd.DataFrame | None = None
    ne_table: pd.DataFrame | None = None
    williams: pd.DataFrame | None = None  # p-values, row metric > column metric, strongest first
    williams_best: pd.DataFrame | None = None
    text_comparison: pd.DataFrame | None = None  # correlations per metric on each kind of texts ("texts" column)
    human_reversed: bool = False  # the human column is negated (lower = more content kept)
    lexicon_note: str = ""
    notes: list[str] = field(default_factory=list)
    system_correlations: pd.DataFrame | None = None  # stviz.meta.system.system_level rows (oriented: -distance)
    flags: list[str] = field(default_factory=list)  # sanity flags on the file's precomputed metric columns

    @property
    def human_label(self) -> str:
        """The human column as named in titles, with a minus sign when it is read reversed."""
        if self.human is None:
            return ""
        return ("−" if self.human_reversed else "") + short_name(self.human)


def metric_choices(dataset: Dataset) -> list[str]:
    """Every metric the dataset can be scored with (built-ins, cosines of each embedder preset, its columns)."""
    return choices.metrics(dataset)


def applies_to(dataset: Dataset) -> str | None:
    """None when the dataset has pairs (without human scores, the metric values are still shown)."""
    return pairs_reason(dataset, "and content preservation compares an output with its source")


def resolve_metrics(dataset: Dataset, options: Options) -> tuple[list[str], list[str]]:
    """The metric names to compute (``default`` expanded, NE merges added) and notes on what was left out."""
    from stviz.metrics import default_metrics, get_card, with_ne_merge

    defaults, notes = default_metrics(dataset, options.modification)
    names = []
    for name in options.metrics or ("default",):
        names += defaults if name == "default" else [name]
    names = list(dict.fromkeys(names))
    if options.modification != "none":
        dropped = [n for n in names if n.startswith("metric:")]
        if dropped and options.metrics:
            notes.append(f"precomputed columns are left out with modified texts ({len(dropped)}): they were computed "
                         "on the original texts")
        names = [n for n in names if not n.startswith("metric:")]
    for name in names:
        get_card(name)  # an unknown name fails here, before any work
    if options.with_ne:
        names = with_ne_merge(names)
    # The one language rule (stviz.languages.measures): defaults and the user's names alike.
    from stviz.languages import dataset_language
    from stviz.languages.measures import fit_metrics

    names, language_notes = fit_metrics(names, dataset_language(dataset))
    notes += language_notes
    if any("wordnet" in get_card(name).needs for name in names):
        from stviz.metrics.wordnet import wordnet_status

        status = wordnet_status()
        if not status.available:
            notes.append(status.message)
    return names, notes


def resolve_lexicon(dataset: Dataset, options: Options):
    """The style lexicon for removal / masking, and a note naming it ('' without modification)."""
    if options.modification == "none":
        return None, ""
    return style_lexicon(dataset, options.lexicon, f"'{options.modification}'")


def metric_values(dataset: Dataset, names: list[str], options: Options, lexicon, progress: Reporter) -> pd.DataFrame:
    """Every metric for every pair (disk-cached per metric), one named stage per metric computed."""
    from stviz.metrics import computation_order, get_card, metric_frame

    frames = {}
    for name in computation_order(names):  # BERTScore first: it leaves MiniLM's vectors for the cosine
        step = progress.later(f"Scoring {len(dataset.pairs):,} pairs: {get_card(name).label}")
        frames[name] = metric_frame(dataset.pairs, [name], modification=options.modification, lexicon=lexicon,
                                    ne_source=options.ne_source, progress=step)
    return pd.concat([frames[n] for n in names], axis=1) if frames else pd.DataFrame(index=dataset.pairs.index)


def estimate(dataset: Dataset, options: Options):
    """The uncached work of :func:`run`: the metrics the cache does not hold for these pairs and texts."""
    from stviz.costs import Cost

    names, _ = resolve_metrics(dataset, options)
    lexicon, _ = resolve_lexicon(dataset, options)
    sources, outputs = dataset.pairs["source"].astype(str).tolist(), dataset.pairs["output"].astype(str).tolist()
    cost = Cost()
    for name in names:  # an LLM judge also counts its calls, timed on a few pairs
        cost.add_metric(name, sources, outputs, modification=options.modification, lexicon=lexicon)
    return cost


def run(dataset: Dataset, options: Options, progress: Reporter | None = None) -> Result:
    """Compute the metrics, then (with a human score) correlations, the NE table and Williams tests."""
    from stviz.meta import cached_correlation_table, cached_ne_table, cached_williams_matrix, williams_against_best
    from stviz.meta.sanity import constant_rating
    from stviz.metrics import NE_SUFFIX, get_card, verified_metrics

    from stviz.languages import one_language

    if reason := applies_to(dataset):
        raise NotApplicable(reason)
    report_to = reporter(progress)
    dataset, language_notes = one_language(dataset, "a correlation")
    names, notes = resolve_metrics(dataset, options)
    names, refused = verified_metrics(names)  # a model that fails its known answer: its metric is refused, said
    notes = language_notes + notes + refused
    if not names:
        raise DataError(refused[0] if refused else "choose at least one metric")
    if options.human and human_columns(dataset):
        choose_human(dataset, options.human)  # an unknown human column is refused before any metric is scored
    lexicon, lexicon_note = resolve_lexicon(dataset, options)
    values = metric_values(dataset, names, options, lexicon, report_to)
    notes += judge_notes(dataset, names, values)  # LLM judges' unparsed replies; learned metrics vs the file's
    style = oriented_style(dataset, values, options)  # a measure of one pole, turned toward each pair's target
    values, notes = style.values, notes + style.notes
    labels = side_labels(names, {n: style.label(n, get_card(n).label) for n in names})
    distances = {n: not get_card(n).higher_is_better for n in names}
    result = Result(values, names, labels, distances, None, None, lexicon_note=lexicon_note, notes=notes)
    if not human_columns(dataset):
        notes.append("no human scores: the metric values are computed for every pair, but there is nothing to "
                     "correlate them with")
        report_to.finish()
        return result
    human = choose_human(dataset, options.human)
    notes += [note for note in (direction_note(dataset, human), constant_rating(human, dataset.pairs[human])) if note]
    result.flags = sanity_messages(dataset, values, labels) + direction_messages(dataset, values, style, human)
    frame = analysis_frame(dataset, values, human)
    result.human, result.human_values = human, frame[human].to_numpy()
    result.human_reversed = not dataset.human_higher_is_better(human)
    if options.methods:
        step = report_to.later(f"Bootstrapping {len(names)} metrics x {len(options.methods)} correlations "
                               f"({options.bootstrap:,} resamples)")
        result.correlations = cached_correlation_table(frame, names, [human], list(options.methods), by=options.by,
                                                       distances=distances, n_boot=options.bootstrap, progress=step)
    if "system" in options.levels:
        result.system_correlations = system_correlations(dataset, frame, names, human, options, distances, notes)
    if options.with_ne:
        base = [n for n in names if not n.endswith(NE_SUFFIX) and n != "ne"]
        result.ne_table = cached_ne_table(frame, base, human, ne_method(options), labels=labels, distances=distances)
    if options.compare_texts:
        result.text_comparison = compare_texts(dataset, options, names, human, report_to)
    williams = cached_williams_matrix(frame, names, human, options.williams_method, distances)
    result.williams_best = williams_against_best(frame, williams, human, options.williams_method, distances)
    order = list(result.williams_best["metric"])  # strongest first: significant cells form a triangle
    result.williams = williams.loc[order, order]
    report_to.finish()
    return result


def compare_texts(dataset: Dataset, options: Options, names: list[str], human: str,
                  progress: Reporter) -> pd.DataFrame:
    """Correlation of each metric with the human score on unmodified, style-removed and style-masked texts
    (Mir et al. 2019, Tables 8-9), pooled over all pairs with the first chosen correlation; one row per
    (metric, texts). Precomputed columns and NE merges are left out: they cannot be recomputed on other texts."""
    from stviz.meta import cached_correlation_table
    from stviz.metrics import NE_SUFFIX, get_card

    base = [n for n in names if not n.startswith("metric:") and not n.endswith(NE_SUFFIX)]
    method = options.methods[0] if options.methods else "pearson"
    tables = []
    for modification in MODIFICATIONS:
        chosen = options.changed(modification=modification, with_ne=False)
        if modification != "none":
            try:
                lexicon, _ = resolve_lexicon(dataset, chosen)
            except DataError:
                continue  # no lexicon: only the unmodified texts can be compared
        else:
            lexicon = None
        values = metric_values(dataset, base, chosen, lexicon, progress)
        frame = analysis_frame(dataset, values, human)
        table = cached_correlation_table(frame, base, [human], [method], distances={
            n: not get_card(n).higher_is_better for n in base}, n_boot=options.bootstrap)
        tables.append(table.assign(texts=MODIFICATION_LABELS[modification]))
    return pd.concat(tables, ignore_index=True)


def sanity_messages(dataset: Dataset, values: pd.DataFrame, labels: dict[str, str]) -> list[str]:
    """Sanity flags on the file's precomputed columns against the metrics computed beside them (one line each)."""
    from stviz.meta.sanity import identified, reference_values, sanity_flags

    pairs = dataset.pairs
    outputs = pairs["output"].astype(str).tolist()
    # Beside stviz's source-side metrics, their reference-side variants: a column is flagged only when neither agrees.
    checked = values.join(reference_values(values, pairs))
    labels = dict(labels, **{c: metric_label(c) for c in checked.columns if c not in labels})
    return [flag.message(labels) for flag in sanity_flags(checked, pairs["source"].astype(str).tolist(), outputs)
            ] + identified(checked)


def oriented_style(dataset: Dataset, values: pd.DataFrame, options):
    """The metric values with every style column of one pole turned toward each pair's target (``options.poles``,
    else the column's name), and what was done (:mod:`stviz.measures.style.orient`)."""
    from stviz.measures.style.orient import check_declared, orient_pairs

    declared = parse_poles(options.poles)
    check_declared(declared, list(values.columns), "the chosen metrics")
    return orient_pairs(dataset.pairs, values, declared)


def direction_messages(dataset: Dataset, values: pd.DataFrame, style, human: str) -> list[str]:
    """Flags on style columns nobody declared that follow the pairs' direction more than a style rating."""
    from stviz.data.meanings import guess_aspect
    from stviz.measures.style.orient import style_columns
    from stviz.meta.sanity import direction_flags

    if "target_style" not in dataset.pairs or guess_aspect(human) != "style":
        return []
    columns = [c for c in style_columns(list(values.columns), {})
               if not (c in style.turned and style.turned[c].orientation.declared)]
    flags = direction_flags(values, columns, dataset.pairs["target_style"].astype(str).tolist(),
                            {human: dataset.oriented_human(human)})
    return [flag.message() for flag in flags]


def system_correlations(dataset: Dataset, frame: pd.DataFrame, names: list[str], human: str, options: Options,
                        distances: dict[str, bool], notes: list[str]) -> pd.DataFrame | None:
    """System-level rows: each chosen correlation of system means and pairwise accuracy (distances negated)."""
    from stviz.meta.system import system_level, system_units

    units = system_units(dataset.pairs)
    if units is None:
        notes.append("no system level: the pairs name fewer than three systems")
        return None
    oriented = frame[names].apply(lambda s: -s if distances.get(s.name) else s).assign(
        **{human: frame[human].to_numpy(), "__system__": units})
    table, _ = system_level(oriented, names, human, "__system__", options.bootstrap)
    return table[table["statistic"].isin(list(options.methods) + ["pairwise_accuracy"])].reset_index(drop=True)


def analysis_frame(dataset: Dataset, values: pd.DataFrame, human: str) -> pd.DataFrame:
    """Metric values with the oriented human score and the grouping columns, ready to correlate."""
    frame = values.assign(**{human: dataset.oriented_human(human)})
    for column in GROUPINGS:
        if column in dataset.pairs:
            frame[column] = dataset.pairs[column].to_numpy()
    return frame


def ne_method(options: Options) -> str:
    """The correlation of the NE table: Spearman as Babakov et al. when chosen, else the first chosen."""
    if "spearman" in options.methods or not options.methods:
        return "spearman"
    return "pearson" if options.methods[0] == "kendall" else options.methods[0]


def readable_correlations(result: Result, modification: str = "none") -> pd.DataFrame:
    """The correlation table as people read it: labels, direction, interval ends, formatted p."""
    from stviz.meta import format_p_value

    table = result.correlations
    rows = pd.DataFrame({
        "metric": table["metric"].map(result.labels), "method": table["method"], "group": table["group"],
        "n": table["n"], "r": table["r"], "direction": table["shown"], "95% CI low": table["ci_low"],
        "95% CI high": table["ci_high"], "p": table["p_value"].map(format_p_value),
        "texts": modification, "level": "sentence",
    })
    system = result.system_correlations
    if system is None or system.empty:
        return rows
    # System means of a distance are negated (as in the meta-evaluation), so r reads the same way as |r| above.
    return pd.concat([rows, pd.DataFrame({
        "metric": system["metric"].map(result.labels), "method": system["statistic"],
        "group": [f"{n} systems" for n in system["n"]], "n": system["n"], "r": system["r"],
        "direction": ["r (-distance)" if result.distances.get(m) else "r" for m in system["metric"]],
        "95% CI low": system["ci_low"], "95% CI high": system["ci_high"], "p": system["p_value"].map(format_p_value),
        "texts": modification, "level": "system"})], ignore_index=True)


def readable_values(dataset: Dataset, result: Result, labelled: bool = True) -> pd.DataFrame:
    """Every pair's texts, human scores (as given) and metric values: the page's raw data, and with
    ``labelled=False`` (metric names as column names, for further use) what ``metrics`` writes."""
    texts = dataset.pairs[[c for c in ("system", "setting", "source", "output") if c in dataset.pairs]]
    humans = {short_name(c) if labelled else c: dataset.pairs[c] for c in human_columns(dataset)}
    values = result.values[result.metrics]
    return texts.assign(**humans).join(values.rename(columns=result.labels) if labelled else values)


__all__ = ["estimate", "AUTHORS_NE_COLUMNS", "BOOTSTRAP_CHOICES", "MODIFICATION_LABELS", "can_modify", "format_p_value",
           "metric_choices", "metric_label", "GROUPINGS", "LEVELS", "METHODS", "MODIFICATIONS", "Options", "Result", "TITLE",
           "analysis_frame", "applies_to", "ne_method", "readable_correlations", "readable_values",
           "resolve_lexicon", "resolve_metrics", "run"]
