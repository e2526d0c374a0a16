"""The pool's worker processes (stviz.pool.workers): a job computed in a process of its own reports its stages,
parts and log records to the server as a thread would, stops when nobody waits, and fails clearly when its process
dies; the next job gets a fresh process. A page's real work (a view's run) gives the same result there as here."""

from __future__ import annotations

import functools
import logging
import os
import time

import pytest

import pool_work
from stviz.data import load_dataset
from stviz.data.schema import DataError
from stviz.pool import CANCELLED, FINISHED, INTERACTIVE, RUNNING, WARM, Scheduler, WorkerDied, portable, scheduler
from stviz.pool.scheduler import worker_too_big


@pytest.fixture(scope="module")
def pool():
    scheduler = Scheduler(workers=1, processes=True)
    yield scheduler


class Kept(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def test_a_job_runs_in_a_worker_process_and_reports_as_a_thread_would(pool):
    kept, logger = Kept(), logging.getLogger("stviz.cache.pair_values")
    logger.addHandler(kept)
    labels = set()
    try:
        job = pool.submit("count", functools.partial(pool_work.counts, 200), label="Opening")
        while not pool.wait(job, 0.05):
            labels.add(job.label)
    finally:
        logger.removeHandler(kept)
    assert job.state == FINISHED and job.error is None
    assert job.result["pid"] != os.getpid()  # computed in another process
    assert "Counting pairs" in labels and (job.done, job.total) == (200, 200)
    assert job.partials == [("first", [1, 2])]
    assert kept.messages == ["the store here was set aside (test)"]  # the page's notes read the server's log


def test_a_job_nobody_waits_for_is_stopped_in_its_process(pool):
    clock = [0.0]
    stopping = Scheduler(workers=1, processes=True, abandoned_after=60, clock=lambda: clock[0])
    job = stopping.submit("stop me", pool_work.reports_until_stopped)
    while job.label != "Waiting to be stopped":
        stopping.wait(job, 0.05)
    clock[0] += 61  # its page was closed
    assert job._done.wait(60) and job.state == CANCELLED and job.result is None
    again = stopping.submit("after", pool_work.pid)  # the same process serves the next job
    assert stopping.wait(again, 60) and again.error is None


def test_a_warm_job_gives_its_worker_to_a_users_job_and_goes_on_after(pool):
    warm = pool.submit("warm", functools.partial(pool_work.counts_for_seconds, 5), seconds=5, priority=WARM)
    while not (warm.state == RUNNING and warm.total):
        pool.wait(warm, 0.05)  # (a warm job has no waiter: waiting here does not change that)
    user = pool.submit("user", pool_work.pid, priority=INTERACTIVE)
    assert warm.yielding
    assert pool.wait(user, 60) and user.error is None and not warm.finished  # served in the warm job's place
    assert warm._done.wait(60) and warm.state == FINISHED and warm.result == "counted"


def test_bad_input_keeps_its_kind_across_the_process(pool):
    job = pool.submit("bad", pool_work.bad_input)
    assert pool.wait(job, 60) and isinstance(job.error, DataError) and "no 'output' column" in str(job.error)


def test_a_worker_that_dies_fails_its_job_clearly_and_the_next_job_gets_a_fresh_one(pool):
    first = pool.submit("pid before", pool_work.pid)
    assert pool.wait(first, 60)
    job = pool.submit("dies", pool_work.dies)
    assert pool.wait(job, 60) and isinstance(job.error, WorkerDied)
    assert "stopped before it finished (exit code 9" in str(job.error)
    after = pool.submit("pid after", pool_work.pid)
    assert pool.wait(after, 60) and after.error is None and after.result not in (first.result, os.getpid())


def test_a_closure_runs_in_the_servers_thread(pool):
    here = os.getpid()
    job = pool.submit("closure", lambda reporter: (os.getpid(), here))
    assert portable(job.work) is None
    assert pool.wait(job, 60) and job.result == (here, here)


def test_a_views_run_gives_the_same_result_in_a_worker_process(pool):
    from stviz.analyses import failure_cases

    dataset = load_dataset("demo")
    work = functools.partial(failure_cases.run, dataset, failure_cases.Options())
    job = pool.submit("failure cases", work)
    assert pool.wait(job, 600) and job.error is None
    here = work(None)
    assert job.result.values.equals(here.values) and job.result.ranking.equals(here.ranking)


def test_a_worker_computes_with_the_servers_settings_of_the_moment(pool, tmp_path, monkeypatch):
    first = pool.submit("home before", pool_work.home)
    assert pool.wait(first, 60) and first.result == os.environ["STVIZ_HOME"]
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "elsewhere"))  # a test's fresh cache, an operator's change
    after = pool.submit("home after", pool_work.home)
    assert pool.wait(after, 60) and after.result == str(tmp_path / "elsewhere")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_worker_is_ended_after_its_job_while_the_machine_is_short_of_memory():
    short = [False]
    total = scheduler.total_memory()
    tight = Scheduler(workers=1, processes=True, free_memory=lambda: total / 20 if short[0] else total / 2)
    first = tight.submit("plenty", functools.partial(pool_work.holds, 1))
    assert tight.wait(first, 60) and first.error is None
    kept = tight.submit("kept", pool_work.pid)
    assert tight.wait(kept, 60) and kept.result == first.result  # its models are kept for the next job
    short[0] = True  # the worker is ended once it is between jobs
    ended = tight.submit("short", pool_work.pid)
    fresh = tight.submit("fresh", pool_work.pid)
    assert tight.wait(ended, 60) and tight.wait(fresh, 60) and fresh.error is None
    assert fresh.result != first.result and _gone(first.result)


