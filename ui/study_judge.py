"""The owner's LLM judge on the Rating study page: add a judge (any ``llm:`` spec) as a machine rater, read what its
run costs and confirm, watch it answer, and read its agreement with the people. The work is
:mod:`stviz.studies.judges`; a judge never counts among the raters."""

from __future__ import annotations

import streamlit as st

from stviz.data.schema import DataError
from stviz.embedders import EmbedderError
from stviz.studies.judges import judge_agreement, judge_progress, plans, run_judge, scale_note
from stviz.studies.store import MACHINES, Rater, Study, StudyStore
from ui.run import StreamlitReporter
from ui.text import literal, show_error
from ui.turns import given_back

#: The session's cost box: (study id, spec) -> the lines it says, until the run is confirmed or the spec changes.
PLANS_KEY = "study-judge-plans"


def judge_panel(study: Study, store: StudyStore) -> None:
    """The owner's control: a judge spec, its cost (calls and their measured time, a few made now and kept), a click
    to run it, its progress, and one clear line when it cannot run."""
    with st.expander("An LLM as a rater (compared with the people; a measure in Meta-evaluation, never a rating)",
                     expanded=bool(store.judges(study.id))):
        st.caption("A judge answers every item through this study's questions: `llm:MODEL` every aspect, "
                   "`llm:MODEL:ASPECT` one (a server judge at STVIZ_LLM_URL, or `llm:smollm2`, run on this machine, "
                   "English only). Its answers are kept as it gives them: an interrupted run resumes.")
        spec = st.text_input("Judge", value=_offered(), key="study-judge-spec",
                             placeholder="llm:smollm2 or llm:MODEL[:content|style|fluency]").strip()
        key = (study.id, spec)
        cost = st.session_state.setdefault(PLANS_KEY, {})
        if spec and st.button("Estimate the cost", key="study-judge-estimate"):
            cost[key] = _estimate(store, study, spec)
        if spec and cost.get(key):
            _cost_box(store, study, spec, cost)


def _offered() -> str:
    """The first judge offered in the metric menus (the in-process one when installed), without its aspect."""
    from stviz.metrics.llm import _offered as offered, parse_spec

    names = offered(None)
    return f"llm:{parse_spec(names[0])[0]}" if names else ""


def _estimate(store: StudyStore, study: Study, spec: str) -> list[str] | None:
    try:
        with st.spinner("Timing a few of the judge's answers (they are kept)…"):
            return plans(store, study, spec) + [scale_note(study, spec)]
    except (DataError, EmbedderError, ValueError) as exc:
        show_error(exc)
        return None


def _cost_box(store: StudyStore, study: Study, spec: str, cost: dict) -> None:
    """What the run will cost, and the click that starts it (calls may be paid for: it waits however quick)."""
    box = st.empty()
    with box.container(border=True):
        st.markdown(f"**Before {literal(spec)} answers this study:**")
        st.markdown("\n".join(f"- {literal(line)}" for line in cost[(study.id, spec)]))
        clicked = st.button("Run the judge", type="primary", key="study-judge-run")
    if not clicked:
        return
    box.empty()  # gone once clicked: a second click would start the run again
    cost.pop((study.id, spec), None)
    reporter = StreamlitReporter()
    try:
        with given_back():  # the judge waits on its server (or computes): raters' pages do not wait behind it
            run = run_judge(store, study, spec, reporter.stage(f"{spec} answering the study's items"))
    except (DataError, EmbedderError, ValueError) as exc:
        show_error(exc)  # the answers given before the error are kept: a second run resumes
        return
    finally:
        reporter.finish()
    st.session_state["study-judge-done"] = [f"{spec}: {run.written:,} answers written."] + run.notes
    st.rerun()


def judge_tables(study: Study, store: StudyStore, raters: list[Rater], answers) -> None:
    """The judges' progress and their agreement with the people, under the raters' tables."""
    for line in st.session_state.pop("study-judge-done", []):
        st.success(literal(line), icon="✅")
    judges = store.judges(study.id)
    if not judges:
        return
    judged = store.answers(study.id, who=MACHINES)
    st.markdown("**LLM judges** (machine raters: not counted among the raters above)")
    st.dataframe(judge_progress(study, judges, judged), hide_index=True, key="study-judges")
    st.markdown("**Each judge against the people** (Spearman's rho with the people's mean, over the items both "
                "rated; Krippendorff's alpha of the people, and with the judge as one more rater)")
    table = judge_agreement(study, raters, answers, judges, judged)
    shown = table.drop(columns=["said"] + ([] if table["language"].astype(bool).any() else ["language"]))
    st.dataframe(shown, hide_index=True, key="study-judge-agreement")
    st.markdown("\n".join(f"- {literal(line)}" for line in table["said"]))
    st.caption(" · ".join(literal(scale_note(study, judge.judge)) for judge in judges))


__all__ = ["judge_panel", "judge_tables"]
