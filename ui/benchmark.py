"""An upload on a known benchmark, on the Leaderboard page: said in one line, placed among the published systems
(a toggle compares it alone), and the papers' own numbers shown beside the recomputed ones."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from stviz.analyses import benchmark_board
from stviz.benchmarks.match import Placement, recognise
from stviz.data.schema import DataError, Dataset
from ui.text import literal, show_error


@st.cache_data(show_spinner=False, max_entries=16)
def _recognised(name: str, _dataset: Dataset) -> Placement | None:
    # Keyed by the dataset's name: an upload's name is its content's hash.
    try:
        return recognise(_dataset)
    except DataError:
        return None


def benchmark_section(ds: Dataset, current_name: str):
    """(dataset to compare, benchmark or None): the upload with a benchmark's published systems when it is on one."""
    placement = _recognised(current_name, ds)
    if placement is None:
        return ds, None
    benchmark = placement.benchmark
    systems = ds.pairs["system"].nunique() if "system" in ds.pairs else 1
    st.info(f"**On a known benchmark:** {literal(placement.describe())}. "
            f"{'Your system is' if systems == 1 else f'Your {systems} systems are'} placed among its "
            f"{len(benchmark.systems)} published systems, measured the same way (same metrics, classifier, language "
            "model, text form and every human reference it has).", icon="ℹ️")
    if not st.toggle("Place among the published systems", value=True, key="board-benchmark"):
        return ds, None
    try:
        combined, uploaded = benchmark_board.board_dataset(benchmark, ds)
    except DataError as exc:
        show_error(exc)
        return ds, None
    if partial := benchmark_board.partial_note(combined):
        st.warning(literal(partial[0].upper() + partial[1:] + "."), icon="⚠️")
    if copies := benchmark_board.copies_of_published(combined, uploaded):
        st.caption("  \n".join(f"ℹ️ {literal(note)}" for note in copies))
    return combined, benchmark


def reported_section(benchmark, ds: Dataset, result, options) -> None:
    """The papers' numbers beside the recomputed ones, with where each comes from and why they differ."""
    st.subheader("Reported by the papers (or the release) vs recomputed here")
    table = benchmark_board.reported_table(benchmark, ds, result, options)
    numbers = [c for c in table.columns if c.startswith(("reported ", "recomputed "))]
    st.dataframe(table, hide_index=True, width="stretch", placeholder="–", key="board-reported",
                 column_config={c: st.column_config.NumberColumn(format="%.2f") for c in numbers})
    st.caption(f"Recomputed on {literal(benchmark.title)} ({literal(benchmark.reference_notes)}). The papers' "
               f"setup: {literal(benchmark.reported_setup or 'see the card')}. An empty cell: the number was not "
               "found in the paper, never guessed"
               + (f" ({literal(benchmark.reported_note)})." if benchmark.reported_note else "."))


__all__ = ["benchmark_section", "reported_section"]
