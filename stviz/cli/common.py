"""Helpers shared by the sub-commands: progress on stderr, table printing, output files, analyses."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Sequence

import pandas as pd

from stviz.formatting import float_cells, latex_table
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


#: The ``--preview`` pass in progress: its size (0 = the default), seed, and what was sampled (None = no preview).
_preview: dict = {"n": None, "seed": 0, "info": None, "used": False}


def run_analysis(analysis: ModuleType, dataset, options, **kwargs):
    """Run an analysis with progress on stderr, then print its notes there ('note: ...').

    An LLM judge's calls are said first: how many, and their time measured on a few of them. During a
    ``--preview`` pass the analysis runs on a seeded sample of the dataset (stderr says so).
    """
    from stviz.analyses.judges import call_plans

    dataset, options = _preview_sample(analysis, dataset, options, **kwargs)
    print_notes(call_plans(analysis, dataset, options))
    result = analysis.run(dataset, options, CliReporter(), **kwargs)
    print_notes(getattr(result, "notes", []))
    if _preview["info"] is not None:
        from stviz.analyses.preview_rankings import ranking

        if found := ranking(analysis, result, dataset):
            print(f"preview: {found.describe()}", file=sys.stderr)
    return result


def _preview_sample(analysis: ModuleType, dataset, options, **kwargs):
    """The dataset and options themselves, or during a ``--preview`` pass its sample (said on stderr) and the
    options as the full dataset fixes them."""
    from stviz.analyses.preview import SPECS, preview_inputs, short_name, supports

    if _preview["n"] is None:
        return dataset, options
    _preview["used"] = True
    if not supports(analysis):
        print(f"note: {analysis.TITLE} has no preview: the full result only", file=sys.stderr)
        return dataset, options
    if dataset is None and SPECS[short_name(analysis)].own_sample is None:
        return dataset, options
    sample, options, info = preview_inputs(analysis, dataset, options, _preview["n"] or None, _preview["seed"],
                                           **kwargs)
    _preview["info"] = info
    print(f"{info.label} (seeded random sample, seed {info.seed}): the preview's result follows"
          + ("" if _preview.get("only") else "; then the full result"), file=sys.stderr)
    return sample, options


def add_preview_arguments(parser) -> None:
    """``--preview [N]`` and ``--preview-only``: a sampled result first (every analysis command has them)."""
    parser.add_argument("--preview", type=int, nargs="?", const=0, default=None, metavar="N",
                        help="print the result on a seeded random sample of N pairs (or sentences; default: 5-10%% "
                             "of them) first, then the full result (work the preview did is not done again)")
    parser.add_argument("--preview-only", action="store_true", help="print only the sampled preview (see --preview)")
    parser.add_argument("--preview-seed", type=int, default=0, metavar="SEED", help="seed of the preview's sample")


def run_previewed(args) -> int:
    """Run a command once on the preview's sample, then (unless ``--preview-only``) once more in full."""
    only = bool(getattr(args, "preview_only", False))
    _preview.update(n=args.preview or 0, seed=getattr(args, "preview_seed", 0), info=None, used=False, only=only)
    try:
        code = int(args.func(args) or 0)
    finally:
        used = _preview["used"] and _preview["info"] is not None
        _preview.update(n=None, info=None, used=False)
    if only or not used or code:
        return code  # a command without an analysis has done its whole work already
    end_progress_line()
    print("full result (every pair; the preview's work is reused from the cache):", file=sys.stderr)
    sys.stdout.write("\n")
    return int(args.func(args) or 0)


#: During for_each_language's runs: the language running and the notes held to be said once (None: said at once).
_held: dict = {"code": "", "notes": None}


def print_notes(notes) -> None:
    """Each note for the user as a 'note: ...' line on stderr; during one run per language, held, to be said once
    with the languages it concerns after the last (:func:`for_each_language`)."""
    if _held["notes"] is not None:
        _held["notes"] += [("", _held["code"], note) for note in notes]
        return
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def format_table(frame: pd.DataFrame, fmt: str, float_format: str = "{:.3f}") -> str:
    """A DataFrame as CSV (formula cells neutralised, as ``--out`` and downloads write them), Markdown or LaTeX."""
    if fmt == "csv":
        from stviz.export import table_csv

        return table_csv(frame, float_format=float_format.replace("{:", "%").replace("}", "")).decode("utf-8")
    if fmt == "md":
        return _markdown(float_cells(frame, float_format))
    if fmt == "latex":
        return latex_table(frame, float_format)  # as the page's LaTeX download writes it
    raise ValueError(f"unknown format '{fmt}'; choose one of {', '.join(TABLE_FORMATS)}")


