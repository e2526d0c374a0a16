"""Users' own pair files: CSV, TSV, JSONL and XLSX, with column detection and a confirmed mapping.

Reading never loses anything silently: every row dropped, every value that could not be read as
a number and every decoding fallback is described in the notes returned with the data.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field

import pandas as pd

from stviz.data.schema import HUMAN_PREFIX, METRIC_PREFIX, DataError, Dataset

SUFFIXES = (".csv", ".tsv", ".txt", ".jsonl", ".json", ".xlsx")
ROLES = ("source", "output", "system", "setting", "source_style", "target_style", "reference")

# Column names people use for each role, compared case- and punctuation-insensitively.
SYNONYMS = {
    "source": ("source", "src", "input", "original", "text1", "textfirst", "inputtextfirst", "sentence1", "sourcetext", "inputtext"),
    "output": ("output", "transferred", "prediction", "pred", "hypothesis", "hyp", "generated", "text2", "textsecond",
               "inputtextsecond", "sentence2", "outputtext", "rewrite", "transfer"),
    "system": ("system", "model", "method", "systemname"),
    "setting": ("setting", "config", "configuration", "param", "parameter", "hyperparameter"),
    "source_style": ("sourcestyle", "srcstyle", "fromstyle", "style", "label", "inputstyle"),
    "target_style": ("targetstyle", "tgtstyle", "tostyle", "outputstyle"),
    "reference": ("reference", "ref", "gold", "referenceoutput", "target"),
}
HUMAN_HINTS = re.compile(r"human|rating|judg|annot|average|vote|likert|\bmos\b|crowd", re.I)


def max_upload_bytes() -> int:
    """Largest accepted file: ``$STVIZ_MAX_UPLOAD_MB`` megabytes (default 200)."""
    return int(float(os.environ.get("STVIZ_MAX_UPLOAD_MB", "200")) * 1024 * 1024)


@dataclass
class ColumnMapping:
    """Which file column plays which role; human-score and metric columns may be many."""

    roles: dict[str, str] = field(default_factory=dict)
    human: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def read_pairs_file(filename: str, data: bytes) -> tuple[pd.DataFrame, list[str]]:
    """Parse an uploaded file into a DataFrame of strings/numbers, with notes on what was done."""
    suffix = os.path.splitext(filename.lower())[1]
    if suffix not in SUFFIXES:
        raise DataError(f"'{filename}': unsupported file type '{suffix or '(none)'}'; use CSV, TSV, JSONL or XLSX")
    if len(data) > max_upload_bytes():
        raise DataError(f"'{filename}' is {len(data) / 1e6:.1f} MB; the limit is {max_upload_bytes() / 1e6:.0f} MB "
                        "(raise it with STVIZ_MAX_UPLOAD_MB, or split the file)")
    if not data.strip():
        raise DataError(f"'{filename}' is empty")
    notes: list[str] = []
    try:
        if suffix == ".xlsx":
            frame = pd.read_excel(io.BytesIO(data))
        else:
            text = _decode(data, filename, notes)
            if suffix in (".jsonl", ".json"):
                frame = _read_json(text, filename)
            else:
                sep = "\t" if suffix in (".tsv", ".txt") or (text.split("\n", 1)[0].count("\t") > text.split("\n", 1)[0].count(",")) else ","
                frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False)
                # pandas renames a repeated header "a,a" to "a, a.1"; the raw header tells.
                header = pd.read_csv(io.StringIO(text), sep=sep, header=None, nrows=1, dtype=str).iloc[0].tolist()
                frame.columns = [str(h) for h in header]
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - parser errors become one clear message
        raise DataError(f"'{filename}' could not be read as {suffix[1:].upper()}: {str(exc)[:300]}") from exc
    if frame.empty or len(frame.columns) == 0:
        raise DataError(f"'{filename}' has no rows")
    frame.columns = [str(c).strip() for c in frame.columns]
    dup_cols = [c for c in frame.columns if list(frame.columns).count(c) > 1]
    if dup_cols:
        raise DataError(f"'{filename}' has repeated column names: {', '.join(sorted(set(dup_cols)))}; rename them")
    notes.append(f"Read {len(frame):,} rows and {len(frame.columns)} columns from '{filename}'.")
    return frame, notes


def _decode(data: bytes, filename: str, notes: list[str]) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # Windows-1252 covers what spreadsheets usually export; latin-1 can decode any byte.
        for encoding in ("cp1252", "latin-1"):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                continue
            notes.append(f"'{filename}' is not UTF-8 (invalid byte at position {exc.start}); "
                         f"it was decoded as {encoding}. Check accented characters, or re-save as UTF-8.")
            return text
        raise DataError(f"'{filename}' is not UTF-8 text") from exc  # pragma: no cover


def _read_json(text: str, filename: str) -> pd.DataFrame:
    stripped = text.lstrip()
    if stripped.startswith("["):
        return pd.read_json(io.StringIO(text), dtype=False)
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(pd.read_json(io.StringIO(f"[{line}]"), dtype=False).iloc[0].to_dict())
            except ValueError as exc:
                raise DataError(f"'{filename}' line {number} is not a JSON object: {line[:80]!r}") from exc
    return pd.DataFrame(rows)


def detect_mapping(frame: pd.DataFrame) -> ColumnMapping:
    """Guess each column's role from its name and content; the user confirms or changes it."""
    mapping = ColumnMapping()
    used: set[str] = set()
    for role in ROLES:
        for col in frame.columns:
            if col not in used and _norm(col) in SYNONYMS[role]:
                mapping.roles[role] = col
                used.add(col)
                break
    text_cols = [c for c in frame.columns if c not in used and _numeric_share(frame[c]) < 0.95]
    # Files with unnamed text columns: the first two text columns are source and output.
    for role in ("source", "output"):
        if role not in mapping.roles and text_cols:
            mapping.roles[role] = text_cols.pop(0)
            used.add(mapping.roles[role])
    for col in frame.columns:
        if col in used:
            continue
        share = _numeric_share(frame[col])
        # A column named like a human score is taken even with some unreadable cells (reported later).
        if HUMAN_HINTS.search(col) and share >= 0.5:
            mapping.human.append(col)
        elif share >= 0.95:
            mapping.metrics.append(col)
    return mapping


