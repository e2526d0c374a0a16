"""What a folder of released system outputs holds, surveyed and checked before anything is computed.

:func:`survey` finds every file (the layouts of :mod:`stviz.data.released.output_layouts`), reads it once,
keeps each system's outputs for a direction once (the bare and the ``input<TAB>output`` copy many
releases ship side by side: the copy with inputs is used), takes the official inputs and the
references, and lists every problem with its file and line. The :class:`Inventory` it returns is
the table the command prints and the page shows (:meth:`Inventory.table`); :meth:`Inventory.check`
refuses the folder with one line when it cannot be compared, so a user waits seconds, not minutes,
for a refusal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import pandas as pd

from stviz.data.directions import parse_direction
from stviz.data.released.output_layouts import Found, direction_in_name, find_files, ignored_files, style_in_name
from stviz.data.released.outputs import (SystemFile, align_inputs, normalise, read_lines, read_reference_lines,
                                         split_columns)
from stviz.data.released.repository import Layout, Subset
from stviz.data.released.style_files import attach_styles
from stviz.data.schema import DataError

#: What human rewrites found as systems (``Human0/``, ``.human``) become: a system of their own, or references.
HUMANS = ("system", "reference")


@dataclass
class Problem:
    """One reason the folder cannot be compared, with the file (and line) it is in."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = self.path + (f" line {self.line}" if self.line else "")
        return f"{where}: {self.message}"


