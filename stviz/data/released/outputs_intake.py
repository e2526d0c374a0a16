"""A dataset named by a path: released outputs (a folder or its zip) surveyed per domain, checked, then read, and a
path that is not there refused as such; the same steps for the command line's ``--dataset`` and the Python API's
``stviz.open``, which only say the inventories differently (stderr, or the notes of the table).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from stviz.data.released.inventory import Inventory
from stviz.data.released.repository import Subset


@dataclass
class SurveyedDomain:
    """One dataset of the folder (a domain, a repository's dataset, or the folder itself) and its inventory."""

    subset: Subset
    inventory: Inventory


def outputs_path(value: str) -> Path | None:
    """The folder (or .zip) a dataset argument names when it holds released outputs, else None."""
    path = Path(value)
    if path.is_dir() or (path.is_file() and path.suffix.lower() == ".zip"):
        return path
    return None


def require_existing(value: str) -> None:
    """Refuse a dataset argument that is written as a path (a folder, a file name with an extension) and is not there.

    Said as such: "no such file or folder", not "unknown dataset" (the user meant a file, not a name).
    """
    from stviz.data import DATASET_NAMES
    from stviz.data.schema import DataError

    if value in DATASET_NAMES or Path(value).exists():
        return
    if "/" in value or "\\" in value or Path(value).suffix:
        raise DataError(f"no such file or folder: '{value}'")


def survey_outputs(path: Path, *, references: Sequence[str] = (), directions: str = "", humans: str = "system",
                   domain: str | None = None, benchmark: str = "auto") -> list[SurveyedDomain]:
    """Each dataset of a folder or zip of outputs with its inventory (not yet checked); a named ``benchmark`` gives
    bare outputs (``test.0.tsf`` alone) its test inputs and its directions' styles."""
    from stviz.data.directions import parse_direction_styles
    from stviz.data.released.inventory import survey
    from stviz.data.released.kept_outputs import unpacked_zip
    from stviz.data.released.output_folders import output_domains

    styles = parse_direction_styles(directions)
    folder = unpacked_zip(path) if path.is_file() else path
    domains = output_domains(folder, domain)
    inputs = None
    if benchmark not in ("auto", "none"):
        from stviz.benchmarks import get
        from stviz.benchmarks.published import official_inputs

        card = get(benchmark)
        inputs, styles = official_inputs(card), {**card.directions, **styles}
    surveyed = []
    for each in domains:
        inventory = survey(each.folder, reference_files=references, styles=styles, humans=humans, subset=each)
        if inputs is not None and any("no inputs file" in p.message for p in inventory.problems):
            # only outputs without inputs take the benchmark's; files with inputs are matched by them
            inventory = survey(each.folder, reference_files=references, styles=styles, humans=humans, inputs=inputs,
                               subset=each)
        surveyed.append(SurveyedDomain(each, inventory))
    return surveyed


def load_surveyed(surveyed: list[SurveyedDomain]) -> list:
    """One dataset per surveyed domain, every inventory checked first (a DataError, one line, before any is read)."""
    from stviz.data.released.output_folders import load_outputs_folder

    for each in surveyed:
        each.inventory.check()
    return [load_outputs_folder(each.subset.folder, name=each.subset.name, inventory=each.inventory)
            for each in surveyed]


__all__ = ["SurveyedDomain", "load_surveyed", "outputs_path", "require_existing", "survey_outputs"]
