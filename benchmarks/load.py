"""A team's server under load: N simulated researchers in real Chromium against one `stviz dashboard`, each
opening a cold view at the same moment. Prints, per user, the time to the first answer (a preview or the result)
and to the full result, what the page said while queued, errors, and the server's peak memory.

    python benchmarks/load.py [--users 6] [--dataset mir-yelp] [--views Metrics_vs_humans,Failure_cases]

Not a timed test: figures depend on the machine and on what else runs on it. The server gets a fresh cache (the
corpora are linked from $STVIZ_HOME/corpora, or imported from $STVIZ_CORPORA), so every view is cold; users are
spread over the views round-robin, so some ask for the same view (one computation, every asker served) and some
queue behind others (the scheduler's bounded pool). Needs Debian's chromium and playwright (the test lock).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
# A long view's answer, per page: the preview's banner, then the full result's own heading without it.
DONE_TEXT = {"Metrics_vs_humans": "Correlations", "Failure_cases": "pairs** match", "Leaderboard": "Is the difference real?",
             "Meta_evaluation": "Sets and flags", "Style_similarity": "Mean cosine similarity"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree_rss(pid: int) -> int:
    """Resident bytes of a process and its children (from /proc)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) * 1024
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
            todo += [int(c) for c in children]
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


def main() -> None:
    """Serve, open every user's view at once, watch the pages until each shows its full result, print."""
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=6)
    parser.add_argument("--dataset", default="mir-yelp")
    parser.add_argument("--views", default="Metrics_vs_humans,Failure_cases",
                        help=f"pages, comma-separated, given to users in turn (known: {', '.join(DONE_TEXT)})")
    parser.add_argument("--give-up", type=float, default=1800, help="seconds before a user's wait counts as an error")
    parser.add_argument("--keep", action="store_true", help="keep the server's home (its log and cache) afterwards")
    args = parser.parse_args()
    views = args.views.split(",")
    home, port = _home(args.dataset), _free_port()
    env = {**os.environ, "STVIZ_HOME": str(home), "STVIZ_CONFIRM_SECONDS": "30", "STVIZ_WARMUP": "1"}
    log = open(home / "server.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "stviz", "dashboard", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                if urllib.request.urlopen(f"{base}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        peak = _tree_rss(server.pid)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            users = []
            start = time.monotonic()
            for i in range(args.users):
                view = views[i % len(views)]
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{base}/{view}?dataset={args.dataset}", wait_until="commit")
                users.append({"user": i + 1, "view": view, "page": page, "first": None, "full": None, "said": "",
                              "errors": 0})
            while any(u["full"] is None for u in users) and time.monotonic() - start < args.give_up:
                for u in users:
                    if u["full"] is not None:
                        continue
                    page, now = u["page"], time.monotonic() - start
                    text = page.locator("[data-testid='stMain']").inner_text(timeout=60_000) if page.locator(
                        "[data-testid='stMain']").count() else ""
                    preview = re.search(r"preview: [\d,]+ of", text) is not None
                    answered = DONE_TEXT.get(u["view"], "").replace("**", "") in text
                    if (preview or answered) and u["first"] is None:
                        u["first"] = now
                    if "jobs ahead of yours" in text or "job ahead of yours" in text:
                        u["said"] = re.search(r"\d+ jobs? ahead of yours[^\n]*", text).group(0)[:60]
                    u["errors"] = page.locator("[data-testid='stException']").count()
                    if answered and not preview and page.locator("[data-testid='stStatusWidget']").count() == 0:
                        u["full"] = now
                    peak = max(peak, _tree_rss(server.pid))
                time.sleep(1.0)  # a poll of the pages, not a wait for a state
            browser.close()
    finally:
        server.terminate()
        server.wait(60)
        log.close()
    print(f"{args.users} users, views {', '.join(views)} on {args.dataset}, cold cache, {os.cpu_count()} cores, "
          f"{os.environ.get('STVIZ_WORKERS') or os.cpu_count()} workers")
    print(f"{'user':>4}  {'view':<20} {'first answer':>12} {'full result':>12}  errors  said while queued")
    for u in users:
        first = f"{u['first']:.0f} s" if u["first"] is not None else "never"
        full = f"{u['full']:.0f} s" if u["full"] is not None else "never"
        print(f"{u['user']:>4}  {u['view']:<20} {first:>12} {full:>12}  {u['errors']:>6}  {u['said']}")
    print(f"server peak memory (RSS, with children): {peak / 1e9:.2f} GB")
    if args.keep:
        print(f"kept: {home} (server.log, the cache)")
    else:
        shutil.rmtree(home, ignore_errors=True)  # a link to the corpora, never them


if __name__ == "__main__":
    main()
