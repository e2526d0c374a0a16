"""Each command's table as its ``--format csv`` prints it (or ``metrics --out`` writes it), built once for the
command line and the Python API (``stviz.metrics``, ``stviz.correlate``, ...), so that both give the same rows.

Why here: the command line printed tables it shaped itself, and a notebook asking for "the same table" would have
copied that shaping; a table built in one place cannot drift between the two faces.
"""

from __future__ import annotations

import pandas as pd

#: The decimals each command's CSV prints its numbers with (the API returns them at full precision).
CSV_FLOAT_FORMATS = {"correlate": "{:.3f}", "failures": "{:.3f}", "leaderboard": "{:.4f}", "blindspots": "{:.4f}",
                     "tradeoff": "{:.3f}", "meta-eval": "{:.3f}"}
#: The Blind spots CSV's columns (the issue's contract: a share in [0, 1] for detected, low, high and ties).
BLINDSPOT_COLUMNS = ["language", "damage", "breaks", "measure", "detected", "low", "high", "ties", "n"]


def language_table(frames: list[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """Every language's table as one, a ``language`` column first and as the index (one CSV table)."""
    joined = pd.concat([frame.reset_index().assign(language=code) for code, frame in frames], ignore_index=True)
    joined = joined[["language"] + [c for c in joined.columns if c != "language"]]
    return joined.set_index("language")


def languages_note(parts: list) -> str:
    """What a run of one table per language says first: how many languages, and each one's pairs."""
    from stviz.languages import language_name, part_language

    return (f"the pairs are in {len(parts)} languages: one table per language in this run ("
            f"{', '.join(f'{language_name(part_language(p))} {len(p.pairs):,}' for p in parts)}); --language CODE "
            "for one")


def metric_values(dataset, result) -> pd.DataFrame:
    """``metrics``: one row per pair, its texts, human scores and every metric (metric names as column names)."""
    from stviz.analyses.metrics_vs_humans import readable_values

    return readable_values(dataset, result, labelled=False)


def correlation_table(result, options) -> pd.DataFrame:
    """``correlate``: each metric's correlation with the human score, interval and p-value, by metric."""
    from stviz.analyses.metrics_vs_humans import readable_correlations

    return readable_correlations(result, options.modification).set_index("metric")


def failure_table(result, options) -> pd.DataFrame:
    """``failures``: the ``top`` pairs of largest rank difference between the metric and the human score."""
    from stviz.analyses.failure_cases import readable_ranking

    return readable_ranking(result.ranking.head(options.top))


def board_table(result) -> pd.DataFrame:
    """``leaderboard``: the tidy scores, one row per system and metric (value, interval, n, rank range)."""
    return result.scores.set_index(["system", "metric"])


def tradeoff_table(result) -> pd.DataFrame:
    """``tradeoff``: one row per system and setting: intensity, content preservation, naturalness, human scores."""
    table = result.table
    columns = ["direction_corrected_emd", "normalised_intensity", "target_style_accuracy", "content_preservation"]
    columns += [c for c in ("p_human_output", "output_more_natural") if c in table]
    columns += [c for c in table.columns if str(c).startswith("human:")] + ["n"]
    # system as the index and setting as a column keeps both readable in Markdown and CSV.
    return table[columns].reset_index().set_index(table.index.names[0])


def blindspot_table(result, with_language: bool = True) -> pd.DataFrame:
    """``blindspots``: one row per damage and measure; by language, or by damage for :func:`language_table`."""
    if with_language:
        return result.table[BLINDSPOT_COLUMNS].set_index("language")
    return result.table[BLINDSPOT_COLUMNS[1:]].set_index("damage")


def meta_table(result) -> pd.DataFrame:
    """``meta-eval``: one row per set, human rating, level, statistic and measure."""
    from stviz.analyses.meta_evaluation import readable_table

    return readable_table(result).set_index("set")


def similarity_table(result) -> pd.DataFrame:
    """``similarity``: every embedder's style x style matrix, one under another (index: embedder, style)."""
    return pd.concat({spec: report.matrix for spec, report in result.reports.items()}, names=["embedder"])


__all__ = ["BLINDSPOT_COLUMNS", "CSV_FLOAT_FORMATS", "blindspot_table", "board_table", "correlation_table",
           "failure_table", "language_table", "languages_note", "meta_table", "metric_values", "similarity_table",
           "tradeoff_table"]
