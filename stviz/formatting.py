"""How numbers, intervals, p-values, ranks and directions are written: the same on the page, in CSV
and in LaTeX, so a number a presenter shows is the number a paper prints.

Only text in, text out: no Streamlit, no computation. A metric's label is its card's
(``stviz.metrics.registry.metric_label``), the one place labels are written.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


#: Decimals of a number on a 0-1 scale (correlations, cosines, probabilities).
DECIMALS = 3
#: The same, as the ``str.format`` / printf patterns tables take.
FLOAT_FORMAT = "{:.3f}"
PRINTF_FORMAT = "%.3f"
#: Shown for a value that is missing or undefined.
MISSING = "–"


def format_p_value(p: float) -> str:
    """A p-value as a reader wants it: '<0.001', '0.012', or '' when undefined (never 'p = 0.000')."""
    if p is None or not np.isfinite(p):
        return ""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def format_rank(best: int, worst: int) -> str:
    """'3' or '2-5'."""
    return str(best) if best == worst else f"{best}–{worst}"


def metric_decimals(values) -> int:
    """Decimals for one metric's numbers: one on 0-100 scales (as TST papers print them), three on 0-1 scales."""
    finite = np.abs(pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float))
    finite = finite[np.isfinite(finite)]
    return 1 if finite.size and finite.max() >= 10 else DECIMALS


def format_interval(value: float, low: float, high: float, digits: int | None = None) -> str:
    """'12.3 [10.1, 14.2]' (``digits`` default: :func:`metric_decimals` of the value); the value alone without ends."""
    if not np.isfinite(value):
        return MISSING
    digits = metric_decimals([value]) if digits is None else digits
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def format_judgment(value) -> str:
    """A human judgment for display: numbers to 2 decimals, missing as 'not rated'."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "not rated"
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"
    return str(value)


def higher_label(label: str, higher_is_better: bool, better: str = "more similar") -> str:
    """A measure with its direction: 'BLEU, higher = more similar'; 'minus WMD, higher = ...' for a distance."""
    return f"{label}, higher = {better}" if higher_is_better else f"minus {label}, higher = {better}"


def float_cells(frame: pd.DataFrame, float_format: str = FLOAT_FORMAT) -> pd.DataFrame:
    """The frame with every float cell written with ``float_format`` (other cells as they are)."""
    return frame.map(lambda v: float_format.format(v) if isinstance(v, float) else v)


def latex_table(frame: pd.DataFrame, float_format: str = FLOAT_FORMAT) -> str:
    """A table as LaTeX (names escaped), numbers written as on the page and in the CLI."""
    return float_cells(frame, float_format).to_latex(escape=True)


__all__ = ["DECIMALS", "FLOAT_FORMAT", "MISSING", "PRINTF_FORMAT", "float_cells", "format_interval", "format_judgment",
           "format_p_value", "format_rank", "higher_label", "latex_table", "metric_decimals"]
