"""Real-browser checks of the linked views (issue 25): a map point opens its pair's story and the map comes
back; the link reopens the story; a what-if edit re-scores the pair on the page."""

from __future__ import annotations

import re

import pytest
from browserkit import SCREENSHOTS, exceptions, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Page coordinates of one point of the map's first trace (plotly's own axis conversion; the WebGL canvas has
#: no element per point to click).
POINT_JS = """(i) => {
    const gd = document.querySelector('.js-plotly-plot');
    const layout = gd._fullLayout, box = gd.getBoundingClientRect(), trace = gd._fullData[0];
    return {x: box.left + layout._size.l + layout.xaxis.l2p(trace.x[i]),
            y: box.top + layout._size.t + layout.yaxis.l2p(trace.y[i])};
}"""


DRAWN_JS = """() => { const gd = document.querySelector('.js-plotly-plot');
    return !!(gd && gd._fullLayout && gd._fullLayout._size && gd._fullData && gd._fullData.length); }"""


def click_point(page, index: int) -> int:
    """Click the ``index``-th point of the map's first trace like a user (hover, then click); the row hovered."""
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    page.wait_for_function(DRAWN_JS)  # laid out and drawn: the point's position is final
    point = page.evaluate(POINT_JS, index)
    page.mouse.move(point["x"] - 1, point["y"])
    page.mouse.move(point["x"], point["y"])  # plotly picks the point under the cursor on hover
    page.wait_for_function("() => (document.querySelector('.js-plotly-plot')._hoverdata || []).length > 0")
    row = page.evaluate("() => document.querySelector('.js-plotly-plot')._hoverdata[0].customdata")
    page.mouse.click(point["x"], point["y"])
    return int(row[0] if isinstance(row, list) else row)


def opened_pair(page) -> str | None:
    """The 'Pair #N' heading of an opened story, if any."""
    headings = [h.inner_text() for h in page.locator("h3").all()]
    return next((h for h in headings if h.startswith("Pair #")), None)


def test_map_point_opens_the_pair_story_and_back(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1800})
    page.goto(f"{app_url}/Embedding_map?dataset=mir-yelp&method=pca")
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    row = click_point(page, 5)  # a real click on the WebGL scatter, not a URL parameter
    page.get_by_text("Every metric").first.wait_for(timeout=300_000)
    wait_for_app(page, timeout_s=600)
    assert exceptions(page) == []
    # The outputs map's rows are the pairs: the clicked point's pair is opened, and the link says so.
    assert opened_pair(page) == f"Pair #{row}"
    assert f"pair={row}" in page.url and f"sentence={row}" in page.url
    assert page.get_by_text("Nearest neighbours").count() >= 1
    page.screenshot(path=str(SCREENSHOTS / "map-point-story.png"), full_page=True)
    link = page.url
    page.get_by_role("button", name="✕ Back to the map").click()
    wait_for_app(page, timeout_s=300)
    assert opened_pair(page) is None and "pair=" not in page.url
    assert page.locator(".js-plotly-plot").count() >= 1
    # The link reopens the story (a reload, or a colleague's browser).
    page.goto(link)
    wait_for_app(page, timeout_s=600)
    page.get_by_text("Every metric").first.wait_for(timeout=300_000)
    assert opened_pair(page) == f"Pair #{row}"


def metric_values(box) -> dict[str, tuple[float, str]]:
    """The st.metric tiles of an element: label -> (value, delta text)."""
    out = {}
    for tile in box.locator("[data-testid='stMetric']").all():
        label = tile.locator("[data-testid='stMetricLabel']").inner_text().strip()
        value = float(tile.locator("[data-testid='stMetricValue']").inner_text())
        out[label] = (value, tile.locator("[data-testid='stMetricDelta']").inner_text())
    return out


def test_what_if_edit_changes_bleu_and_the_style_probability(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 2200})
    page.goto(f"{app_url}/Failure_cases?dataset=mir-yelp&metric=bleu&pair=7")
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == [] and opened_pair(page) == "Pair #7"
    box = page.locator(".st-key-fail-story-whatif")
    source = box.get_by_label("Source").input_value()
    box.get_by_label("Output").fill(source + " absolutely wonderful")  # the source's words and a new tone
    box.get_by_role("button", name="Re-score the edit").click()
    box.locator("[data-testid='stMetric']").first.wait_for(timeout=300_000)
    wait_for_app(page, timeout_s=600)
    assert exceptions(page) == []
    tiles = metric_values(box)
    bleu = next((k for k in tiles if k.startswith("BLEU")), None)
    assert bleu, tiles
    bleu_value, bleu_delta = tiles[bleu]
    assert not re.match(r"[+-]0\.000 ", bleu_delta), bleu_delta  # the edit moved BLEU
    style = next(k for k in tiles if k.startswith("p("))
    assert not re.match(r"[+-]0\.000 ", tiles[style][1]), tiles[style]  # and the style probability
    assert box.get_by_text("Original output").count() and box.get_by_text("Edited output").count()  # attributions
    box.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "failure-story-what-if.png"), full_page=True)
