"""The Meta-evaluation's tables as people read them: labels, intervals, best groups, the axis each measure was
assigned, and the languages shown; the page, ``meta-eval`` and the exports print these."""

from __future__ import annotations

import dataclasses
from typing import Sequence

import pandas as pd

from stviz.data.schema import Dataset, alpha_text
from stviz.meta.system import STATISTIC_LABELS

#: How a measure's axis was assigned, as the tables say it.
ASSIGNED = {"card": "stviz's", "name": "by name", "declared": "declared", "not assigned": "not assigned"}


def readable_table(result) -> pd.DataFrame:
    """Every row as people read it: labels, statistic names, interval ends, p-values, the best group marked."""
    from stviz.formatting import format_p_value

    t = result.table
    return pd.DataFrame({
        "set": t["set"], "language": t["language"], "human": t["human"], "aspect": t["aspect"], "level": t["level"],
        "statistic": t["statistic"].map(STATISTIC_LABELS), "measure": t["metric"].map(result.labels).fillna(t["metric"]),
        "measure's axis": [axis_text(a, h) for a, h in zip(t["axis"], t["assigned"])],
        "n": t["n"], "r": t["r"], "95% CI low": t["ci_low"], "95% CI high": t["ci_high"],
        "p": t["p_value"].map(format_p_value), "p (best > measure)": t["p_vs_best"].map(format_p_value),
        "Williams p": t["williams_p"].map(format_p_value), "best group": t["best_group"].map({True: "yes",
                                                                                              False: ""}),
    })


def axis_text(axis: str, assigned: str) -> str:
    """'style (by name)', 'content (stviz's)', 'none (not assigned): every aspect'."""
    if not axis:
        return "any (declared)" if assigned == "declared" else "none said: compared on every aspect"
    return f"{axis} ({ASSIGNED.get(assigned, assigned)})"


def readable_aggregate(result) -> pd.DataFrame:
    """The aggregate over sets with labels: mean rank (1 = best), wins, share of tasks in the best group."""
    a = result.aggregate
    coverage = [f"{t} of {n}" + ("" if c else " (ranked apart)") for t, n, c in zip(a["tasks"], a["of_tasks"],
                                                                                   a["common"])]
    return pd.DataFrame({"aspect": a["aspect"], "level": a["level"], "statistic": a["statistic"].map(STATISTIC_LABELS),
                         "measure": a["metric"].map(result.labels).fillna(a["metric"]), "mean rank": a["mean_rank"],
                         "wins": a["wins"], "in best group": a["in_best_group"], "tasks": coverage})


def best_groups(result, level: str, statistic: str) -> pd.DataFrame:
    """Per set and human column: the best measure and the compact best group, for one level and statistic."""
    t = result.table[(result.table["level"] == level) & (result.table["statistic"] == statistic)]
    t = t[t["candidate"].astype(bool)]  # the best of an aspect is one of its axis's measures or of none's
    rows = []
    for (name, human), part in t.groupby(["set", "human"], sort=False):
        part = part.sort_values("r", ascending=False)
        group = part[part["best_group"].astype(bool)]
        rows.append({"set": name, "language": part["language"].iloc[0], "human": human,
                     "aspect": part["aspect"].iloc[0],
                     "best": result.labels.get(part["metric"].iloc[0], part["metric"].iloc[0]),
                     "best group": ", ".join(result.labels.get(m, m) for m in group["metric"]),
                     "of": len(part)})
    return pd.DataFrame(rows)


def only_languages(result, languages: Sequence[str]):
    """The result's tables of these languages only (a set of one language is always kept), the aggregate again, and
    its notes, orientation and undirected sets of those only."""
    from stviz.analyses.meta_notes import only_sets
    from stviz.meta.system import aggregate

    keep = result.table["language"].isin(list(languages)) | (result.table["language"] == "")
    table = result.table[keep]
    sets = list(dict.fromkeys(table["set"]))
    pick = lambda frame: frame[frame["set"].isin(sets)] if not frame.empty else frame  # noqa: E731
    return dataclasses.replace(result, table=table, aggregate=aggregate(table[table["candidate"].astype(bool)]),
                               aspects={s: a for s, a in result.aspects.items() if s in sets},
                               agreement={s: a for s, a in result.agreement.items() if s in sets},
                               flags=pick(result.flags), skipped=pick(result.skipped),
                               undirected=[s for s in result.undirected if s in sets],
                               said=only_sets(result.said, sets), notes=[], orientation=[])


