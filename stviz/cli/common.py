"""Helpers shared by the sub-commands: progress on stderr, table printing, output files, analyses."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import ModuleType

import pandas as pd

from stviz.progress import Progress, Reporter, Timer, describe

TABLE_FORMATS = ("csv", "md", "latex")
_open_line = {"stderr": False}  # whether a progress bar left the stderr line unfinished


def end_progress_line() -> None:
    """Finish a progress line cut short (e.g. by an error), so the next message starts afresh."""
    if _open_line["stderr"]:
        sys.stderr.write("\n")
        _open_line["stderr"] = False


def progress_printer(label: str, stream=None) -> Progress:
    """A ``fn(done, total)`` that draws a one-line progress bar on stderr (at most ~10 times a second)."""
    state = {"last": 0.0}
    timer = Timer()

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - state["last"] < 0.1:
            return
        state["last"] = now
        frac = min(done / total, 1.0) if total else 1.0
        out = stream or sys.stderr  # looked up now: tests and pipes may replace stderr
        out.write(f"\r[{'#' * int(frac * 20):<20}] {describe(label, done, total, timer)}\033[K")
        _open_line["stderr"] = done < total
        if done >= total:
            out.write("\n")
        out.flush()

    return report


class CliReporter(Reporter):
    """An analysis's stages on stderr: one progress line per stage that does work."""

    def stage(self, label: str) -> Progress:
        """End any unfinished line and start a progress line for ``label``."""
        end_progress_line()
        return progress_printer(label)

    def finish(self) -> None:
        """Leave the terminal on a fresh line."""
        end_progress_line()


def run_analysis(analysis: ModuleType, dataset, options, **kwargs):
    """Run an analysis with progress on stderr, then print its notes there ('note: ...')."""
    result = analysis.run(dataset, options, CliReporter(), **kwargs)
    print_notes(getattr(result, "notes", []))
    return result


def print_notes(notes) -> None:
    """Each note for the user as a 'note: ...' line on stderr."""
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


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


def load_dataset_arg(value: str, human: str | None = None):
    """Load ``--dataset``: a known name, or a pair file read with detected column mapping.

    ``human``: a column the command was asked to use as the human score (``--human``); in a file it
    is mapped as one even when its name did not say so.
    """
    from stviz.data import DATASET_NAMES, load_dataset
    from stviz.data.upload import apply_mapping, detect_mapping, read_pairs_file

    if value in DATASET_NAMES:
        return load_dataset(value)
    path = Path(value)
    if path.is_file():
        frame, notes = read_pairs_file(path.name, path.read_bytes())
        mapping = detect_mapping(frame)
        column = human[len("human:"):] if human and human.startswith("human:") else human
        if column and column in frame.columns and column not in mapping.human:
            mapping.human.append(column)
            mapping.metrics = [c for c in mapping.metrics if c != column]
        ds = apply_mapping(frame, mapping, name=path.stem, title=path.name)
        for note in notes + ds.notes:
            print(f"note: {note}", file=sys.stderr)
        return ds
    return load_dataset(value)  # raises a DataError naming the known datasets
