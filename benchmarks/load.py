"""A team's server under load: N simulated researchers in real Chromium against one `stviz dashboard`, each
opening a cold view at the same moment, then again warm. Prints, per user, the time to the first answer (a queue
notice with its wait, a progress bar with its time left, a preview, or the result) and to the full result, what the
page said while queued, errors; median and p95 of each, and the server's peak memory.

    python benchmarks/load.py [--users 20] [--mix Metrics_vs_humans@mir-yelp,Failure_cases@upload,...]
    python benchmarks/load.py --keep                      # keep the home: its cache, its uploads (load-users.json)
    python benchmarks/load.py --home KEPT [--py-spy OUT]  # a new server on a kept home: both rounds read kept results
    python benchmarks/load.py --client protocol ...       # users as websockets, no browser: the server's answer alone
    python benchmarks/load.py --home KEPT --quiet-server  # no view computed unasked: two versions of the code compared

Not a timed test: figures depend on the machine and on what else runs on it. The server gets a fresh cache (the
corpora are linked from $STVIZ_HOME/corpora, or imported from $STVIZ_CORPORA), so the first round is cold; the
second round reloads every user's page at once on the warm cache. Users take the mix's (view, dataset) pairs in
turn, so some ask for the same view (one computation, every asker served) and some queue behind others (the
scheduler's bounded pool). ``upload`` datasets are uploaded through the Home page first, each user its own file
(a different slice of SGDD-TST's pairs with their human scores), and reopened by their private link.

Real users' browsers run on their own machines; here twenty headless pages rendering in software share the server's
two cores, and neither priority is a user's own machine. ``--browser-nice`` sets theirs: 19 (the default) puts them
after everything of the server's, so they never take the pages' CPU, but the server's background work (its worker
processes, niced by 5) slows their own loading and rendering, which is timed too; -5 puts them first, so nothing
slows them but they take CPU from the server's pages. Both overstate a real server's times; where a priority
cannot be raised (not root), they stay at 0. ``--client protocol`` takes the renderers away: each user is a
websocket that speaks Streamlit's protocol (``benchmarks/streamclient.py``), so the times are when the server's
answer arrived, as a visitor's own machine would receive it before drawing it (Chromium is then started only for
uploads not kept). Needs Debian's chromium and playwright (the test lock).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
# A long view's answer, per page: the preview's banner, then the full result's own heading without it.
DONE_TEXT = {"Metrics_vs_humans": "Correlations", "Failure_cases": "pairs match", "Leaderboard": "Is the difference real?",
             "Meta_evaluation": "Sets and flags", "Style_similarity": "Mean cosine similarity"}
DEFAULT_MIX = ("Metrics_vs_humans@mir-yelp,Failure_cases@sgdd-tst,Metrics_vs_humans@upload,Style_similarity@cds,"
               "Leaderboard@mir-yelp,Failure_cases@upload,Meta_evaluation@mir-yelp,Metrics_vs_humans@sgdd-tst,"
               "Failure_cases@mir-yelp")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants (from /proc; the server's worker processes are children
    of its pool's threads, so every thread's children are read, not only the main thread's)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) * 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, AttributeError):
            continue
    return total


def _home(dataset: str) -> Path:
    """A fresh STVIZ_HOME whose corpora are the current ones (linked) or imported."""
    home = Path(tempfile.mkdtemp(prefix="stviz-load-"))
    current = Path(os.environ.get("STVIZ_HOME", ROOT / ".stviz")) / "corpora"
    if (current / dataset).exists():
        (home / "corpora").symlink_to(current)
    else:
        corpora = os.environ.get("STVIZ_CORPORA", str(ROOT.parent / "shared" / "corpora"))
        subprocess.run([sys.executable, "-m", "stviz", "data", "import", corpora], cwd=ROOT, check=True,
                       env={**os.environ, "STVIZ_HOME": str(home)}, capture_output=True)
    return home


def _upload_file(home: Path, user: int, corpora: Path) -> Path:
    """User ``user``'s own upload: 1,200 SGDD-TST pairs (source, output, human) starting at a different row."""
    with open(corpora / "sgdd-tst" / "SGDD-TST.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[user * 300: user * 300 + 1200]
    path = home / f"pairs-user{user}.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["source", "output", "human"])
        writer.writerows([r["INPUT:text_first"], r["INPUT:text_second"], r["average"]] for r in rows)
    return path


def _upload(browser, base: str, path: Path) -> str:
    """Upload ``path`` on Home as a user would; the dataset's value in the link that reopens it."""
    sys.path.insert(0, str(ROOT / "tests"))
    from browserkit import use_upload, wait_for_app

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(base)
    wait_for_app(page)
    use_upload(page, path)
    for _ in range(120):
        value = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).get("dataset", [""])[0]
        if value.startswith("upload"):
            break
        page.wait_for_timeout(500)
    page.close()
    return value


