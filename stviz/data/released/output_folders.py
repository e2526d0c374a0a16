"""A folder of released system outputs as a dataset (or one per domain), surveyed and checked first.

``load_outputs_folder`` is what ``--dataset FOLDER`` reads: :func:`stviz.data.released.inventory.survey`
finds and checks every file (refusing with one line before any computation), then the pairs are
built with :func:`stviz.data.released.outputs.build_pairs`. A folder whose sub-folders are output folders
themselves (one per domain or dataset), or a repository as released (:mod:`stviz.data.released.repository`), is compared
one dataset at a time (:func:`output_domains`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from stviz.data.released.inventory import Inventory, survey
from stviz.data.released.outputs import build_pairs
from stviz.data.released.repository import Subset, find_subsets
from stviz.data.schema import DataError, Dataset


def load_outputs_folder(folder: str | Path, *, name: str | None = None, reference_files: Sequence[str | Path] = (),
                        styles: Mapping[str, tuple[str, str]] | None = None,
                        system_names: Mapping[str, str] | None = None, humans: str = "system",
                        inventory: Inventory | None = None) -> Dataset:
    """A Dataset from a folder of system outputs (any layout of stviz.data.released.output_layouts) and reference files.

    Reference files in the folder (``reference.0``) are read too. A reference file applies to the
    direction its name gives, or to every direction when it gives none; several files for one
    direction give several references. Raises DataError (one line) when the folder cannot be compared.
    """
    folder = Path(folder)
    inventory = inventory or survey(folder, reference_files=reference_files, styles=styles, humans=humans)
    inventory.check()
    pairs, pair_notes = build_pairs(inventory.files, inventory.inputs, inventory.styles, inventory.references,
                                    system_names)
    where = folder.name if name in (None, folder.name) else f"{folder.name} ({name})"
    return Dataset(name=name or folder.name, title=f"System outputs in {where}",
                   description=f"{pairs['system'].nunique()} system(s) read from {where}", pairs=pairs,
                   notes=inventory.notes + pair_notes)


def output_domains(folder: str | Path, domain: str | None = None) -> list[Subset]:
    """The datasets to compare: a repository's datasets or the domains (sub-folders that are output folders), only
    ``domain`` (``--subset``), or the folder itself.

    A folder that only wraps another (``yelp_outputs/``, GitHub's ``NAME-master/``) is stepped into, as a zip's is.
    """
    subsets = find_subsets(Path(folder))
    if domain is None:
        return subsets
    chosen = [s for s in subsets if domain in s.names]
    if not chosen:
        several = len(subsets) > 1 or subsets[0].repository is not None
        raise DataError(f"--subset {domain}: {Path(folder).name} holds "
                        + (f"the datasets {', '.join(s.name for s in subsets)}" if several
                           else "one dataset, with no dataset or domain sub-folders"))
    return chosen


__all__ = ["load_outputs_folder", "output_domains"]
