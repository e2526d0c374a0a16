"""Real-browser checks of how views read and export: tables that fit, figures that carry their labels."""

from __future__ import annotations

import re

import pytest
from browserkit import SCREENSHOTS, exceptions, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def horizontal_overflow(page, index: int) -> int:
    """Pixels of the ``index``-th table that do not fit its width (0 = every column visible)."""
    return page.evaluate("""(i) => {
        const grid = document.querySelectorAll("[data-testid='stDataFrame']")[i];
        const scroller = grid.querySelector('.dvn-scroller') || grid;
        return Math.max(0, scroller.scrollWidth - scroller.clientWidth);
    }""", index)


def test_failure_story_table_shows_every_column_at_1400_px(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1800})
    page.goto(f"{app_url}/Failure_cases?dataset=mir-yelp&metric=bleu")
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    page.get_by_text("Every metric").first.wait_for(timeout=60_000)
    page.locator("[data-testid='stDataFrame'] canvas").first.wait_for(timeout=60_000)
    tables = page.locator("[data-testid='stDataFrame']").count()
    story = next(i for i in range(tables) if "percentile" in page.locator(
        "[data-testid='stDataFrame']").nth(i).inner_text(timeout=10_000) or i == tables - 1)
    assert horizontal_overflow(page, story) <= 1, "the story's metric table is clipped at 1400 px"
    page.screenshot(path=str(SCREENSHOTS / "failure-cases-story.png"), full_page=True)


def test_exported_tradeoff_figure_carries_the_settings(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1800})
    page.goto(f"{app_url}/Tradeoffs?dataset=mir-yelp")
    wait_for_app(page, timeout_s=1800)
    assert exceptions(page) == []
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="⬇ HTML").first.click()
    html = open(download.value.path(), encoding="utf-8").read()
    # The settings are written beside the points (not only on hover), so an exported image shows them.
    assert '"mode":"lines+markers+text"' in html.replace(" ", "")
    for setting in ("lambda=1", "rho=0.5", "gamma=15"):
        assert setting in html, setting
    # plotly.js embedded, no <script src=...> to fetch: the file opens offline. (The bundle itself names
    # cdn.plot.ly as its default map-data URL, so the bare string is no sign of a download.)
    assert "<script" in html and not re.search(r"<script[^>]*\bsrc=", html)
    page.screenshot(path=str(SCREENSHOTS / "tradeoffs-mir-yelp.png"), full_page=True)
