"""Score cells as numbers: what a cell of a column mapped to scores means, and what is said about it.

A score cell is read as a number, or left empty and counted: never dropped in silence, never
guessed. The conventions, documented in docs/reliability.md and said in a note per column:

* decimal commas (``4,5``) are decimals when no cell of the column uses a decimal point;
* a fraction ``a/b`` is read as its value (``4/5`` -> 0.8), a percentage ``p%`` as p/100
  (``80%`` -> 0.8); a column that mixes them with plain numbers (``4`` beside ``4/5``: two scales?)
  is refused, naming a line of each;
* spreadsheet error cells (``#VALUE!``, ``#N/A``, ``#DIV/0!``, ...) are missing values, counted
  and named by line, never numbers; so are ``inf``, ``nan`` and any other text;
* a minus written as spreadsheets and papers print it (``−3``, U+2212, or a dash) is a minus;
* a column of words and no numbers on a known ordinal scale (``low`` / ``medium`` / ``high``, ``poor`` ..
  ``excellent``, ``strongly disagree`` .. ``strongly agree``, :data:`WORD_SCALES`) is read as 1..k, the mapping said;
  words on no known scale are refused, naming the column and its words;
* thousands separators are decided per column: comma groups of always three digits with some value
  of two groups (``1,250,000``), or beside decimal points, are thousands (``2,500`` -> 2500); a
  lone ``2,500`` that could be 2.5 (no two-group value, or beside decimal commas) is refused, never guessed.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.data.schema import DataError

#: Cells that mean "no value" in a score column (not counted against its numeric share).
NA_WORDS = ("na", "n/a", "nan", "none", "null", "-", "--", "?", "missing")
#: What spreadsheets write in a cell whose formula failed (Excel, LibreOffice, Google Sheets).
SPREADSHEET_ERRORS = ("#VALUE!", "#N/A", "#DIV/0!", "#REF!", "#NAME?", "#NUM!", "#NULL!", "#SPILL!", "#CALC!",
                      "#GETTING_DATA", "#N/A!", "#ERROR!")

_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")
_FRACTION = re.compile(r"^([+-]?\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)$")
_PERCENT = re.compile(r"^([+-]?\d+(?:[.,]\d+)?)\s*%$")
#: Minus signs other than '-' before a number: U+2212 (typeset minus), figure and en dashes, small and full-width.
_OTHER_MINUS = re.compile(r"^[\u2212\u2012\u2013\ufe63\uff0d](?=\s*\d)")
_THOUSANDS = re.compile(r"^[+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$")
_THOUSANDS_TWO_GROUPS = re.compile(r"^[+-]?[1-9]\d{0,2}(?:,\d{3}){2,}(?:\.\d+)?$")


#: Cells that programs write for a missing value (pandas' ``NaN`` and ``None``, JSON's and SQL's ``null``): missing in
#: every column, texts included. ``NA`` and ``n/a`` stay texts there (an output may well read "n/a").
MISSING_WORDS = ("none", "nan", "null")


def as_text(series: pd.Series) -> pd.Series:
    """A column's cells as stripped text, '' where empty or missing (None, NaN, and the words None, NaN, null)."""
    text = series.map(lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)).str.strip()
    return text.mask(text.str.lower().isin(MISSING_WORDS), "")


def missing_words(series: pd.Series) -> np.ndarray:
    """Which cells are written as a missing value ('None', 'NaN', 'null'), for the note that says so."""
    text = series.map(lambda v: v.strip().lower() if isinstance(v, str) else "")
    return text.isin(MISSING_WORDS).to_numpy()


def is_spreadsheet_error(text: pd.Series) -> pd.Series:
    """Which cells (stripped text) are a spreadsheet's error values."""
    return text.str.upper().isin(SPREADSHEET_ERRORS)


