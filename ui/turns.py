"""Page scripts take turns: at most :data:`TURNS` of a server's page scripts run at once, the others wait in line.

Why: Streamlit runs each session's script in a thread of one process, and the threads share one interpreter lock.
Twenty reloads at once each got a twentieth of it, so every page finished near the end of all twenty: a kept view's
0.2-0.3 s of drawing became 6-8 s for everyone (``docs/benchmarks.md``, "Stop 50: page scripts in line"). In line, the k-th
page is done after k turns, so half of them are done in half that time, and none later than before.

Every page's file ends with :func:`run_page`, which runs the whole page in its turn: taken later (once the title and
sidebar were drawn), twenty pages drew their sidebars beside each other and the line gained little (measured in the
same section). A script gives its turn back while it waits for the server's pool (:func:`given_back`, used by
:mod:`ui.queued`), so a page waiting minutes for a computation holds nobody up. A script that keeps its turn long (an
upload being read, a first model load) does not block the line either: once every turn has been held longer than
:data:`HOLD_SECONDS`, the next script in line runs beside them, as every script did before. A fragment's rerun (a
progress poll) takes no turn.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Callable, Iterator

#: Page scripts that run at once: two, so that one long script never stops every page.
TURNS = 2
#: A turn held longer than this no longer holds the line up (seconds).
HOLD_SECONDS = 2.0
#: The shortest wait between two looks at whether the turns are held too long (seconds).
LOOK_SECONDS = 0.1


class Line:
    """The turns of one server process, and who holds them since when."""

    def __init__(self, turns: int = TURNS, hold_seconds: float = HOLD_SECONDS):
        self._slots = threading.Semaphore(turns)
        self._guard = threading.Lock()
        self._since: dict[int, float] = {}  # a holding thread's id -> when it took its turn
        self.hold_seconds = hold_seconds

    def take(self) -> bool:
        """Wait for a turn; True once taken, False when every turn has been held too long (run without one)."""
        while not self._slots.acquire(timeout=self._patience()):
            with self._guard:
                now = time.monotonic()
                if self._since and all(now - since > self.hold_seconds for since in self._since.values()):
                    return False
        with self._guard:
            self._since[threading.get_ident()] = time.monotonic()
        return True

    def _patience(self) -> float:
        """How long to wait before looking at the holders again: until the latest of them has held its turn too long
        (a turn given back wakes the waiter at once)."""
        with self._guard:
            latest = max(self._since.values(), default=time.monotonic())
        return max(latest + self.hold_seconds - time.monotonic(), LOOK_SECONDS)

    def give_back(self) -> None:
        """Release this thread's turn."""
        with self._guard:
            self._since.pop(threading.get_ident(), None)
        self._slots.release()

    def holders(self) -> int:
        """How many scripts hold a turn now."""
        with self._guard:
            return len(self._since)


_line = Line()
_held = threading.local()


@contextlib.contextmanager
def turn(line: Line | None = None) -> Iterator[None]:
    """Run the block (a page's script) in its turn; inside a turn already, in that one."""
    if getattr(_held, "line", None) is not None:
        yield
        return
    line = line or _line
    _held.line = line if line.take() else None
    try:
        yield
    finally:
        held, _held.line = getattr(_held, "line", None), None
        if held is not None:
            held.give_back()


def run_page(main: Callable[[], None]) -> None:
    """A page's script: ``main()`` in its turn. Every view's file and Home end with it: a new server's first session
    opened on a deep link runs the view's file without app.py (Streamlit's pages/ mode), so the turn is taken here."""
    with turn():
        main()


@contextlib.contextmanager
def given_back() -> Iterator[None]:
    """Inside a turn, give it back for the block (a wait for the pool), and wait in line again after it."""
    held = getattr(_held, "line", None)
    if held is None:
        yield
        return
    held.give_back()
    _held.line = None
    try:
        yield
    finally:
        _held.line = held if held.take() else None


__all__ = ["HOLD_SECONDS", "TURNS", "Line", "given_back", "run_page", "turn"]