def _markdown(frame: pd.DataFrame) -> str:
    # pandas' to_markdown needs the optional 'tabulate'; a plain pipe table needs nothing.
    index_name = frame.index.name or ""
    header = [str(index_name)] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for idx, row in frame.iterrows():
        lines.append("| " + " | ".join([str(idx)] + [str(v) for v in row]) + " |")
    return "\n".join(lines) + "\n"


def preview_mark() -> str:
    """'' outside a ``--preview`` pass, else ' [preview: N of M pairs]' for headings written to stdout."""
    return "" if _preview["info"] is None else f" [{_preview['info'].label}]"


def print_table(frame: pd.DataFrame, fmt: str = "md", float_format: str = "{:.3f}") -> None:
    """Print a table to stdout in the chosen format; during a ``--preview`` pass, marked as the preview it is."""
    info = _preview["info"]
    if info is not None and fmt == "csv":  # a column, so that the mark survives whatever reads the CSV
        frame = frame.assign(preview=info.label)
    elif info is not None:
        sys.stdout.write(("% " if fmt == "latex" else "") + f"[{info.label}: a seeded random sample, not the full "
                         "result]\n\n")
    sys.stdout.write(format_table(frame, fmt, float_format))


def write_frame(frame: pd.DataFrame, out: str) -> Path:
    """Write a DataFrame to .csv, .tsv (spreadsheet formula cells neutralised) or .parquet by the file's suffix."""
    from stviz.export import write_table

    return write_table(frame, preview_path(out))


def preview_path(out: str) -> str:
    """``out`` itself, or during a ``--preview`` pass the same name marked 'scores-preview-514-of-10287.csv'."""
    info = _preview["info"]
    if info is None:
        return out
    path = Path(out)
    print(f"note: the preview is written to {path.stem}{info.file_suffix}{path.suffix} ({info.label})", file=sys.stderr)
    return str(path.with_name(f"{path.stem}{info.file_suffix}{path.suffix}"))


#: How a pair file is read, besides its columns: flag destinations, as read_pairs_file names them.
READING_FLAGS = ("sheet", "header", "encoding", "skip_rows")
#: The global ``--language CODE`` of this command (None: detected).
_language: dict = {"code": None}


def set_language(code: str | None) -> None:
    """Set (or with None clear) the global ``--language`` every dataset of this command is read in."""
    _language["code"] = code


def chosen_language() -> str | None:
    """The global ``--language CODE`` given before the command (None: none)."""
    return _language["code"]


def language_runs(dataset) -> list[tuple[str, object]]:
    """The runs of a command that computes one table per language: [('', dataset)] for pairs in one language (or the
    language ``--language`` chose), else (code, that language's pairs) per language, largest first, said on stderr."""
    from stviz.analyses.tables import languages_note
    from stviz.languages import language_parts, part_language

    parts = language_parts(dataset) if dataset is not None and dataset.pairs is not None else [dataset]
    if len(parts) == 1:
        return [("", dataset)]
    print(f"note: {languages_note(parts)}", file=sys.stderr)
    return [(part_language(part), part) for part in parts]


def for_each_language(dataset, fmt: str, run_one, float_format: str = "{:.3f}") -> None:
    """``run_one(part, collect)`` once per language of the pairs (once when they are in one), each headed in md /
    latex; in CSV with several languages, the tables ``run_one`` returns are printed as one, a ``language`` column
    first. The runs' notes are said once after the last, each with the languages it concerns."""
    from stviz.languages.notes import said_once

    runs = language_runs(dataset)
    tables = []
    _held["notes"] = [] if len(runs) > 1 else None
    try:
        for code, part in runs:
            _held["code"] = code
            if code and fmt != "csv":
                sys.stdout.write(language_heading(code, part, dataset))
            tables.append((code, run_one(part, bool(code))))
    finally:
        held, _held["notes"] = _held["notes"], None
        if held:
            end_progress_line()
            print_notes(said_once(held, {"": len(runs)}))
    if fmt == "csv" and len(runs) > 1:
        print_language_tables(tables, float_format)


def language_heading(code: str, part, whole) -> str:
    """The heading of one language's tables in md / latex output."""
    from stviz.languages import language_name

    return f"\n## {language_name(code)}: {len(part.pairs):,} of {len(whole.pairs):,} pairs\n\n"


def print_language_tables(frames: list[tuple[str, pd.DataFrame]], float_format: str = "{:.3f}") -> None:
    """Every language's CSV table as one, a ``language`` column first (stdout stays one table)."""
    from stviz.analyses.tables import language_table

    print_table(language_table(frames), "csv", float_format)


