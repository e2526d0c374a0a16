"""A folder of released system outputs as a dataset (or one per domain), surveyed and checked first.

``load_outputs_folder`` is what ``--dataset FOLDER`` reads: :func:`stviz.data.inventory.survey`
finds and checks every file (refusing with one line before any computation), then the pairs are
built with :func:`stviz.data.outputs.build_pairs`. A folder whose sub-folders are output folders
themselves (one per domain or dataset) is compared one domain at a time (:func:`output_domains`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from stviz.data.inventory import Inventory, survey
from stviz.data.output_layouts import find_domains, past_wrappers
from stviz.data.outputs import build_pairs
from stviz.data.schema import DataError, Dataset


def load_outputs_folder(folder: str | Path, *, name: str | None = None, reference_files: Sequence[str | Path] = (),
                        styles: Mapping[str, tuple[str, str]] | None = None,
                        system_names: Mapping[str, str] | None = None, humans: str = "system",
                        inventory: Inventory | None = None) -> Dataset:
    """A Dataset from a folder of system outputs (any layout of stviz.data.output_layouts) and reference files.

    Reference files in the folder (``reference.0``) are read too. A reference file applies to the
    direction its name gives, or to every direction when it gives none; several files for one
    direction give several references. Raises DataError (one line) when the folder cannot be compared.
    """
    folder = Path(folder)
    inventory = inventory or survey(folder, reference_files=reference_files, styles=styles, humans=humans)
    inventory.check()
    pairs, pair_notes = build_pairs(inventory.files, inventory.inputs, inventory.styles, inventory.references,
                                    system_names)
    return Dataset(name=name or folder.name, title=f"System outputs in {folder.name}",
                   description=f"{pairs['system'].nunique()} systems read from {folder.name}", pairs=pairs,
                   notes=inventory.notes + pair_notes)


def output_domains(folder: str | Path, domain: str | None = None) -> list[Path]:
    """The folders to compare: the domains (sub-folders that are output folders), only ``domain``, or the folder.

    A folder that only wraps another (``yelp_outputs/`` around everything) is stepped into, as a zip's is.
    """
    folder = past_wrappers(Path(folder)) if Path(folder).is_dir() else Path(folder)
    domains = find_domains(folder)
    if domain is None:
        return domains or [folder]
    chosen = [d for d in domains if d.name == domain]
    if not chosen:
        raise DataError(f"--domain {domain}: {folder.name} has "
                        + (f"the domains {', '.join(d.name for d in domains)}" if domains else "no domain sub-folders"))
    return chosen


__all__ = ["load_outputs_folder", "output_domains"]
