"""A pair's story on the page, the same wherever it is opened (a map point, a Failure-cases row, Token
attributions): both texts with a word diff, the facts, entities, style-masked texts, the human judgments,
every metric with its percentile, the style classifier's probabilities, token attributions on request,
and the what-if box. Computed by :mod:`stviz.analyses.pair_story`; user text is escaped everywhere."""

from __future__ import annotations

import functools

import streamlit as st

from stviz.analyses.pair_story import Story, classifier_reason, open_story
from stviz.data.schema import DataError, Dataset
from stviz.embedders import EmbedderError
from ui.queued import compute
from ui.run import StreamlitReporter
from ui.text import literal, show_error
from ui.uploads import dataset_key
from ui.whatif import what_if_box

_TEXT_BOX = '<div style="font-size:1.05rem;line-height:1.8;margin-bottom:0.9rem">{}</div>'


@st.cache_resource(show_spinner=False)
def _classifier(pairs_key: str, _dataset):
    # One classifier object per dataset (keyed by its pairs' content, so a re-uploaded file with the
    # same name is not confused with the old one) and process: its torch model is built once and kept.
    from stviz.analyses import attributions

    # Trained in the server's pool like every heavy computation: queued behind other sessions' work, said so.
    return compute(f"style-classifier:{pairs_key}", functools.partial(attributions.classifier, _dataset),
                   label="Training the style classifier")


def style_classifier(dataset: Dataset):
    """The dataset's MiniLM style classifier (disk-cached, built once per process), or None when it has none."""
    if classifier_reason(dataset):
        return None
    return _classifier(dataset_key(dataset), dataset)


def open_pair_story(dataset: Dataset, pair: int, *, key: str, metric: str | None = None, lexicon: str | None = None,
                    attributions: bool = True) -> bool:
    """Compute and draw pair ``pair``'s story; False (with the reason shown) when it cannot be told."""
    trained = style_classifier(dataset)
    progress = StreamlitReporter()
    try:
        story = open_story(dataset, pair, metric=metric, lexicon=lexicon, trained=trained, progress=progress)
    except (DataError, EmbedderError, ValueError) as exc:
        show_error(exc)
        return False
    finally:
        progress.finish()
    story_section(dataset, story, key=key, trained=trained, attributions=attributions)
    return True


def story_section(dataset: Dataset, story: Story, *, key: str, trained=None, attributions: bool = True) -> None:
    """A told story, then the classifier's view of it (attributions on request) and the what-if box."""
    show_story(story)
    if trained is not None:
        if story.styles is None:
            from stviz.analyses.pair_story import style_probabilities

            story.styles = style_probabilities(trained, {"source": story.source, "output": story.output})
        if attributions and st.toggle("Token attributions (Integrated Gradients)", key=f"{key}-attributions",
                                      help="Which words carry the style, for source and output"):
            attribution_view(dataset, story.pair, trained)
    what_if_box(dataset, story, key=key, trained=trained)


def show_story(story: Story) -> None:
    """Facts, the two texts with their word diff, entities, masked texts, human judgments and every metric."""
    from stviz.plots.metrics import word_diff_html

    left, right = word_diff_html(story.source, story.output)  # escapes every word
    if story.facts:
        st.caption(" · ".join(literal(f) for f in story.facts))  # shown as written: no Markdown, no tags
    if story.source.split() == story.output.split():
        st.caption("The output repeats the source word for word.")
    st.markdown("**Source** (struck: lost; yellow: replaced)", help="Word-level diff, case-insensitive")
    st.markdown(_TEXT_BOX.format(left), unsafe_allow_html=True)
    st.markdown("**Output** (green: new; yellow: replacing)")
    st.markdown(_TEXT_BOX.format(right), unsafe_allow_html=True)
    cols = st.columns([1, 2])  # the metric table needs the width: its long names and percentile bars
    with cols[0]:
        _entities_and_masks(story)
        st.markdown("**Human judgments**")
        if len(story.humans):
            st.dataframe(story.humans, width="stretch", hide_index=True)
        else:
            st.caption("This dataset has no human scores.")
    with cols[1]:
        _metric_table(story)
        if story.styles is not None:  # here, where its two probability bars have room
            _style_table(story)


def _entities_and_masks(story: Story) -> None:
    st.markdown("**Named entities** (spaCy)")
    if story.entities:
        st.markdown("\n".join(f"- **{kind}**: {literal(text)} ({literal(label)})"  # literal: no HTML needed
                              for kind, text, label in story.entities))
    else:
        st.caption("No entities in either text.")
    st.markdown("**Style words masked / removed** (Mir et al.)")
    for modification, (source, output) in story.masked.items():
        st.text(f"{modification}:\n  source: {source}\n  output: {output}")  # st.text never renders HTML
    if not story.masked:
        st.caption("No style lexicon for this dataset: choose one (Failure cases) to see the texts with their style "
                   "words masked and removed.")


def _style_table(story: Story) -> None:
    st.markdown("**Style classifier** (MiniLM): probability of each style")
    bar = {"min_value": 0.0, "max_value": 1.0, "format": "%.2f"}
    st.dataframe(story.styles, width="stretch", hide_index=True,
                 column_config={"source": st.column_config.ProgressColumn(**bar),
                                "output": st.column_config.ProgressColumn(**bar)})


def _metric_table(story: Story) -> None:
    st.markdown("**Every metric**: its value, and the share of all pairs this pair beats "
                "(higher = more similar; for distances a low value is a high percentile)")
    st.dataframe(story.metrics, width="stretch", hide_index=True, height=35 * (len(story.metrics) + 1) + 3,
                 column_config={"metric": st.column_config.TextColumn(width=320),
                                "value": st.column_config.NumberColumn(format="%.3f", width="small"),
                                "percentile": st.column_config.ProgressColumn(
                                    format="%.0f", min_value=0, max_value=100, width=150,
                                    help="share of all pairs this pair beats (higher = more similar)")})


def attribution_view(dataset: Dataset, pair: int, trained) -> None:
    """Source and output coloured word by word (the Token attributions view's own computation)."""
    from stviz.analyses import attributions
    from stviz.plots.style import tokens_html

    view = attributions.open_pair(dataset, attributions.Options(pair=pair), trained, None)
    cols = st.columns(2)
    for col, side in zip(cols, ("source", "output")):
        attribution = view.attributions[side]
        col.markdown(f"**{side.capitalize()}** · toward *{literal(attribution.style)}* (p = {attribution.probability:.2f})")
        col.markdown(tokens_html(attribution.text, attribution.spans, attribution.scores), unsafe_allow_html=True)
    st.caption("Red: the word pushes toward the style named; blue: against it.")


__all__ = ["attribution_view", "open_pair_story", "show_story", "story_section", "style_classifier"]
