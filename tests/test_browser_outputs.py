"""Browser test of released outputs uploaded on the Leaderboard page as a .zip (real Chromium against the served app):
the inventory before anything is computed, the leaderboard, the link reopening it; a refused zip's one-line error."""

from __future__ import annotations

import io
import zipfile

import pytest

from browserkit import SCREENSHOTS, exceptions, menu, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DISHES = ["soup", "pasta", "pizza", "steak", "coffee", "bread", "salad", "fish", "rice", "tea", "cake", "burger",
          "noodles", "chicken", "fries", "curry", "taco", "pie", "wine", "omelette"]
NEG = [f"the {d} was cold and the staff ignored us ." for d in DISHES]
POS = [f"the {d} was fresh and the staff was lovely ." for d in DISHES]
# Three made-up systems, each rewriting the inputs its own way (never a corpus's text).
SYSTEMS = {
    "alpha": (lambda s: s.replace("cold", "warm").replace("ignored", "welcomed"),
              lambda s: s.replace("fresh", "stale").replace("lovely", "rude")),
    "beta": (lambda s: s.replace("cold", "hot"), lambda s: s.replace("lovely", "slow")),
    "gamma": (lambda s: s, lambda s: s.replace("fresh", "bland").replace("the staff", "everyone")),
}


def release(inputs: bool = True) -> dict[str, str]:
    """A flat release (Li et al.'s layout) under mine/: inputs, three systems both directions, references."""
    lines = lambda texts: "\n".join(texts) + "\n"  # noqa: E731
    files = {}
    if inputs:
        files |= {"mine/sentiment.test.0": lines(NEG), "mine/sentiment.test.1": lines(POS)}
    for name, (to_pos, to_neg) in SYSTEMS.items():
        files[f"mine/sentiment.test.0.{name}"] = lines(map(to_pos, NEG))
        files[f"mine/sentiment.test.1.{name}"] = lines(map(to_neg, POS))
    files["mine/reference.0"] = lines(s.replace("cold", "great").replace("ignored us", "smiled") for s in NEG)
    files["mine/reference.1"] = lines(s.replace("fresh", "old").replace("lovely", "awful") for s in POS)
    files["__MACOSX/mine/._reference.0"] = "junk"  # left out, as macOS's archiver adds it
    return files


def write_zip(path, files: dict[str, str]):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def open_leaderboard(browser, app_url):
    page = browser.new_page(viewport={"width": 1400, "height": 2000})  # a presenter's screen
    page.goto(f"{app_url}/Leaderboard")
    wait_for_app(page, timeout_s=900)
    return page


def upload_outputs(page, path) -> None:
    """Open the page's 'Compare released system outputs' box and put the zip into its uploader."""
    page.get_by_text("Compare released system outputs").click()
    page.locator(".st-key-outputs-files [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    wait_for_app(page, timeout_s=900)


def test_a_zip_of_outputs_is_inventoried_compared_and_reopened_by_its_link(app_url, browser, tmp_path):
    page = open_leaderboard(browser, app_url)
    upload_outputs(page, write_zip(tmp_path / "mine.zip", release()))
    inventory = page.locator("[data-testid='stExpander']", has_text="Inventory: 3 systems")
    inventory.wait_for(timeout=60_000)
    # The link names the outputs the moment their inventory shows: a link copied then reopens them, not the demo.
    assert "outputs%3A" in page.url or "outputs:" in page.url, page.url
    # Numeric directions: their styles are asked for, as --directions, and typed in.
    styles = page.get_by_role("textbox", name="Styles of the numeric directions")
    styles.fill("0=negative>positive,1=positive>negative")
    styles.press("Enter")
    # The styles give style accuracy (and G2, H2, J): the table computed before them is replaced.
    page.locator(".stviz-board", has_text="ACC").wait_for(timeout=900_000)
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    board = page.locator(".stviz-board")
    assert board.count() == 1 and board.locator("tbody tr").count() == 3
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-uploaded-outputs.png"), full_page=True)
    link = page.url
    assert "directions" in link

    # The link, in a new session: the kept copy is reopened, no upload.
    again = browser.new_page(viewport={"width": 1400, "height": 2000})
    again.goto(link)
    again.get_by_text("Is the difference real?", exact=True).wait_for(timeout=900_000)
    wait_for_app(again, timeout_s=900)
    assert exceptions(again) == []
    assert again.locator("[data-testid='stExpander']", has_text="Inventory: 3 systems").count() == 1
    assert again.locator(".stviz-board tbody tr").count() == 3
    styles = again.get_by_role("textbox", name="Styles of the numeric directions")
    assert styles.input_value() == "0=negative>positive,1=positive>negative"
    again.screenshot(path=str(SCREENSHOTS / "leaderboard-uploaded-outputs-reopened.png"), full_page=True)
    # Another page of the same session reads the same outputs (the sidebar names them).
    menu(again).get_by_text("Failure cases").click()
    wait_for_app(again, timeout_s=900)
    assert exceptions(again) == []
    assert again.get_by_text("Showing the demo instead").count() == 0


def test_a_zip_missing_its_inputs_is_refused_in_one_line_and_nothing_is_computed(app_url, browser, tmp_path):
    page = open_leaderboard(browser, app_url)
    upload_outputs(page, write_zip(tmp_path / "noinputs.zip", release(inputs=False)))
    error = page.locator("[data-testid='stAlertContentError']").first
    error.wait_for(timeout=60_000)
    text = error.inner_text().replace("⚠️", "").strip()  # the box's icon, then the command's one line
    assert text.startswith("mine cannot be compared: sentiment.test.0.alpha: bare outputs but no inputs file"), text
    assert "\n" not in text
    assert page.get_by_text("Problems").count() >= 1  # every problem, each with its file
    assert page.locator("[data-testid='stExpander']", has_text="Inventory: 3 systems").count() == 1
    assert page.locator(".stviz-board").count() == 0
    assert page.get_by_text("Is the difference real?", exact=True).count() == 0
    assert exceptions(page) == []
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-uploaded-outputs-refused.png"), full_page=True)
