"""The Rating study page's parts: the rater's screen (one item, one question at a time, keys 1-5, S skip, F flag:
:mod:`ui.study_keys`) and the owner's view (links, progress, agreement, export, close); the study itself lives in
:mod:`stviz.studies`."""

from __future__ import annotations

import html
import time

import streamlit as st

from stviz.data.schema import DataError
from stviz.export import table_csv
from stviz.studies import open_store
from stviz.studies.links import owner_link, rater_link
from stviz.studies.results import (agreement, agreement_lines, next_position, progress, rater_agreement, study_pairs,
                                   tally)
from stviz.studies.store import FLAGGED, RATED, SKIPPED, WHOLE_ITEM, Rater, Study, StudyStore, default_url
from ui.study_judge import judge_panel, judge_tables
from ui.study_keys import ANSWER_KEYS, FLAG_KEY, SKIP_KEY, answer_once, apply_keys, capture_keys, screen_id
from ui.text import literal, show_error
from ui.uploads import set_dataset

#: Raters see the study only: no menu, no sidebar, nothing of the owner's or of other raters.
_RATER_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stToolbar"] { display: none; }
.st-key-study-texts .study-text { font-size: 1.15rem; padding: .6rem .8rem; border-radius: .4rem;
  background: rgba(128,128,128,.08); white-space: pre-wrap; }
</style>"""


def store() -> StudyStore:
    """The studies database (``STVIZ_STUDIES_DB``, else SQLite in ``STVIZ_HOME``), opened and migrated once per server
    process and database."""
    return _opened(default_url())


@st.cache_resource(show_spinner=False)
def _opened(url: str) -> StudyStore:
    return open_store(url)


# -- the rater's screen --------------------------------------------------------------------------------------
def rater_screen(token: str) -> None:
    """The whole page a rater's link opens: the current item and question, or a thank-you when all are done."""
    st.html(_RATER_CSS)
    rater = store().rater_for_token(token)
    if rater is None:
        st.error("This rating link is not valid on this server (check that it was copied whole).", icon="⚠️")
        return
    study = store().study(rater.study_id)
    st.subheader(literal(study.title))  # the owner wrote it: shown as written, no Markdown
    with st.container():  # a box drawn or not in a container of its own: what follows keeps its place (study_keys)
        if error := st.session_state.pop("study-error", None):
            st.error(literal(error), icon="⚠️")
    if not study.is_open:
        st.info("This study is closed: thank you, no more answers are collected.", icon="ℹ️")
        return
    ignored = apply_keys(study, rater, lambda r: _where(study, r)[1], store())
    mine, now = _where(study, rater)
    if now is None:
        st.success(f"{done_text(len(rater.sequence), tally(study, mine))} Thank you! You can close this page.", icon="✅")
        return
    position, aspect = now
    st.progress(position / len(rater.sequence), text=f"Item {position + 1} of {len(rater.sequence)}")
    item = study.items[rater.sequence[position]]
    _show_item(study, item)
    _question(study, rater, position, aspect, item, mine[mine["position"] == position], ignored)


def _where(study: Study, rater: Rater):
    """This rater's answers (theirs only: a key reads no one else's) and the question asked now: (position, aspect),
    or None when every item is done."""
    mine = store().answers(study.id, rater)
    position = next_position(study, rater, mine)
    if position is None:
        return mine, None
    given = mine[mine["position"] == position]
    return mine, (position, next(a for a in study.protocol.aspects
                                 if not ((given["aspect"] == a) & (given["status"] == RATED)).any()))


def done_text(count: int, screens: dict[str, int]) -> str:
    """'Done: you rated all 10 items.', or how many were rated, skipped and flagged ('Done: you rated 0 of 10 items
    and skipped 10.')."""
    skipped, flagged = screens["skipped"], screens["flagged unreadable"]
    rated = screens["done"] - skipped - flagged
    if rated == count:
        return f"Done: you rated all {count} item{'s' if count != 1 else ''}."
    rest = [f"skipped {skipped}"] * bool(skipped) + [f"flagged {flagged} as unreadable"] * bool(flagged)
    return f"Done: you rated {rated} of {count} items{', ' if len(rest) > 1 else ' and '}{' and '.join(rest)}."