#: Runs in every user's page: twice a second it reads the page's text and keeps the wall-clock moment each state was
#: first seen (queued with a wait, progress with its time left, a preview, the result, the full result, an error).
#: Timed in the page itself, the states are not late by however long the benchmark takes to get round to a page.
WATCH_SCRIPT = r"""
(() => {
  const seen = window.__stviz = {said: ""};
  const done = %s;
  const first = (name) => { if (!(name in seen)) seen[name] = Date.now() / 1000; };
  setInterval(() => {
    const main = document.querySelector("[data-testid='stMain']");
    const text = main ? main.textContent : "";
    const view = location.pathname.split("/").pop();
    const queued = text.match(/\d+ jobs? ahead of yours(, about \d+ (min|s)( \d+ s)?|, taking longer than estimated)?/);
    const preview = /preview: [\d,]+ of/.test(text);
    const answered = !!done[view] && text.includes(done[view]);
    if (queued) { first("queued"); seen.said = queued[0].slice(0, 60); }
    if (/about [^.\n]* left/.test(text)) first("progress");
    if (preview) first("preview");
    if (answered) first("result");
    if (answered && !preview && !document.querySelector("[data-testid='stStatusWidget']")) first("full");
    if (document.querySelector("[data-testid='stException']")) first("error");
    if (main && main.querySelector("h1")) first("page");  // the script has started: its title is drawn
    if (main && main.querySelector("[data-testid='stProgress']")) first("bar");  // any bar: queued or running
  }, 500);
})();
"""


#: What counts as a user's first answer: a queue notice, a progress bar with its time left, a preview, the result.
ANSWERS = ("queued", "progress", "preview", "result")


def _first_answer(answers: dict[str, float]) -> tuple[str, float]:
    """The earliest of a user's answers (seconds after the open, by kind): its kind and seconds."""
    return min(answers.items(), key=lambda item: item[1])


def _watch(users: list[dict], start: float, give_up: float, server_pid: int, peak: int) -> int:
    """Read every user's page's own record (:data:`WATCH_SCRIPT`) until each has its full result (or ``give_up``
    seconds pass); the peak memory."""
    from playwright.sync_api import Error as PlaywrightError

    while any(u["full"] is None for u in users) and time.monotonic() - start < give_up:
        for u in users:
            if u["full"] is not None:
                continue
            try:
                seen = u["page"].evaluate("window.__stviz || {}")
            except PlaywrightError:  # a page too busy to answer: read again on the next round
                continue
            answers = {k: seen[k] - u["opened"] for k in ANSWERS if k in seen}
            u["page_at"], u["bar_at"] = (seen[k] - u["opened"] if k in seen else None for k in ("page", "bar"))
            if answers:
                u["kind"], u["first"] = _first_answer(answers)
            u["said"], u["errors"] = seen.get("said", ""), int("error" in seen)
            if "full" in seen:
                u["full"] = seen["full"] - u["opened"]
        peak = max(peak, _tree_rss(server_pid))
        time.sleep(1.0)  # a round of reading the pages' records, not a wait for a state
    return peak


def _set_browser_priority(nice: int) -> None:
    """Give every Chromium process the CPU priority ``nice`` (see the module's docstring); a priority that cannot be
    raised (not root) is left as it is."""
    for status in Path("/proc").glob("[0-9]*/comm"):
        try:
            if status.read_text().strip().startswith("chrom"):
                os.setpriority(os.PRIO_PROCESS, int(status.parent.name), nice)
        except (OSError, ValueError):
            continue