def with_language(dataset, code: str | None = None):
    """The dataset in the language the command was given (per command, else global), its 'language: ...' line on stderr."""
    from stviz.languages import dataset_language, with_language as set_code

    code = code or _language["code"]
    if code:
        dataset = set_code(dataset, code)
    print(dataset_language(dataset).line(), file=sys.stderr)
    return dataset


class DatasetArg(str):
    """The ``--dataset`` value, carrying the ``--columns``, ``--sheet``, ``--header``, ``--encoding`` and
    ``--skip-rows`` given with it.

    A str, so every command's ``load_dataset_arg(args.dataset)`` honours them whatever order they
    come in on the command line.
    """

    columns: str | None = None
    direction: str | None = None
    language: str | None = None
    sheet: str | None = None
    header: str | None = None
    encoding: str | None = None
    skip_rows: int | None = None


def dataset_arg(value: str, args) -> DatasetArg:
    """A dataset or file named by another flag than ``--dataset`` (``--datasets``, ``--ratings``), read with the
    command's ``--columns`` and reading flags."""
    arg = DatasetArg(value)
    for name in ("columns", "language") + READING_FLAGS:
        setattr(arg, name, getattr(args, name, None) or None)
    return arg


class _DatasetPart(argparse.Action):
    """Store ``--dataset`` or one of its reading flags, then rebuild ``args.dataset`` as a :class:`DatasetArg`."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        dataset = getattr(namespace, "dataset", None)
        if dataset is not None:
            value = DatasetArg(dataset)
            for name in ("columns", "language") + READING_FLAGS:
                setattr(value, name, getattr(namespace, name, None))
            value.direction = getattr(namespace, "transfer_direction", None)
            namespace.dataset = value


def add_dataset_argument(parser, required: bool = True, also: str = "") -> None:
    """The common ``--dataset NAME|FILE`` option, with ``--columns`` and the reading flags for pair files.

    ``required=False`` for a command that has something to show without one (``also`` says what, in the help).
    """
    from stviz.data.intake.readers import size_limit_text

    parser.add_argument("--dataset", required=required, action=_DatasetPart,
                        help="a dataset name (see 'data list'), the path of a CSV/TSV/JSONL/XLSX pair file (or one "
                             "of them .gz/.bz2/.xz), or a folder or .zip of released system outputs "
                             f"(at most {size_limit_text()}; STVIZ_MAX_UPLOAD_MB changes the limit){also}")
    add_reading_arguments(parser, _DatasetPart)
    parser.add_argument("--language", action=_DatasetPart, metavar="CODE",
                        help="the texts' language (ISO 639-1: en, ru, zh, ar, ...): measures are chosen for it, and in "
                             "a file of several languages only its pairs are compared; default: detected, said on stderr")
    add_preview_arguments(parser)  # every command that reads a dataset: those that run an analysis use them


def add_reading_arguments(parser, action="store", which: str = "a pair file", direction: bool = True) -> None:
    """``--columns``, ``--direction`` and the reading flags (``--sheet``, ``--header``, ...) for pair files."""
    from stviz.data.intake.layout import HEADER_CHOICES

    parser.add_argument("--columns", action=action, metavar="ROLE=COL,...",
                        help=f"for {which}: the column of each role, as on the upload page, e.g. "
                             "source=text_1,output=text_2,human=avg_score,human-lower=vote_different,"
                             "reference=ref_1,reference=ref_2,metric=bleu,rater=label_1; a role named here "
                             "replaces what was detected, 'ROLE=' clears it. The mapping used is printed on stderr")
    if direction:
        add_direction_argument(parser, action)
    parser.add_argument("--sheet", action=action, help=f"for an XLSX file ({which}): the sheet to read (default: the first)")
    # No argparse choices: a wrong value is refused by the reader in its one 'error:' line, as every bad input.
    parser.add_argument("--header", action=action, metavar="{" + ",".join(HEADER_CHOICES) + "}",
                        help=f"for {which}: 'first' if its first line (after --skip-rows) holds the column names, "
                             "'none' if it has none (columns are then named 'column 1', 'column 2', ...); default "
                             "auto: detected, and said on stderr")
    parser.add_argument("--encoding", action=action, metavar="ENC",
                        help=f"for a CSV/TSV/JSONL file ({which}): its text encoding (e.g. cp1252, latin-1, utf-16); "
                             "default: detected (UTF-8 line by line, lines that are not decoded as Windows-1252, said)")
    parser.add_argument("--skip-rows", action=action, type=int, metavar="N",
                        help=f"for {which}: skip the first N lines (XLSX: rows) above the header; default: "
                             "comment lines, a sep= line and title rows are detected and said")


def add_direction_argument(parser, action="store") -> None:
    """``--direction SOURCE>TARGET`` (or per system): the transfer direction of pairs without style columns."""
    # dest is not 'direction': an analysis may have an option of that name (Failure cases' --disagreement).
    parser.add_argument("--direction", action=action, metavar="SOURCE>TARGET", dest="transfer_direction",
                        help="for pairs without source/target style columns: their direction, for every pair "
                             "('informal>formal') or per system ('A=informal>formal;B=formal>informal'), so that "
                             "style and fluency measures know each pair's target style; said in every output")


def load_dataset_arg(value: str, columns: str | None = None, sheet: str | None = None,
                     extra_human: Sequence[str] = ()):
    """Load ``--dataset``: a known name, or a pair file read with the detected (or ``--columns``) mapping.

    For a file, the mapping used and every note are printed on stderr. ``extra_human`` names columns
    to use as human scores besides the mapped ones (e.g. ``correlate --human COL``).
    """
    dataset = _load_dataset_arg(value, columns, sheet, extra_human)
    if direction := getattr(value, "direction", None):
        from stviz.data.intake.file_direction import apply_direction

        dataset = apply_direction(dataset, direction)
        print(f"note: {dataset.direction}", file=sys.stderr)
    return with_language(dataset, getattr(value, "language", None))


def _load_dataset_arg(value: str, columns: str | None, sheet: str | None, extra_human: Sequence[str]):
    from stviz.data import DATASET_NAMES, DataError, load_dataset
    from stviz.data.intake.build import load_pairs_file

    if value in DATASET_NAMES or value.startswith("study:"):
        return load_dataset(value)
    outputs = outputs_path(value)
    if outputs is not None:  # released outputs, a folder or its zip, as `leaderboard` reads them
        datasets = load_outputs_arg(outputs)
        if len(datasets) > 1:
            raise DataError(f"{outputs.name} holds {len(datasets)} domains ({', '.join(d.name for d in datasets)}); "
                            "give one domain's folder as --dataset, or compare them all with leaderboard")
        print_notes(datasets[0].notes)
        return datasets[0]
    path = Path(value)
    if path.is_file():
        columns = columns if columns is not None else getattr(value, "columns", None)
        sheet = sheet if sheet is not None else getattr(value, "sheet", None)
        reading = {name: getattr(value, name) for name in READING_FLAGS[1:] if getattr(value, name, None) is not None}
        ds, mapping, notes = load_pairs_file(path, columns=columns, sheet=sheet, extra_human=extra_human, **reading)
        print(f"columns: {mapping.describe()}   (change with --columns ROLE=COL,...)", file=sys.stderr)
        for note in notes + ds.notes:
            print(f"note: {note}", file=sys.stderr)
        return ds
    require_existing(value)
    return load_dataset(value)  # raises a DataError naming the known datasets


def require_existing(value: str) -> None:
    """Refuse a ``--dataset`` written as a path that is not there ("no such file or folder", not "unknown dataset")."""
    from stviz.data.released.outputs_intake import require_existing as refuse_missing

    refuse_missing(value)


# -- released outputs: a folder or its zip, read alike by every command ----------------------------------
def outputs_path(value: str) -> Path | None:
    """The folder (or .zip) ``--dataset`` names when it holds released outputs, else None."""
    from stviz.data.released.outputs_intake import outputs_path as folder_or_zip

    return folder_or_zip(value)


def load_outputs_arg(path: Path, *, references: Sequence[str] = (), directions: str = "", humans: str = "system",
                     domain: str | None = None, benchmark: str = "auto") -> list:
    """One dataset per domain of a folder or zip of outputs, each surveyed (inventory on stderr) and checked first;
    a named ``benchmark`` gives bare outputs (``test.0.tsf`` alone) its test inputs and its directions' styles."""
    from stviz.data.released.outputs_intake import load_surveyed, survey_outputs

    surveyed = survey_outputs(path, references=references, directions=directions, humans=humans, domain=domain,
                              benchmark=benchmark)
    for each in surveyed:
        if len(surveyed) > 1 or domain or each.subset.repository:
            print(f"dataset {each.subset.name} ({each.subset.where(path.name)}):", file=sys.stderr)
        sys.stderr.write(format_table(each.inventory.table().set_index("system"), "md"))
        for problem in each.inventory.problems:
            print(f"problem: {problem}", file=sys.stderr)
    datasets = load_surveyed(surveyed)
    if len(surveyed) > 1:
        print(f"{len(surveyed)} datasets, one leaderboard each: {', '.join(d.name for d in datasets)} "
              "(--subset NAME for one)", file=sys.stderr)
    return datasets
