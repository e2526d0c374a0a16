"""Twenty raters answering one rating study at once: answers per second, the slowest save, and no answer lost.

The database alone: each rater a thread, then a process, of its own, recording every screen of a study x its three
aspects through ``StudyStore.record`` (each call timed), all let go at the same moment; one rater alone first, on the
same database, for the ratio. On SQLite (a temporary file, WAL) and on PostgreSQL (``--postgres URL``, else a server
of its own started as the tests start one, tests/pgserver.py, where Debian's postgresql is installed).

Through the server: ``streamlit run app.py`` on a loopback port, each rater a websocket speaking Streamlit's protocol
(``benchmarks/streamclient.py``) that opens its link (``Rating_study?rate=TOKEN``) and clicks answer buttons as a
browser does: a rerun carrying the button's trigger. Each click is timed from its sending to the end of the page's run
that saved it and drew the next question; one rater alone, then twenty at once. The clients share the server's cores.

Afterwards the database is read back: every answer given must be there with its value, else LOST (exit 1).

    python benchmarks/studies.py [--raters 20] [--items 40] [--screens 10] [--postgres URL] [--no-server] [--quick]

Not a timed test: the figures depend on the machine (an SQLite save is mostly the disk's fsync); compare the ratios
within one run. The default run takes about two minutes on two cores, --quick under a minute.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import multiprocessing
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from queue import Queue

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from stviz.studies import Protocol, open_store  # noqa: E402 - after the project's folders are on the path

ASPECTS, REPEATS = ("style", "content", "fluency"), 2  # the page's defaults: each item rated on 3, 2 shown again
ITEM = {"input": "i", "source": "the food was cold", "output": "the food was warm", "system": "S",
        "source_style": "negative", "target_style": "positive", "language": "en"}


def new_study(url: str, items: int, raters: int):
    """A study of ``items`` items, with ``raters`` raters."""
    store = open_store(url)
    study = store.create_study("Benchmark", "bench", Protocol(aspects=ASPECTS, repeats=REPEATS), [ITEM] * items)
    return store, study, [store.add_rater(study, f"rater {k + 1}") for k in range(raters)]


def rate_all(url: str, rater, start) -> dict:
    """Answer every screen and aspect of ``rater`` once ``start`` lets go, each save timed."""
    store, rng = open_store(url), random.Random(rater.id)  # a store of its own, as a server process has
    start.wait()
    seen = {"times": [], "given": {}, "errors": 0, "began": time.perf_counter()}  # one clock in every process
    for position in range(len(rater.sequence)):
        for aspect in ASPECTS:
            value = float(rng.randint(1, 5))
            t = time.perf_counter()
            store.record(rater, position, aspect, value)
            seen["times"].append(time.perf_counter() - t)
            seen["given"][(rater.id, position, aspect)] = value
    return seen | {"ended": time.perf_counter()}


def at_once(url: str, raters: list, how: str) -> list:
    """Every rater's rate_all at the same moment, each in a thread or in a process (forked: nothing imported again)."""
    fork = multiprocessing.get_context("fork")
    worker, barrier, queue = ((threading.Thread, threading.Barrier, Queue) if how == "thread"
                              else (fork.Process, fork.Barrier, fork.Queue))
    start, out = barrier(len(raters), timeout=300), queue()

    def one(rater) -> None:
        try:
            out.put(rate_all(url, rater, start))
        except Exception as exc:  # noqa: BLE001 - a failed rater reported, not a hung benchmark
            start.abort()  # the others stop waiting for this one
            out.put(repr(exc))
    workers = [worker(target=one, args=(r,)) for r in raters]
    for w in workers:
        w.start()
    results = [out.get(timeout=900) for _ in raters]  # read before join: a child with a full pipe would not end
    for w in workers:
        w.join()
    return results


def report(label: str, results: list, timed: str) -> tuple[float, int]:
    """Print a round's answers/s, median and slowest time; return answers/s and its problems (raters failed, errors)."""
    done = [r for r in results if isinstance(r, dict)]
    failed, times = len(results) - len(done), sorted(t for r in done for t in r["times"])
    if failed:
        print(f"  {label}: {failed} raters failed: {next(r for r in results if not isinstance(r, dict))!r}")
    if errors := sum(r["errors"] for r in done):
        print(f"  {label}: {errors} errors shown, or questions asked again after their answer")
    if failed or not times:
        return 0.0, failed + errors
    # The answers' own span, from the first one started to the last one ended: opening the store or link left out.
    rate = len(times) / (max(r["ended"] for r in done) - min(r["began"] for r in done))
    print(f"  {label:<26} {rate:8,.1f} answers/s   {timed}: median {statistics.median(times) * 1e3:6.1f} ms, "
          f"slowest {times[-1] * 1e3:7.1f} ms")
    return rate, errors


