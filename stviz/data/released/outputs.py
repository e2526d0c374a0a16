"""Reading one file of released system outputs, aligning it with the inputs, and building pairs.

A *system file* holds one system's outputs for one transfer direction, one per line, either as
bare outputs aligned with an inputs file or as ``input<TAB>output[<TAB>label]`` lines. Where such
files lie in a folder (the layouts papers publish) is :mod:`stviz.data.released.output_layouts`; the survey
that reads and checks a whole folder before anything is computed is :mod:`stviz.data.released.inventory`;
:mod:`stviz.data.released.output_folders` turns it into a dataset.

Files are decoded by :func:`stviz.data.intake.readers.decode_text`, the decoder of every file a user
brings: byte-order marks, UTF-16 without one, UTF-8, else Windows-1252 with a note (published
outputs are not always UTF-8). Outputs are aligned with the official inputs by the input text where a file
carries it (a system that skipped a line no longer shifts every later output onto the wrong
input), else by line number; every line that could not be matched is reported, never dropped
silently. References come one or several per input (:func:`read_reference_lines`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from stviz.data.intake.cells import nfc_columns
from stviz.data.intake.readers import decode_text  # one decoder for every file a user brings
from stviz.data.schema import REFERENCE_PREFIX, DataError

def decode_lines(data: bytes, name: str) -> tuple[list[str], list[str]]:
    """The lines of a text file (any common encoding) and notes; blank lines are kept for alignment."""
    notes: list[str] = []
    text = decode_text(data, name, notes)
    # Only newlines end lines here: str.splitlines() would also split at form feeds and U+2028,
    # which some review texts contain, and shift every later line.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines, notes


def read_lines(path: Path) -> tuple[list[str], list[str]]:
    """:func:`decode_lines` of a file on disk."""
    return decode_lines(Path(path).read_bytes(), Path(path).name)


# -- one file ------------------------------------------------------------------------------------------
@dataclass
class SystemFile:
    """One system's outputs for one direction, as read from one file."""

    system: str
    direction: str | None
    path: str
    outputs: list[str]
    inputs: list[str] | None = None
    #: A third column: a target style when it is a word, ignored when it is a numeric label.
    target_styles: list[str] | None = None
    notes: list[str] = field(default_factory=list)
    #: Human rewrites released as a system (``Human0/``, ``.human``): a system or references, as the user says.
    human: bool = False
    #: Other files holding the same outputs (a bare copy beside the input<TAB>output one), not read again.
    duplicates: list[str] = field(default_factory=list)


def split_columns(lines: Sequence[str], name: str) -> tuple[list[str] | None, list[str], list[str] | None]:
    """(inputs or None, outputs, third column or None) from bare-output or ``input<TAB>output`` lines."""
    tabbed = sum("\t" in line for line in lines)
    if not lines or tabbed < 0.5 * len(lines):
        return None, [line.strip() for line in lines], None
    fields = [line.split("\t") for line in lines]
    short = [i + 1 for i, f in enumerate(fields) if len(f) < 2 and f[0].strip()]
    if short:
        raise DataError(f"{name}: lines {', '.join(map(str, short[:5]))} have no TAB while the others are "
                        "input<TAB>output; fix them or give bare outputs")
    inputs = [f[0].strip() for f in fields]
    outputs = [f[1].strip() if len(f) > 1 else "" for f in fields]
    third = [f[2].strip() if len(f) > 2 else "" for f in fields]
    if any(third) and not all(t.isdigit() or not t for t in third):
        return inputs, outputs, third
    return inputs, outputs, None


# -- alignment ------------------------------------------------------------------------------------------
def normalise(text: str) -> str:
    """A line as compared for alignment: case and runs of spaces do not count."""
    return re.sub(r"\s+", " ", str(text)).strip().lower()


@dataclass
class Alignment:
    """Where each official input's output is in a system file (None: the system has no output for it)."""

    rows: list[int | None]
    matched: int
    differing: list[int]  # official line numbers (0-based) kept by position although their text differs
    missing: list[int]  # official line numbers with no output
    extra: list[int]  # file line numbers that match no official input

    def describe(self, what: str) -> list[str]:
        """Notes for the user (empty when every line matched)."""
        notes = []
        if self.missing:
            notes.append(f"{what}: no output for {len(self.missing)} input(s) (input lines "
                         f"{_lines(self.missing)}); those pairs are left out for this system")
        if self.extra:
            notes.append(f"{what}: {len(self.extra)} line(s) match no official input (file lines "
                         f"{_lines(self.extra)}); ignored")
        if self.differing:
            notes.append(f"{what}: {len(self.differing)} input line(s) differ from the official inputs (lines "
                         f"{_lines(self.differing)}); aligned by position")
        return notes


def _lines(numbers: Sequence[int], limit: int = 5) -> str:
    shown = ", ".join(str(n + 1) for n in numbers[:limit])
    return shown + (" ..." if len(numbers) > limit else "")


