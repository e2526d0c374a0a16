"""A user's view opened through Streamlit's own protocol, with no browser: what the server answers, and when.

A browser opens a view by connecting to ``/_stcore/stream`` (a websocket) and sending one ``BackMsg`` (rerun the
page ``page_name`` with the link's query); the server runs the page's script and streams ``ForwardMsg`` deltas, the
page's elements, back. This module does the same: it times when each state of the view arrives (its title, a queue
notice, a progress bar, a preview, the result, the full result) and answers the page's timers (a fragment that polls
for a result asks its client to run it again every few seconds). It draws nothing, so the times are the server's
alone: a browser adds the drawing of what arrived (one view, kept, measured in docs/benchmarks.md).

    python benchmarks/streamclient.py http://127.0.0.1:8501 Failure_cases demo   # one view, its timeline
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

#: What the page says of a queued job and of a job's time left (the same texts the browser benchmark looks for).
QUEUED = re.compile(r"\d+ jobs? ahead of yours")
TIME_LEFT = re.compile(r"about [^.\n]* left")
PREVIEW = re.compile(r"preview: [\d,]+ of")
FINISHED = 0  # ScriptFinishedStatus.FINISHED_SUCCESSFULLY: a whole run of the page, not a fragment's


def block_label(block) -> str:
    """The label a container shows (a tab's, an expander's, a popover's), or ''."""
    kind = block.WhichOneof("type")
    return getattr(getattr(block, kind), "label", "") if kind else ""


def element_text(element) -> str:
    """The text an element shows (markdown, heading, alert, caption, progress bar's label), or ''."""
    kind = element.WhichOneof("type")
    if kind == "alert":
        return element.alert.body
    if kind in ("markdown", "heading", "text"):
        return re.sub(r"\*\*|__|`", "", getattr(element, kind).body)  # as drawn: no markdown's emphasis
    if kind == "progress":
        return element.progress.text
    return ""


def _rerun(query: str, page: str, page_hash: str = "", fragment: str = "") -> bytes:
    msg = BackMsg()
    state = msg.rerun_script
    state.query_string, state.page_name = query, page
    if page_hash:
        state.page_script_hash = page_hash
    if fragment:  # a fragment's timer: the browser sends this every `interval` seconds
        state.fragment_id, state.is_auto_rerun = fragment, True
    return msg.SerializeToString()


class Timeline:
    """When each state of one opened view first arrived (seconds from the connection), from the messages seen so far."""

    STATES = ("page", "queued", "progress", "preview", "result", "full")

    def __init__(self, done_text: str):
        self.done_text, self.start = done_text, time.monotonic()
        self.seen = {k: None for k in self.STATES}
        self.said, self.errors = "", 0
        self.run = {}
        self.new_run()

    def new_run(self) -> None:
        """A run of the page (or of a fragment) starts: nothing of it shown yet."""
        self.run = {"result": False, "preview": False}

    def first(self, state: str) -> None:
        """Note ``state``'s arrival, unless it arrived before."""
        if self.seen[state] is None:
            self.seen[state] = time.monotonic() - self.start

    def delta(self, msg) -> None:
        """An element or a container added to the page."""
        element = msg.delta.new_element  # an empty element when a container was added
        kind = element.WhichOneof("type")
        text = element_text(element) or block_label(msg.delta.add_block)
        in_main = list(msg.metadata.delta_path[:1]) == [0]
        self.errors += kind == "exception"
        if in_main and kind == "heading":
            self.first("page")
        if (in_main and kind == "progress") or TIME_LEFT.search(text):
            self.first("progress")
        if queued := QUEUED.search(text):
            self.first("queued")
            self.said = queued.group(0)
        if PREVIEW.search(text):
            self.first("preview")
            self.run["preview"] = True
        if self.done_text and self.done_text in text:
            self.first("result")
            self.run["result"] = True

    def finished(self, status: int) -> None:
        """A run ended: the full result when a whole run of the page showed the result and no preview."""
        if status == FINISHED and self.run["result"] and not self.run["preview"]:
            self.first("full")

    def report(self) -> dict:
        """Each state's seconds (None: never), what the page said while queued, and the errors."""
        return {**self.seen, "said": self.said, "errors": self.errors}


async def open_view(base: str, view: str, dataset: str, done_text: str, give_up: float = 1800.0) -> dict:
    """Open ``view`` on ``dataset`` as a new session; seconds from the connection to each state (None: never)."""
    url = base.replace("http", "ws", 1).rstrip("/") + "/_stcore/stream"
    query = "dataset=" + urllib.parse.quote(dataset)
    timeline, timers, page_hash = Timeline(done_text), {}, ""
    try:
        async with websockets.connect(url, subprotocols=["streamlit"], max_size=None, open_timeout=120) as ws:
            await ws.send(_rerun(query, view))
            while timeline.seen["full"] is None and (left := give_up - (time.monotonic() - timeline.start)) > 0:
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=left)
                except asyncio.TimeoutError:
                    break  # given up: the states not seen stay None
                msg = ForwardMsg()
                msg.ParseFromString(raw)
                kind = msg.WhichOneof("type")
                if kind == "new_session":  # a run of the page (or of a fragment) starts
                    page_hash = msg.new_session.page_script_hash or page_hash
                    timeline.new_run()
                elif kind == "page_not_found":  # no page of that name: the server runs the app's home instead
                    timeline.errors += 1
                    break
                elif kind == "auto_rerun" and msg.auto_rerun.fragment_id not in timers:
                    timers[msg.auto_rerun.fragment_id] = asyncio.create_task(_tick(
                        ws, msg.auto_rerun.interval, _rerun(query, view, page_hash, msg.auto_rerun.fragment_id)))
                elif kind == "delta" and msg.delta.WhichOneof("type") in ("new_element", "add_block"):
                    timeline.delta(msg)
                elif kind == "script_finished":
                    timeline.finished(msg.script_finished)
    except (OSError, websockets.WebSocketException, asyncio.TimeoutError):  # no connection within two minutes, or lost
        timeline.errors += 1
    finally:
        for task in timers.values():
            task.cancel()
    return timeline.report()


def run_apart(coroutine):
    """Run ``coroutine`` to its end in a thread of its own: where playwright's sync API is open, its event loop already
    runs in the caller's thread, and ``asyncio.run`` refuses to start another there."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


async def _tick(ws, interval: float, message: bytes) -> None:
    """Send ``message`` every ``interval`` seconds, as a browser does for a fragment that runs on a timer."""
    while True:
        await asyncio.sleep(interval)
        await ws.send(message)


def main() -> None:
    """Open one view and print when each state arrived."""
    if len(sys.argv) < 4:  # `make bench` runs every script bare: this one is a client other benchmarks use
        print("usage: python benchmarks/streamclient.py URL VIEW DATASET (a helper of load.py, warm.py, studies.py)")
        return
    base, view, dataset = sys.argv[1:4]
    from load import DONE_TEXT  # noqa: PLC0415 - the benchmark's own table of result texts

    got = run_apart(open_view(base, view, dataset, DONE_TEXT.get(view, "")))
    for name, value in got.items():
        print(f"{name:>8}: {value if not isinstance(value, float) else f'{value:.3f} s'}")


if __name__ == "__main__":
    main()
