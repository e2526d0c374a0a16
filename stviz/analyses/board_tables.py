"""The leaderboard as a presenter shows it and a paper prints it (issue 25).

* :func:`numeric_table` - one row per system, for every measure its value, interval ends and rank range as
  numbers (``METRIC``, ``METRIC low``, ``METRIC high``, ``METRIC rank best``, ``METRIC rank worst``): the CSV;
* :func:`compact_table` - the systems sorted by one measure, its rank range beside them, one value and interval
  per chosen measure: what the page draws by default;
* :func:`board_latex` - systems as rows, the chosen measures as columns, each value with its interval under it
  (booktabs, shrunk to the line width only when wider): what a paper prints;
* :func:`failure_link` - the Failure cases view a system's worst outputs open: the system, a content metric
  matched with the raters' content judgment, and the worst output's story.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from stviz.analyses.leaderboard import Result, label_of
from stviz.formatting import format_rank, latex_escape, metric_decimals
from stviz.metrics.registry import metric_label  # noqa: F401 (the page names the linked metric)
from stviz.systems import metric_card

#: Short column heads for the compact table and LaTeX (the card's full label is the cell's tooltip).
SHORT_LABELS = {"accuracy": "ACC (%)", "bleu": "BLEU", "self_bleu": "self-BLEU", "chrf": "chrF",
                "cosine": "SIM", "bertscore": "BERT-Score", "perplexity": "PPL", "naturalness": "NAT",
                "g2": "G2", "h2": "H2", "j": "J (%)"}
#: Per-output values of the leaderboard that are content metrics of Failure cases (the rest are style or fluency).
#: A human column rating content, by its name (as the meta-evaluation's aspects read names).
CONTENT_RATING = re.compile(r"content|meaning|preserv|adequa|similar")


def short_label(metric: str) -> str:
    """A measure's column head: short for the automatic ones, the rating's name for human columns."""
    if metric in SHORT_LABELS:
        return SHORT_LABELS[metric]
    return label_of(metric).removeprefix("human: ")


def content_metric(result: Result, value: str) -> str:
    """Failure cases' content metric for a per-output value: BERTScore itself, else the board's cosine (its encoder)."""
    return "bertscore" if value == "bertscore" else f"cosine:{result.encoder}"


def measure_rows(result: Result) -> dict[str, pd.DataFrame]:
    """Each measure's scores, one row per system in the board's order (a system without a value: NaN).

    One pass over the scores: filtering them once per measure compared every row's measure name (an Arrow string)
    again for each measure, and a kept board's page draws three tables of every measure on each rerun.
    """
    groups = dict(iter(result.scores.groupby("metric", sort=False, observed=True)))
    empty = result.scores.iloc[:0]
    return {metric: groups.get(metric, empty).set_index("system").reindex(result.systems)
            for metric in dict.fromkeys(result.metrics + result.humans + list(groups))}


def numeric_table(result: Result) -> pd.DataFrame:
    """One row per system; per measure its value, interval ends and rank range, all numbers (for CSV)."""
    table = pd.DataFrame(index=pd.Index(result.systems, name="system"))
    by_measure = measure_rows(result)
    for metric in result.metrics + result.humans:
        rows, label = by_measure[metric], result.label(metric)
        for column, suffix in (("value", ""), ("low", " low"), ("high", " high")):
            table[label + suffix] = rows[column].astype(float)
        for column, suffix in (("rank_best", " rank best"), ("rank_worst", " rank worst")):
            table[label + suffix] = rows[column].astype("Int64") if column in rows else pd.NA
    return table


def compact_table(result: Result, sort_by: str, metrics: list[str] | None = None) -> pd.DataFrame:
    """Systems best first by ``sort_by`` (missing last), with its rank range, and value/low/high per measure.

    Columns are a MultiIndex (measure, value|low|high) plus ('rank', '') for ``sort_by``'s rank range.
    """
    metrics = [m for m in (metrics or result.metrics + result.humans) if m in result.metrics + result.humans]
    by_measure = measure_rows(result)
    key = by_measure[sort_by]
    order = key["value"].sort_values(ascending=not metric_card(sort_by).higher_is_better, na_position="last").index
    ranked = len(result.systems) > 1  # one system has no rank: a rank compares systems
    columns = {("rank", ""): [format_rank(int(b), int(w)) if pd.notna(b) and ranked else ""
                              for b, w in zip(key.loc[order, "rank_best"], key.loc[order, "rank_worst"])]}
    for metric in metrics:
        rows = by_measure[metric].loc[order]
        for part in ("value", "low", "high"):
            columns[(metric, part)] = rows[part].astype(float).to_numpy()
    return pd.DataFrame(columns, index=pd.Index(order, name="system"))


def board_latex(result: Result, metrics: list[str] | None = None, sort_by: str | None = None) -> str:
    """Systems as rows, the chosen measures as columns, each value over its 95% interval; booktabs.

    A wide table is scaled down to the line width (graphicx), a narrow one is left as it is.
    """
    metrics = [m for m in (metrics or result.metrics + result.humans) if m in result.metrics + result.humans]
    table = compact_table(result, sort_by or metrics[0], metrics)
    digits = {m: metric_decimals(table[(m, "value")]) for m in metrics}
    arrows = {m: r"$\uparrow$" if metric_card(m).higher_is_better else r"$\downarrow$" for m in metrics}
    head = " & ".join(["System"] + [latex_escape(short_label(m)) + " " + arrows[m] for m in metrics])
    lines = []
    for system, row in table.iterrows():
        values = [_latex_value(row[(m, "value")], digits[m]) for m in metrics]
        spans = [_latex_interval(row[(m, "low")], row[(m, "high")], digits[m]) for m in metrics]
        lines += [" & ".join([latex_escape(system)] + values) + r" \\",
                  " & ".join([""] + spans) + r" \\[2pt]"]
    level = "95\\%"
    body = "\n".join([
        r"\begin{tabular}{l" + "r" * len(metrics) + "}", r"\toprule", head + r" \\", r"\midrule", *lines,
        r"\bottomrule", r"\end{tabular}"])
    return "\n".join([
        r"% stviz leaderboard: needs \usepackage{booktabs} and \usepackage{graphicx} in the preamble.",
        f"% Each value has its {level.replace(chr(92), '')} bootstrap interval under it; "
        r"$\uparrow$ higher is better, $\downarrow$ lower is better.",
        r"% " + "; ".join(f"{short_label(m)}: {result.label(m)}" for m in metrics),
        # Shrunk only when wider than the line: \resizebox alone would also blow a narrow table up.
        r"\begingroup\setbox0=\hbox{%", body, r"}%",
        r"\ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\box0}\else\box0\fi\endgroup", ""])


def _latex_value(value: float, digits: int) -> str:
    return f"{value:.{digits}f}" if np.isfinite(value) else "--"


def _latex_interval(low: float, high: float, digits: int) -> str:
    if not (np.isfinite(low) and np.isfinite(high)):
        return ""
    return rf"{{\scriptsize [{low:.{digits}f}, {high:.{digits}f}]}}"


def content_rating(humans: list[str]) -> str | None:
    """The human column that rates content (by its name), if any."""
    return next((h for h in humans if CONTENT_RATING.search(h.removeprefix("human:").lower())), None)


def failure_link(result: Result, system: str, value: str, pair: int | None) -> dict[str, str]:
    """Query parameters of Failure cases for a system's worst outputs by ``value``: the system, a content metric
    (``value`` itself when it is one) against the raters' content judgment, and ``pair``'s story opened."""
    params = {"systems": system, "metric": content_metric(result, value)}
    if human := content_rating(result.humans):
        params["human"] = human.removeprefix("human:")
    if pair is not None:
        params["pair"] = str(pair)
    return params


__all__ = ["content_metric", "SHORT_LABELS", "board_latex", "compact_table", "content_rating", "failure_link",
           "measure_rows", "metric_label", "numeric_table", "short_label"]
