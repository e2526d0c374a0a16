"""Browser test of the Leaderboard page on Li et al.'s Yelp outputs (real Chromium against the served app)."""

from __future__ import annotations

import pytest

from browserkit import SCREENSHOTS, exceptions, menu, open_tab, pick_corpus, plotly_traces, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_leaderboard_on_li2018_yelp(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 2000})  # a presenter's screen
    page.goto(app_url)
    wait_for_app(page)
    pick_corpus(page, "Li et al. 2018 Yelp outputs")
    # Move through the sidebar: a new URL would start a new session, back on the demo.
    menu(page).get_by_text("Leaderboard").click()
    page.get_by_text("Is the difference real?").wait_for(timeout=1_800_000)
    wait_for_app(page, timeout_s=1800)
    assert exceptions(page) == []
    page.locator(".st-key-board-heatmap .main-svg").first.wait_for(timeout=60_000)  # the first tab: the paired tests
    traces = [t for plot in plotly_traces(page) for t in plot]
    heatmaps = [t for t in traces if t["type"] == "heatmap"]
    assert any(t["n"] == 8 for t in heatmaps)  # 8 systems x 8 systems of p-values, the first tab's
    assert page.locator(".st-key-board-scatter").count() == 0  # a hidden tab draws nothing (ui.lazy)
    open_tab(page, "Two metrics at once", ".st-key-board-scatter .main-svg")
    traces = [t for plot in plotly_traces(page) for t in plot]
    assert sum(1 for t in traces if t["type"] == "scatter") >= 8  # the intervals and the two-metric scatter
    assert page.get_by_text("nrefs:1|case:lc").count() >= 1  # the sacrebleu signature is shown
    # The compact table fits the page: no horizontal scrolling of the table or of the page.
    board = page.locator(".stviz-board")
    assert board.count() == 1 and board.locator("tbody tr").count() == 8
    widths = board.evaluate("e => [e.scrollWidth, e.parentElement.clientWidth]")
    assert widths[0] <= widths[1], widths
    main = page.evaluate("() => { const m = document.querySelector('[data-testid=stMain]'); "
                         "return [m.scrollWidth, m.clientWidth]; }")
    assert main[0] <= main[1], main
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-li2018-yelp.png"), full_page=True)
    # Open one system's outputs in Failure cases.
    open_tab(page, "Worst and best outputs", "button:has-text('Open CrossAligned in Failure cases')")
    page.get_by_role("button", name="Open CrossAligned in Failure cases").click()
    page.locator("h1", has_text="Failure cases").wait_for(timeout=120_000)
    wait_for_app(page, timeout_s=900)
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-to-failure-cases.png"), full_page=True)
    assert exceptions(page) == []
    systems = page.locator("[data-testid='stMultiSelect']").first.inner_text()
    assert "CrossAligned" in systems and "StyleEmbedding" not in systems  # only the opened system is selected
    # Only CrossAligned's pairs are scored: quick enough that no cost box asks first.
    assert page.get_by_role("button", name="Compute").count() == 0
    assert page.get_by_text("of computing on this machine").count() == 0
    # A content metric against the raters' content judgment (not MiniLM cosine against grammaticality).
    # A select box shows its choice as its text or in its input's value, depending on the Streamlit version.
    chosen = page.locator("[data-testid='stMain'] [data-testid='stSelectbox']").evaluate_all(
        "boxes => boxes.slice(0, 3).map(b => b.innerText + ' ' + [...b.querySelectorAll('input')].map(i => i.value).join(' '))")
    assert any("MiniLM" in c for c in chosen) and any("content" in c for c in chosen), chosen
    assert page.get_by_text("pairs are scored and ranked").count() >= 1
