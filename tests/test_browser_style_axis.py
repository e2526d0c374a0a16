"""Issue 41 in a browser: an upload in both directions with a style column whose name says nothing is flagged on
the Meta-evaluation page; declaring what it measures turns it toward each pair's target and the page says so."""

from __future__ import annotations

import pytest
from browserkit import SCREENSHOTS, choose, exceptions, menu, use_upload, wait_for_app
from style_axis_data import two_direction_file

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_declaring_what_a_style_column_measures_on_the_meta_evaluation_page(app_url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 2200})
    page.goto(app_url)
    wait_for_app(page)
    use_upload(page, two_direction_file(tmp_path, "both.csv", p_formal="style_clf"))
    page.get_by_text("Using both.csv: 72 pairs").wait_for(timeout=60_000)
    menu(page).get_by_text("Meta evaluation", exact=True).click()
    wait_for_app(page, timeout_s=600)
    main = page.locator("[data-testid='stMain']")
    main.get_by_role("heading", name="Style", exact=True).wait_for(timeout=300_000)
    # Nobody said what 'style_clf' measures: it follows the pairs' direction, and the flag says how to say it.
    main.get_by_text("--poles style_clf=formal").first.wait_for(timeout=60_000)
    wait_for_app(page, timeout_s=600)
    main.get_by_text("What each style column measures (one pole of a style is turned toward each pair's target)",
                     exact=True).click()
    choose(page, main.locator(".st-key-meta-pole-style_clf"),  # the pole's box (the axis box has the same label)
           "formal (higher = more formal)")
    wait_for_app(page, timeout_s=600)
    # Said under the Style heading, where the style measures' rows are.
    main.get_by_text("↻ in both.csv: 'style_clf' measures formal (declared; higher = more formal)").wait_for(
        timeout=300_000)
    assert "poles=style_clf" in page.url  # the link reopens the same view
    assert exceptions(page) == []
    page.screenshot(path=str(SCREENSHOTS / "meta-evaluation-style-poles.png"), full_page=True)
