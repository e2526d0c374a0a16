"""Work for the worker-process tests (tests/test_workers.py): module-level functions, so they pickle by name and a
worker process imports them from here."""

from __future__ import annotations

import logging
import os
import time

from stviz.data.schema import DataError


def counts(n: int, reporter) -> dict:
    """Reports a stage counting to ``n``, hands over a part, logs a warning; returns the process that computed it."""
    step = reporter.stage("Counting pairs")
    for i in range(n + 1):
        step(i, n)
        time.sleep(0.01)
    reporter.partial("first", [1, 2])
    logging.getLogger("stviz.cache.pair_values").warning("the store %s was set aside (test)", "here")
    return {"pid": os.getpid()}


def reports_until_stopped(reporter) -> str:
    """Reports for up to a minute; a worker stops it at a report once nobody waits."""
    step = reporter.stage("Waiting to be stopped")
    for i in range(6000):
        step(i, 6000)
        time.sleep(0.01)
    return "never stopped"


def bad_input(reporter):
    """Fails the way a view fails on bad input."""
    raise DataError("the file has no 'output' column")


def dies(reporter):
    """The process ends abruptly (as when the kernel kills it for memory)."""
    os._exit(9)


def pid(reporter) -> int:
    """The process that computed it."""
    return os.getpid()


def home(reporter) -> str:
    """Where the process computing it keeps its cache."""
    from stviz.cache.paths import stviz_home

    return str(stviz_home())


def counts_for_seconds(seconds: float, reporter) -> str:
    """Reports a stage every 10 ms for ``seconds`` (a view's batches), then says it finished."""
    steps = int(seconds * 100)
    step = reporter.stage("Counting for a while")
    for i in range(steps + 1):
        step(i, steps)
        time.sleep(0.01)
    return "counted"


_held: list[bytearray] = []


def holds(megabytes: int, reporter) -> int:
    """Keeps ``megabytes`` MB in the process after it returns (as a loaded model is kept); returns the process."""
    _held.append(bytearray(megabytes * 1024 * 1024))
    return os.getpid()