def _open_all(browser, users: list[dict], base: str, nice: int) -> float:
    """Open (or reload) every user's view at once; the moment they were opened."""
    from playwright.sync_api import Error as PlaywrightError

    start = time.monotonic()
    for u in users:
        u.update(first=None, full=None, kind="", said="", errors=0, page_at=None, bar_at=None)
        if u.get("page") is None:
            u["page"] = browser.new_page(viewport={"width": 1400, "height": 1000})
            u["page"].add_init_script(WATCH_SCRIPT % json.dumps(DONE_TEXT))
        u["opened"] = time.time()
        try:  # a server too busy to answer a navigation in two minutes counts as an error, not a crash
            u["page"].goto(f"{base}/{u['view']}?dataset={urllib.parse.quote(u['dataset'])}", wait_until="commit",
                           timeout=120_000)
        except PlaywrightError:
            u["errors"] += 1
    _set_browser_priority(nice)  # the pages' renderer processes, started just now
    return start


def _protocol_round(users: list[dict], base: str, give_up: float, server_pid: int, peak: int) -> int:
    """Open every user's view at once through Streamlit's protocol (benchmarks/streamclient.py, no browser): each
    user's states as the server sent them; the peak memory."""
    import asyncio

    from streamclient import open_view, run_apart

    async def everyone() -> list[dict]:
        nonlocal peak
        opened = [asyncio.create_task(open_view(base, u["view"], u["dataset"], DONE_TEXT.get(u["view"], ""), give_up))
                  for u in users]
        while not all(task.done() for task in opened):
            peak = max(peak, _tree_rss(server_pid))
            await asyncio.sleep(1.0)
        return [task.result() for task in opened]

    for u, seen in zip(users, run_apart(everyone())):
        answers = {k: seen[k] for k in ANSWERS if seen[k] is not None}
        kind, first = _first_answer(answers) if answers else ("", None)
        bars = [seen[k] for k in ("queued", "progress") if seen[k] is not None]
        u.update(first=first, full=seen["full"], kind=kind, said=seen["said"], errors=seen["errors"],
                 page_at=seen["page"], bar_at=min(bars) if bars else None)
    return peak