def parse_numbers(series: pd.Series) -> tuple[np.ndarray, dict]:
    """A text column as floats (NaN where empty or unreadable) and what was done, as masks and counts.

    ``info``: ``decimal_commas`` (count) and ``example_comma``; masks ``fractions``, ``percents``,
    ``errors`` (spreadsheet error cells), ``unreadable`` (any other non-empty cell that is not a
    finite number), ``plain`` (ordinary numbers), ``minus`` (a minus other than '-'), ``thousands``
    (thousands separators read) and ``ambiguous`` (a comma that may be either; left empty here,
    refused by :func:`score_column`).
    """
    text = as_text(series)
    minus = text.str.match(_OTHER_MINUS)
    if minus.any():
        text = text.where(~minus, text.str.replace(_OTHER_MINUS, "-", regex=True))
    thousands, ambiguous = _thousands(text)
    if thousands.any():
        text = text.where(~thousands, text.str.replace(",", "", regex=False))
    comma = text.str.match(_DECIMAL_COMMA) & ~ambiguous
    converted = int(comma.sum()) if comma.any() and not text.str.contains(".", regex=False).any() else 0
    if converted:
        text = text.where(~comma, text.str.replace(",", ".", regex=False))
    text = text.where(~ambiguous, "")
    values = pd.to_numeric(text.where(text.ne("")), errors="coerce").to_numpy(dtype=float, copy=True)
    plain = np.isfinite(values)
    fractions, percents = _ratios(text, values)
    errors = is_spreadsheet_error(text).to_numpy()
    bad = text.ne("").to_numpy() & ~np.isfinite(values) & ~errors
    values[bad | errors] = np.nan
    return values, {"decimal_commas": converted, "unreadable": bad, "errors": errors, "fractions": fractions,
                    "percents": percents, "plain": plain & ~thousands.to_numpy(), "minus": minus.to_numpy(),
                    "thousands": thousands.to_numpy(), "ambiguous": ambiguous.to_numpy(),
                    "example_comma": series[comma.to_numpy()].iloc[0] if converted else None}


