"""Helpers shared by the sub-commands: progress on stderr, table printing, output files."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Callable

import pandas as pd

TABLE_FORMATS = ("csv", "md", "latex")
_open_line = {"stderr": False}  # whether a progress bar left the stderr line unfinished


def end_progress_line() -> None:
    """Finish a progress line cut short (e.g. by an error), so the next message starts afresh."""
    if _open_line["stderr"]:
        sys.stderr.write("\n")
        _open_line["stderr"] = False


def progress_printer(label: str, stream=None) -> Callable[[int, int], None]:
    """A ``fn(done, total)`` that draws a one-line progress bar on stderr (at most ~10 times a second)."""
    state = {"last": 0.0, "start": time.monotonic()}

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - state["last"] < 0.1:
            return
        state["last"] = now
        frac = done / total if total else 1.0
        bar = "#" * int(frac * 30)
        elapsed = now - state["start"]
        out = stream or sys.stderr  # looked up now: tests and pipes may replace stderr
        out.write(f"\r{label}: [{bar:<30}] {done:,}/{total:,} ({elapsed:.0f} s)")
        _open_line["stderr"] = done < total
        if done >= total:
            out.write("\n")
        out.flush()

    return report


def format_table(frame: pd.DataFrame, fmt: str, float_format: str = "{:.3f}") -> str:
    """A DataFrame as CSV, Markdown or LaTeX text."""
    if fmt == "csv":
        return frame.to_csv(float_format=float_format.replace("{:", "%").replace("}", ""))
    shown = frame.map(lambda v: float_format.format(v) if isinstance(v, float) else v)
    if fmt == "md":
        return _markdown(shown)
    if fmt == "latex":
        return shown.to_latex(escape=True)
    raise ValueError(f"unknown format '{fmt}'; choose one of {', '.join(TABLE_FORMATS)}")


def _markdown(frame: pd.DataFrame) -> str:
    # pandas' to_markdown needs the optional 'tabulate'; a plain pipe table needs nothing.
    index_name = frame.index.name or ""
    header = [str(index_name)] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for idx, row in frame.iterrows():
        lines.append("| " + " | ".join([str(idx)] + [str(v) for v in row]) + " |")
    return "\n".join(lines) + "\n"


def print_table(frame: pd.DataFrame, fmt: str = "md", float_format: str = "{:.3f}") -> None:
    """Print a table to stdout in the chosen format."""
    sys.stdout.write(format_table(frame, fmt, float_format))


def write_frame(frame: pd.DataFrame, out: str) -> Path:
    """Write a DataFrame to .csv, .parquet or .tsv by the file's suffix."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".parquet":
        frame.to_parquet(path)
    elif path.suffix == ".tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        raise ValueError(f"cannot write '{path.suffix}' files; use .csv, .tsv or .parquet")
    return path


def add_dataset_argument(parser) -> None:
    """The common ``--dataset NAME`` option (a known dataset name or a pair file to upload)."""
    parser.add_argument("--dataset", required=True,
                        help="a dataset name (see 'data list') or the path of a CSV/TSV/JSONL/XLSX pair file")


def load_dataset_arg(value: str):
    """Load ``--dataset``: a known name, or a pair file read with detected column mapping."""
    from stviz.data import DATASET_NAMES, load_dataset
    from stviz.data.upload import apply_mapping, detect_mapping, read_pairs_file

    if value in DATASET_NAMES:
        return load_dataset(value)
    path = Path(value)
    if path.is_file():
        frame, notes = read_pairs_file(path.name, path.read_bytes())
        ds = apply_mapping(frame, detect_mapping(frame), name=path.stem, title=path.name)
        for note in notes + ds.notes:
            print(f"note: {note}", file=sys.stderr)
        return ds
    return load_dataset(value)  # raises a DataError naming the known datasets


LEXICON_HELP = ("style lexicon for removal/masking: a JSON file (word -> weight, or a list of words), or "
                "learn[:DATASET][:K] to learn the K words (default 500) with the largest logistic-regression "
                "weights from a dataset's style-labelled texts (default: this dataset's own); "
                "default: the lexicon the dataset ships")


def read_lexicon(spec: str | None, dataset) -> dict | None:
    """The lexicon a ``--lexicon`` value names: the dataset's own, a JSON file, or ``learn[:DATASET][:K]``."""
    from stviz.data.schema import DataError

    if not spec:
        return dataset.lexicon
    if spec == "learn" or spec.startswith("learn:"):
        return _learned_lexicon(spec, dataset)
    try:
        raw = json.loads(Path(spec).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read the lexicon {spec}: {exc}") from exc
    if isinstance(raw, dict) and all(isinstance(v, (int, float)) for v in raw.values()):
        return {str(k): float(v) for k, v in raw.items()}
    if isinstance(raw, list):
        return {str(w if isinstance(w, str) else w[0]): 1.0 for w in raw}
    raise DataError(f"{spec}: expected a JSON object word -> weight or a list of words")


def _learned_lexicon(spec: str, dataset) -> dict:
    from stviz.classify import DEFAULT_LEXICON_SIZE, lexicon_from_dataset
    from stviz.data.schema import DataError

    parts = spec.split(":")[1:]
    top_k = int(parts.pop()) if parts and parts[-1].isdigit() else DEFAULT_LEXICON_SIZE
    name = parts[0] if parts else None
    source = load_dataset_arg(name) if name else dataset
    lexicon = lexicon_from_dataset(source, top_k=top_k)
    if not lexicon:
        raise DataError(f"no style words could be learned from '{source.name}'")
    print(f"style lexicon: {len(lexicon):,} words learned from {source.name}", file=sys.stderr)
    return lexicon
