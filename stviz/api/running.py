"""What every function of the Python API does around its analysis: the dataset opened, the options built, the run
kept in the shared disk cache, one table per language joined, the notes and the language line put on the table,
and every refusal raised as one ``stviz.DataError`` in the command line's words."""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

import pandas as pd

from stviz.data.schema import DataError, Dataset


@dataclass
class Table:
    """A table on its way to the user: its rows, and what is said beside it (notes, flags)."""

    frame: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)


def said_as_data_error(function: Callable) -> Callable:
    """Raise what the command line prints as its ``error:`` line (a model that cannot load, a bad value, a missing
    file) as one :class:`stviz.DataError` with the same message."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        from stviz.embedders import EmbedderError

        try:
            return function(*args, **kwargs)
        except DataError:
            raise
        except (EmbedderError, ValueError, FileNotFoundError) as exc:
            raise DataError(str(exc)) from exc

    return wrapper


def dataset_of(data, **reading) -> Dataset:
    """A dataset as given, or opened from anything :func:`stviz.open` takes."""
    from stviz.api.intake import open as open_dataset

    if isinstance(data, Dataset) and not any(reading.values()):
        return data
    return open_dataset(data, **reading)


#: Views whose page opens with options the command line leaves open only resolved (the metrics, the first human
#: column, the menus' first entries): the API starts from them, so that a result it computes is the page's, kept
#: under the same key (similarity and the embedding map pick sample sizes from a menu instead: the CLI's options).
PAGE_BASED = ("metrics_vs_humans", "failure_cases", "leaderboard", "tradeoffs")


def options_of(view: str, changes: dict[str, Any], dataset: Dataset | None = None, **fixed: Any):
    """The view's Options with the user's ``changes`` (a list taken as a tuple; an unknown name refused with the
    names it takes): on the page's opening options for ``dataset`` (:data:`PAGE_BASED` views), else the defaults."""
    analysis = importlib.import_module(f"stviz.analyses.{view}")
    known = set(analysis.Options.__dataclass_fields__)
    unknown = sorted(set(changes) - known)
    if unknown:
        raise DataError(f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                        f"{view} takes: {', '.join(sorted(known))}")
    changes = {key: tuple(value) if isinstance(value, list) else value for key, value in changes.items()}
    if dataset is not None and view in PAGE_BASED and not fixed:
        from stviz.analyses.opening import opening_options

        return opening_options(analysis.__name__, dataset).changed(**changes)
    return analysis.Options(**{**fixed, **changes})


def run_view(view: str, dataset: Dataset | None, options, reporter, **kwargs) -> tuple[Any, list[str]]:
    """Run a view's analysis as the command line does (LLM judges' call plans first), kept whole in the disk cache
    the dashboard reads (:func:`stviz.analyses.kept.keep_run`): (result, its notes)."""
    from stviz.analyses.judges import call_plans
    from stviz.analyses.kept import keep_run

    analysis = importlib.import_module(f"stviz.analyses.{view}")
    plans = call_plans(analysis, dataset, options) if dataset is not None else []
    if dataset is None:  # Meta-evaluation loads its sets itself: nothing to keep it under
        result = analysis.run(dataset, options, reporter, **kwargs)
    else:
        result = keep_run(analysis.__name__, dataset, options, reporter, **kwargs)
    reporter.finish()
    return result, plans + list(getattr(result, "notes", []))


def per_language(dataset: Dataset, run_one: Callable[[Dataset, bool], Table]) -> Table:
    """``run_one(part, several)`` once per language of the pairs (once when they are in one); several languages give
    one table, a ``language`` column first, and each note once with the languages it concerns."""
    from stviz.analyses.tables import language_table, languages_note
    from stviz.languages import language_parts, part_language
    from stviz.languages.notes import said_once

    parts = language_parts(dataset) if dataset.pairs is not None else [dataset]
    if len(parts) == 1:
        return run_one(dataset, False)
    codes = [part_language(part) for part in parts]
    tables = [run_one(part, True) for part in parts]
    said = languages_note(parts)  # the command's words (its --language CODE is this API's language=CODE)
    notes = said_once([("", code, note) for code, table in zip(codes, tables) for note in table.notes],
                      {"": len(parts)})
    flags = [flag for table in tables for flag in table.flags]
    return Table(language_table([(code, table.frame) for code, table in zip(codes, tables)]), [said] + notes, flags)


def finished(table: Table, dataset: Dataset | None, intake: list[str]) -> pd.DataFrame:
    """The table for the user: ``attrs["notes"]`` (reading, then the run), ``attrs["language"]`` (the command
    line's 'language: ...' line) and ``attrs["flags"]`` where the run raised any."""
    from stviz.languages import dataset_language

    frame = table.frame.copy()
    frame.attrs["notes"] = list(intake) + list(table.notes)
    frame.attrs["language"] = dataset_language(dataset).line() if dataset is not None else ""
    frame.attrs["flags"] = list(table.flags)
    return frame


__all__ = ["Table", "dataset_of", "finished", "options_of", "per_language", "run_view", "said_as_data_error"]