def _record(pid: int, out: str) -> subprocess.Popen:
    """py-spy recording the server and its worker processes (collapsed stacks, every thread, idle ones too) until
    it gets SIGINT."""
    spy = shutil.which("py-spy")
    if spy is None:
        raise SystemExit("--py-spy needs py-spy on the PATH (pip install py-spy)")
    return subprocess.Popen([spy, "record", "--pid", str(pid), "--subprocesses", "--idle", "--threads", "--rate", "50",
                             "--format", "raw", "--output", out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _report(title: str, users: list[dict], protocol: bool = False) -> None:
    print(f"\n{title}")
    print(f"{'user':>4}  {'view':<18} {'dataset':<22} {'page':>5} {'bar':>5} {'first answer':>12} {'(what)':<9} "
          f"{'full result':>11}  errors  said while queued")
    for u in users:
        page, bar, first, full = (f"{u[k]:.0f} s" if u[k] is not None else "never"
                                  for k in ("page_at", "bar_at", "first", "full"))
        print(f"{u['user']:>4}  {u['view']:<18} {u['label']:<22} {page:>5} {bar:>5} {first:>12} {u['kind']:<9} "
              f"{full:>11}  {u['errors']:>6}  {u['said']}")
    print("(page: the view's title " + ("sent by the server" if protocol else "drawn") +
          ", its script started; bar: its first progress bar or queue notice)")
    for name in ("first", "full"):
        values = sorted(u[name] for u in users if u[name] is not None)
        missing = len(users) - len(values)
        if values:
            p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
            print(f"{name + ' answer' if name == 'first' else 'full result'}: median {statistics.median(values):.1f} s, "
                  f"p95 {p95:.1f} s, max {values[-1]:.1f} s" + (f", {missing} never" if missing else ""))
    print(f"errors: {sum(u['errors'] for u in users)}")


def main() -> None:
    """Serve, upload what the mix needs, open every user's view at once (cold), then again (warm); print."""
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--mix", default=DEFAULT_MIX,
                        help=f"VIEW@DATASET pairs given to users in turn (views: {', '.join(DONE_TEXT)}; DATASET "
                             "'upload' is the user's own upload)")
    parser.add_argument("--give-up", type=float, default=1800, help="seconds before a user's wait counts as never")
    parser.add_argument("--no-warm", action="store_true", help="skip the warm round")
    parser.add_argument("--quiet-server", action="store_true",
                        help="the server computes no view before it is asked (STVIZ_WARM_RESULTS=0): to compare two versions "
                             "of the code on one kept home. A code change makes every kept result new, and the "
                             "server's warmer would compute all of them beside the users measured")
    parser.add_argument("--browser-nice", type=int, default=19,
                        help="the simulated users' Chromium's CPU priority (default 19: after the server's work; -5: "
                             "before it; see the module's docstring)")
    parser.add_argument("--client", choices=("browser", "protocol"), default="browser",
                        help="browser (default): each user a Chromium page, timed as drawn; protocol: each user a "
                             "websocket speaking Streamlit's protocol (benchmarks/streamclient.py), timed as the server "
                             "answers, with no renderer on the server's cores")
    parser.add_argument("--keep", action="store_true", help="keep the server's home (its log and cache) afterwards")
    parser.add_argument("--home", help="serve a home kept by an earlier --keep run (its users' uploads reused), so the "
                                       "first round too reads kept results; the home is kept")
    parser.add_argument("--py-spy", dest="py_spy", help="record the server and its workers with py-spy during the last "
                                                        "round, as collapsed stacks in this file")
    args = parser.parse_args()
    mix = [tuple(item.split("@", 1)) for item in args.mix.split(",")]
    corpora = Path(os.environ.get("STVIZ_CORPORA", str(ROOT.parent / "shared" / "corpora")))
    home, port = (Path(args.home) if args.home else _home("mir-yelp")), _free_port()
    kept_users = home / "load-users.json"
    env = {**os.environ, "STVIZ_HOME": str(home), "STVIZ_CONFIRM_SECONDS": "30", "STVIZ_WARMUP": "1",
           "STVIZ_WARM_RESULTS": "0" if args.quiet_server else "1"}
    log = open(home / "server.log", "a" if args.home else "w")
    server = subprocess.Popen([sys.executable, "-m", "stviz", "dashboard", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    spy = None
    base = f"http://127.0.0.1:{port}"
    users = []
    try:
        for _ in range(240):
            try:
                if urllib.request.urlopen(f"{base}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        peak = _tree_rss(server.pid)
        with sync_playwright() as p:
            browser = None  # started when a user's page or upload needs it (the protocol client draws nothing)

            def chromium():
                nonlocal browser
                if browser is None:
                    browser = p.chromium.launch(executable_path=CHROMIUM,
                                                args=["--headless", "--no-sandbox", "--disable-gpu"])
                    _set_browser_priority(args.browser_nice)
                return browser

            uploaded = json.loads(kept_users.read_text()) if args.home and kept_users.exists() else {}
            for i in range(args.users):
                view, dataset = mix[i % len(mix)]
                label = dataset
                if dataset == "upload":
                    dataset = uploaded.get(str(i)) or _upload(chromium(), base, _upload_file(home, i, corpora))
                    uploaded[str(i)] = dataset
                    label = f"upload (user {i + 1})"
                users.append({"user": i + 1, "view": view, "dataset": dataset, "label": label, "page": None})
            kept_users.write_text(json.dumps(uploaded))
            clients = ("Streamlit's protocol, no browser" if args.client == "protocol"
                       else f"browsers at nice {args.browser_nice}")
            rounds = [f"{'first round, a new server on a kept home' if args.home else 'cold'}: {args.users} users at "
                      f"once, {os.cpu_count()} cores, {os.environ.get('STVIZ_WORKERS') or os.cpu_count()} workers, "
                      f"{clients}"]
            rounds += [] if args.no_warm else ["warm: the same users reload their views at once"]
            for k, title in enumerate(rounds):
                if args.py_spy and k == len(rounds) - 1:
                    spy = _record(server.pid, args.py_spy)
                if args.client == "protocol":
                    peak = _protocol_round(users, base, args.give_up, server.pid, peak)
                else:
                    peak = _watch(users, _open_all(chromium(), users, base, args.browser_nice), args.give_up,
                                  server.pid, peak)
                _report(title, users, protocol=args.client == "protocol")
            if browser is not None:
                browser.close()
    finally:
        if spy is not None:
            spy.send_signal(subprocess.signal.SIGINT)  # py-spy writes its file on SIGINT
            spy.wait(120)
        server.terminate()
        server.wait(60)
        log.close()
    print(f"\nserver peak memory (RSS, with children): {peak / 1e9:.2f} GB")
    if args.keep or args.home:
        print(f"kept: {home} (server.log, the cache, load-users.json)")
    else:
        shutil.rmtree(home, ignore_errors=True)  # a link to the corpora, never them


if __name__ == "__main__":
    main()
