"""Issue 31 in a browser: an upload rated on three axes, given its direction on the Meta-evaluation page, shows
content, style and fluency, each with its best group."""

from __future__ import annotations

import pytest
from browserkit import SCREENSHOTS, exceptions, menu, use_upload, wait_for_app
from meta_axes_data import three_axis_file

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_meta_evaluation_page_on_a_three_axis_upload(app_url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 2000})
    page.goto(app_url)
    wait_for_app(page)
    use_upload(page, three_axis_file(tmp_path))
    page.get_by_text("Using axes.csv: 72 pairs").wait_for(timeout=60_000)
    menu(page).get_by_text("Meta evaluation", exact=True).click()  # the menu titles pages by file name
    wait_for_app(page, timeout_s=600)
    # Without a direction content is shown at once, and the note above the tables asks for the direction that adds
    # stviz's style and fluency measures (issue 54).
    page.locator("[data-testid='stMain']").get_by_text("Direction").first.wait_for(timeout=120_000)
    page.locator("[data-testid='stMain']").get_by_role("heading", name="Content", exact=True).wait_for(timeout=300_000)
    assert "type the pairs' direction in the Direction box above" in page.locator("[data-testid='stMain']").inner_text()
    box = page.get_by_role("textbox", name="Direction of axes.csv")
    box.fill("informal>formal")
    box.press("Enter")
    wait_for_app(page, timeout_s=600)
    main = page.locator("[data-testid='stMain']")
    for heading in ("Content", "Style", "Fluency"):
        main.get_by_role("heading", name=heading, exact=True).wait_for(timeout=300_000)
    # Each axis draws its best-group tables (sentence and system level); tables are canvases, so they are counted.
    page.locator("[data-testid='stDataFrame'] canvas").nth(5).wait_for(timeout=60_000)
    assert "best measure and the group not significantly worse" in main.inner_text()
    assert exceptions(page) == []
    assert "direction=informal" in page.url  # the link reopens the same view
    page.screenshot(path=str(SCREENSHOTS / "meta-evaluation-axes.png"), full_page=True)
