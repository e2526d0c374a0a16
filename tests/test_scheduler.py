"""The server's one scheduler (stviz.scheduler): a bounded pool, one computation per key, the queue said honestly,
work nobody waits for dropped. Jobs here wait on events the test sets; time is a clock the test moves."""

from __future__ import annotations

import threading

from stviz.scheduler import CANCELLED, FINISHED, QUEUED, RUNNING, Scheduler


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def gated(gate: threading.Event, started: list, name: str, result=None):
    """A job that says it started, then waits for the test to let it finish."""
    def work(reporter):
        started.append(name)
        assert gate.wait(60), "the test never let the job finish"
        return result if result is not None else name

    return work


def test_at_most_workers_jobs_run_and_the_queue_says_what_is_ahead():
    clock, started, gates = Clock(), [], {name: threading.Event() for name in "abc"}
    pool = Scheduler(workers=1, clock=clock)
    a = pool.submit("a", gated(gates["a"], started, "a"), seconds=30)
    b = pool.submit("b", gated(gates["b"], started, "b"), seconds=20)
    c = pool.submit("c", gated(gates["c"], started, "c"), seconds=10)
    assert pool.wait(a, 0) is False
    while a.state != RUNNING:  # the worker picks up the first job
        pool.wait(a, 0.05)
    clock.now += 12  # 'a' has run 12 of its estimated 30 s
    assert (b.state, c.state) == (QUEUED, QUEUED) and started == ["a"]
    assert pool.ahead(c) == [a, b]
    assert pool.wait_seconds(b) == 18 and pool.wait_seconds(c) == 38  # a's 18 s left, then b's 20
    assert pool.describe_wait(c) == "2 jobs ahead of yours, about 40 s"
    assert pool.describe_wait(a) == ""  # running: its progress is said instead
    clock.now += 25  # 'a' has run past its estimate (a loaded machine): no number rather than a wrong one
    assert pool.wait_seconds(c) is None
    assert pool.describe_wait(c) == "2 jobs ahead of yours, taking longer than estimated"
    for name, job in zip("abc", (a, b, c)):
        pool.touch(job)
        gates[name].set()
        assert pool.wait(job, 60) and job.state == FINISHED and job.result == name
    assert started == ["a", "b", "c"]  # first asked, first served, one at a time


def test_one_computation_per_key_however_many_ask():
    gate, started = threading.Event(), []
    pool = Scheduler(workers=2)
    first = pool.submit("view:data:options", gated(gate, started, "x", result=[1, 2, 3]))
    others = [pool.submit("view:data:options", gated(gate, started, "y")) for _ in range(5)]
    assert all(job is first for job in others)
    gate.set()
    assert pool.wait(first, 60)
    assert started == ["x"] and first.result == [1, 2, 3]
    assert pool.submit("view:data:options", gated(gate, started, "z")) is first  # finished: kept for latecomers
    assert started == ["x"]


def test_a_failed_job_is_said_then_computed_again_when_asked():
    pool = Scheduler(workers=1)

    def fail(reporter):
        raise ValueError("no human scores")

    job = pool.submit("k", fail)
    assert pool.wait(job, 60) and isinstance(job.error, ValueError)
    again = pool.submit("k", lambda reporter: 42)
    assert again is not job and pool.wait(again, 60) and again.result == 42


def test_work_nobody_waits_for_is_dropped_queued_or_running():
    clock, started = Clock(), []
    gate_a, release = threading.Event(), threading.Event()
    pool = Scheduler(workers=1, abandoned_after=60, clock=clock)
    a = pool.submit("a", gated(gate_a, started, "a"))
    b = pool.submit("b", gated(threading.Event(), started, "b"))  # its page was closed: nobody polls it
    while a.state != RUNNING:
        pool.wait(a, 0.05)
    clock.now += 61
    pool.touch(a)  # 'a' still has a waiter
    gate_a.set()
    assert pool.wait(a, 60) and a.state == FINISHED
    assert pool.wait(b, 60) and b.state == CANCELLED and started == ["a"]  # never started

    def steps(reporter):
        started.append("c")
        step = reporter.stage("Scoring pairs")
        release.wait(60)
        for i in range(100):
            step(i, 100)  # the next report after its last waiter left stops it
        return "never"

    c = pool.submit("c", steps)
    while "c" not in started:
        pool.wait(c, 0.05)
    clock.now += 61  # the page waiting for 'c' was closed: nobody asks for it any more
    release.set()
    pause = threading.Event()
    for _ in range(1200):  # watched without asking for it (pool.wait would be a waiter)
        if c.finished:
            break
        pause.wait(0.05)
    assert c.state == CANCELLED and c.result is None
    assert pool.submit("c", lambda reporter: "again") is not c  # asked again: a new job


def test_a_session_is_told_when_others_compute_beside_it():
    pool = Scheduler(workers=1)
    inside, leave, started = threading.Event(), threading.Event(), []

    def another_session():
        with pool.foreground():  # another researcher's preview, in that session's own script
            inside.set()
            leave.wait(60)

    thread = threading.Thread(target=another_session)
    with pool.foreground():
        assert pool.others() == 0  # alone: nothing said
        thread.start()
        assert inside.wait(60)
        job = pool.submit("full run", gated(leave, started, "full"))
        while job.state != RUNNING:
            pool.wait(job, 0.05)
        assert pool.others() == 2  # the other session's preview and a background full run
        leave.set()
        thread.join(60)
        assert pool.wait(job, 60)
        assert pool.others() == 0
    assert pool.others() == 0
