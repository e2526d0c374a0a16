"""Issue 57 in a browser: the owner creates a study on li2018-yelp (3 systems x 20 inputs), three raters answer in
three browser sessions at once, the server is killed (SIGKILL) in the middle and started again, every answer given
before the kill is in the database and each rater resumes where they were, and the Meta-evaluation page then shows
the study's ratings as human columns with their alpha. Once on SQLite, once on a real PostgreSQL server."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from browserkit import ROOT, SCREENSHOTS, _free_port, exceptions, server_stacks, serving, wait_for_app
from playwright.sync_api import TimeoutError as PageTimeout

from stviz.studies import open_store

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SCREENS_BEFORE, SCREENS_AFTER = 4, 4  # screens each rater answers before the kill, and after the restart
ASPECTS = ("style", "content", "fluency")


def _start(db_url: str, log_name: str) -> tuple[subprocess.Popen, str]:
    """A Streamlit server for the app whose studies live at ``db_url``."""
    port = _free_port()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)  # run alone, this test is the first to write artifacts/
    log = open(ROOT / "artifacts" / log_name, "a")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "STVIZ_STUDIES_DB": db_url})
    url = f"http://127.0.0.1:{port}"
    if not serving(url):
        proc.kill()
        pytest.fail(f"the Streamlit server did not start; see artifacts/{log_name}")
    return proc, url


def _shown(page, locator, proc: subprocess.Popen, log_name: str, timeout_s: float) -> None:
    """Wait for ``locator``; past ``timeout_s``, fail with what the page showed (its text; a screenshot in
    artifacts/) and what the server and its workers were doing."""
    try:
        locator.wait_for(timeout=timeout_s * 1000)
    except PageTimeout:
        shot = SCREENSHOTS / f"{Path(log_name).stem}-not-shown.png"
        page.screenshot(path=str(shot), full_page=True)
        shown = page.locator("[data-testid='stMain']").inner_text()
        pytest.fail(f"not shown within {timeout_s:.0f} s: {locator} (at {page.url}; {shot.name}); the page showed:\n"
                    f"{shown[-3000:]}\nthe server's log and stacks:\n"
                    + server_stacks(proc.pid, ROOT / "artifacts" / log_name))


def _state(page) -> str:
    """Where a rater is: 'Item k of n' and the aspect asked ('' when done)."""
    main = page.locator("[data-testid='stMain']")
    text = main.inner_text()
    item = re.search(r"Item \d+ of \d+", text)
    aspect = re.search(r"(Style|Content|Fluency) \(\d of \d\)", text)
    return f"{item.group(0) if item else ''} {aspect.group(0) if aspect else ''}".strip()


def _wait_for_change(page, before: str, timeout_s: float = 60) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        now = _state(page)
        if now and now != before:
            return now
        time.sleep(0.1)
    raise AssertionError(f"the rater's screen stayed at {before!r}")


def _answer(pages: list, screens: int, given: list) -> None:
    """Each rater answers ``screens`` screens (every aspect), the three in turn: one key each, round robin."""
    for _ in range(screens * len(ASPECTS)):
        for k, page in enumerate(pages):
            before = _state(page)
            output = page.locator(".study-text").nth(1).inner_text()
            value = 1 + (len(output) + (k == 2)) % 5  # two raters agree, the third one step off
            position = int(re.search(r"Item (\d+)", before).group(1)) - 1
            aspect = re.search(r"(Style|Content|Fluency)", before).group(1)
            page.keyboard.press(str(value))
            _wait_for_change(page, before)
            given.append((k, position, aspect.lower(), float(value)))


def _in_common(answers) -> dict[str, tuple[int, int]]:
    """Per aspect: the items two or more raters rated (first showings), and the different values among them."""
    first = answers.sort_values("position").drop_duplicates(["rater", "item", "aspect"])
    out = {}
    for aspect in ASPECTS:
        mine = first[first["aspect"] == aspect]
        counts = mine.groupby("item")["rater"].nunique()
        shared = mine[mine["item"].isin(counts[counts >= 2].index)]
        out[aspect] = (int((counts >= 2).sum()), shared["value"].nunique())
    return out


@pytest.fixture(params=["sqlite", "postgresql"])
def studies_db(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'studies.sqlite3'}"
    url = request.getfixturevalue("postgres_url")
    with open_store(url).backend.connect() as con:
        con.execute("TRUNCATE answers, raters, studies")
    return url


def test_a_study_survives_a_killed_server_and_feeds_meta_evaluation(corpora, browser, studies_db):
    backend = studies_db.split(":")[0]
    log_name = f"streamlit-study-{backend}.log"
    proc, url = _start(studies_db, log_name)
    try:
        owner = browser.new_page(viewport={"width": 1400, "height": 1800})
        owner.goto(f"{url}/Rating_study?dataset=li2018-yelp")
        wait_for_app(owner)
        owner.get_by_role("button", name="Create the study").click()
        owner.get_by_text("Links (send each rater their own").wait_for(timeout=120_000)
        wait_for_app(owner)
        assert "own=" in owner.url  # a reload keeps the owner's view
        links = owner.locator("[data-testid='stCode']").nth(1).inner_text()
        tokens = re.findall(r"\?rate=([\w-]+)", links)
        assert len(tokens) == 3
        (study,) = open_store(studies_db).studies()
        assert len(study.items) == 59 and {i["system"] for i in study.items} == {  # two systems wrote one text alike
            "CrossAligned", "DeleteAndRetrieve", "DeleteOnly"}
        contexts = [browser.new_context(viewport={"width": 1100, "height": 900}) for _ in tokens]  # three sessions
        raters = [c.new_page() for c in contexts]
        for page, token in zip(raters, tokens):
            page.goto(f"{url}/Rating_study?rate={token}")
            wait_for_app(page)
            assert "CrossAligned" not in page.content() and "DeleteOnly" not in page.content()  # blind
        given: list = []
        _answer(raters, SCREENS_BEFORE, given)
        proc.send_signal(signal.SIGKILL)  # killed, not stopped: nothing gets a chance to flush
        proc.wait(30)
        store = open_store(studies_db)
        ids = [store.rater_for_token(t).id for t in tokens]
        saved = {(ids.index(r), p, a, v) for r, p, a, v in
                 store.answers(study.id)[["rater", "position", "aspect", "value"]].itertuples(index=False)}
        assert saved == set(given) and len(given) == 3 * SCREENS_BEFORE * 3  # every answer given before the kill
        proc, url = _start(studies_db, log_name)
        for page, token in zip(raters, tokens):
            page.goto(f"{url}/Rating_study?rate={token}")  # the link again, on the restarted server
            wait_for_app(page)
            assert _state(page).startswith(f"Item {SCREENS_BEFORE + 1} of 61")  # resumed where they were
        _answer(raters, SCREENS_AFTER, given)
        raters[0].screenshot(path=str(SCREENSHOTS / f"study-rater-{backend}.png"), full_page=True)
        answers = open_store(studies_db).answers(study.id)
        assert len(answers) == len(given) == 3 * (SCREENS_BEFORE + SCREENS_AFTER) * 3
        owner.goto(f"{url}/Rating_study?own={study.owner_token}")
        wait_for_app(owner)
        owner.get_by_text(f"Progress ({len(given)} answers so far;").wait_for(timeout=60_000)
        owner.screenshot(path=str(SCREENSHOTS / f"study-owner-{backend}.png"), full_page=True)
        owner.get_by_role("button", name="Use these ratings as the dataset").click()
        main = owner.locator("[data-testid='stMain']")
        _shown(owner, main.get_by_text("Raters' agreement"), proc, log_name, 600)
        wait_for_app(owner, timeout_s=600)
        text = main.inner_text()
        for aspect, (shared, values) in _in_common(answers).items():  # each rater has their own order of the items
            said = (rf"α = -?\d\.\d{{3}} \(3 raters, {shared} pairs\)" if shared >= 2 and values >= 2 else
                    rf"α not measurable yet \(3 raters; {shared} pairs? rated by two or more")
            assert re.search(rf"study:{study.id} · {aspect}: {said}", text), (aspect, shared, values)
        _shown(owner, main.get_by_role("heading", name="Content", exact=True), proc, log_name, 600)
        assert exceptions(owner) == []
        owner.screenshot(path=str(SCREENSHOTS / f"study-meta-evaluation-{backend}.png"), full_page=True)
        for context in contexts:
            context.close()
    finally:
        proc.terminate()
        proc.wait(30)