def _thousands(text: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Masks of cells whose commas are thousands separators, and of cells where that cannot be told.

    A column decides: '1,000' alone could be 1.0 written with a decimal comma. Its commas are thousands
    when some value has two groups ('1,250,000') or the column writes decimals with a point, and none
    is a decimal comma that cannot be thousands ('4,5').
    """
    shaped = text.str.match(_THOUSANDS)
    none = pd.Series(False, index=text.index)
    if not shaped.any():
        return none, none
    decimal_comma = text.str.match(_DECIMAL_COMMA) & ~shaped
    points = text.str.contains(".", regex=False)
    if not decimal_comma.any() and (text.str.match(_THOUSANDS_TWO_GROUPS).any() or points.any()):
        return shaped, none
    return none, shaped


def _ratios(text: pd.Series, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fill ``values`` where a cell is a fraction or a percentage; masks of each (1/0 stays unreadable)."""
    fraction = text.str.extract(_FRACTION).astype(float).to_numpy()
    percent = text.str.replace(",", ".", regex=False).str.extract(_PERCENT).astype(float).to_numpy()[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        quotient = fraction[:, 0] / fraction[:, 1]
    fractions = np.isfinite(quotient)
    percents = np.isfinite(percent)
    values[fractions] = quotient[fractions]
    values[percents] = percent[percents] / 100
    return fractions, percents


def numeric_share(series: pd.Series) -> float:
    """Share of the non-empty cells that read as numbers (missing-value words and error cells left out)."""
    text = as_text(series)
    present = text.ne("") & ~text.str.lower().isin(NA_WORDS) & ~is_spreadsheet_error(text)
    if not present.any():
        return 0.0
    values, done = parse_numbers(series)
    numbers = np.isfinite(values) | done["ambiguous"]  # '2,500' is a number either way; which one is asked later
    return float(numbers[present.to_numpy()].mean())


#: Ordinal scales people write in words, lowest first: a column of their words (and no numbers) is read as 1..k.
WORD_SCALES = (("low", "medium", "high"), ("very low", "low", "medium", "high", "very high"), ("bad", "ok", "good"),
               ("poor", "fair", "good", "very good", "excellent"),
               ("strongly disagree", "disagree", "neutral", "agree", "strongly agree"))
#: Other spellings of a scale's words.
SCALE_SPELLINGS = {"okay": "ok", "mid": "medium", "med": "medium", "moderate": "medium",
                   "neither agree nor disagree": "neutral", "neither": "neutral"}


def _scale_word(cell: object) -> str:
    """A cell as a scale's word: lower case, one space between words ('Very_High' -> 'very high')."""
    word = " ".join(re.split(r"[\s_-]+", str(cell).strip().lower()))
    return SCALE_SPELLINGS.get(word, word)


def scale_words(series: pd.Series) -> list[str]:
    """A column's distinct words, in order of appearance, when it holds words and no number ([] otherwise); missing
    values and spreadsheet errors are left out."""
    text = as_text(series)
    present = text[text.ne("") & ~text.str.lower().isin(NA_WORDS) & ~is_spreadsheet_error(text)]
    numbers = pd.to_numeric(present, errors="coerce").notna().any() or np.isfinite(parse_numbers(present)[0]).any()
    if present.empty or numbers:
        return []
    return list(dict.fromkeys(_scale_word(v) for v in present))


def word_scale(series: pd.Series) -> tuple[str, ...] | None:
    """The known scale (:data:`WORD_SCALES`) a column's words are on, the shortest that holds them all; None when the
    column holds numbers, or words on no known scale."""
    words = set(scale_words(series))
    fits = [scale for scale in WORD_SCALES if words and words <= set(scale)]
    return min(fits, key=len) if fits else None


def _on_word_scale(series: pd.Series, col: str) -> tuple[pd.Series, list[str]]:
    """A column written in words as the numbers of its scale (1..k), with the note that says the mapping; unchanged
    when it holds numbers; refused when its words are on no known scale, naming them."""
    words = scale_words(series)
    if not words:
        return series, []
    scale = word_scale(series)
    if scale is None:
        shown = ", ".join(repr(w) for w in words[:10]) + (f" and {len(words) - 10:,} more" if len(words) > 10 else "")
        raise DataError(f"column '{col}' holds words, not numbers ({shown}), on no scale stviz knows (such as low / "
                        "medium / high or poor .. excellent); write its ratings as numbers, or leave it out with "
                        "--columns")
    rank = {word: k for k, word in enumerate(scale, 1)}
    numbers = series.map(lambda v: str(rank[_scale_word(v)]) if _scale_word(v) in rank else v)
    mapping = ", ".join(f"{word} = {k}" for word, k in rank.items())
    return numbers, [f"Column '{col}': its ratings are written in words, read on the scale {mapping}."]


def score_column(series: pd.Series, col: str, place: str, notes: list[str]) -> np.ndarray:
    """A column mapped to scores as floats, each conversion and each missing value said with its file places.

    Refuses (DataError) a column that mixes plain numbers with fractions or percentages, or holds words on no known
    scale.
    """
    series, said = _on_word_scale(series, col)
    notes += said
    values, done = parse_numbers(series)
    done["missing"] = missing_words(series)
    # An empty cell is a missing rating too: said with its lines like one written 'NaN' (issue 56).
    done["empty"] = as_text(series).str.strip().eq("").to_numpy() & ~done["ambiguous"] & ~done["missing"]
    _refuse_mixed_scales(series, col, place, done)
    _refuse_ambiguous_commas(series, col, place, done)
    if done["decimal_commas"]:
        notes.append(f"Column '{col}': {done['decimal_commas']:,} value(s) with a decimal comma (e.g. "
                     f"'{done['example_comma']}') were read as decimal numbers.")
    for kind, what, with_values in _CELL_NOTES:
        if done[kind].any():
            shown = _shown(series, done[kind], place, values) if with_values else _shown(series, done[kind], place)
            notes.append(f"Column '{col}': {int(done[kind].sum()):,} {what} ({shown}).")
    return values


#: The note said for each kind of unusual score cell, and whether it shows the value read.
_CELL_NOTES = (("minus", "value(s) written with a typeset minus sign (U+2212 or a dash) were read as negative "
                         "numbers", True),
               ("thousands", "value(s) with thousands separators were read as whole numbers", True),
               ("fractions", "fraction(s) a/b were read as their value", True),
               ("percents", "percentage(s) p% were read as p/100", True),
               ("errors", "spreadsheet error cell(s) were read as missing values", False),
               ("missing", "cell(s) written as a missing value (None, NaN, null) were read as missing", False),
               ("empty", "empty cell(s) were read as missing", False),
               ("unreadable", "value(s) are not finite numbers and were left empty", False))


def _shown(series: pd.Series, mask: np.ndarray, place: str, values: np.ndarray | None = None, limit: int = 5) -> str:
    """'lines 2 ('4/5' read as 0.8), 3 (...)': the first file places of a mask, with their cells."""
    where = np.flatnonzero(mask)
    parts = []
    for i in where[:limit]:
        cell = repr(str(series.iloc[i]).strip()[:20])
        read = "" if values is None else f" read as {float_text(values[i]) if values[i].is_integer() else f'{values[i]:g}'}"
        parts.append(f"{series.index[i]} ({cell}{read})")
    return f"{place}s {', '.join(parts)}{' ...' if len(where) > limit else ''}"


def _refuse_mixed_scales(series: pd.Series, col: str, place: str, done: dict) -> None:
    # '4' beside '4/5' may be a 1-5 score beside a fraction of one: reading both would put two scales in one column.
    ratio = done["fractions"] | done["percents"]
    if not (ratio.any() and done["plain"].any()):
        return
    first_plain, first_ratio = np.flatnonzero(done["plain"])[0], np.flatnonzero(ratio)[0]
    raise DataError(f"column '{col}' mixes plain numbers ({place} {series.index[first_plain]}: "
                    f"'{str(series.iloc[first_plain]).strip()}') with fractions or percentages ({place} "
                    f"{series.index[first_ratio]}: '{str(series.iloc[first_ratio]).strip()}'), perhaps on two "
                    "scales; write every value of the column one way, or leave it out with --columns")


def _refuse_ambiguous_commas(series: pd.Series, col: str, place: str, done: dict) -> None:
    # '2,500' is 2500 to an English spreadsheet and 2.5 to a German one: a guess would change the value 1000-fold.
    if not done["ambiguous"].any():
        return
    i = np.flatnonzero(done["ambiguous"])[0]
    cell = str(series.iloc[i]).strip()
    other = as_text(series).str.match(_DECIMAL_COMMA) & ~done["ambiguous"]
    beside = ""
    if other.any():
        j = np.flatnonzero(other.to_numpy())[0]
        beside = f" beside decimal commas ({place} {series.index[j]}: '{str(series.iloc[j]).strip()}')"
    raise DataError(f"column '{col}' has '{cell}' ({place} {series.index[i]}){beside}: a thousands separator "
                    f"({cell.replace(',', '')}) or a decimal comma ({cell.replace(',', '.')})? Write the column's "
                    "numbers without thousands separators (or every decimal with a point), or leave it out with --columns")


def float_text(value: float) -> str:
    """A number as the shortest text that reads back exactly ('4' for 4.0, '0.1', '1e-07')."""
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def nfc_columns(frame: pd.DataFrame, columns: Sequence[str], place: str, notes: list[str], *,
                places: Sequence[object] | None = None) -> pd.DataFrame:
    """Texts in Unicode NFC, once at read time, said (with places) only when something changed.

    'é' typed as one character or as 'e' + a combining accent looks the same, but every measure
    (BLEU, chrF, embeddings, exact matches) would see two different strings.
    """
    changed = pd.Series(False, index=frame.index)
    for col in columns:
        if col not in frame.columns:
            continue
        texts = frame[col]
        is_text = texts.map(lambda v: isinstance(v, str) and not v.isascii())
        if not is_text.any():
            continue
        normal = texts[is_text].map(lambda v: unicodedata.normalize("NFC", v))
        differs = normal.ne(texts[is_text])
        if differs.any():
            frame.loc[normal.index[differs.to_numpy()], col] = normal[differs]
            changed.loc[normal.index[differs.to_numpy()]] = True
    if changed.any():
        where = list(frame.index[changed.to_numpy()]) if places is None else \
            [p for p, c in zip(places, changed.to_numpy()) if c]
        shown = ", ".join(str(p) for p in where[:10]) + (f" and {len(where) - 10:,} more" if len(where) > 10 else "")
        label = f"{place}s " if places is None else ""
        notes.append(f"Texts of {len(where):,} row(s) were normalised to Unicode NFC ({label}{shown}): characters "
                     "written decomposed (a letter and a combining accent) now equal their composed form for every "
                     "measure.")
    return frame
