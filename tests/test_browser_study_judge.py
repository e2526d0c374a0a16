"""Issue 65, item 6, in a real browser: a study with two people's answers; the owner adds an LLM judge (the stub
OpenAI-compatible server of tests/llm_stub.py, in this process) from the owner's page, reads the cost box, confirms,
and sees the judge's agreement with the people beside theirs."""

from __future__ import annotations

import pytest
from browserkit import SCREENSHOTS, exceptions, serve_app, wait_for_app
from llm_stub import StubLLM

from stviz.studies import open_store
from stviz.studies.judges import judge_agreement
from stviz.studies.store import MACHINES
from test_studies_judge import JUDGE, _study_with_two_people

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_owner_adds_an_llm_rater_beside_two_people_and_sees_its_agreement(browser, tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'studies.sqlite3'}"
    store = open_store(db)
    study, _ = _study_with_two_people(store)
    with StubLLM(latency=0.01) as stub:
        monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))  # a cold judgment store: the judge is called
        monkeypatch.setenv("STVIZ_STUDIES_DB", db)
        monkeypatch.setenv("STVIZ_LLM_URL", stub.url)
        server = serve_app("streamlit-study-judge.log")
        url = next(server)
        page = browser.new_page(viewport={"width": 1400, "height": 2200})
        try:
            page.goto(f"{url}/Rating_study?own={study.owner_token}")
            wait_for_app(page, timeout_s=600)
            page.get_by_text("An LLM as a rater").first.click()
            spec = page.get_by_label("Judge", exact=True)
            spec.fill(JUDGE)
            spec.press("Enter")
            wait_for_app(page, timeout_s=120)
            page.get_by_role("button", name="Estimate the cost").click()
            page.get_by_text("Before llm:stub-judge answers this study").first.wait_for(timeout=60_000)
            said = page.locator("[data-testid='stMain']").inner_text().replace("\u2060", "")
            assert said.count("9 calls to http://127.0.0.1:") == 2 and stub.requests == 6  # per aspect; timed, kept
            page.screenshot(path=str(SCREENSHOTS / "study-judge-cost.png"), full_page=True)
            page.get_by_role("button", name="Run the judge").click()
            page.get_by_text("llm:stub-judge: 24 answers written.").first.wait_for(timeout=120_000)
            page.get_by_text("Each judge against the people").first.wait_for(timeout=60_000)
            assert stub.requests == 24 and exceptions(page) == []
            main = page.locator("[data-testid='stMain']").inner_text()
            assert "(2 raters, 12 items)" in main  # the people's alpha: the judge is no rater
            judges, judged = store.judges(study.id), store.answers(study.id, who=MACHINES)
            rows = judge_agreement(study, store.raters(study.id), store.answers(study.id), judges, judged)
            for rho in rows["rho with the people's mean"]:  # each aspect's line under the judge's table
                assert f"ρ = {rho:.3f} with the people's mean (12 items); people α = " in main
        finally:
            page.screenshot(path=str(SCREENSHOTS / "study-judge-owner.png"), full_page=True)
            server.close()
