"""Every run a page waits for goes through the server's one pool (ui/queued.py): a run confirmed in the cost box
(which says what each part costs first), a quick run, and the parts a job hands over early."""

from __future__ import annotations

import re

import pandas as pd

from stviz.data.schema import Dataset


def _pairs(n: int = 400, salt: str = "") -> Dataset:
    """Pairs whose texts no cache holds yet (``salt``: the test's own words), so that their run counts as cold."""
    rows = [{"source": f"the input sentence {i} {salt}", "output": f"a rewritten output {i} {salt}", "system": f"S{i % 2}",
             "human:content": float(i % 5)} for i in range(n)]
    return Dataset("toy", "Toy pairs", pairs=pd.DataFrame(rows), human_direction={"human:content": True})


def _recording_pool(monkeypatch, free_memory=lambda: None):
    """A fresh pool for the test, whose submitted keys and priorities are recorded."""
    from stviz.pool import scheduler as scheduling

    pool, asked = scheduling.Scheduler(workers=1, free_memory=free_memory), []
    submit = pool.submit

    def recorded(key, work, seconds=None, priority=scheduling.BACKGROUND, **more):
        asked.append((key, priority, seconds))
        return submit(key, work, seconds=seconds, priority=priority, **more)

    monkeypatch.setattr(pool, "submit", recorded)
    monkeypatch.setattr(scheduling, "_default", pool)
    return asked


def test_a_run_confirmed_in_the_cost_box_says_each_part_then_queues_behind_previews(tmp_path, monkeypatch):
    from pagetest import PAGES
    from streamlit.testing.v1 import AppTest

    from stviz.pool import BACKGROUND

    asked = _recording_pool(monkeypatch)
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STVIZ_CONFIRM_SECONDS", "0")
    monkeypatch.setattr("ui.preview.wanted", lambda analysis: None)  # a link with preview=off: the cost box instead
    at = AppTest.from_file(str(PAGES / "5_Failure_cases.py"), default_timeout=600)
    at.session_state["dataset_name"] = "upload:toy"
    at.session_state["uploaded_dataset"] = _pairs(salt=tmp_path.name)
    at.session_state["fail-metric"] = "cosine:minilm"
    at.run()
    assert not at.exception, at.exception
    texts = [m.value for m in at.markdown]
    assert any("of computing on this machine the first time" in t for t in texts), texts
    assert any(t.startswith("- ") and "MiniLM" in t and ": about" in t for t in texts), texts  # each part, its cost
    assert not any(key.startswith("stviz.analyses.failure_cases") for key, *_ in asked)  # nothing started unasked
    at.button(key="confirm-stviz.analyses.failure_cases").click().run()
    assert not at.exception, at.exception
    runs = [(key, priority, seconds) for key, priority, seconds in asked if key.startswith("stviz.analyses.failure_cases")]
    assert len(runs) == 1 and runs[0][1] == BACKGROUND and runs[0][2] > 0  # long: behind the previews, with its estimate
    assert any("pairs** match" in m.value or "pairs match" in m.value for m in at.markdown)


def test_a_run_that_cannot_fit_in_memory_is_refused_with_both_figures_and_nothing_lost(tmp_path, monkeypatch):
    from pagetest import PAGES
    from streamlit.testing.v1 import AppTest

    _recording_pool(monkeypatch, free_memory=lambda: 50e6)  # a server with 50 MB free
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STVIZ_CONFIRM_SECONDS", "0")
    monkeypatch.setattr("ui.preview.wanted", lambda analysis: None)
    at = AppTest.from_file(str(PAGES / "5_Failure_cases.py"), default_timeout=600)
    at.session_state["dataset_name"] = "upload:toy"
    at.session_state["uploaded_dataset"] = _pairs(salt=tmp_path.name)
    at.session_state["fail-metric"] = "cosine:minilm"
    at.run()
    at.button(key="confirm-stviz.analyses.failure_cases").click().run()
    assert not at.exception, at.exception
    (error,) = [e.value for e in at.error]
    assert re.search(r"needs about \d+ MB of memory and the server has 50 MB free now, so it was not started", error)
    assert at.session_state["uploaded_dataset"].pairs.shape[0] == 400  # the upload is kept


def test_a_quick_run_is_an_interactive_job(tmp_path, monkeypatch):
    from pagetest import PAGES
    from streamlit.testing.v1 import AppTest

    from stviz.pool import INTERACTIVE

    asked = _recording_pool(monkeypatch)
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    at = AppTest.from_file(str(PAGES / "5_Failure_cases.py"), default_timeout=600)
    at.session_state["dataset_name"] = "upload:toy"
    at.session_state["uploaded_dataset"] = _pairs(60)
    at.session_state["fail-metric"] = "bleu"
    at.run()
    assert not at.exception, at.exception
    runs = [(key, priority) for key, priority, _ in asked if key.startswith("stviz.analyses.failure_cases")]
    assert runs and all(priority == INTERACTIVE for _, priority in runs)


def test_parts_a_job_hands_over_reach_the_page_while_it_runs():
    """The waiting page draws what a job finished early (Style similarity's first heatmap), in order."""
    import threading

    from streamlit.testing.v1 import AppTest

    def page():
        import threading

        import streamlit as st

        from ui.queued import compute

        gate = threading.Event()
        seen = []

        def work(reporter):
            reporter.partial("first", 1)
            gate.wait(0.5)
            reporter.partial("second", 2)
            return 3

        result = compute("toy-partials", work, on_partial=lambda name, value: seen.append(f"{name}={value}"))
        st.write(", ".join(seen) + f"; result {result}")

    del threading
    at = AppTest.from_function(page, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert at.markdown[0].value == "first=1, second=2; result 3"


def test_every_part_of_an_estimate_is_itemised_even_a_quick_paid_one(tmp_path, monkeypatch):
    """An LLM judge's calls are a part however quick (they may be paid for): the cost box lists it with the rest."""
    from llm_stub import StubLLM

    from stviz.costs import Cost
    from stviz.metrics import llm

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))  # a cold cache: the judge has calls to make
    sources = [f"the meeting on day {i} was long ." for i in range(8)]
    outputs = [f"the meeting on day {i} was short ." for i in range(8)]
    with StubLLM(latency=0.01) as stub:
        llm.configure(url=stub.url)
        try:
            cost = Cost()
            cost.add(200, "BERTScore on 15,000 pairs")
            cost.add(0.4, "BLEU on 15,000 pairs")  # nothing to speak of: not a part
            cost.add_metric("llm:stub-judge", sources, outputs)
        finally:
            llm.reset()
    assert len(cost.parts) == len(cost.part_seconds) == 2
    items = cost.itemised()
    assert items[0] == "BERTScore on 15,000 pairs: about 3 min"
    assert items[1].startswith("LLM judge stub-judge (content) on 8 pairs (") and "LLM calls): about" in items[1]
