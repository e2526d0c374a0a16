"""Metrics vs humans with an LLM judge, in a real browser: an app server of its own whose STVIZ_LLM_URL points at
a stub OpenAI-compatible server in this process (tests/llm_stub.py); the cost box asks first, then the judge's row
and its unparsed count are shown."""

from __future__ import annotations

import csv

import pytest
from browserkit import ROOT, SCREENSHOTS, exceptions, serve_app, wait_for_app
from llm_stub import StubLLM

pytestmark = [pytest.mark.browser, pytest.mark.slow]
LABEL = "LLM judge stub-judge (content)"


def test_metrics_vs_humans_with_an_llm_judge_shows_its_row_and_unparsed_count(browser, tmp_path, monkeypatch):
    with open(ROOT / "data" / "demo" / "pairs.csv", newline="") as fh:
        outputs = [row["output"] for row in csv.DictReader(fh)]
    unparsable = sum("report" in o for o in outputs)  # the stub answers prose for these: unparsed, never guessed
    with StubLLM(latency=0.01, unparsable=("report",)) as stub:
        monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))  # a cold cache: the run must call the judge
        monkeypatch.setenv("STVIZ_LLM_URL", stub.url)
        monkeypatch.setenv("STVIZ_LLM_MODELS", "stub-judge")
        monkeypatch.setenv("STVIZ_CONFIRM_SECONDS", "30")  # the cost box as users meet it (tests usually skip it)
        server = serve_app("streamlit-llm.log")
        url = next(server)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1800})
            page.goto(f"{url}/Metrics_vs_humans?dataset=demo&metrics=llm:stub-judge")
            wait_for_app(page, timeout_s=600)
            box = page.get_by_text("LLM calls)")
            box.first.wait_for(timeout=60_000)  # calls wait for a click, however quick
            # ui.literal puts a word joiner into 'http://' so Markdown makes no link of it; read the text without it.
            said = page.locator("[data-testid='stMain']").inner_text().replace("\u2060", "")
            assert said.count(f"{len(outputs) - 3} calls to http://127.0.0.1:") == 1
            assert stub.requests == 3  # only the timed calls so far
            page.get_by_role("button", name="Compute").click()
            wait_for_app(page, timeout_s=600)
            assert exceptions(page) == []
            assert stub.requests == len(outputs)
            page.get_by_text(f"{unparsable} of {len(outputs)} replies held no score").first.wait_for(timeout=30_000)
            page.get_by_text(f"Unparsed LLM replies ({unparsable})").first.wait_for(timeout=30_000)
            page.get_by_text(LABEL).first.wait_for(state="attached", timeout=60_000)  # its correlation row
            page.get_by_text(f"Unparsed LLM replies ({unparsable})").first.click()
            page.get_by_text("I would rather not rate this rewrite").first.wait_for(state="attached", timeout=30_000)
        finally:
            page.screenshot(path=str(SCREENSHOTS / "metrics-llm-judge.png"), full_page=True)
            server.close()