def _show_item(study: Study, item: dict) -> None:
    """The source, the direction, and the output (or the two outputs, unnamed, of a pairwise item)."""
    first = item.get("first", item)
    direction = (f"from **{literal(first['source_style'])}** to **{literal(first['target_style'])}**"
                 if first.get("target_style") else "")
    with st.container(key="study-texts"):
        st.caption("Source" + (f" · to be rewritten {direction}" if direction else ""))
        _text(first["source"])
        if study.protocol.kind == "pairwise":
            left, right = st.columns(2)
            with left:
                st.caption("First output")
                _text(item["first"]["output"])
            with right:
                st.caption("Second output")
                _text(item["second"]["output"])
        else:
            st.caption("Output")
            _text(item["output"])


def _text(text: str) -> None:
    # Outputs are user data: escaped, shown as written (no Markdown, no HTML).
    st.html(f"<div class='study-text'>{html.escape(str(text))}</div>")


def _question(study: Study, rater: Rater, position: int, aspect: str, item: dict, given, ignored: int) -> None:
    """One aspect's question with a button per answer (keys 1..n), and Skip / Flag for the whole item."""
    first = item.get("first", item)
    protocol = study.protocol
    answered = [f"{a}: {_label(protocol, v)}" for a, v in given[given["status"] == RATED][["aspect", "value"]]
                .itertuples(index=False) if a in protocol.aspects]
    with st.container():  # captions shown or not, in a container of their own: the question keeps its place
        if answered:
            st.caption("Given on this item: " + " · ".join(answered))
        if ignored:
            st.caption(f"{ignored} key{'s' if ignored > 1 else ''} pressed before this question was shown "
                       f"{'were' if ignored > 1 else 'was'} not counted: answer this question now.")
    number = protocol.aspects.index(aspect) + 1
    question = protocol.question(aspect, first.get("target_style", ""), first.get("language", ""))
    # One element holds the question and its id: the keys read the id of the question the rater sees (study_keys).
    st.html(f"<div class='study-question' data-screen='{html.escape(screen_id(position, aspect))}'>"
            f"<b>{html.escape(aspect.capitalize())}</b> ({number} of {len(protocol.aspects)}): "
            f"{html.escape(question)}</div>")
    if protocol.anchors(aspect):
        st.caption(literal(protocol.anchors(aspect)))
    shown = st.session_state.setdefault(f"shown-{position}-{aspect}", time.monotonic())
    choices = protocol.choices()
    screen = f"{position}-{aspect}"  # widget keys per question: a late click finds its own question, not the next
    for column, key, (value, label) in zip(st.columns(len(choices)), ANSWER_KEYS, choices):
        column.button(_with_key(label, key), key=f"answer-{screen}-{key}", width="stretch",
                      on_click=answer_once, args=(rater, position, aspect, None, value, RATED, store(), shown))
    left, right, _ = st.columns([1, 1, 2])
    left.button(_with_key("Skip this item", SKIP_KEY), key=f"skip-{screen}", width="stretch",
                on_click=answer_once, args=(rater, position, aspect, WHOLE_ITEM, None, SKIPPED, store(), shown),
                help="Leave this item unrated (for example when you cannot judge it)")
    right.button(_with_key("Flag as unreadable", FLAG_KEY), key=f"flag-{screen}", width="stretch",
                 on_click=answer_once, args=(rater, position, aspect, WHOLE_ITEM, None, FLAGGED, store(), shown),
                 help="The text is garbled, or not in the language it should be in")
    capture_keys([*ANSWER_KEYS[:len(choices)], SKIP_KEY, FLAG_KEY])
    st.caption(f"Keys: {ANSWER_KEYS[0]}-{ANSWER_KEYS[len(choices) - 1]} answer, {SKIP_KEY} skips the item, "
               f"{FLAG_KEY} flags it; a key counts for the question on the screen when it is pressed. "
               "Your answer is saved as soon as you give it; you can close the page and come back to the same link. "
               "If the page ever says the server is not responding, your answers so far are still saved: open the "
               "same link again in a while.")


