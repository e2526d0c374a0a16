"""Browser test of the Leaderboard page on Li et al.'s Yelp outputs (real Chromium against the served app)."""

from __future__ import annotations

import pytest

from browserkit import SCREENSHOTS, exceptions, menu, pick_corpus, plotly_traces, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_leaderboard_on_li2018_yelp(app_url, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2000})
    page.goto(app_url)
    wait_for_app(page)
    pick_corpus(page, "Li et al. 2018 Yelp outputs")
    # Move through the sidebar: a new URL would start a new session, back on the demo.
    menu(page).get_by_text("Leaderboard").click()
    page.get_by_text("Is the difference real?").wait_for(timeout=1_800_000)
    wait_for_app(page, timeout_s=1800)
    assert exceptions(page) == []
    page.locator("[data-testid='stDataFrame'] canvas").first.wait_for(timeout=60_000)
    traces = [t for plot in plotly_traces(page) for t in plot]
    heatmaps = [t for t in traces if t["type"] == "heatmap"]
    assert any(t["n"] == 8 for t in heatmaps)  # 8 systems x 8 systems of p-values
    assert sum(1 for t in traces if t["type"] == "scatter") >= 8  # the intervals and the two-metric scatter
    assert page.get_by_text("nrefs:1|case:lc").count() >= 1  # the sacrebleu signature is shown
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-li2018-yelp.png"), full_page=True)
    # Open one system's outputs in Failure cases.
    page.get_by_role("button", name="Open CrossAligned in Failure cases").click()
    page.locator("h1", has_text="Failure cases").wait_for(timeout=120_000)
    wait_for_app(page, timeout_s=900)
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-to-failure-cases.png"), full_page=True)
    assert exceptions(page) == []
    systems = page.locator("[data-testid='stMultiSelect']").first.inner_text()
    assert "CrossAligned" in systems and "StyleEmbedding" not in systems  # only the opened system is selected
