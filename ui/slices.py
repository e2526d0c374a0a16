"""Slices on the pages: the panel that saves and removes them, a lasso saved as one, and a view run per slice.

The slices themselves (filters, apply, the spec) are :mod:`stviz.analyses.slices`; the session keeps them per
dataset and the URL carries them (:mod:`ui.state`), so a reload or a shared link shows the same slices.
"""

from __future__ import annotations

from types import ModuleType
from typing import Callable

import streamlit as st

from stviz.analyses.slices import EmptySlice, Slice, keep_ids, make_slice
from stviz.data.schema import DataError, Dataset
from stviz.embedders import EmbedderError
from ui.run import StreamlitReporter
from ui.state import current_slices, set_slices
from ui.text import literal, show_error

SPEC_HELP = ("Filters joined by `;`, every one must hold: `system=A,B` · `target_style=negative` (also "
             "`source_style`, `style`) · `length=5..20` (input words) · `human:NAME>=3` · a metric range such as "
             "`bleu<20` or `cosine:minilm=0.5..0.8` · `entity=source` (`output`, `either`, `both`; `!=` for none) · "
             "`output~REGEX` (`source~REGEX`) · `ids=3,17,42`. The same text works in `--slice NAME=SPEC`.")
#: Results of sliced runs kept in the session (a widget change reruns the page; the slices need not run again).
RESULTS_KEY, KEPT_RESULTS = "slice-results", 24


def slices_panel(dataset: Dataset, key: str) -> list[Slice]:
    """The saved slices (name, filters, pairs kept, a remove button) and a form to save one; returns them."""
    slices = current_slices()
    with st.expander(f"Slices: {len(slices)} saved" if slices else "Slices: compare saved subsets of the pairs",
                     expanded=bool(slices)):
        for item in slices:
            _slice_row(dataset, item, key)
        _slice_form(dataset, slices, key)
    return current_slices()


def _slice_row(dataset: Dataset, item: Slice, key: str) -> None:
    cols = st.columns([6, 1])
    cols[0].markdown(f"**{literal(item.name)}**: {literal(item.describe())} · {_count(dataset, item)}")
    if cols[1].button("Remove", key=f"{key}-drop-{item.name}"):
        set_slices([s for s in current_slices() if s.name != item.name])
        st.rerun()


def _count(dataset: Dataset, item: Slice) -> str:
    """'412 of 1,000 pairs' (or why the slice cannot be applied here)."""
    try:
        return f"{int(item.mask(dataset).sum()):,} of {len(dataset.pairs):,} pairs"
    except DataError as exc:
        return f"not applicable here: {literal(exc)}"


def _slice_form(dataset: Dataset, slices: list[Slice], key: str) -> None:
    with st.form(f"{key}-form", clear_on_submit=False, border=False):
        cols = st.columns([1, 3, 1], vertical_alignment="bottom")
        name = cols[0].text_input("Slice name", key=f"{key}-name", placeholder="e.g. long inputs")
        spec = cols[1].text_input("Filters", key=f"{key}-spec", placeholder="e.g. length>=15;entity=either",
                                  help=SPEC_HELP)
        saved = cols[2].form_submit_button("Save slice", width="stretch")
    st.caption(_fields_hint(dataset))
    if saved:
        try:
            item = make_slice(name, spec)
            item.mask(dataset)  # a field this dataset lacks, or an unknown metric, is said now
        except DataError as exc:
            show_error(exc)
            return
        save_slice(item)
        st.rerun()


def save_slice(item: Slice) -> None:
    """Add (or replace, by name) a slice of the current dataset."""
    set_slices([s for s in current_slices() if s.name != item.name] + [item])


def _fields_hint(dataset: Dataset) -> str:
    """What this dataset's pairs can be sliced by (its systems, styles, human scores), in one caption."""
    pairs, parts = dataset.pairs, []
    for column in ("system", "target_style"):
        if column in pairs:
            values = sorted(pairs[column].dropna().astype(str).unique())
            more = f" (+{len(values) - 6:,})" if len(values) > 6 else ""
            parts.append(f"{column}: " + ", ".join(literal(v) for v in values[:6]) + more)
    humans = [c for c in pairs.columns if str(c).startswith("human:")]
    if humans:
        parts.append("scores: " + ", ".join(literal(c) for c in humans[:4]))
    return "Here: " + " · ".join(parts) if parts else ""


def save_selection(ids, default_name: str, key: str) -> None:
    """A name box and a button that save chosen pairs (a box or lasso) as a slice; a long set goes to the cache."""
    cols = st.columns([2, 1], vertical_alignment="bottom")
    name = cols[0].text_input("Save these pairs as a slice named", default_name, key=f"{key}-name")
    if cols[1].button(f"Save slice ({len(ids):,} pairs)", key=f"{key}-save", width="stretch"):
        try:
            item = make_slice(name, f"ids={keep_ids(ids)}")
        except DataError as exc:
            show_error(exc)
            return
        save_slice(item)
        st.success(f"Saved slice **{literal(item.name)}**: Metrics vs humans and the Leaderboard now compute it "
                   "beside all pairs.", icon="✅")


def per_slice(analysis: ModuleType, dataset: Dataset, options, slices: list[Slice],
              draw: Callable[[Slice, object, int], None]) -> None:
    """Run ``analysis`` with the same ``options`` on each slice and ``draw(slice, result, pairs kept)``; an empty
    slice or one the view cannot use gets one message, and the others still run."""
    for item in slices:
        try:
            part = item.apply(dataset)
            result = _sliced_result(analysis, part, options, item)
        except EmptySlice as exc:
            st.info(f"**{literal(item.name)}**: {literal(exc)}.", icon="ℹ️")
            continue
        except (DataError, EmbedderError, ValueError) as exc:
            st.warning(f"**{literal(item.name)}** not computed: {literal(exc)}", icon="⚠️")
            continue
        draw(item, result, len(part.pairs))


def _sliced_result(analysis: ModuleType, part: Dataset, options, item: Slice):
    """The analysis on a slice's pairs, kept in the session by (view, dataset, slice, options)."""
    from ui.uploads import current_dataset_name

    kept = st.session_state.setdefault(RESULTS_KEY, {})
    key = (analysis.__name__, current_dataset_name(), item.text(), repr(options))
    if key not in kept:
        progress = StreamlitReporter()
        try:
            kept[key] = analysis.run(part, options, progress)
        finally:
            progress.finish()
        while len(kept) > KEPT_RESULTS:  # oldest first: dicts keep insertion order
            kept.pop(next(iter(kept)))
    return kept[key]


__all__ = ["per_slice", "save_selection", "save_slice", "slices_panel"]
