"""Shared by the browser tests: a Streamlit server for the app, Debian's Chromium through playwright, and
helpers to wait for a page and read what it drew. The fixtures ``app_url`` and ``browser`` (tests/conftest.py)
wrap :func:`serve_app` and :func:`launch_browser` once per test session."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serving(url: str, tries: int = 120) -> bool:
    """Whether a Streamlit server answers its health check at ``url`` within about a minute."""
    for _ in range(tries):
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return True
        except OSError:
            time.sleep(0.5)
    return False


def server_stacks(server_pid: int, log_path: Path) -> str:
    """The end of a server's log after it and its pool workers wrote their threads' stacks there (SIGUSR1): what a
    page or a warm that does not end is waiting for."""
    for pid in {server_pid} | _descendants(server_pid):
        if _catches(pid, signal.SIGUSR1):  # the signal's default action would end the others
            os.kill(pid, signal.SIGUSR1)
    time.sleep(2)
    return log_path.read_text(errors="replace")[-12000:]


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` handles ``signum`` (its SigCgt mask in /proc; False when it has ended)."""
    with contextlib.suppress(OSError, StopIteration):
        status = Path(f"/proc/{pid}/status").read_text()
        mask = next(line for line in status.splitlines() if line.startswith("SigCgt:")).split()[1]
        return bool(int(mask, 16) >> (signum - 1) & 1)
    return False


def _descendants(pid: int) -> set[int]:
    """The processes started by ``pid`` and by those, from /proc (Linux)."""
    found, todo = set(), [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            with contextlib.suppress(OSError):
                children = {int(child) for child in (task / "children").read_text().split()} - found
                found |= children
                todo.extend(children)
    return found


def serve_app(log_name: str = "streamlit-test.log"):
    """A Streamlit server on a free loopback port, stopped when the generator is closed."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run 'make test' (it installs Debian's chromium)")
    port = _free_port()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    log = open(ROOT / "artifacts" / log_name, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ),
    )
    url = f"http://127.0.0.1:{port}"
    if not serving(url):
        proc.kill()
        pytest.fail(f"the Streamlit server did not start; see artifacts/{log_name}")
    try:
        yield url
    finally:  # also when the generator is closed early (a test owning its own server)
        proc.terminate()
        proc.wait(30)
        log.close()


def launch_browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def wait_for_app(page, timeout_s: float = 180) -> None:
    """Wait until Streamlit has finished running the page's script."""
    page.wait_for_selector("[data-testid='stApp']", timeout=60_000)
    deadline = time.monotonic() + timeout_s
    time.sleep(1.0)
    while time.monotonic() < deadline:
        # The status widget shows "Running..." while the script runs.
        if page.locator("[data-testid='stStatusWidget']").count() == 0:
            time.sleep(0.5)
            if page.locator("[data-testid='stStatusWidget']").count() == 0:
                _wait_for_widgets(page)
                return
        time.sleep(0.5)
    raise AssertionError("the page kept running")


def _wait_for_widgets(page, timeout_s: float = 60) -> None:
    """Let lazily loaded widgets replace their grey placeholders (else screenshots show skeletons)."""
    deadline = time.monotonic() + timeout_s
    while page.locator("[data-testid='stSkeleton']").count() and time.monotonic() < deadline:
        time.sleep(0.5)


def choose(page, selectbox, option: str, tries: int = 3) -> None:
    """Pick ``option`` in the ``selectbox`` locator once the page is idle, opening its menu again when a rerun
    replaced the menu under the click (the page's pollers rerun it every few seconds)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(tries):
        wait_for_app(page)
        selectbox.locator("input").click()
        try:
            page.get_by_role("option", name=option).click(timeout=15_000)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
            page.keyboard.press("Escape")


def open_tab(page, label: str, drawn: str | None = None) -> None:
    """Click the tab ``label`` and wait for the rerun that draws it (ui.lazy), and for ``drawn`` in it if given."""
    page.get_by_role("tab", name=label).click()
    page.get_by_role("tab", name=label, selected=True).wait_for(timeout=60_000)
    if drawn:
        page.locator(drawn).first.wait_for(timeout=120_000)
    wait_for_app(page)


def exceptions(page) -> list[str]:
    """Texts of the Streamlit exception blocks on the page."""
    return [e.inner_text()[:500] for e in page.locator("[data-testid='stException']").all()]

def plotly_traces(page) -> list[list[dict]]:
    """Type and point count of every trace of every plotly chart on the page."""
    # _fullData holds the traces as drawn (binary-encoded arrays decoded; _length = points drawn).
    return page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')].map(plot =>
        (plot._fullData || []).map(t => ({type: t.type,
                                         n: t.type === 'heatmap' ? (t.z || []).length : t._length})))""")



def menu(page):
    """The app's page menu in the sidebar (ui.sidebar._menu: page links, Home first; Streamlit's own menu is off)."""
    return page.locator("[data-testid='stSidebar'] .st-key-app-menu")


def sidebar_dataset(page) -> str:
    """The dataset the sidebar's menu shows (a select box keeps its choice in its input's value)."""
    return page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox'] input").first.input_value()


def upload_file(page, path) -> None:
    """Put a file into the home page's upload box (the column mapping then opens)."""
    page.get_by_text("Upload pairs").click()
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))


def use_upload(page, path) -> None:
    """Upload a file on the home page and confirm its detected columns."""
    upload_file(page, path)
    page.get_by_role("button", name="Use this file").click()
    wait_for_app(page)


def pick_corpus(page, label: str) -> None:
    """Choose a corpus in the home page's dataset list, by the start of its label."""
    page.get_by_text("Pick a dataset").click()
    page.get_by_text(label).first.click()
    wait_for_app(page)
