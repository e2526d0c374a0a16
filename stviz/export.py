"""Files people open elsewhere: tables for spreadsheets, figures as standalone HTML.

Spreadsheet formula injection: a cell such as ``=HYPERLINK("http://...")`` or ``+cmd|...`` in a
CSV is run as a formula when the file is opened in Excel or LibreOffice, and texts, system and
style names here come from users' files. Following OWASP's advice ("CSV Injection"), every text
cell (and column or index name) that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return gets a leading apostrophe, which spreadsheets show as text. Numbers are left alone. The
opt-out, for files read back by programs rather than people: ``neutralise=False``, or the
environment variable ``STVIZ_NEUTRALISE_FORMULAS=0`` for the dashboard and the command line.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_by_default() -> bool:
    """Whether exports neutralise formula cells (``$STVIZ_NEUTRALISE_FORMULAS``, default on)."""
    return os.environ.get("STVIZ_NEUTRALISE_FORMULAS", "1").strip().lower() not in ("0", "false", "no", "off")


def neutralise_cell(value: object) -> object:
    """A text that a spreadsheet would run as a formula, prefixed with an apostrophe; anything else unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells, column names and index labels cannot start a formula."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(neutralise_cell)
    out.columns = _neutral_index(out.columns)
    out.index = _neutral_index(out.index)
    return out


def _neutral_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return pd.MultiIndex.from_tuples([tuple(neutralise_cell(v) for v in t) for t in index],
                                         names=[neutralise_cell(n) for n in index.names])
    return pd.Index([neutralise_cell(v) for v in index], name=neutralise_cell(index.name))


def table_csv(frame: pd.DataFrame, neutralise: bool | None = None, sep: str = ",", index: bool = True,
              **to_csv) -> bytes:
    """A table as CSV bytes (UTF-8), formula cells neutralised unless ``neutralise`` is False."""
    if neutralise if neutralise is not None else neutralise_by_default():
        frame = neutralise_formulas(frame)
    return frame.to_csv(sep=sep, index=index, **to_csv).encode("utf-8")


def write_table(frame: pd.DataFrame, out: str | os.PathLike, neutralise: bool | None = None) -> Path:
    """Write a table to .csv, .tsv (formula cells neutralised) or .parquet (as is) by the file's suffix."""
    path = Path(out)
    if path.suffix not in (".csv", ".tsv", ".parquet"):
        raise ValueError(f"cannot write '{path.suffix}' files; use .csv, .tsv or .parquet")
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".parquet":
        frame.to_parquet(path)
    else:
        path.write_bytes(table_csv(frame, neutralise, sep="\t" if path.suffix == ".tsv" else ",", index=False))
    return path


def figure_html(fig) -> str:
    """A plotly figure as one standalone HTML page with plotly.js embedded: it opens offline."""
    return fig.to_html(include_plotlyjs=True, full_html=True)
