"""Figures for the dataset overview on the home page."""

from __future__ import annotations

import math

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from stviz.data.schema import Dataset, short_name
from stviz.plots import hover_label, plot_label, plot_labels, template_literal


def whole_ticks(largest: float) -> dict:
    """Axis settings for counts and word lengths: on a short axis, one tick per whole number (no 0.5)."""
    return {"dtick": 1} if largest <= 10 else {}


def counts_bar(counts: pd.Series, what: str) -> go.Figure:
    """Horizontal bar chart of how many items each group (style, system) has."""
    # Group names come from users' files: shown literally, long ones cut (the whole name on hover).
    frame = counts.rename_axis(what).reset_index(name="count")
    frame["full"] = frame[what].map(hover_label)
    frame[what] = plot_labels(frame[what])
    fig = px.bar(frame, x="count", y=what, orientation="h", text="count", custom_data=["full"])
    fig.update_traces(hovertemplate="%{customdata[0]}: %{x:,}<extra></extra>")
    fig.update_layout(height=max(220, 28 * len(frame) + 80), margin=dict(l=10, r=10, t=30, b=10),
                      yaxis=dict(categoryorder="total ascending"), title=f"{what.capitalize()}s")
    fig.update_xaxes(**whole_ticks(frame["count"].max()))
    return fig


def length_histogram(ds: Dataset) -> go.Figure:
    """Distribution of sentence lengths in words, per text role (style texts, sources, outputs)."""
    frames = []
    if ds.texts is not None:
        frames.append(pd.DataFrame({"words": ds.texts["text"].str.split().str.len(), "texts": "style texts"}))
    if ds.pairs is not None:
        for role in ("source", "output"):
            frames.append(pd.DataFrame({"words": ds.pairs[role].str.split().str.len(), "texts": f"{role}s"}))
    frame = pd.concat(frames, ignore_index=True)
    fig = px.histogram(frame, x="words", color="texts", barmode="overlay", opacity=0.6)
    # Whole-word bins centred on the lengths, at most about 60 of them.
    low, high = frame["words"].min(), frame["words"].max()
    fig.update_traces(xbins={"start": low - 0.5, "end": high + 0.5, "size": max(1, math.ceil((high - low + 1) / 60))})
    fig.update_xaxes(**whole_ticks(high - low))
    fig.update_yaxes(**whole_ticks(frame.groupby("texts").size().max()))  # no bin holds more than its role's texts
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), title="Sentence length (words)")
    return fig


def score_histograms(ds: Dataset) -> go.Figure:
    """One histogram per human-score column of the pairs."""
    cols = ds.human_columns
    frame = ds.pairs[cols].melt(var_name="score", value_name="value").dropna()
    # Column names come from users' files: escaped, and '%{' broken, since plotly express writes the facet value
    # into each panel's hovertemplate ("score=<name>"); the panel titles get the name back without the break.
    names = {c: template_literal(plot_label(short_name(c))) for c in cols}
    titles = {names[c]: plot_label(short_name(c)) for c in cols}
    frame["score"] = frame["score"].map(names)
    # Rows as even as can be (4 scores: 2 x 2, not 3 + 1): plotly express hides the x tick labels of a panel
    # with another below it, so an uneven grid left the first panels of 4 human columns without any.
    wrap = 2 if len(cols) == 4 else 3
    fig = px.histogram(frame, x="value", facet_col="score", facet_col_wrap=wrap, nbins=30, facet_row_spacing=0.18)
    fig.update_xaxes(matches=None, showticklabels=True)
    fig.update_yaxes(**whole_ticks(frame.groupby("score").size().max()))
    fig.for_each_annotation(lambda a: a.update(text=titles[a.text.split("=", 1)[-1]]))
    fig.update_layout(height=260 * -(-len(cols) // wrap), margin=dict(l=10, r=10, t=40, b=10),
                      title="Human scores", showlegend=False)
    return fig
