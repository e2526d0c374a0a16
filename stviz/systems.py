"""Whole systems compared the way TST papers compare them, with the uncertainty papers leave out.

Per system (one row per output, several systems on the same inputs):

* style accuracy: share of outputs the style classifier assigns to the target style;
* BLEU against 1..k human references and self-BLEU against the input (corpus BLEU, sacrebleu;
  Papineni et al. 2002, Post 2018), chrF against the references (Popovic 2015); a system whose
  outputs *are* one of the reference columns (human rewrites) is scored against the other references
  (leave-one-out), or not at all when there is no other;
* content similarity to the input: embedding cosine and BERTScore (:mod:`stviz.metrics`);
* fluency: corpus perplexity under a language model (:mod:`stviz.measures.fluency.language_models`) and adversarial
  naturalness (:mod:`stviz.measures.fluency.naturalness`);
* joint scores: G2 and H2, the geometric and harmonic mean of accuracy and BLEU (Xu et al. 2018),
  and J (Krishna et al. 2020): the mean over outputs of ACC x SIM x FL, here ACC = the classifier
  says target style, SIM = the embedding cosine to the input (clipped at 0), FL = 1 when the
  output's perplexity is no higher than the 90th percentile of held-out human sentences of its
  target style (Krishna et al. used a CoLA acceptability classifier, which needs a download);
* human ratings of the dataset (``human:*``), as means per system.

Every number comes with a percentile-bootstrap 95% interval over inputs (Efron & Tibshirani 1993;
corpus metrics are recomputed from resampled per-sentence statistics, as sacrebleu does), every two
systems are compared per metric with paired bootstrap resampling (Koehn 2004; shifted to the
null hypothesis) and approximate randomisation (Noreen 1989; Riezler & Maxwell 2005, as sacrebleu.significance), and ranks are
ranges when intervals overlap. :func:`system_correlations` correlates each automatic metric with
the human ratings across systems.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from stviz.bleu_stats import (_sacrebleu, cached_corpus_stats, corpus_scores, corpus_stats,  # noqa: F401
                              sacrebleu_signature)
from stviz.data.schema import HUMAN_PREFIX, DataError
from stviz.formatting import format_rank  # noqa: F401 - written in stviz.formatting
from stviz.meta import percentile_interval  # one percentile interval for every bootstrap in stviz
from stviz.progress import Progress

#: Resamples (bootstrap) and shuffles (approximate randomisation) unless asked otherwise.
DEFAULT_RESAMPLES = 1000
#: Share of a system's outputs equal to a reference column that marks it as those human rewrites.
HUMAN_COPY_SHARE = 0.9


@dataclass(frozen=True)
class SystemMetric:
    """A system-level metric: how it is labelled, its direction, and how it is computed from statistics."""

    name: str
    label: str
    higher_is_better: bool
    kind: str  # "mean": mean of per-output values; "corpus": from summed per-sentence statistics
    description: str = ""


METRICS: dict[str, SystemMetric] = {m.name: m for m in [
    SystemMetric("accuracy", "style accuracy (%)", True, "mean",
                 "share of outputs the style classifier assigns to the target style"),
    SystemMetric("bleu", "BLEU against the references", True, "corpus", "corpus BLEU against the human references"),
    SystemMetric("self_bleu", "self-BLEU against the source", True, "corpus",
                 "corpus BLEU against the input: higher = closer to the input (copying it scores 100)"),
    SystemMetric("chrf", "chrF against the references", True, "corpus", "corpus chrF against the human references"),
    SystemMetric("cosine", "cosine against the source", True, "mean",
                 "mean embedding cosine of output and input (the encoder named beside it: metric_label)"),
    SystemMetric("bertscore", "BERTScore F1 against the source", True, "mean",
                 "mean BERTScore F1 of output against input"),
    SystemMetric("perplexity", "perplexity", False, "corpus", "exp(sum NLL / sum tokens) under the language model"),
    SystemMetric("naturalness", "naturalness P(human)", True, "mean",
                 "mean probability an adversarial classifier gives the output of being human-written"),
    SystemMetric("g2", "G2 = sqrt(acc x BLEU)", True, "corpus", "geometric mean of accuracy and BLEU"),
    SystemMetric("h2", "H2 = harmonic(acc, BLEU)", True, "corpus", "harmonic mean of accuracy and BLEU"),
    SystemMetric("j", "J = mean(ACC x SIM x FL) (%)", True, "mean", "Krishna et al. 2020's joint score"),
    SystemMetric("style_score", "style scorer, toward target", True, "mean",
                 "mean of a style scorer's value per output (--style-scorer; the PT16 formality regressor for formal / "
                 "informal targets), turned toward each pair's target"),
]}
AUTOMATIC = tuple(METRICS)


def metric_card(name: str) -> SystemMetric:
    """The card of a system metric or a human-score column (``human:NAME``: a mean, higher = better)."""
    if name in METRICS:
        return METRICS[name]
    if name.startswith(HUMAN_PREFIX):
        return SystemMetric(name, f"human: {name[len(HUMAN_PREFIX):]}", True, "mean", "mean human rating")
    raise DataError(f"unknown system metric '{name}'; known: {', '.join(METRICS)} and human:COLUMN")


def metric_label(name: str, encoder: str = "MiniLM") -> str:
    """A system metric's label; the cosine's names its sentence encoder ('cosine against the source (MiniLM)')."""
    label = metric_card(name).label
    return f"{label} ({encoder})" if name == "cosine" else label


# -- per-sentence statistics and scores from them ----------------------------------------------------------
def mean_stats(values: Sequence[float]) -> np.ndarray:
    """(n, 2) [value, 1] per output, [0, 0] where the value is missing (left out of the mean)."""
    v = np.asarray(values, dtype=float)
    ok = np.isfinite(v)
    return np.column_stack([np.where(ok, v, 0.0), ok.astype(float)])


def scores_from_stats(name: str, summed: np.ndarray, lowercase: bool = True) -> np.ndarray:
    """System scores from summed statistics, one per row of ``summed`` (shape (B, d))."""
    summed = np.atleast_2d(np.asarray(summed, dtype=float))
    card = metric_card(name)
    with np.errstate(invalid="ignore", divide="ignore"):
        if card.kind == "mean":
            scale = 100.0 if name in ("accuracy", "j") else 1.0
            return np.where(summed[:, 1] > 0, scale * summed[:, 0] / summed[:, 1], np.nan)
        if name == "perplexity":
            return np.where(summed[:, 1] > 0, np.exp(summed[:, 0] / summed[:, 1]), np.nan)
        if name in ("bleu", "self_bleu", "chrf"):
            return corpus_scores(_sacrebleu(name, lowercase), summed)  # every row at once (sacrebleu's formulas)
        if name in ("g2", "h2"):
            accuracy = scores_from_stats("accuracy", summed[:, :2])
            bleu = scores_from_stats("bleu", summed[:, 2:], lowercase)
            if name == "g2":
                return np.sqrt(accuracy * bleu)
            return np.where(accuracy + bleu > 0, 2 * accuracy * bleu / (accuracy + bleu),
                            np.where(np.isfinite(accuracy + bleu), 0.0, np.nan))
    raise DataError(f"no statistics rule for '{name}'")


# -- resampling ----------------------------------------------------------------------------------------------
def resample_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """(B, n) bootstrap indices, drawn as sacrebleu draws them (``default_rng(seed).choice``)."""
    return np.random.default_rng(seed).choice(n, size=(n_resamples, n), replace=True)


def _counts(indices: np.ndarray, n: int) -> np.ndarray:
    b = indices.shape[0]
    flat = (indices + (np.arange(b) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)


def bootstrap_scores(name: str, item_stats: np.ndarray, indices: np.ndarray, lowercase: bool = True) -> np.ndarray:
    """The metric on each bootstrap resample of the items (rows of ``indices``)."""
    return scores_from_stats(name, _counts(indices, len(item_stats)) @ item_stats, lowercase)


# -- the scores of every system ---------------------------------------------------------------------------
@dataclass
class SystemScores:
    """Per-output values and per-sentence statistics of every system, ready for resampling."""

    per_output: pd.DataFrame  # one row per pair: system, item, direction, and per-output values
    stats: dict[str, dict[str, np.ndarray]]  # metric -> system -> (n_items, d), rows in per_output order
    lowercase: bool = True
    signatures: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def systems(self) -> list[str]:
        """System names in order of appearance."""
        return list(dict.fromkeys(self.per_output["system"]))

    def items(self, system: str) -> np.ndarray:
        """Item keys (input identities) of a system's rows."""
        return self.per_output.loc[self.per_output["system"] == system, "item"].to_numpy()

    def subset(self, mask: np.ndarray) -> "SystemScores":
        """The same scores restricted to some rows (e.g. one direction)."""
        mask = np.asarray(mask, dtype=bool)
        frame = self.per_output[mask]
        stats = {}
        for metric, per_system in self.stats.items():
            stats[metric] = {}
            for system, values in per_system.items():
                rows = mask[(self.per_output["system"] == system).to_numpy()]
                stats[metric][system] = values[rows]
        return SystemScores(frame, stats, self.lowercase, self.signatures, self.notes)