@dataclass
class Inventory:
    """Every system file kept, the official inputs and references per direction, problems and notes."""

    folder: Path
    files: list[SystemFile] = field(default_factory=list)
    inputs: dict[str, list[str]] = field(default_factory=dict)
    input_files: dict[str, str] = field(default_factory=dict)  # direction -> where its inputs came from
    references: dict[str, list[list[str]]] = field(default_factory=dict)  # direction -> references per input
    reference_files: list[tuple[str, str, int]] = field(default_factory=list)  # (file, direction, lines)
    styles: dict[str, tuple[str, str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    humans: str = "system"
    ignored: list[tuple[str, str]] = field(default_factory=list)  # (file, why): not outputs, listed, never read

    def table(self) -> pd.DataFrame:
        """One row per system file kept, inputs file and reference file: what will be compared, and from where."""
        rows = []
        for f in self.files:
            official = self.inputs.get(f.direction or "")
            aligned = "" if official is None else _aligned(official, f)
            rows.append({"system": f.system, "role": "human" if f.human else "system",
                         "direction": _label(f.direction or "", self.styles), "lines": len(f.outputs),
                         "aligned": aligned, "file": _short(f.path, self.folder),
                         "also": ", ".join(_short(p, self.folder) for p in f.duplicates)})
        for direction, source in self.input_files.items():
            rows.append({"system": "(inputs)", "role": "inputs", "direction": _label(direction, self.styles),
                         "lines": len(self.inputs[direction]), "aligned": "", "file": source, "also": ""})
        for path, direction, count in self.reference_files:
            rows.append({"system": "(reference)", "role": "reference", "direction": _label(direction, self.styles),
                         "lines": count, "aligned": "", "file": _short(path, self.folder), "also": ""})
        for path, why in self.ignored:
            rows.append({"system": f"(ignored: {why})", "role": "ignored", "direction": "", "lines": None,
                         "aligned": "", "file": _short(path, self.folder), "also": ""})
        table = pd.DataFrame(rows, columns=["system", "role", "direction", "lines", "aligned", "file", "also"])
        return table.astype({"lines": "Int64"})  # whole numbers, blank for ignored files (never 1000.000)

    def check(self) -> None:
        """Raise one DataError line when the folder cannot be compared (every problem is in :attr:`problems`)."""
        if not self.problems:
            return
        first = self.problems[0]
        more = f" (and {len(self.problems) - 1} more problem(s), listed above)" if len(self.problems) > 1 else ""
        if first.path in (".", str(self.folder)):  # the folder as a whole: its message names it
            raise DataError(f"{first.message}{more}")
        raise DataError(f"{self.folder.name} cannot be compared: {first}{more}")


def _aligned(official: Sequence[str], f: SystemFile) -> str:
    alignment = align_inputs(official, f.inputs, len(f.outputs))
    how = "by line" if f.inputs is None else "by input text"
    return f"{alignment.matched + len(alignment.differing)}/{len(official)} {how}"


def _label(direction: str, styles: Mapping[str, tuple[str, str]]) -> str:
    if direction in styles and ">" not in direction:
        return f"{direction} ({styles[direction][0]}>{styles[direction][1]})"
    return direction or "(none)"


def _short(path: str, folder: Path) -> str:
    """A file as said to the user: relative to the folder, else its name (never where it lies on the server)."""
    try:
        return str(Path(path).relative_to(folder))
    except ValueError:
        return Path(path).name or str(path)


# -- the survey --------------------------------------------------------------------------------------------
def survey(folder: str | Path, *, reference_files: Sequence[str | Path] = (),
           styles: Mapping[str, tuple[str, str]] | None = None, humans: str = "system",
           inputs: Mapping[str, Sequence[str]] | None = None, known_styles: Iterable[str] = (),
           subset: Subset | None = None) -> Inventory:
    """Find, read and check every file of a folder of outputs; nothing is computed (see the module docstring).

    ``inputs`` gives the official inputs per direction key when they live elsewhere (Li et al.'s
    ``data/``); ``styles`` maps numeric direction keys to (source, target) styles (``--directions``);
    ``subset``: a repository's dataset, whose files lie in several folders under ``folder``
    (:mod:`stviz.data.released.repository`).
    """
    if humans not in HUMANS:
        raise DataError(f"--humans must be one of {', '.join(HUMANS)}, got '{humans}'")
    folder = Path(folder)
    styles = dict(styles or {})
    given_styles = dict(styles)
    known = list(known_styles) + [s for p in styles.values() for s in p]
    layout = subset.layout(known) if subset is not None else None
    if layout is None:
        layout = Layout(*find_files(folder, known_styles=known), ignored_files(folder), [])
    found = layout.found
    inv = Inventory(folder, problems=[Problem(p, m, n) for p, m, n in layout.problems], humans=humans,
                    notes=list(layout.notes))
    inv.ignored = [(str(p), why) for p, why in layout.ignored]
    inv.styles = styles
    for item in found:
        if item.direction is not None and item.direction.styles:
            inv.styles.setdefault(item.direction.key, item.direction.styles)
    files = _read_outputs([f for f in found if f.role == "outputs"], inv)
    inv.files = _one_copy_each(files, inv)
    references = [f for f in found if f.role == "reference"] + [_given_reference(p) for p in reference_files]
    _check_given_directions(given_styles, inv)
    inv.problems += [Problem(p, m) for p, m in attach_styles(
        [f for f in found if f.role == "inputs"] + references, inv.files, inv.styles, inv.notes)]
    _take_inputs([f for f in found if f.role == "inputs" and f.direction is not None], inputs, inv)
    _check_counts(inv)
    if humans == "reference":
        _humans_as_references(inv)
    elif any(f.human for f in inv.files):
        inv.notes.append(f"human rewrites compared as a system: {', '.join(sorted({f.system for f in inv.files if f.human}))}"
                         " (--humans reference uses them as references instead)")
    _take_references([r for r in references if not (r.style and r.direction is None)], inv)
    if not inv.files and not inv.problems:
        ignored = "; ".join(f"{_short(p, folder)}: {why}" for p, why in inv.ignored[:3])
        # The folder's name only: on a server the full path is a cache folder the user never saw.
        inv.problems.append(Problem(str(folder), f"no system output files in {folder.name}: expected "
                                                 "STEM.DIRECTION.SYSTEM files, one folder per system, folders per "
                                                 "direction, or SYSTEM.tsv files with input<TAB>output lines"
                                                 + (f" (ignored: {ignored})" if ignored else "")))
    for problem in inv.problems:  # named from the folder: DualRL/test.0.tsf, not a bare test.0.tsf
        problem.path = _short(problem.path, folder)
    return inv


def _given_reference(spec: str | Path) -> Found:
    """A ``--references`` file: ``FILE`` (its direction from its name: reference.0, reference.neg), ``DIR=FILE``,
    or ``all=FILE`` (every direction, as the user says)."""
    text = str(spec)
    head, sep, rest = text.partition("=")
    if sep and "/" not in head and "\\" not in head and (head == "all" or parse_direction(head) is not None):
        path = Path(rest)
        if head == "all":
            return Found(path, "reference", every=True)
        return Found(path, "reference", direction=parse_direction(head))
    path = Path(text)
    direction = direction_in_name(path.name)[0]
    return Found(path, "reference", direction=direction, style=None if direction else style_in_name(path.name))


def _check_given_directions(given: Mapping[str, tuple[str, str]], inv: Inventory) -> None:
    """``--directions`` must give styles to every numeric direction of the folder, and to no other."""
    if not given:
        return
    numeric = sorted({f.direction for f in inv.files if f.direction and ">" not in f.direction})
    missing = [k for k in numeric if k not in given]
    unknown = [k for k in given if k not in numeric and ">" not in k]
    if missing or unknown:
        said = []
        if missing:
            said.append(f"direction {', '.join(missing)} would have no styles")
        if unknown:
            said.append(f"the folder has no direction {', '.join(unknown)}")
        inv.problems.append(Problem(str(inv.folder), f"--directions names {', '.join(given)} but the folder's "
                                                     f"directions are {', '.join(numeric) or 'none'}: {'; '.join(said)}; "
                                                     "give DIR=SOURCE>TARGET for each of its directions"))


def _read_outputs(found: Sequence[Found], inv: Inventory) -> list[SystemFile]:
    files = []
    for item in found:
        lines, notes = read_lines(item.path)
        try:
            columns = split_columns(lines, item.path.name)
        except DataError as exc:  # a line without TAB among input<TAB>output lines: named with its line
            inv.problems.append(Problem(str(item.path), str(exc).split(": ", 1)[-1]))
            continue
        key = item.direction.key if item.direction is not None else None
        f = SystemFile(str(item.system), key, str(item.path), columns[1], columns[0], columns[2], notes)
        f.human = item.human
        files.append(f)
    return files


def _one_copy_each(files: list[SystemFile], inv: Inventory) -> list[SystemFile]:
    """Each system's outputs for a direction once: identical copies merged (the one with inputs kept)."""
    groups: dict[tuple[str, str], list[SystemFile]] = {}
    for f in files:
        groups.setdefault((f.system, f.direction or ""), []).append(f)
    kept = []
    for (system, _), group in groups.items():
        # The copy carrying inputs is aligned by text, so it survives a skipped line; prefer it.
        group = sorted(group, key=lambda f: (f.inputs is None, f.path))
        first = group[0]
        for other in group[1:]:
            if [normalise(t) for t in other.outputs] != [normalise(t) for t in first.outputs]:
                inv.problems.append(Problem(other.path, f"{system} has two files for direction "
                                            f"'{first.direction or 'none'}' with different outputs: "
                                            f"{Path(first.path).name} and {Path(other.path).name}; keep one",
                                            _first_difference(first.outputs, other.outputs)))
                continue
            first.duplicates.append(other.path)
        if first.duplicates:
            inv.notes.append(f"{system}: {Path(first.path).name} used; "
                             f"{', '.join(Path(p).name for p in first.duplicates)} hold(s) the same outputs")
        kept.append(first)
    return kept


def _first_difference(a: Sequence[str], b: Sequence[str]) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if normalise(x) != normalise(y):
            return i + 1
    return min(len(a), len(b)) + 1


def _take_inputs(found: Sequence[Found], given: Mapping[str, Sequence[str]] | None, inv: Inventory) -> None:
    """Official inputs per direction: given, else an inputs file, else the first tab file's input column."""
    for direction, lines in (given or {}).items():
        inv.inputs[direction] = list(lines)
        inv.input_files[direction] = "(given)"
    for item in found:
        key = item.direction.key if item.direction is not None else ""
        if key in inv.inputs:
            continue
        lines, notes = read_lines(item.path)
        lines = _trim_end(lines, 0, _short(str(item.path), inv.folder), inv.notes)  # an empty input is no input
        inv.inputs[key], inv.input_files[key] = [line.strip() for line in lines], _short(str(item.path), inv.folder)
        inv.notes.extend(notes)
    for f in sorted(inv.files, key=lambda f: (f.human, f.path)):  # a system's inputs before a human's
        key = f.direction or ""
        if key not in inv.inputs and f.inputs is not None:
            inv.inputs[key] = list(f.inputs)
            inv.input_files[key] = f"input column of {_short(f.path, inv.folder)}"


def _check_counts(inv: Inventory) -> None:
    """Bare outputs must have one line per input: a missing line cannot be found again, so refuse."""
    for f in inv.files:
        key = f.direction or ""
        if key not in inv.inputs:
            stem = ".".join(direction_in_name(Path(f.path).name)[1]) or "STEM"
            inv.problems.append(Problem(f.path, f"bare outputs but no inputs file for direction "
                                        f"'{key or 'none'}' (and no input<TAB>output file of it); add the inputs as "
                                        f"{stem}.{key or 'N'} (beside {Path(f.path).name}) or give input<TAB>output "
                                        "lines"))
            continue
        if f.inputs is None:
            f.outputs = _trim_end(f.outputs, len(inv.inputs[key]), _short(f.path, inv.folder), inv.notes)
        if f.inputs is None and len(f.outputs) != len(inv.inputs[key]):
            inv.problems.append(_count_problem(f.path, len(f.outputs), len(inv.inputs[key]),
                                               inv.input_files[key], "outputs", f.outputs))


def _trim_end(lines: list[str], wanted: int, name: str, notes: list[str]) -> list[str]:
    """Blank lines at the end of a file beyond ``wanted`` lines are its end (an editor's), said; never mid-file."""
    end = len(lines)
    while end > wanted and not lines[end - 1].strip():
        end -= 1
    if end < len(lines):
        notes.append(f"{name}: {len(lines) - end} blank line(s) at the end (line {end + 1}"
                     f"{f'-{len(lines)}' if len(lines) - end > 1 else ''}) were read as the end of the file")
    return lines[:end]


def _count_problem(path: str, lines: int, wanted: int, inputs_from: str, what: str,
                   texts: Sequence[str] = ()) -> Problem:
    fewer = lines < wanted
    line = lines + 1 if fewer else wanted + 1
    blanks = [i + 1 for i, t in enumerate(texts) if not t.strip()]
    said = f" (blank lines: {', '.join(map(str, blanks[:5]))}{' ...' if len(blanks) > 5 else ''})" if blanks else ""
    return Problem(path, f"{lines} lines of bare {what}{said}, but the inputs ({inputs_from}) have {wanted}; bare lines "
                         f"cannot be realigned, so every {what[:-1]} after a {'missing' if fewer else 'extra'} line "
                         f"would be read against the wrong input: fix the file or give input<TAB>{what[:-1]} lines",
                   line)


def _humans_as_references(inv: Inventory) -> None:
    """``--humans reference``: human rewrites found as systems become references of their direction."""
    for f in [f for f in inv.files if f.human]:
        key = f.direction or ""
        if key not in inv.inputs:
            continue
        alignment = align_inputs(inv.inputs[key], f.inputs, len(f.outputs))
        refs = [[f.outputs[r]] if r is not None and f.outputs[r] else [] for r in alignment.rows]
        _add_references(inv, key, refs)
        inv.reference_files.append((f.path, key, len(f.outputs)))
        inv.notes += alignment.describe(f"references in {Path(f.path).name}")
    inv.files = [f for f in inv.files if not f.human]


def _take_references(found: Sequence[Found], inv: Inventory) -> None:
    for item in found:
        lines, notes = read_lines(item.path)
        inv.notes += notes
        key = item.direction.key if item.direction is not None else None
        if key is not None and key not in inv.inputs:
            inv.problems.append(Problem(str(item.path), f"a reference of direction '{key}', which no system file has"))
            continue
        if key is None and not item.every and len(inv.inputs) > 1:
            # One file for every direction is the user's call, never a guess: the wrong references raise BLEU.
            inv.problems.append(Problem(str(item.path), f"{item.path.name} names no direction and the folder has "
                                        f"{len(inv.inputs)} ({', '.join(sorted(inv.inputs))}): name it by direction "
                                        "(reference.0, reference.neg) or give --references DIR=FILE (all=FILE for "
                                        "every direction)"))
            continue
        for direction in [key] if key is not None else list(inv.inputs):
            bare = sum("\t" in line for line in lines) < 0.5 * max(len(lines), 1)
            if bare:
                lines = _trim_end(lines, len(inv.inputs[direction]), _short(str(item.path), inv.folder), inv.notes)
            if bare and len(lines) != len(inv.inputs[direction]):
                inv.problems.append(_count_problem(str(item.path), len(lines), len(inv.inputs[direction]),
                                                   inv.input_files[direction], "references", lines))
                continue
            refs, ref_notes = read_reference_lines(lines, inv.inputs[direction], item.path.name)
            inv.notes += ref_notes
            _add_references(inv, direction, refs)
            inv.reference_files.append((str(item.path), direction, len(lines)))


def _add_references(inv: Inventory, key: str, refs: list[list[str]]) -> None:
    old = inv.references.get(key, [[] for _ in inv.inputs[key]])
    inv.references[key] = [a + b for a, b in zip(old, refs)]


__all__ = ["HUMANS", "Inventory", "Problem", "survey"]
