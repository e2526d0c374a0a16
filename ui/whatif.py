"""The what-if box under a pair's story: edit the source or the output, re-score, and read every metric,
the style probabilities and the token attributions of the edit beside the original's."""

from __future__ import annotations

import streamlit as st

from stviz.data.schema import DataError, Dataset
from stviz.embedders import EmbedderError
from ui.run import StreamlitReporter
from ui.text import literal, show_error

_NUMBERS = {"original": st.column_config.NumberColumn(format="%.3f"),
            "edited": st.column_config.NumberColumn(format="%.3f"),
            "change": st.column_config.NumberColumn(format="%+.3f")}


def what_if_box(dataset: Dataset, story, *, key: str, trained=None) -> None:
    """A form with the pair's two texts; once one is edited and sent, the edit scored beside the original."""
    with st.container(border=True, key=f"{key}-whatif"):
        st.markdown("**What if?** Edit the output (or the source) and re-score it: every metric, the style "
                    "probabilities and the attributions are computed on the edited texts; the pair itself is "
                    "not changed.")
        with st.form(f"{key}-whatif-form-{story.pair}", border=False):
            cols = st.columns(2)
            # Keyed by pair: another pair starts from its own texts.
            source = cols[0].text_area("Source", story.source, key=f"{key}-whatif-source-{story.pair}", height=90)
            output = cols[1].text_area("Output", story.output, key=f"{key}-whatif-output-{story.pair}", height=90)
            st.form_submit_button("Re-score the edit", type="primary")
        if source == story.source and output == story.output:
            st.caption("Edit a text above, then re-score.")
            return
        result = _rescore(dataset, story.pair, source, output, trained)
        if result is not None:
            show_what_if(result)


def _rescore(dataset: Dataset, pair: int, source: str, output: str, trained):
    """The analysis's what-if, with a progress bar and one clear message on bad input."""
    from stviz.analyses.what_if import what_if

    progress = StreamlitReporter()
    try:
        return what_if(dataset, pair, source, output, trained=trained, progress=progress)
    except (DataError, EmbedderError, ValueError) as exc:
        show_error(exc)
        return None
    finally:
        progress.finish()


def headline(result) -> None:
    """The numbers a reader looks at first: BLEU, chrF, MiniLM cosine and the original's style, edited vs original."""
    table = result.metrics.set_index("name")
    shown = [(table.loc[n, "metric"], table.loc[n, "original"], table.loc[n, "edited"])
             for n in ("bleu", "chrf", "cosine:minilm") if n in table.index]
    if result.styles is not None:
        column = f"original {(result.changed_sides or ['output'])[0]}"
        top = result.styles.set_index("style")[column].idxmax()  # the style the original text reads as
        edited = result.styles.set_index("style").loc[top, column.replace("original", "edited")]
        shown.append((f"p({top})", result.styles.set_index("style").loc[top, column], edited))
    for col, (label, before, after) in zip(st.columns(len(shown)), shown):
        col.metric(literal(label), f"{after:.3f}", delta=f"{after - before:+.3f} (was {before:.3f})",
                   delta_color="off")  # a change, not a verdict: the user decides what better means here


def show_what_if(result) -> None:
    """Metrics, style probabilities and attributions of the edit beside the original's."""
    headline(result)
    cols = st.columns([3, 2])
    with cols[0]:
        st.markdown(f"**Metrics**, original and edited ({' and '.join(result.changed_sides)} edited)")
        st.dataframe(result.metrics.drop(columns=["name"]), hide_index=True, width="stretch",
                     column_config=_NUMBERS, key="whatif-metrics")
    if result.styles is not None:
        with cols[1]:
            st.markdown("**Style probabilities**, original and edited")
            bar = {"min_value": 0.0, "max_value": 1.0, "format": "%.2f"}
            # Fixed widths: stretched bars of four columns were cut off at the right in a 1400 px window.
            st.dataframe(result.styles, hide_index=True, width="stretch", key="whatif-styles",
                         column_config={"style": st.column_config.TextColumn(width=90),
                                        **{c: st.column_config.ProgressColumn(**bar, width=125)
                                           for c in result.styles.columns if c != "style"}})
    if result.attributions:
        _attributions(result)


def _attributions(result) -> None:
    from stviz.plots.style import tokens_html

    for side in result.changed_sides or ["output"]:
        cols = st.columns(2)
        for col, version in zip(cols, ("original", "edited")):
            attribution = result.attributions[(version, side)]
            col.markdown(f"**{version.capitalize()} {side}** · toward *{literal(attribution.style)}* "
                         f"(p = {attribution.probability:.2f})")
            col.markdown(tokens_html(attribution.text, attribution.spans, attribution.scores), unsafe_allow_html=True)


__all__ = ["show_what_if", "what_if_box"]