def item_keys(pairs: pd.DataFrame) -> pd.Series:
    """An input's identity across systems: direction and line when known, else target style and source text."""
    if "direction" in pairs and "line" in pairs:
        return pairs["direction"].astype(str) + ":" + pairs["line"].astype(str)
    # fillna first: pandas 3 keeps NaN through astype(str), and a NaN key cannot be sorted with strings.
    target = pairs["target_style"].fillna("").astype(str) if "target_style" in pairs else ""
    key = target + "\t" + pairs["source"].astype(str)
    # The same input given twice to one system is two items.
    return key + "#" + pairs.assign(_k=key).groupby(["system", "_k"] if "system" in pairs else ["_k"]).cumcount().astype(str)


def reference_sets(pairs: pd.DataFrame, columns: Sequence[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Per system the reference columns it is scored against (its own rewrites left out), and notes."""
    out, notes = {}, []
    for system, rows in pairs.groupby("system", sort=False):
        own = [c for c in columns if (rows["output"].astype(str).str.strip() == rows[c].astype(str).str.strip()).mean()
               >= HUMAN_COPY_SHARE]
        out[str(system)] = [c for c in columns if c not in own]
        if own:
            left = len(columns) - len(own)
            notes.append(f"{system}'s outputs are the references (column {', '.join(own)}): " + (
                f"it is scored against the other {left} reference column(s) only (leave-one-out)" if left else
                "with no other reference column, its BLEU, chrF, G2 and H2 are not defined"))
    return out, notes


def compute_system_scores(pairs: pd.DataFrame, per_output: pd.DataFrame, *, reference_columns: Sequence[str],
                          lowercase: bool = True, lm_stats: np.ndarray | None = None,
                          fluent: np.ndarray | None = None, tokenize: str = "13a") -> SystemScores:
    """Statistics for every metric from per-output values (columns of ``per_output``) and the texts.

    ``tokenize``: sacrebleu's tokeniser for BLEU and self-BLEU (the language's: stviz.languages).

    ``per_output`` holds, aligned with ``pairs``: accuracy (0/1), cosine, bertscore, naturalness and
    human:* where available; ``lm_stats`` (n, 2) summed NLL and tokens; ``fluent`` (n,) 0/1.
    """
    if "system" not in pairs:
        raise DataError("a leaderboard needs a system column: which system wrote each output")
    frame = pairs[["system", "source", "output"] + [c for c in ("direction", "target_style") if c in pairs]].copy()
    frame["system"] = frame["system"].astype(str)
    frame["item"] = item_keys(pairs).to_numpy()
    if "direction" not in frame:
        frame["direction"] = frame["target_style"].fillna("").astype(str) if "target_style" in frame else "all"
    for col in per_output.columns:
        frame[col] = per_output[col].to_numpy()
    refs_of, notes = reference_sets(pairs, reference_columns)
    if lm_stats is not None:
        frame["sentence_perplexity"] = sentence_perplexity(lm_stats)
    if fluent is not None and {"accuracy", "cosine"} <= set(frame):
        frame["j"] = frame["accuracy"] * np.clip(frame["cosine"], 0, 1) * fluent
    stats: dict[str, dict[str, np.ndarray]] = {}
    signatures: dict[str, str] = {}
    systems = list(dict.fromkeys(frame["system"]))
    masks = {s: (frame["system"] == s).to_numpy() for s in systems}
    for name in ("accuracy", "cosine", "bertscore", "naturalness", "j", "style_score"):
        if name in frame:
            stats[name] = {s: mean_stats(frame.loc[masks[s], name]) for s in systems}
    for column in [c for c in per_output.columns if c.startswith(HUMAN_PREFIX)]:
        stats[column] = {s: mean_stats(frame.loc[masks[s], column]) for s in systems}
    if lm_stats is not None:
        stats["perplexity"] = {s: np.asarray(lm_stats, float)[masks[s]] for s in systems}
    outputs = frame["output"].astype(str).to_numpy()
    sources = frame["source"].astype(str).to_numpy()
    stats["self_bleu"] = {s: cached_corpus_stats("bleu", outputs[masks[s]], [[x] for x in sources[masks[s]]],
                                                 lowercase, tokenize) for s in systems}
    signatures["self_bleu"] = sacrebleu_signature("bleu", 1, lowercase, tokenize)
    if reference_columns:
        for kind in ("bleu", "chrf"):
            stats[kind] = {}
            for s in systems:
                cols = refs_of[s]
                rows = pairs.loc[masks[s], cols] if cols else pd.DataFrame(index=pairs.index[masks[s]])
                refs = [[r for r in row if isinstance(r, str) and r.strip()] for row in rows.itertuples(index=False)]
                stats[kind][s] = cached_corpus_stats(kind, outputs[masks[s]], refs, lowercase, tokenize)
            depth = max((len(v) for v in refs_of.values()), default=0)
            signatures[kind] = sacrebleu_signature(kind, depth if len({len(v) for v in refs_of.values() if v}) <= 1
                                                   else "var", lowercase, tokenize)
        if "accuracy" in stats:
            for joint in ("g2", "h2"):
                stats[joint] = {s: np.hstack([stats["accuracy"][s], stats["bleu"][s]]) for s in systems}
    else:
        notes.append("no human references: BLEU, chrF, G2 and H2 need them (self-BLEU against the input is shown)")
    return SystemScores(frame, stats, lowercase, signatures, notes)


# -- tables ----------------------------------------------------------------------------------------------
def leaderboard_table(scores: SystemScores, metrics: Sequence[str] | None = None,
                      n_resamples: int = DEFAULT_RESAMPLES, level: float = 0.95, seed: int = 0,
                      progress: Progress | None = None) -> tuple[pd.DataFrame, dict[str, dict[str, np.ndarray]]]:
    """Tidy table (system, metric, value, low, high, n) with percentile-bootstrap intervals, and the replicates.

    Every metric of a system is computed on the same resamples of its inputs, and systems on the
    same inputs share resamples, so replicates can be combined (joint scores, correlations).
    """
    metrics = list(metrics or scores.stats)
    rows = []
    replicates: dict[str, dict[str, np.ndarray]] = {m: {} for m in metrics}
    systems = scores.systems
    for k, system in enumerate(systems):
        n = int((scores.per_output["system"] == system).sum())
        order = np.argsort(scores.items(system), kind="stable")  # the same inputs -> the same resamples
        indices = order[resample_indices(n, n_resamples, seed)] if n else np.zeros((n_resamples, 0), int)
        for metric in metrics:
            values = scores.stats.get(metric, {}).get(system)
            if values is None or not len(values):
                continue
            point = float(scores_from_stats(metric, values.sum(0), scores.lowercase)[0])
            reps = bootstrap_scores(metric, values, indices, scores.lowercase)
            replicates[metric][system] = reps
            lo, hi = percentile_interval(reps, level) if np.isfinite(point) else (np.nan, np.nan)
            rows.append({"system": system, "metric": metric, "value": point, "low": lo, "high": hi,
                         "n": int(values[:, 1].sum()) if metric_card(metric).kind == "mean" else n})
        if progress:
            progress(k + 1, len(systems))
    return pd.DataFrame(rows), replicates


def rank_ranges(table: pd.DataFrame) -> pd.DataFrame:
    """Best and worst rank of each system per metric: a system is only ranked above another whose interval lies wholly below its own."""
    out = []
    for metric, rows in table.dropna(subset=["value"]).groupby("metric", sort=False):
        better = metric_card(metric).higher_is_better
        lo = rows["low"].to_numpy() if better else -rows["high"].to_numpy()
        hi = rows["high"].to_numpy() if better else -rows["low"].to_numpy()
        for i, system in enumerate(rows["system"]):
            surely_better = int(np.sum(lo > hi[i]))
            surely_worse = int(np.sum(hi < lo[i]))
            out.append({"system": system, "metric": metric, "rank_best": 1 + surely_better,
                        "rank_worst": len(rows) - surely_worse})
    return pd.DataFrame(out, columns=["system", "metric", "rank_best", "rank_worst"])


def system_correlations(table: pd.DataFrame, replicates: Mapping[str, Mapping[str, np.ndarray]],
                        metrics: Sequence[str], humans: Sequence[str], level: float = 0.95) -> pd.DataFrame:
    """Correlation of each automatic metric with each human rating across systems (Pearson, Spearman, Kendall).

    The interval resamples inputs: on each bootstrap resample both the metric and the human mean of
    every system are recomputed, and so is the correlation.
    """
    rows = []
    for human in humans:
        for metric in metrics:
            both = table[table["metric"].isin([metric, human])].pivot(index="system", columns="metric",
                                                                         values="value").dropna()
            if metric not in both or human not in both or len(both) < 3:
                continue
            x, y = both[metric].to_numpy(), both[human].to_numpy()
            row = {"metric": metric, "human": human, "n_systems": len(both)}
            for method, fn in (("pearson", scipy_stats.pearsonr), ("spearman", scipy_stats.spearmanr),
                               ("kendall", scipy_stats.kendalltau)):
                if np.ptp(x) == 0 or np.ptp(y) == 0:
                    row[method], row[f"{method}_p"] = np.nan, np.nan
                    continue
                result = fn(x, y)
                row[method], row[f"{method}_p"] = float(result[0]), float(result[1])
            systems = list(both.index)
            reps_x = np.vstack([replicates[metric][s] for s in systems])
            reps_y = np.vstack([replicates[human][s] for s in systems])
            row["pearson_low"], row["pearson_high"] = percentile_interval(_replicate_pearson(reps_x, reps_y), level)
            rows.append(row)
    return pd.DataFrame(rows)


def _replicate_pearson(reps_x: np.ndarray, reps_y: np.ndarray) -> np.ndarray:
    """Pearson r across systems (rows) on each bootstrap replicate (column) where both vary and are finite: one
    scipy call for all replicates (a loop of one call per replicate was most of a cold leaderboard's time)."""
    usable = (np.isfinite(reps_x).all(0) & np.isfinite(reps_y).all(0)
              & (np.ptp(reps_x, axis=0) > 0) & (np.ptp(reps_y, axis=0) > 0))
    if not usable.any():
        return np.array([])
    return np.atleast_1d(scipy_stats.pearsonr(reps_x[:, usable], reps_y[:, usable], axis=0).statistic)


def sentence_perplexity(stats: np.ndarray) -> np.ndarray:
    """Per-sentence perplexity exp(NLL / tokens) from (n, 2) rows of (summed NLL, token count)."""
    stats = np.asarray(stats, float)
    return np.exp(stats[:, 0] / np.maximum(stats[:, 1], 1))


def fluency_threshold(held_out_stats: np.ndarray, quantile: float = 0.9) -> float:
    """The sentence perplexity below which ``quantile`` of held-out human sentences fall (J's FL cut-off)."""
    return float(np.quantile(sentence_perplexity(held_out_stats), quantile))


__all__ = ["AUTOMATIC", "DEFAULT_RESAMPLES", "METRICS", "SystemMetric", "SystemScores", "bootstrap_scores", "metric_label",
           "cached_corpus_stats", "compute_system_scores", "corpus_stats", "fluency_threshold",
           "format_rank", "item_keys",
           "leaderboard_table", "mean_stats", "metric_card",
           "percentile_interval", "rank_ranges", "reference_sets", "resample_indices",
           "sacrebleu_signature", "scores_from_stats", "sentence_perplexity",
           "system_correlations"]
