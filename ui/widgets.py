"""Choosers several pages share: embedders, the style lexicon, and the style classifier's panel."""

from __future__ import annotations

import streamlit as st

from stviz.analyses import choices
from stviz.data.schema import DataError, Dataset
from stviz.embedders import PRESETS, SPEC_HELP, EmbedderError, parse_embedder
from stviz.measures.style.lexicon import DEFAULT_LEXICON_SIZE, LexiconSpec, describe_lexicon, resolve_lexicon
from ui.lazy import folded
from ui.text import literal, show_error


EMBEDDERS_KEY = "embedders"  # specs chosen on the home page, the default elsewhere
DEFAULT_EMBEDDERS = ["minilm", "glove-sum"]


def embedder_select(label: str, key: str, multi: bool = False, default: list[str] | None = None,
                    max_selections: int | None = None) -> list[str]:
    """Pick one or several embedders (presets, or a custom spec); returns their specs."""
    default = default or st.session_state.get(EMBEDDERS_KEY, DEFAULT_EMBEDDERS)
    options = list(PRESETS) + [s for s in default if s not in PRESETS]
    fmt = lambda spec: PRESETS.get(spec, spec)  # noqa: E731
    if multi:
        chosen = st.multiselect(label, options, default=[s for s in default if s in options],
                                format_func=fmt, key=key, max_selections=max_selections, wrap=True)
    else:
        chosen = [st.selectbox(label, options, index=options.index(default[0]) if default[0] in options else 0,
                               format_func=fmt, key=key)]
    custom = st.text_input("Another embedder (optional)", key=f"{key}-custom", help=SPEC_HELP,
                           placeholder="e.g. wv:glove-wiki-gigaword-300:sum")
    if custom.strip():
        try:
            parse_embedder(custom)
        except EmbedderError as exc:
            show_error(exc)
        else:
            chosen = (chosen if multi else []) + [custom.strip()]
    return chosen


def lexicon_select(ds: Dataset, key: str, default: str | None = None, optional: bool = False) -> str | None:
    """Choose the style lexicon for removal / masking (Mir et al.); returns its spec (see
    :mod:`stviz.measures.style.lexicon`).

    ``optional`` puts "no lexicon" first, for views where masking is an extra: a lexicon learned from
    another corpus (Yelp sentiment for formality pairs) should be a deliberate choice, not a default.
    """
    sources = choices.lexicons(ds)
    if optional and "dataset" not in sources:
        sources = {"none": "none (choose one to see the masked texts)", **sources}
    if not sources:
        st.info("No style lexicon: this dataset ships none and has no two styles to learn one from, and no "
                "labelled corpus (Yelp sentiment, CDS) is installed.")
        return "none"
    options = list(sources)
    parsed = LexiconSpec.parse(default) if default is not None else None
    chosen = parsed.source if parsed else None
    cols = st.columns([3, 1])
    choice = cols[0].selectbox("Style lexicon", options, index=options.index(chosen) if chosen in options else 0,
                               format_func=sources.get, key=key,
                               help="Style words are removed or masked before scoring (Mir et al.). A learned "
                                    "lexicon holds the words with the largest TF-IDF logistic-regression weights.")
    if choice in ("none", "dataset"):
        return choice
    size = cols[1].number_input("Words", 10, 5000, parsed.words if parsed else DEFAULT_LEXICON_SIZE, step=50,
                                key=f"{key}-size", help="Fewer words favour precision over recall, as Mir et al. "
                                                        "recommend.")
    spec = LexiconSpec.parse(choice).with_size(int(size)).text
    try:
        lexicon = _learned_lexicon(spec, ds.name, ds)
    except DataError as exc:
        show_error(exc)
        return "none"
    examples = ", ".join(literal(w) for w in list(lexicon)[:12])
    st.caption(f"{literal(describe_lexicon(spec, lexicon, ds))}, strongest first: {examples}, …")
    return spec


@st.cache_data(show_spinner="Learning the style lexicon…", max_entries=16, hash_funcs={Dataset: lambda d: d.name})
def _learned_lexicon(spec: str, dataset_name: str, _dataset: Dataset) -> dict[str, float]:
    # Keyed by the spec and the dataset; the disk cache keeps the lexicon across restarts.
    return resolve_lexicon(spec, _dataset)


def classifier_panel(trained, key: str, note: str = "") -> None:
    """The style classifier's summary, a warning when it is unreliable, and its confusion matrix."""
    from stviz.plots.style import confusion_figure

    # The summary names the training data: an uploaded file's name, shown as written.
    st.caption(f"Style classifier: {literal(trained.summary())}.{' ' + note if note else ''}")
    if warning := trained.reliability_warning():
        st.warning(warning)
    folded("Classifier accuracy and confusion matrix", f"{key}-open",
           lambda: st.plotly_chart(confusion_figure(trained.confusion), key=key))


__all__ = ["DEFAULT_EMBEDDERS", "EMBEDDERS_KEY", "classifier_panel", "embedder_select", "lexicon_select"]
