"""A view for the kept-result tests (tests/test_kept.py): an analysis module with Options and a run that counts its
calls, so a test sees whether a result was computed or read."""

from __future__ import annotations

from dataclasses import dataclass

from stviz.analyses.base import AnalysisOptions, option

TITLE = "Counted view"
RUNS: list[tuple[str, object]] = []


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """One option that changes the result."""

    scale: int = option(1, "a factor")


def applies_to(dataset) -> str | None:
    """Every dataset."""
    return None


def run(dataset, options: Options, progress=None, trained=None, uploads=()):
    """The number of pairs times the scale (counted)."""
    RUNS.append((dataset.name, options))
    return {"pairs": len(dataset.pairs) * options.scale, "trained": trained}
