"""How numbers, intervals, p-values, ranks and directions are written: the same on the page, in CSV
and in LaTeX, so a number a presenter shows is the number a paper prints.

Only text in, text out: no Streamlit, no computation. A metric's label is its card's
(``stviz.metrics.registry.metric_label``), the one place labels are written.
"""

from __future__ import annotations

import re

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


#: LaTeX's special characters, and characters pdflatex cannot set or sets wrongly in its default (OT1) font
#: encoding: a minus sign (U+2212) stops the run, a bare '<' prints as an inverted exclamation mark.
_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"$<$", ">": r"$>$", "\u2212": r"$-$", "\u2264": r"$\leq$", "\u2265": r"$\geq$",
                  "\u00d7": r"$\times$", "\u2192": r"$\rightarrow$", "\u00b1": r"$\pm$", "|": r"$|$"}
_LATEX_SPECIAL = re.compile("|".join(re.escape(c) for c in _LATEX_ESCAPES))
#: Text columns longer than this (characters, on average) wrap in a paragraph column instead of running off the page.
LATEX_WRAP_CHARS = 30


def latex_escape(text: object) -> str:
    """Text as LaTeX that pdflatex sets as written: specials escaped, '−' as $-$, '<0.001' as $<$0.001."""
    return _LATEX_SPECIAL.sub(lambda m: _LATEX_ESCAPES[m.group(0)], str(text))


def latex_table(frame: pd.DataFrame, float_format: str = FLOAT_FORMAT) -> str:
    """A table as LaTeX (booktabs; every cell and name escaped), numbers written as on the page and in the CLI.

    Long text columns (sentences) wrap in paragraph columns so that the table keeps to a page's width.
    """
    cells = float_cells(frame.map(lambda v: "" if _missing(v) else v), float_format).map(latex_escape)
    cells.columns = [latex_escape(c) for c in cells.columns]
    cells.index = pd.Index([latex_escape(v) for v in cells.index],
                           name=None if frame.index.name is None else latex_escape(frame.index.name))
    spec = "l" + "".join(_column_spec(frame[c]) for c in frame.columns)
    return (r"% needs \usepackage{booktabs} in the preamble" + "\n"
            + cells.to_latex(escape=False, column_format=spec))


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and not np.isfinite(value)) or value is pd.NA


def _column_spec(column: pd.Series) -> str:
    """'r' for numbers, 'l' for short text, a wrapping paragraph column for sentences."""
    if pd.api.types.is_numeric_dtype(column):
        return "r"
    lengths = column.dropna().astype(str).str.len()
    return "p{4.2cm}" if len(lengths) and lengths.mean() > LATEX_WRAP_CHARS else "l"


__all__ = ["DECIMALS", "FLOAT_FORMAT", "MISSING", "PRINTF_FORMAT", "float_cells", "format_interval", "format_judgment",
           "format_p_value", "format_rank", "higher_label", "latex_escape", "latex_table",
           "metric_decimals"]
