"""Browser test of slices on Mir et al.'s Yelp ratings: a slice saved on Metrics vs humans, the page reloaded from
its URL shows it, and the correlations are drawn per slice, a table each (real Chromium against the served app)."""

from __future__ import annotations

import pytest

from browserkit import SCREENSHOTS, exceptions, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VIEW = "Metrics_vs_humans?dataset=mir-yelp&metrics=bleu,chrf&methods=pearson"


def slice_headings(page) -> list[str]:
    """The per-slice tables' headings ('NAME · N pairs')."""
    return [t for t in page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer'] p").all_inner_texts()
            if " pairs\n" in t or t.endswith(" pairs")]


def test_slice_saved_reloaded_and_computed(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 2200})
    page.goto(f"{app_url}/{VIEW}")
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    page.get_by_text("Slices: compare saved subsets of the pairs").click()
    page.get_by_role("textbox", name="Slice name").fill("CAAE <b>long</b>")  # HTML in a name is shown as written
    page.get_by_role("textbox", name="Filters").fill("system=CAAE;length>=12")
    page.get_by_role("button", name="Save slice").click()
    page.get_by_text("Per slice", exact=True).wait_for(timeout=600_000)
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    assert "slices=" in page.url
    page.get_by_text("Per slice", exact=True).scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "slices-metrics-vs-humans.png"), full_page=True)

    reloaded = browser.new_page(viewport={"width": 1400, "height": 2200})  # a new session, from the URL alone
    reloaded.goto(page.url)
    wait_for_app(reloaded, timeout_s=900)
    reloaded.get_by_text("Per slice", exact=True).wait_for(timeout=600_000)
    assert exceptions(reloaded) == []
    assert reloaded.get_by_text("Slices: 1 saved").count() == 1
    assert reloaded.get_by_text("CAAE <b>long</b>", exact=False).count() >= 2  # the panel and its table's heading
    headings = slice_headings(reloaded)
    assert any(h.startswith("all pairs") for h in headings) and any("CAAE <b>long</b>" in h for h in headings)
    assert reloaded.locator("[data-testid='stMain'] [data-testid='stDataFrame']").count() >= 2 + 1
    reloaded.screenshot(path=str(SCREENSHOTS / "slices-reloaded.png"), full_page=True)
