"""The rater's keys (1-5 answer, S skips the item, F flags it), each counted only for the question that was on the
screen when it was pressed.

Why not Streamlit's button shortcuts: keys pressed faster than the page redraws (1, 2, 3 within 80 ms) all reach
the buttons drawn at that moment, and Streamlit 1.67 merges the events that arrive before its next run (callbacks
newest first, and a callback can be ended early by a pending rerun): the first key could be replaced by the last,
lost, or applied to the question drawn next. Here a small script in the page logs every key together with the
question the page showed when it was pressed (read from the question's own element, ``data-screen``), and the log
travels whole as the component's state with every rerun request, so no merge can drop or reorder a key. The server
takes the keys it has not handled yet, in the order pressed, and saves one only when its question is the one asked
now and still unanswered (:meth:`~stviz.studies.store.StudyStore.record_once`, one SQL statement). A key pressed
before the next question was shown carries the previous question and is ignored: it never reaches the next one.
"""

from __future__ import annotations

import functools
import time

import streamlit as st

from stviz.data.schema import DataError
from stviz.studies.store import FLAGGED, RATED, SKIPPED, WHOLE_ITEM, Rater, Study, StudyStore

#: Keys for the answers, in the order the choices are shown (lowest first); "C" and "R" are Streamlit's own.
ANSWER_KEYS = ("1", "2", "3", "4", "5")
SKIP_KEY, FLAG_KEY = "S", "F"
#: The component's key in session state: its state is ``{"log": [{"n", "screen", "key"}, ...]}``.
KEY_LOG = "study-keys"
#: Keys the page keeps in its log (the server handles each within a run or two; older ones are long handled).
LOG_LENGTH = 50

_JS = """
const S = {log: [], n: 0, keys: [], send: null, listening: false};
function screenShown() {
  // The question on the screen now; with none (the last screen) or two (never expected), the key is not counted.
  const shown = document.querySelectorAll('.study-question[data-screen]');
  return shown.length === 1 ? shown[0].getAttribute('data-screen') : null;
}
function onKey(event) {
  if (event.repeat || event.ctrlKey || event.metaKey || event.altKey || !S.send) return;
  const target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  const key = event.key && event.key.length === 1 ? event.key.toUpperCase() : '';
  if (!S.keys.includes(key)) return;
  const screen = screenShown();
  if (!screen) return;
  event.preventDefault();
  event.stopPropagation();
  S.n += 1;
  S.log = [...S.log, {n: S.n, screen: screen, key: key}].slice(-LOG_LENGTH);
  S.send('log', S.log);
}
export default function (component) {
  // Called on every run that mounts the logger. The listener stays for the page's life, not the mount's: a logger
  // mounted again has the same widget id, so a key pressed in between is still sent; a page without a question
  // (the last screen) counts none.
  S.keys = component.data.keys;
  S.send = component.setStateValue;
  if (!S.listening) {
    document.addEventListener('keydown', onKey, true);
    S.listening = true;
  }
}
""".replace("LOG_LENGTH", str(LOG_LENGTH))



@functools.cache
def _component():
    """The key logger, registered once per process, on first use (registering at import warns outside a run)."""
    return st.components.v2.component("stviz_study_keys", js=_JS)


def screen_id(position: int, aspect: str) -> str:
    """The id a question's element carries (``data-screen``) and every key pressed on it: '3:style'."""
    return f"{position}:{aspect}"


def capture_keys(keys: list[str]) -> None:
    """Mount the key logger (nothing visible) for a screen that takes ``keys``."""
    _component()(key=KEY_LOG, data={"keys": keys}, default={"log": []}, on_log_change=_nothing, width="stretch",
                 height=0)


def _nothing() -> None:
    """The log is read at the top of the next run (:func:`apply_keys`), not in a callback: a callback can be ended
    early by a pending rerun, and its key would be lost."""


def apply_keys(study: Study, rater: Rater, asked, store: StudyStore) -> int:
    """Save the keys pressed since the last run, in the order pressed, each only if its question is the one
    ``asked(rater)`` returns now ((position, aspect), or None when all is done); how many were ignored.

    A run stopped halfway by the next key handles its keys again in the next run: the one saved then finds its
    question answered, so nothing is saved twice. A key the database did not take (its error is said) is not
    counted as ignored: the question stays on the screen, to be answered again.
    """
    state = st.session_state.get(KEY_LOG) or {}
    log = [e for e in (state.get("log") or []) if isinstance(e, dict) and isinstance(e.get("n"), int)]
    mark = f"study-keys-done-{rater.id}"
    done, ignored = st.session_state.get(mark, 0), 0
    for event in sorted(log, key=lambda e: e["n"]):
        if event["n"] <= done:
            continue
        ignored += _apply(study, rater, asked(rater), event, store) is False
        done = event["n"]
        st.session_state[mark] = done
    return ignored


def _apply(study: Study, rater: Rater, now: tuple[int, str] | None, event: dict, store: StudyStore) -> bool | None:
    """Save one key if it was pressed on the question asked ``now``; whether it was saved (None: a database error)."""
    if now is None or event.get("screen") != screen_id(*now):
        return False  # pressed before the question asked now was shown
    answer = key_answer(study, event.get("key"))
    if answer is None:
        return False
    position, aspect = now
    target, value, status = answer
    return answer_once(rater, position, aspect, target, value, status, store,
                       st.session_state.get(f"shown-{position}-{aspect}"))


def key_answer(study: Study, key) -> tuple[str | None, float | None, str] | None:
    """What a key means on a study's screens: (aspect or None for the one asked, value, status); None: nothing."""
    if key == SKIP_KEY:
        return WHOLE_ITEM, None, SKIPPED
    if key == FLAG_KEY:
        return WHOLE_ITEM, None, FLAGGED
    choices = study.protocol.choices()
    if key in ANSWER_KEYS[:len(choices)]:
        return None, choices[ANSWER_KEYS.index(key)][0], RATED
    return None


def answer_once(rater: Rater, position: int, asked: str, target: str | None, value, status: str,
                store: StudyStore, shown: float | None) -> bool | None:
    """Save an answer to the question ``asked`` on a screen (``target``: the whole item, for a skip or flag; ``shown``:
    when the question was drawn) unless it is answered already; whether it was saved (None: a database error, said
    on the next screen). A key's handler and a click's callback both; nothing here reads session state before the
    save, as a pending rerun can end a callback at such a read (Streamlit 1.67) and the click would be lost."""
    seconds = round(time.monotonic() - shown, 2) if shown is not None else None
    try:
        return store.record_once(rater, position, target or asked, value, status, seconds=seconds, asked=asked)
    except DataError as exc:
        st.session_state["study-error"] = str(exc)
        return None


__all__ = ["ANSWER_KEYS", "FLAG_KEY", "KEY_LOG", "SKIP_KEY", "answer_once", "apply_keys", "capture_keys",
           "key_answer", "screen_id"]
