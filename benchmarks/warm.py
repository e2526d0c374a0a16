"""Ready before asked: how long a server takes, from an empty cache, to have every built-in view's full result ready in
the background, and then how long each view takes to be drawn when opened (median of N opens in real Chromium).

    python benchmarks/warm.py [--corpora all|cds,mir-yelp,...] [--opens 5] [--budget 7200]
                              [--open Leaderboard@li2018-yelp,...] [--home DIR]

A fresh STVIZ_HOME gets the corpora imported ($STVIZ_CORPORA, else ../shared/corpora); `stviz dashboard` is started
on it with warming on and nobody visits it. Every 5 s this script reads, through the same library (same code, same
settings, so the same keys), which view x dataset results are kept: the time each became ready after the server
started, and what the server's log says each took. Once all are ready (or the budget is spent) each view of --open
is opened N times in one headless Chromium, each a new session (a reload), and timed from the navigation to its
title and to its result on screen (the view's last section, or its figure rendered); then N times from the home page
of a loaded session by its link in the sidebar's menu (Streamlit's frontend is not loaded again), timed by Playwright
and by the page's own clock: to the frame that paints the view's marker, and to the last frame that changed the view.
The text of any progress bar seen during an open is reported (a pool job the page waited for). Then each page's script
is run N times in this process under Streamlit's AppTest on the same home: the server's own share of an open, without
the browser's.
``--home DIR`` reuses a home warmed by an earlier run (nothing imported, nothing to wait for): the opens only.

Not a timed test: figures depend on the machine and what else runs on it; the server's worker processes are niced.
Needs Debian's chromium and playwright (the test lock).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
#: What each view draws last (or its figure rendered): the result is on screen once this is.
DRAWN = {"Style_similarity": "text=Styles most similar to themselves",
         "Embedding_map": "[data-testid='stPlotlyChart'] .main-svg",
         "Metrics_vs_humans": "[data-testid='stPlotlyChart'] .main-svg",
         "Token_attributions": "text=Content preservation, unmasked",
         "Failure_cases": "text=pairs match",
         "Tradeoffs": "text=One row per",
         "Leaderboard": ".st-key-board-heatmap .main-svg",  # the paired tests, in its first tab
         "Meta_evaluation": "text=Sets and flags"}
DEFAULT_OPENS = ("Style_similarity@cds,Embedding_map@cds,Metrics_vs_humans@sgdd-tst,Token_attributions@mir-yelp,"
                 "Failure_cases@sgdd-tst,Tradeoffs@mir-yelp,Leaderboard@li2018-yelp,Meta_evaluation@mir-yelp")
#: Whether the page's title is the view's (its name with spaces; "Meta-evaluation" has a hyphen).
VIEW_TITLE = """name => [...document.querySelectorAll("[data-testid='stMain'] h1")].some(
  h => h.textContent.replace(/-/g, " ").startsWith(name))"""
#: The page's own clock for a menu open: from the click (seen by the document, before Streamlit's handler) to the
#: first animation frame in which the view's title is in the page and its DRAWN marker is visible (a box of some size,
#: not hidden: Playwright's test), i.e. the frame that paints them; and to the last frame that painted a change of the
#: view's main area, once nothing changed there for 1.5 s (the whole page drawn, charts below the marker too;
#: -1 when it still changes 10 s after the click); and to the last frame that changed what the first screen shows (a
#: changed element inside the window: what a visitor sees before scrolling is complete). Playwright's waits see the
#: marker later: each of their checks is a round trip to the browser, polled, and waits behind the page's own work
#: (drawing what comes after the marker).
WATCH_DRAWN = """([name, css, text]) => { window.__drawn = null; let clicked = null;
  document.addEventListener("click", () => { clicked = performance.now(); }, {capture: true, once: true});
  const title = () => [...document.querySelectorAll("[data-testid='stMain'] h1")].some(
    h => h.textContent.replace(/-/g, " ").startsWith(name));
  const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
    && getComputedStyle(e).visibility !== "hidden"; };  // as Playwright's "visible"
  const textShown = () => {  // a visible element whose text holds it (it may span a <strong>: Playwright's text= too)
    const walk = document.createTreeWalker(document.querySelector("[data-testid='stMain']") || document.body,
                                           NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode())
      for (let e = n.parentElement, up = 0; e && up < 3; e = e.parentElement, up++)
        if (e.textContent.toLowerCase().includes(text) && shown(e)) return true;
    return false; };
  const marker = () => css ? [...document.querySelectorAll(css)].some(shown) : textShown();
  let changed = false, last = null;  // the last frame that painted a change of the view's elements
  let seen = new Set(), lastSeen = null;  // ... and the last one that changed what the first screen shows
  const inMain = e => e?.closest("[data-testid='stMain']");
  // Attributes that change no pixel (ids, labels for screen readers, tooltips) are not a change drawn.
  const unseen = m => m.type === "attributes" && /^(aria-|data-)|^(id|title|tabindex|role|name|for)$/.test(m.attributeName);
  new MutationObserver(ms => { for (const m of ms) { const e = m.target.closest ? m.target : m.target.parentElement;
    if (inMain(e) && !unseen(m)) { changed = true; seen.add(e); } } }).observe(document.body,
    {childList: true, subtree: true, characterData: true, attributes: true});
  const onScreen = e => { if (!e.isConnected) return false; const r = e.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth; };
  const tick = (now) => {
    if (clicked !== null && window.__drawn === null && title() && marker()) window.__drawn = (now - clicked) / 1000;
    if (window.__drawn !== null && changed) { last = now; changed = false; }
    // The rectangles are read once per frame, where the frame's own layout computes them anyway.
    if (clicked !== null && [...seen].some(onScreen)) lastSeen = now;
    seen = new Set();
    if (window.__drawn !== null && performance.now() - last > 1500) {  // nothing changed for 1.5 s: all drawn
      window.__settled = (last - clicked) / 1000; window.__screen = (lastSeen - clicked) / 1000; return; }
    if (clicked !== null && now - clicked > 10000) {  // still changing: not known
      window.__settled = -1; window.__screen = -1; return; }
    requestAnimationFrame(tick); };
  window.__settled = window.__screen = null; requestAnimationFrame(tick); }"""
#: Records the text of every progress bar (a queue notice or a computation) seen at any moment of an open.
WATCH_BARS = """(() => { window.__bars = []; setInterval(() => {
  for (const bar of document.querySelectorAll("[data-testid='stMain'] [data-testid='stProgress']")) {
    const text = bar.textContent.split(" · ")[0].slice(0, 60);
    if (!window.__bars.includes(text)) window.__bars.push(text); } }, 100); })();"""


def fresh_home(corpora: str) -> Path:
    """An empty STVIZ_HOME with the chosen corpora imported (nothing computed)."""
    home = Path(tempfile.mkdtemp(prefix="stviz-warm-"))
    source = os.environ.get("STVIZ_CORPORA", str(ROOT.parent / "shared" / "corpora"))
    only = [] if corpora == "all" else ["--only", *corpora.split(",")]
    subprocess.run([sys.executable, "-m", "stviz", "data", "import", source, *only], cwd=ROOT, check=True,
                   env={**os.environ, "STVIZ_HOME": str(home)}, capture_output=True)
    return home


def watch_warming(server: subprocess.Popen, log: Path, offset: int, started: float, budget: float) -> dict[str, float]:
    """Seconds after the server's start at which each built-in view became ready (until all are, or the budget), then
    until the server says so itself (its warmer idle: nothing of it competes with the opens timed next)."""
    from stviz.ready import plan

    items, ready = plan(), {}
    print(f"{len(items)} built-in views (view x dataset) to warm", flush=True)
    while len(ready) < len(items) and time.monotonic() - started < budget and server.poll() is None:
        for item in items:
            if item.label not in ready and item.ready():
                ready[item.label] = time.monotonic() - started
                print(f"  {ready[item.label]:7.0f} s  {item.label} ready ({len(ready)}/{len(items)})", flush=True)
        time.sleep(5)
    said = lambda: log.read_bytes()[offset:].decode(errors="replace")  # noqa: E731 - this server's lines only
    while f"All {len(items)} built-in views ready" not in said() and time.monotonic() - started < budget:
        time.sleep(2)
    missing = [item.label for item in items if item.label not in ready]
    if missing:
        print(f"not ready within the budget: {', '.join(missing)}", flush=True)
    for line in said().splitlines():
        if "could not be computed" in line:
            print(f"  {line}", flush=True)
    return ready


def computed_seconds(log: Path) -> dict[str, float]:
    """What the server's log says each view took to compute ('X on Y ready in 1 min 05 s')."""
    found = {}
    for label, minutes, seconds in re.findall(r"warming: (.+?) ready in (?:(\d+) min )?(\d+) s\.", log.read_text()):
        found[label] = int(minutes or 0) * 60 + int(seconds)
    return found