def _numeric_share(series: pd.Series) -> float:
    """Share of the non-empty cells that read as numbers."""
    values = pd.to_numeric(series.replace("", pd.NA), errors="coerce")
    present = series.astype(str).str.strip().ne("") & series.notna()
    return float(values[present].notna().mean()) if present.any() else 0.0


def apply_mapping(frame: pd.DataFrame, mapping: ColumnMapping, name: str = "upload",
                  title: str | None = None) -> Dataset:
    """Build a Dataset from the file and a confirmed mapping, reporting every row dropped."""
    for role in ("source", "output"):
        col = mapping.roles.get(role)
        if not col:
            raise DataError(f"no column is mapped to '{role}'; the file has: {', '.join(map(str, frame.columns))}")
        if col not in frame.columns:
            raise DataError(f"column '{col}' (mapped to '{role}') is not in the file")
    notes: list[str] = []
    pairs = pd.DataFrame(index=frame.index)
    for role, col in mapping.roles.items():
        if col:
            pairs[role] = frame[col].where(frame[col].notna(), "").astype(str).str.strip()
    for prefix, cols in ((HUMAN_PREFIX, mapping.human), (METRIC_PREFIX, mapping.metrics)):
        for col in cols:
            values = pd.to_numeric(frame[col].replace("", pd.NA), errors="coerce")
            bad = int((values.isna() & frame[col].astype(str).str.strip().ne("") & frame[col].notna()).sum())
            if bad:
                notes.append(f"Column '{col}': {bad} value(s) are not numbers and were left empty.")
            # "human_fluency" or "human: fluency" becomes "human:fluency", not "human:human_fluency".
            label = re.sub(rf"^{prefix[:-1]}[\s_:.-]*", "", str(col), flags=re.I) or str(col)
            pairs[prefix + label] = values.astype(float)
    pairs = _drop_unusable_rows(pairs, notes)
    ds = Dataset(name=name, title=title or f"Uploaded: {name}", pairs=pairs.reset_index(drop=True), notes=notes)
    return ds


def _drop_unusable_rows(pairs: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    empty = pairs["source"].eq("") | pairs["output"].eq("")
    if empty.any():
        rows = ", ".join(str(i + 2) for i in pairs.index[empty][:10])  # +2: header line, 1-based
        notes.append(f"Dropped {int(empty.sum())} row(s) with an empty source or output (file lines {rows}"
                     f"{' ...' if empty.sum() > 10 else ''}).")
        pairs = pairs[~empty]
    if pairs.empty:
        raise DataError("no row has both a source and an output text")
    dupes = pairs.duplicated()
    if dupes.any():
        notes.append(f"Dropped {int(dupes.sum())} exact duplicate row(s) (same texts, system and scores); "
                     "the first of each was kept.")
        pairs = pairs[~dupes]
    return pairs