def align_inputs(official: Sequence[str], given: Sequence[str] | None, n_outputs: int) -> Alignment:
    """Match a file's lines to the official inputs: by input text when the file has it, else by line.

    Texts are matched wherever they are in the file (Li et al.'s Amazon references come in another
    order than the inputs; one system skipped a line); a line whose text matches nothing is kept by
    position when the file's line at that position is unmatched too (an edited input), and reported.
    """
    n = len(official)
    if given is None:
        rows = [i if i < n_outputs else None for i in range(n)]
        missing = [i for i, r in enumerate(rows) if r is None]
        return Alignment(rows, n - len(missing), [], missing, list(range(n, n_outputs)))
    a, b = [normalise(t) for t in official], [normalise(t) for t in given]
    if a == b:
        return Alignment(list(range(n)), n, [], [], [])
    where: dict[str, list[int]] = {}
    for j, text in enumerate(b):
        where.setdefault(text, []).append(j)
    rows: list[int | None] = [None] * n
    for i, text in enumerate(a):  # a repeated input takes the repeated lines in order
        if where.get(text):
            rows[i] = where[text].pop(0)
    used = {r for r in rows if r is not None}
    differing = []
    for i in range(n):
        if rows[i] is None and i < len(b) and i not in used:
            rows[i] = i
            used.add(i)
            differing.append(i)
    missing = [i for i, r in enumerate(rows) if r is None]
    extra = [j for j in range(len(b)) if j not in used]
    return Alignment(rows, n - len(missing) - len(differing), differing, missing, extra)


# -- references ----------------------------------------------------------------------------------------
def read_reference_lines(lines: Sequence[str], inputs: Sequence[str], name: str) -> tuple[list[list[str]], list[str]]:
    """References per official input from a reference file: ``ref``, or ``input<TAB>ref[<TAB>ref...][<TAB>label]``.

    With an input column the lines are aligned to the inputs by text (as outputs are); several
    TAB-separated references on a line become several references of that input.
    """
    fields = [line.split("\t") for line in lines]
    has_input = sum(len(f) >= 2 for f in fields) >= 0.5 * max(len(fields), 1)
    if not has_input:
        refs = [[line.strip()] if line.strip() else [] for line in lines]
        alignment = align_inputs(inputs, None, len(refs))
    else:
        # A trailing all-digit column is a style label (Li et al.'s captions), not a reference.
        if all(len(f) >= 3 and f[-1].strip().isdigit() for f in fields):
            fields = [f[:-1] for f in fields]
        refs = [[r.strip() for r in f[1:] if r.strip()] for f in fields]
        alignment = align_inputs(inputs, [f[0] for f in fields], len(refs))
    per_input = [refs[r] if r is not None else [] for r in alignment.rows]
    return per_input, alignment.describe(f"references in {name}")


# -- pairs -----------------------------------------------------------------------------------------------
def build_pairs(files: Sequence[SystemFile], inputs: Mapping[str, Sequence[str]],
                styles: Mapping[str, tuple[str, str]] | None = None,
                references: Mapping[str, Sequence[Sequence[str]]] | None = None,
                system_names: Mapping[str, str] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """One row per (system, official input) with its output, styles and references, plus notes.

    ``inputs`` maps a direction to its official inputs (a direction without one takes the first
    file's input column); ``styles`` maps a direction to (source style, target style);
    ``system_names`` renames file systems (e.g. Li et al.'s ``mit`` -> ``CrossAligned``).
    """
    styles, references, system_names = styles or {}, references or {}, system_names or {}
    notes: list[str] = []
    inputs = {d: list(v) for d, v in inputs.items()}
    for f in files:
        key = f.direction or ""
        if key not in inputs:
            if f.inputs is None:
                raise DataError(f"{Path(f.path).name}: bare outputs but no inputs file for direction "
                                f"'{key or 'none'}'; add STEM.{key or 'N'} with the inputs, or give input<TAB>output lines")
            inputs[key] = list(f.inputs)
    frames = []
    for f in files:
        key = f.direction or ""
        official = inputs[key]
        alignment = align_inputs(official, f.inputs, len(f.outputs))
        notes += f.notes + alignment.describe(f"{system_names.get(f.system, f.system)} ({Path(f.path).name})")
        rows = [(i, r) for i, r in enumerate(alignment.rows) if r is not None]
        frame = pd.DataFrame({
            "source": [official[i] for i, _ in rows],
            "output": [f.outputs[r] for _, r in rows],
            "system": system_names.get(f.system, f.system),
            "system_file": f.system,
            "direction": key,
            "line": [i for i, _ in rows],
        })
        if key in styles:
            frame["source_style"], frame["target_style"] = styles[key]
        elif f.target_styles is not None:
            frame["target_style"] = [f.target_styles[r] for _, r in rows]
        refs = references.get(key)
        if refs is not None:
            width = max((len(refs[i]) for i, _ in rows), default=0)
            for k in range(width):
                column = "reference" if k == 0 else f"{REFERENCE_PREFIX}{k + 1}"
                frame[column] = [refs[i][k] if k < len(refs[i]) else None for i, _ in rows]
        frames.append(frame)
    pairs = pd.concat(frames, ignore_index=True)
    texts = ["source", "output"] + [c for c in pairs.columns if c == "reference" or c.startswith(REFERENCE_PREFIX)]
    nfc_columns(pairs, texts, "pair", notes,
                places=[f"{s} line {i + 1}" for s, i in zip(pairs["system"], pairs["line"])])
    empty = pairs["output"].eq("")
    if empty.any():
        notes.append(f"{int(empty.sum())} empty output line(s) are kept as empty outputs (a system that wrote "
                     "nothing for an input scores as such)")
    return pairs, notes


__all__ = ["Alignment", "SystemFile", "align_inputs", "build_pairs", "decode_lines", "normalise", "read_lines",
           "read_reference_lines", "read_system_file", "split_columns"]