def time_opens(base: str, opens: list[tuple[str, str]], n: int) -> dict[str, dict]:
    """Per view@dataset, ``n`` opens of each kind: ``reload`` (a navigation to its address: Streamlit's frontend loads
    again, a new session) to its result on screen, ``title`` the same navigation to the page's title (the frontend's
    own share and the script's first element), ``menu`` from the home page of a loaded session to the result, by its
    link in the sidebar (how a visitor moves between views); and the progress bars seen."""
    from browserkit import launch_browser, menu

    browser_gen = launch_browser()
    browser = next(browser_gen)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(WATCH_BARS)
    times = {}
    for view, dataset in opens:
        page, found, bars = context.new_page(), {"reload": [], "title": [], "menu": [], "menu_page": [],
                                                 "menu_settled": [], "menu_screen": []}, []
        drawn = DRAWN[view]
        # Playwright's text= is a case-insensitive substring; so is the page's own check.
        text = drawn.removeprefix("text=").lower() if drawn.startswith("text=") else None
        marker = [view.replace("_", " "), None if text else drawn, text]
        for _ in range(n):
            started = time.monotonic()
            page.goto(f"{base}/{view}?dataset={dataset}")
            page.wait_for_selector("[data-testid='stMain'] h1", timeout=600_000)
            found["title"].append(time.monotonic() - started)
            page.wait_for_selector(DRAWN[view], timeout=600_000)
            found["reload"].append(time.monotonic() - started)
            bars += [bar for bar in page.evaluate("window.__bars") if bar not in bars]
        for _ in range(n):
            page.goto(f"{base}/?dataset={dataset}")
            link = menu(page).get_by_text(view.replace("_", " "), exact=True)
            link.wait_for(timeout=600_000)
            page.wait_for_timeout(1000)  # the home page's own script has finished
            page.evaluate(WATCH_DRAWN, marker)
            started = time.monotonic()
            link.click()
            # The view's title first: by then the home page's elements (its charts too) are gone from the page.
            page.wait_for_function(VIEW_TITLE, arg=view.replace("_", " "), timeout=600_000)
            page.wait_for_selector(drawn, timeout=600_000)
            found["menu"].append(time.monotonic() - started)
            found["menu_page"].append(page.wait_for_function("window.__drawn", timeout=60_000).json_value())
            found["menu_settled"].append(page.wait_for_function("window.__settled", timeout=60_000).json_value())
            found["menu_screen"].append(page.evaluate("window.__screen"))
        page.close()
        times[f"{view}@{dataset}"] = {**found, "bars": bars}
        print(f"  {view}@{dataset}: " + "; ".join(f"{kind} " + ", ".join(f"{s:.2f}" for s in found[kind])
                                                 for kind in ("reload", "title", "menu", "menu_page",
                                                              "menu_screen", "menu_settled"))
              + " s" + (f" (bars seen: {'; '.join(bars)})" if bars else ""), flush=True)
    context.close()
    browser_gen.close()
    return times