def heatmap_frame(result, aspect: str, level: str, statistic: str) -> pd.DataFrame:
    """The rows of one aspect, level and statistic, labelled for the sets x measures heatmap (each language's own
    encoder's cosine in one column, :func:`language_cosines`)."""
    t = result.table
    rows = t[(t["aspect"] == aspect) & (t["level"] == level) & (t["statistic"] == statistic)]
    return language_cosines(rows.assign(task=rows["set"] + " · " + rows["human"],
                                        measure=rows["metric"].map(result.labels).fillna(rows["metric"])))


#: The measure the heatmap shows each language's own encoder's cosine as (MiniLM, USE or multilingual-e5).
LANGUAGE_COSINE = "cosine (the language's encoder)"


def language_cosines(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows whose cosine is on their language's own encoder (the Leaderboard's: MiniLM for English, USE for Russian,
    multilingual-e5 elsewhere) relabelled as one measure, :data:`LANGUAGE_COSINE`, the encoder in ``encoder``."""
    from stviz.analyses.board_language import encoder_label
    from stviz.metrics import get_card

    own = [_own_cosine(metric, code) for metric, code in zip(rows["metric"], rows["language"])]
    measure = [_cosine_measure(label, get_card(base).label) if base else label
               for label, base in zip(rows["measure"], own)]
    return rows.assign(measure=measure, encoder=[encoder_label(base.split(":", 1)[1]) if base else "" for base in own])


def _own_cosine(metric: str, code: str) -> str:
    """'cosine:SPEC' where the metric is a cosine ([ref:]cosine:SPEC) on the language's own encoder, else ''."""
    from stviz.languages.measures import board_encoder

    base = str(metric).removeprefix("ref:")
    spec = base.split(":", 1)[1] if base.startswith("cosine:") else ""
    return base if spec and spec == board_encoder("auto", code) else ""


def _cosine_measure(label: str, encoder_card: str) -> str:
    """'cosine: MiniLM-L6 (...) against the reference' as 'cosine (the language's encoder) against the reference'."""
    return LANGUAGE_COSINE + (label[len(encoder_card):] if label.startswith(encoder_card) else "")


def raters_agreement(sets: Sequence[Dataset]) -> list[str]:
    """'SET · ASPECT: α = 0.712 (3 raters, 40 pairs)' (or why it is not measurable yet) for each set that keeps each
    rater's answers, per language as the tables are ('SET [de] · ...'): a correlation with people is capped by it."""
    lines = []
    for ds in sets:
        if ds.pairs is None or not ds.rater_columns:
            continue
        for code, agreements in ds.rater_agreement_by_language(unmeasured=True).items():
            where = f"{ds.name} [{code}]" if code else ds.name
            lines += [f"{where} · {stem}: {alpha_text(a)}" for stem, a in agreements.items()]
    return lines


def with_axes(table: pd.DataFrame, axes: dict[str, tuple[str, str]]) -> pd.DataFrame:
    """The table with each measure's axis and how it was assigned (card, name, declared, not assigned)."""
    axis = table["metric"].map(lambda m: axes.get(m, ("", "not assigned"))[0])
    how = table["metric"].map(lambda m: axes.get(m, ("", "not assigned"))[1])
    return table.assign(axis=axis, assigned=how)


__all__ = ["ASSIGNED", "LANGUAGE_COSINE", "axis_text", "best_groups", "heatmap_frame", "language_cosines",
           "only_languages", "raters_agreement", "readable_aggregate", "readable_table", "with_axes"]