def lost(store, study, results: list) -> int:
    """Answers given that the database does not hold with their value (0: none lost)."""
    given = {key: value for r in results if isinstance(r, dict) for key, value in r["given"].items()}
    rows = store.answers(study.id)
    held = {(r, int(p), a): v for r, p, a, v in rows[["rater", "position", "aspect", "value"]].itertuples(index=False)}
    missing = sum(held.get(key) != value for key, value in given.items())
    if missing or len(rows) != len(given):
        print(f"  LOST: {missing} of {len(given):,} answers missing or wrong; {len(rows):,} rows held")
    return missing + max(0, len(rows) - len(given))  # a row given by no one counts too


def database_level(url: str, name: str, args) -> int:
    """One rater alone, then all at once in threads, then in processes; the answers lost and the raters failed."""
    print(f"\n{name}: {args.raters} raters x {args.items + REPEATS} screens ({REPEATS} repeats) x {len(ASPECTS)} "
          "aspects each")
    bad, rates = 0, []
    for label, count, how in (("1 rater alone", 1, "thread"), (f"{args.raters} threads at once", args.raters, "thread"),
                              (f"{args.raters} processes at once", args.raters, "process")):
        store, study, raters = new_study(url, args.items, count)  # a study per round: each counts its own answers
        results = at_once(url, raters, how)
        rate, problems = report(label, results, "save")
        rates.append(rate)
        bad += problems + lost(store, study, results)
    if all(rates):
        print(f"  {args.raters} at once / 1 alone (answers/s): threads {rates[1] / rates[0]:.2f}x, "
              f"processes {rates[2] / rates[0]:.2f}x")
    return bad