def time_scripts(opens: list[tuple[str, str]], n: int) -> dict[str, list[float]]:
    """Per view@dataset: the seconds of ``n`` runs of its page's script under AppTest, after a first (imports)."""
    from streamlit.testing.v1 import AppTest

    from stviz.analyses.kept import KIND  # noqa: F401 - the library this process reads through (same keys)

    pages = {path.stem.split("_", 1)[1]: path for path in (ROOT / "pages").glob("[0-9]*_*.py")}
    times = {}
    for view, dataset in opens:
        runs = []
        for _ in range(n + 1):
            at = AppTest.from_file(str(pages[view]), default_timeout=600)
            at.session_state["dataset_name"] = dataset
            started = time.monotonic()
            at.run()
            runs.append(time.monotonic() - started)
            if at.exception:
                raise RuntimeError(f"{view}@{dataset}: {at.exception}")
        times[f"{view}@{dataset}"] = runs[1:]
        print(f"  {view}@{dataset}: first {runs[0]:.2f} s, then " + ", ".join(f"{s:.2f}" for s in runs[1:]) + " s",
              flush=True)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="all", help="corpora to import into the fresh home (default: all)")
    parser.add_argument("--opens", type=int, default=5, help="opens per view, each a new session (default: 5)")
    parser.add_argument("--budget", type=float, default=7200, help="seconds to wait for warming (default: 7200)")
    parser.add_argument("--open", default=DEFAULT_OPENS, help="VIEW@DATASET,... to time (default: %(default)s)")
    parser.add_argument("--home", type=Path, help="a home warmed by an earlier run: time the opens only")
    args = parser.parse_args()
    home = args.home or fresh_home(args.corpora)
    os.environ["STVIZ_HOME"] = str(home)  # before stviz is imported here: the same cache as the server's
    os.environ["STVIZ_WARMUP"] = "1"
    from browserkit import _free_port

    port, log = _free_port(), home / "server.log"
    print(f"home {home}; server on port {port}, its log in {log}", flush=True)
    opens = [tuple(pair.split("@")) for pair in args.open.split(",") if pair]
    log.touch()
    offset = log.stat().st_size
    with open(log, "a") as out:
        started = time.monotonic()
        server = subprocess.Popen([sys.executable, "-m", "stviz", "dashboard", "--port", str(port)], cwd=ROOT,
                                  env={**os.environ, "STVIZ_WARM_RESULTS": "1"}, stdout=out, stderr=subprocess.STDOUT)
        try:
            ready = watch_warming(server, log, offset, started, args.budget)
            took = computed_seconds(log)
            print(f"\nopening each view in Chromium ({args.opens} opens, each a new session):", flush=True)
            times = time_opens(f"http://127.0.0.1:{port}", opens, args.opens)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)
    print(f"\neach page's script under AppTest ({args.opens} runs after a first):", flush=True)
    scripts = time_scripts(opens, args.opens)
    print_tables(ready, took, times, scripts)
    return 0


