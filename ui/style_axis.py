"""The style axis on the pages: what each style column measures (``--poles``), which style scorers to apply
(``--style-scorer``), and a style scorer learned from rated sentences, saved by name (``classify train --ratings``).
"""

from __future__ import annotations

import functools

import streamlit as st

from stviz.analyses import choices
from stviz.analyses.common import style_scorer_names, train_and_save_scorer
from ui.queued import compute
from ui.text import literal

#: The choice that leaves a column's orientation to its name.
BY_NAME = ""


def poles_panel(sets, current: tuple[str, ...], key: str, among=None) -> tuple[str, ...]:
    """For every style column of the chosen sets (of ``among``, short names, when given): read from its name, toward
    each pair's target, or one pole (the style its high values mean), as ``COLUMN=POLE`` entries."""
    from stviz.measures.style.poles import TARGET_CHOICE, parse_poles

    columns, styles = {}, []
    for ds in sets:
        columns.update({c: said for c, said in choices.style_columns(ds).items() if among is None or c in among})
        styles += choices.pair_styles(ds)
    if not columns:
        return current
    declared = {c: (o.pole or TARGET_CHOICE) for c, o in parse_poles(current).items()}
    out = []
    with st.expander("What each style column measures (one pole of a style is turned toward each pair's target)",
                     expanded=bool(current)):
        for column, said in columns.items():
            offered = [BY_NAME, TARGET_CHOICE] + list(dict.fromkeys(styles))
            chosen = declared.get(column, BY_NAME)
            labels = {BY_NAME: f"as its name says ({said})", TARGET_CHOICE: "already toward each pair's target"}
            value = st.selectbox(literal(column), offered, index=offered.index(chosen) if chosen in offered else 0,
                                 format_func=lambda v: labels.get(v, f"{v} (higher = more {v})"),
                                 key=f"{key}-{column}",
                                 help="A measure of one pole (P(formal), a formality score) is turned toward each "
                                      "pair's target before any correlation: 1 - p, negated or mirrored where the "
                                      "target is the other style (the notes say which). --poles COLUMN=STYLE")
            if value != BY_NAME:
                out.append(f"{column}={value}")
    return tuple(out)


def axes_panel(sets, current: tuple[str, ...], key: str) -> tuple[str, ...]:
    """For every own measure of the chosen sets (their precomputed columns): the axis it measures, as its name says
    or declared (``--axes COLUMN=AXIS``); 'any' compares it with every aspect as a candidate."""
    from stviz.data.meanings import ANY_AXIS, AXES, parse_axes

    columns = {}
    for ds in sets:
        columns.update(choices.measure_axes(ds))
    if not columns:
        return current
    declared = parse_axes(current)
    out = []
    with st.expander(f"What each set's own measure measures ({len(columns)} columns; every one is shown on every "
                     "aspect)", expanded=bool(current)):
        st.caption("A measure's name may not say what it measures (a toxicity classifier named CLS_GEN agrees best "
                   "with the style ratings). The best of an aspect is chosen among the measures of its axis and "
                   "those of none; the others stand beside them, marked.")
        for column, said in columns.items():
            offered = [BY_NAME, *AXES, ANY_AXIS]
            chosen = declared.get(column, BY_NAME)
            labels = {BY_NAME: f"as its name says ({said or 'no axis: every aspect'})",
                      ANY_AXIS: "any (a candidate on every aspect)"}
            value = st.selectbox(literal(column), offered, index=offered.index(chosen) if chosen in offered else 0,
                                 format_func=lambda v: labels.get(v, v), key=f"{key}-{column}",
                                 help="meta-eval --axes COLUMN=AXIS")
            if value != BY_NAME:
                out.append(f"{column}={value}")
    return tuple(out)


def scorers_input(current: tuple[str, ...], key: str) -> tuple[str, ...]:
    """Style scorers to apply, comma-separated: saved names (offered in the help), folders with :CLASS, learn:..."""
    saved = ", ".join(style_scorer_names())
    text = st.text_input("Style scorers (saved names, or a classifier FOLDER:CLASS / learn:DATASET:CLASS)",
                         value=",".join(current), key=key, placeholder="pt16-formality",
                         help=f"Saved here: {saved}. On rated sentences each is compared with the ratings beside the "
                              "regressors learned from them; on pairs its value is turned toward each pair's target "
                              "(meta-eval --style-scorer).")
    return tuple(p.strip() for p in text.split(",") if p.strip())


def _train(dataset, name: str, kind: str, pole: str, progress=None):
    """The pool's job: learn and save the scorer (module level, so a worker process can run it)."""
    scorer, folder, replaced = train_and_save_scorer(dataset, name, kind, pole=pole or None)
    return scorer.summary() + (f" ({replaced})" if replaced else ""), str(folder)


def scorer_training(rated: dict, key: str) -> None:
    """Learn a style scorer from one of the rated-sentence sets and save it by name; its held-out error is said."""
    if not rated:
        return
    with st.expander("Learn a style scorer from rated sentences (saved by name, to apply to another set)"):
        cols = st.columns([2, 2, 1.4, 1.2])
        source = cols[0].selectbox("Rated sentences", list(rated), key=f"{key}-set")  # options are plain text
        name = cols[1].text_input("Name", value=f"{source}-tfidf".replace("upload:", ""), key=f"{key}-name")
        kind = cols[2].radio("Features", ("ridge-tfidf", "ridge-minilm"), key=f"{key}-kind",
                             format_func={"ridge-tfidf": "TF-IDF n-grams", "ridge-minilm": "MiniLM vectors"}.get)
        pole = cols[3].text_input("High means", value="", key=f"{key}-pole", placeholder="from the name",
                                  help="The style its high ratings mean (formal for formality ratings); default: read "
                                       "from the rating's or the set's name.")
        if st.button("Train and save", key=f"{key}-go"):
            job = functools.partial(_train, rated[source], name.strip(), kind, pole.strip())
            summary, folder = compute(f"style-scorer:{source}:{name}:{kind}:{pole}", job, label="Training")
            st.success(f"{literal(summary)}. Saved as **{literal(name.strip())}** ({literal(folder)}): name it in "
                       "*Style scorers* to compare it with another set's ratings.")


__all__ = ["axes_panel", "poles_panel", "scorer_training", "scorers_input"]