# -- through the server ----------------------------------------------------------------------------------------
async def rater_client(base: str, rater, screens: int, ready: asyncio.Barrier) -> dict:
    """Open a rater's link, wait for the others, then click answers for ``screens`` screens x 3 aspects."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamclient import FINISHED, _rerun

    rng, query, wanted = random.Random(rater.id), f"rate={rater.token}", screens * len(ASPECTS)
    seen = {"times": [], "given": {}, "errors": 0, "began": None, "ended": None}
    buttons, page_hash, sent = {}, "", None
    url = base.replace("http", "ws", 1) + "/_stcore/stream"
    try:
        async with websockets.connect(url, subprotocols=["streamlit"], max_size=None, open_timeout=120) as ws:
            await ws.send(_rerun(query, "Rating_study"))
            while len(seen["times"]) < wanted:
                msg = ForwardMsg.FromString(await asyncio.wait_for(ws.recv(), timeout=300))
                kind = msg.WhichOneof("type")
                if kind == "new_session":  # a run starts: the buttons drawn are this run's
                    buttons = {}
                elif kind == "navigation":  # the page st.navigation runs (new_session's hash is app.py's)
                    page_hash = msg.navigation.page_script_hash
                elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                    element = msg.delta.new_element.WhichOneof("type")
                    seen["errors"] += element in ("exception", "alert")  # a rater's screen shows no alert until done
                    if element == "button":
                        buttons[msg.delta.new_element.button.id] = msg.delta.new_element.button.label
                elif kind == "page_not_found":
                    raise RuntimeError("no page Rating_study on this server")
                elif kind == "script_finished" and msg.script_finished == FINISHED:
                    if sent is None:
                        await ready.wait()  # every rater's screen is open: the clicks start together
                        seen["began"] = time.perf_counter()
                    else:
                        seen["ended"] = time.perf_counter()
                        seen["times"].append(seen["ended"] - sent)
                        if len(seen["times"]) == wanted:
                            break
                    # The button answering `value` to the question shown: its id ends its key, answer-POS-ASPECT-VALUE.
                    value = rng.randint(1, 5)
                    button = next((b for b in buttons if "-answer-" in b and b.endswith(f"-{value}")), None)
                    if button is None:
                        raise RuntimeError(f"no answer button on the page: {sorted(buttons.values())}")
                    position, aspect = button.rsplit("-answer-", 1)[1].split("-")[:2]
                    key = (rater.id, int(position), aspect)
                    seen["errors"] += key in seen["given"]  # asked again: the last click was not saved
                    seen["given"][key] = float(value)
                    back = BackMsg.FromString(_rerun(query, "Rating_study", page_hash))
                    back.rerun_script.widget_states.widgets.add(id=button, trigger_value=True)  # a browser's click
                    sent = time.perf_counter()
                    await ws.send(back.SerializeToString())
    except BaseException:
        await ready.abort()  # the others stop waiting for this rater
        raise
    return seen


def server_level(args) -> int:
    """Serve the app on a study database of its own; one rater clicks alone, then the others at once; answers lost."""
    from browserkit import _free_port, serving

    home = Path(tempfile.mkdtemp(prefix="stviz-studies-"))
    url = f"sqlite:///{home / 'studies.sqlite3'}"
    store, study, raters = new_study(url, args.items, args.raters + 2)
    env = {**os.environ, "STVIZ_HOME": str(home), "STVIZ_STUDIES_DB": url, "STVIZ_WARMUP": "0",
           "STVIZ_WARM_RESULTS": "0"}  # no model loaded nor view computed beside the raters
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    print(f"\nThrough the server (streamlit run app.py, SQLite, {os.cpu_count()} cores shared with the clients): "
          f"{args.screens} screens x {len(ASPECTS)} aspects per rater, a click each")
    with open(home / "server.log", "w") as log:
        server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless",
                                   "true", "--server.port", str(port), "--server.address", "127.0.0.1"],
                                  cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    bad, rates, everyone = 0, [], []
    try:
        if not serving(base):
            raise SystemExit(f"the Streamlit server did not start; see {home / 'server.log'}")

        async def together(group: list, screens: int) -> list:
            ready = asyncio.Barrier(len(group))
            return await asyncio.gather(*(rater_client(base, r, screens, ready) for r in group), return_exceptions=True)
        # A first screen answered, untimed: the server's first clicks import and cache what every later one reuses.
        everyone += asyncio.run(together(raters[:1], 1))
        for label, group in (("1 rater alone", raters[1:2]), (f"{args.raters} raters at once", raters[2:])):
            results = asyncio.run(together(group, args.screens))
            rate, problems = report(label, results, "click to the next question")
            rates.append(rate)
            bad += problems
            everyone += results
    finally:
        server.terminate()
        server.wait(60)
    if all(rates):
        print(f"  {args.raters} at once / 1 alone (answers/s): {rates[1] / rates[0]:.2f}x")
    bad += lost(store, study, everyone)
    if not bad:
        shutil.rmtree(home, ignore_errors=True)  # kept, with the server's log, when something went wrong
    return bad


def main() -> int:
    """Both levels, on every backend at hand; exit 1 when an answer was lost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raters", type=int, default=20)
    parser.add_argument("--items", type=int, default=40, help="items of the database level's study (40)")
    parser.add_argument("--screens", type=int, default=10, help="screens each rater answers through the server (10)")
    parser.add_argument("--postgres", metavar="URL", help="a PostgreSQL database to use (default: a server of our own)")
    parser.add_argument("--no-server", action="store_true", help="the database level alone")
    parser.add_argument("--quick", action="store_true", help="a small run: 10 items, 2 screens")
    args = parser.parse_args()
    if args.quick:
        args.items, args.screens = 10, 2
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        bad = database_level(f"sqlite:///{Path(folder) / 'studies.sqlite3'}", "SQLite (WAL, a temporary file)", args)
    if args.postgres:
        bad += database_level(args.postgres, "PostgreSQL (given)", args)
    elif glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        from pgserver import postgres_server

        server = postgres_server()
        try:
            bad += database_level(next(server), "PostgreSQL (a local server of its own, over TCP)", args)
        finally:
            server.close()
    else:
        print("\nPostgreSQL: not installed here (Debian's postgresql, or --postgres URL)")
    if not args.no_server:
        bad += server_level(args)
    took = time.perf_counter() - began
    print(f"\n{f'LOST or FAILED: {bad} (answers lost, raters failed, errors)' if bad else 'no answer lost'}; "
          f"{took:.0f} s in all")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
