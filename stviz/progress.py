"""Progress reporting: the one callback type computations take, and named stages above it.

Computation modules take a plain ``progress(done, total)`` callback (:data:`Progress`) that counts
real work items (sentences embedded, pairs scored, resamples drawn). Analyses run several such
steps one after another; they report them through a :class:`Reporter` as *named stages*, so a page
can say "2/3 Bootstrapping 24 metrics · 120 / 200 · 14 s, about 9 s left" and the command line
can print one line per stage. The base :class:`Reporter` ignores everything: pass it (or None)
when nobody is watching.
"""

from __future__ import annotations

import time
from typing import Any, Callable

#: ``fn(done, total)``: ``done`` of ``total`` work items are finished.
Progress = Callable[[int, int], None]


def ignore(done: int, total: int) -> None:
    """A :data:`Progress` that reports nowhere."""


class Reporter:
    """Where an analysis reports its stages and early results; this base class ignores them."""

    def stage(self, label: str) -> Progress:
        """Start a stage named ``label`` (ending the previous one); returns its ``fn(done, total)``."""
        return ignore

    def later(self, label: str) -> Progress:
        """A callback that starts the stage ``label`` only when work is reported.

        A step that finds its result in the cache reports nothing, or reports itself done at once:
        neither starts a stage, so the page only ever shows work being done.
        """
        started: list[Progress] = []

        def report(done: int, total: int) -> None:
            if not started:
                if done >= total:
                    return
                started.append(self.stage(label))
            started[0](done, total)

        return report

    def partial(self, name: str, value: Any) -> None:
        """A finished part of the result (e.g. the first embedder's matrix) while the rest runs."""

    def finish(self) -> None:
        """All stages are done."""


class PartsReporter(Reporter):
    """A run over parts (a mixed file's languages, several sets): each stage led by 'language 3 of 9 (am)' and, once
    a part is done, the whole run's time left at the pace so far (a stage's own counts say only that stage's)."""

    def __init__(self, inner: Reporter, weights: list[float], noun: str = "language"):
        self.inner, self.weights, self.noun = inner, list(weights), noun
        self.at, self.name, self.timer = 0, "", Timer()

    def part(self, index: int, name: str) -> None:
        """The run is now at part ``index`` (from 0), named ``name``."""
        self.at, self.name = index, name

    def stage(self, label: str) -> Progress:
        """The inner reporter's stage, its label led by the part and followed by the whole run's time left."""
        return self.inner.stage(f"{self.noun} {self.at + 1} of {len(self.weights)} ({self.name}) · {label}"
                                f"{self.left()}")

    def left(self) -> str:
        """' · whole run: about 2 min 10 s left' once a part is done (weighted by its size), else ''."""
        done, total = sum(self.weights[:self.at]), sum(self.weights)
        if done <= 0 or self.timer.elapsed() < 1.0 or done >= total:
            return ""
        return f" · whole run: about {format_seconds(self.timer.elapsed() * (total - done) / done)} left"

    def partial(self, name: str, value: Any) -> None:
        """Handed to the inner reporter."""
        self.inner.partial(name, value)

    def finish(self) -> None:
        """Handed to the inner reporter."""
        self.inner.finish()


def reporter(progress: Reporter | None) -> Reporter:
    """``progress`` itself, or a reporter that ignores everything when it is None."""
    return progress if progress is not None else Reporter()


class Timer:
    """Elapsed time of a stage and a linear estimate of what is left, for progress labels."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def elapsed(self) -> float:
        """Seconds since the stage started."""
        return time.monotonic() - self.start

    def remaining(self, done: int, total: int) -> float | None:
        """Seconds left if the rest goes at the pace so far; None until there is a pace to go by."""
        elapsed = self.elapsed()
        if done <= 0 or total <= done or elapsed < 1.0:
            return None
        return elapsed * (total - done) / done


def describe(label: str, done: int, total: int, timer: Timer, estimate: float | None = None) -> str:
    """'label · 120 / 200 · 14 s, about 9 s left': one progress line, the same on the page and the CLI. Until the
    counts give a pace, the time left is ``estimate`` (the whole work's, in seconds) less the time so far."""
    parts = [label]
    if total > 1:
        parts.append(f"{done:,} / {total:,}")
    clock = f"{format_seconds(timer.elapsed())}"
    left = timer.remaining(done, total)
    if left is None and estimate is not None and estimate - timer.elapsed() >= 1:
        left = estimate - timer.elapsed()
    if left is not None:
        clock += f", about {format_seconds(left)} left"
    parts.append(clock)
    return " · ".join(parts)


def format_seconds(seconds: float) -> str:
    """12 s, 3 min 05 s, 1 h 02 min: durations as a person reads them."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


__all__ = ["PartsReporter", "Progress", "Reporter", "Timer", "describe", "format_seconds", "ignore", "reporter"]
