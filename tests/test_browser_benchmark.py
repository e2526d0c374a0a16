"""Browser test: one system's outputs on the Yelp test set, uploaded on the Leaderboard page, are recognised and
shown among the published systems, with the papers' numbers beside the recomputed ones (real Chromium)."""

from __future__ import annotations

import pytest

from browserkit import SCREENSHOTS, exceptions, wait_for_app
from conftest import SHARED_CORPORA
from test_browser_outputs import upload_outputs, write_zip

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_an_upload_on_the_yelp_test_set_stands_among_the_published_systems(app_url, browser, tmp_path):
    released = SHARED_CORPORA / "dualrl" / "outputs" / "yelp" / "DualRL"
    # DualRL's outputs under another name, as a user's own system would come.
    files = {f"MySystem/{name}": (released / name).read_text(encoding="utf-8") for name in ("test.0-1.tsf", "test.1-0.tsf")}
    page = browser.new_page(viewport={"width": 1400, "height": 2000})
    # Cheap metrics from the link, so the board of 14 systems x 1,000 inputs takes seconds, not an hour of embedding.
    page.goto(f"{app_url}/Leaderboard?metrics=bleu,self_bleu&n_resamples=100")
    wait_for_app(page, timeout_s=900)
    upload_outputs(page, write_zip(tmp_path / "mine.zip", files))
    said = page.locator("[data-testid='stAlert']", has_text="On a known benchmark")
    said.wait_for(timeout=120_000)
    assert "the Yelp test set of Li et al. 2018: 1,000 of 1,000 inputs matched" in said.inner_text()
    board = page.locator(".stviz-board")
    board.wait_for(timeout=900_000)
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    assert board.locator("tbody tr").count() == 14  # the 13 published systems and the upload
    assert board.get_by_text("MySystem").count() == 1 and board.get_by_text("UnsuperMT").count() == 1
    page.get_by_text("Reported by the papers (or the release) vs recomputed here").wait_for(timeout=60_000)
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-benchmark-upload.png"), full_page=True)
