"""Page scripts take turns (ui.turns): at most N at once, the turn given back while waiting for the pool, a script
holding its turn too long does not stop the line, and a turn is never kept past its block."""

from __future__ import annotations

import threading

import pytest

from ui import turns


def _in_turn(line: turns.Line, body) -> threading.Thread:
    def run():
        with turns.turn(line):
            body()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_at_most_the_line_s_turns_run_at_once():
    line, guard, state = turns.Line(turns=2, hold_seconds=60), threading.Lock(), {"now": 0, "most": 0}
    release = threading.Event()

    def body():
        with guard:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        release.wait(5)
        with guard:
            state["now"] -= 1

    threads = [_in_turn(line, body) for _ in range(6)]
    while line.holders() < 2:
        threading.Event().wait(0.01)
    threading.Event().wait(0.3)  # the other four are waiting in line by now
    assert line.holders() == 2 and state["now"] == 2
    release.set()
    for thread in threads:
        thread.join(10)
    assert state["most"] == 2 and line.holders() == 0


def test_a_script_waiting_for_the_pool_lets_the_next_one_run():
    line = turns.Line(turns=1, hold_seconds=60)
    waiting, other_ran, order = threading.Event(), threading.Event(), []

    def waits_for_pool():
        with turns.given_back():
            waiting.set()
            assert other_ran.wait(5)  # the other page ran while this one waited
        order.append("first drew its result")

    first = _in_turn(line, waits_for_pool)
    assert waiting.wait(5)
    second = _in_turn(line, lambda: (order.append("second"), other_ran.set()))
    first.join(5), second.join(5)
    assert order == ["second", "first drew its result"] and line.holders() == 0


def test_turns_held_too_long_do_not_stop_the_line():
    line = turns.Line(turns=1, hold_seconds=0.2)
    holding, second_ran = threading.Event(), threading.Event()

    def long_script():
        holding.set()
        assert second_ran.wait(10)  # still holding its turn when the next script runs

    first = _in_turn(line, long_script)
    assert holding.wait(5)
    second = _in_turn(line, second_ran.set)
    second.join(10), first.join(10)
    assert second_ran.is_set() and line.holders() == 0


def test_a_stopped_script_gives_its_turn_back():
    """Streamlit stops a script (a rerun, a closed tab) with an exception: the turn goes with it."""
    line = turns.Line(turns=1)
    with pytest.raises(RuntimeError):
        with turns.turn(line):
            assert line.holders() == 1
            raise RuntimeError("stopped")
    assert line.holders() == 0
    with turns.given_back():  # outside a turn: nothing to give back
        pass
    assert line.holders() == 0


def test_a_turn_inside_a_turn_is_the_same_turn():
    """A page run from inside another page's turn keeps that one turn: a second take would hold two turns and give
    back one, or wait for itself."""
    line, inner = turns.Line(turns=1, hold_seconds=60), []

    def nested():
        with turns.turn(line):
            inner.append(line.holders())

    thread = _in_turn(line, nested)
    thread.join(5)
    assert not thread.is_alive() and inner == [1] and line.holders() == 0


def test_a_page_runs_in_its_turn_and_gives_it_back():
    """run_page (the last line of every view's file) holds a turn while the page runs, and not after."""
    seen = []
    turns.run_page(lambda: seen.append(turns._line.holders()))
    assert seen == [1] and turns._line.holders() == 0


def test_a_page_waiting_for_the_pool_gives_its_turn_back_and_draws_in_a_turn():
    """ui.queued.compute: while the job runs the page holds no turn; it draws the result in one."""
    from streamlit.testing.v1 import AppTest

    def page():
        import streamlit as st

        from ui import turns
        from ui.queued import compute

        seen = []

        def work(reporter):
            import time

            end = time.monotonic() + 5  # the page gives its turn back once it waits (it submitted this job first)
            while turns._line.holders() and time.monotonic() < end:
                time.sleep(0.01)
            seen.append(turns._line.holders())
            return 3

        def main():
            result = compute("toy-turn", work)
            st.write(f"waiting {seen[0]}, drawing {turns._line.holders()}, result {result}")

        turns.run_page(main)

    at = AppTest.from_function(page, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert at.markdown[0].value == "waiting 0, drawing 1, result 3"