def _with_key(label: str, key: str) -> str:
    """A button's label with its key ('Skip this item · S'; the scale's '3' is its own key)."""
    return label if label == key else f"{label} · {key}"


def _label(protocol, value: float) -> str:
    return next((label for v, label in protocol.choices() if v == value), f"{value:g}")


@st.fragment(run_every=10)
def live_tables(study: Study) -> None:
    """Progress, alpha per aspect and each rater against the others, read again every 10 s as answers come in (a
    database that stops answering meanwhile is its one message)."""
    try:
        _tables(study)
    except DataError as exc:
        show_error(exc)


def _tables(study: Study) -> None:
    s = store()
    raters, answers = s.raters(study.id), s.answers(study.id)
    st.markdown(f"**Progress** ({len(answers[answers['status'] == RATED]):,} answers so far; this part refreshes "
                "itself every 10 s)")
    st.dataframe(progress(study, raters, answers), hide_index=True, key="study-progress")
    st.markdown("**Agreement**: Krippendorff's alpha (interval) per aspect, over the items two or more raters rated")
    st.markdown("\n".join(f"- {literal(line)}" for line in agreement_lines(agreement(study, raters, answers))))
    st.markdown("**Each rater against the others** (Spearman's rho with the others' mean; the share of repeated "
                "items answered as the first time)")
    st.dataframe(rater_agreement(study, raters, answers), hide_index=True, key="study-raters")
    judge_tables(study, s, raters, answers)


# -- the owner's view -----------------------------------------------------------------------------------------
def owner_view(study: Study, base_url: str) -> None:
    """A study's owner: links, progress per rater, agreement, export, using the ratings, closing."""
    s = store()
    raters, answers = s.raters(study.id), s.answers(study.id)
    state = "open" if study.is_open else "closed"
    st.subheader(literal(study.title))  # the owner wrote it: shown as written, no Markdown
    st.caption(f"Study {study.id} · {state} · {len(study.items)} items of {literal(study.dataset)} · "
               f"{study.protocol.kind}, {', '.join(study.protocol.aspects)}"
               f"{'' if study.protocol.kind == 'pairwise' else ' on ' + study.protocol.scale}"
               f" · {study.protocol.repeats} repeated items per rater · saved in {s.kind}")
    with st.expander("Links (send each rater their own; the owner link is yours)", expanded=not len(answers)):
        st.code(f"owner: {owner_link(base_url, study.owner_token)}", language=None)
        st.code("\n".join(f"{r.name}: {rater_link(base_url, r.token)}" for r in raters) or "no rater yet",
                language=None)
        if study.is_open and st.button("Add a rater", key="study-add-rater"):
            s.add_rater(study)
            st.rerun()
    live_tables(study)
    judge_panel(study, s)
    frame, _ = study_pairs(s, study)  # each LLM judge a measure column beside the raters'
    left, middle, right = st.columns(3)
    left.download_button("Download the ratings (CSV stviz reads)", table_csv(frame, index=False),
                         f"study-{study.id}.csv", "text/csv", key="study-export")
    if middle.button("Use these ratings as the dataset", key="study-use", disabled=not len(answers),
                     help="Every view then works on the rated outputs, the raters' mean per aspect a human column"):
        set_dataset(f"study:{study.id}")
        st.switch_page("pages/8_Meta_evaluation.py")
    if study.is_open and right.button("Close the study", key="study-close", help="Raters' links stop taking answers"):
        s.close_study(study.id)
        st.rerun()


__all__ = ["done_text", "owner_view", "rater_screen", "store"]