def test_a_worker_past_its_memory_cap_is_ended_after_its_job(monkeypatch):
    capped = Scheduler(workers=1, processes=True)
    small = capped.submit("small", functools.partial(pool_work.holds, 1))
    assert capped.wait(small, 60) and small.error is None
    with open(f"/proc/{small.result}/status") as status:  # what a worker holds here, with its imports
        held = next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmRSS:"))
    monkeypatch.setenv("STVIZ_WORKER_MEMORY_MB", str(held + 100))  # read by the server at each check
    same = capped.submit("same", functools.partial(pool_work.holds, 1))
    assert capped.wait(same, 60) and same.result == small.result  # under the cap: kept
    big = capped.submit("big", functools.partial(pool_work.holds, 300))
    after = capped.submit("after big", pool_work.pid)
    assert capped.wait(big, 60) and capped.wait(after, 60) and after.result != big.result and _gone(big.result)


def test_an_idle_worker_is_ended_once_the_machine_runs_short_of_memory():
    short = [False]
    total = scheduler.total_memory()
    idle = Scheduler(workers=1, processes=True, idle_check=0.1,
                     free_memory=lambda: total / 20 if short[0] else total / 2)
    job = idle.submit("before", pool_work.pid)
    assert idle.wait(job, 60)
    time.sleep(0.5)
    assert not _gone(job.result)  # idle with memory to spare: kept
    short[0] = True
    deadline = time.monotonic() + 30
    while not _gone(job.result):
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_why_a_worker_is_ended():
    gib = 1024 ** 3
    assert worker_too_big(2 * gib, free=10 * gib, total=24 * gib, cap=None) is None
    assert "available" in worker_too_big(2 * gib, free=3 * gib, total=24 * gib, cap=None)
    assert "STVIZ_WORKER_MEMORY_MB" in worker_too_big(2 * gib, free=10 * gib, total=24 * gib, cap=1 * gib)
    assert worker_too_big(None, free=1, total=24 * gib, cap=1) is None  # no process running: nothing to end
    assert worker_too_big(2 * gib, free=None, total=None, cap=None) is None  # not Linux: kept
