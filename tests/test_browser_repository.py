"""Browser test (issue 42): the zip of a whole repository as GitHub gives it (Style Transformer's, wrapped in
style-transformer-master/, with train/dev files, code and a README) uploaded on the Leaderboard page: each of its
datasets offered, read, recognised on its benchmark and its systems placed among the published ones."""

from __future__ import annotations

import pytest

from browserkit import SCREENSHOTS, exceptions, wait_for_app
from repository_data import WRAPPER, zip_repository
from test_browser_outputs import upload_outputs

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _board_rows(page) -> list[str]:
    return [row.locator("th, td").first.inner_text().strip() for row in page.locator(".stviz-board tbody tr").all()]


def test_a_repository_zip_is_read_and_its_systems_placed(app_url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 2000})
    # Cheap metrics from the link: BLEU and self-BLEU of 15 systems take seconds, not an hour of embedding.
    page.goto(f"{app_url}/Leaderboard?metrics=bleu,self_bleu&n_resamples=100")
    wait_for_app(page, timeout_s=900)
    upload_outputs(page, zip_repository(tmp_path / f"{WRAPPER}.zip"))
    said = page.locator("[data-testid='stAlert']", has_text="On a known benchmark")
    said.wait_for(timeout=120_000)
    assert "the IMDb test set of Dai et al. 2019: 2,000 of 2,000 inputs matched" in said.inner_text()
    page.locator(".stviz-board").wait_for(timeout=900_000)
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    assert sorted(_board_rows(page)) == ["StyleTransformer-cond", "StyleTransformer-multi", "ours_cond", "ours_multi"]
    inventory = page.locator("[data-testid='stExpander']", has_text="Inventory: 2 systems")
    assert inventory.count() == 1
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-repository-imdb.png"), full_page=True)

    # The repository's other dataset, chosen as --subset would.
    page.locator("[data-testid='stSelectbox']", has_text="Dataset in the repository").click()
    page.get_by_role("option", name="yelp").click()
    page.locator("[data-testid='stAlert']", has_text="the Yelp test set of Li et al. 2018").wait_for(timeout=120_000)
    page.locator(".stviz-board", has_text="DualRL").wait_for(timeout=900_000)
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    rows = _board_rows(page)
    assert len(rows) == 15 and {"ours_cond", "ours_multi", "StyleTransformer-cond", "DualRL"} <= set(rows)
    assert page.get_by_text("its 1,000 outputs are the published StyleTransformer-cond's").count() == 1
    assert page.get_by_text("Reported by the papers (or the release) vs recomputed here").count() == 1
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-repository-yelp.png"), full_page=True)
    page.locator(".stviz-board").screenshot(path=str(SCREENSHOTS / "leaderboard-repository-yelp-board.png"))


def test_one_system_uploaded_gives_a_one_row_board_without_paired_tests(app_url, browser, tmp_path):
    from test_browser_outputs import write_zip
    from test_outputs_intake import style_transformer

    page = browser.new_page(viewport={"width": 1400, "height": 2000})
    page.goto(f"{app_url}/Leaderboard?metrics=bleu,self_bleu&n_resamples=100")
    wait_for_app(page, timeout_s=900)
    upload_outputs(page, write_zip(tmp_path / "mine.zip", {f"mine/{n}": t for n, t in style_transformer().items()}))
    page.locator(".stviz-board").wait_for(timeout=900_000)
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    assert _board_rows(page) == ["StyleTransformer"]
    assert page.get_by_text("Is the difference real?", exact=True).count() == 0
    assert page.get_by_text("One system (StyleTransformer): its measures with 95% intervals").count() == 1
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-one-system.png"), full_page=True)