def print_tables(ready: dict[str, float], took: dict[str, float], times: dict, scripts: dict) -> None:
    """Markdown tables: each view x dataset's time to ready (and its own compute), then the opens."""
    print("\n| view x dataset | ready after the server's start | computing it took |\n|---|---:|---:|")
    for label, at in sorted(ready.items(), key=lambda kv: kv[1]):
        print(f"| {label} | {at:.0f} s | {took.get(label, float('nan')):.0f} s |")
    if ready:
        print(f"| **all {len(ready)}** | **{max(ready.values()) / 60:.1f} min** | {sum(took.values()) / 60:.1f} min "
              "(two workers) |")
    print("\n| view @ dataset | a reload: result drawn, median (fastest-slowest) | a reload: its title | "
          "from the sidebar's menu: result drawn | the same, the page's own clock | the first screen's last change | "
          "the page's last change painted | the page's script (AppTest) | bars seen |\n|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, found in times.items():
        script = scripts.get(name, [float("nan")])
        print(f"| {name} | {_spread(found['reload'])} | {_spread(found['title'])} | {_spread(found['menu'])} | "
              f"{_spread(found['menu_page'])} | {_spread(found['menu_screen'])} | {_spread(found['menu_settled'])} | "
              f"{statistics.median(script):.2f} s | {'; '.join(found['bars']) or 'none'} |")


def _spread(seconds: list[float]) -> str:
    """'median s (fastest-slowest)', or 'n/a' when nothing was timed (a negative time: never settled, left out)."""
    unsettled = sum(s < 0 for s in seconds)
    seconds = [s for s in seconds if s >= 0]
    if not seconds:
        return "n/a" + (f" ({unsettled} still changing after 10 s)" if unsettled else "")
    return f"{statistics.median(seconds):.2f} s ({min(seconds):.2f}-{max(seconds):.2f})" + (
        f"; {unsettled} still changing after 10 s" if unsettled else "")


if __name__ == "__main__":
    sys.exit(main())
