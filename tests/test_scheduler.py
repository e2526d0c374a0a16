"""The server's one scheduler (stviz.pool): a bounded pool, one computation per key, the queue said honestly,
work nobody waits for dropped. Jobs here wait on events the test sets; time is a clock the test moves."""

from __future__ import annotations

import threading

from stviz.pool import BACKGROUND, CANCELLED, FINISHED, INTERACTIVE, QUEUED, RUNNING, WARM, JobTooBig, Scheduler


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


def _one_busy_worker():
    """A one-worker pool running a 10 s job ('busy') until the test opens its gate."""
    clock, started, gate = Clock(), [], threading.Event()
    pool = Scheduler(workers=1, clock=clock)
    busy = pool.submit("busy", gated(gate, started, "busy"), seconds=10)
    while busy.state != RUNNING:
        pool.wait(busy, 0.05)
    return clock, started, gate, pool, busy


def test_at_most_workers_jobs_run_and_the_queue_says_what_is_ahead():
    clock, started, gates = Clock(), [], {name: threading.Event() for name in "abc"}
    pool = Scheduler(workers=1, clock=clock)
    a = pool.submit("a", gated(gates["a"], started, "a"), seconds=30)
    assert pool.wait(a, 0) is False
    while a.state != RUNNING:  # the worker picks up the first job
        pool.wait(a, 0.05)
    b = pool.submit("b", gated(gates["b"], started, "b"), seconds=20)
    c = pool.submit("c", gated(gates["c"], started, "c"), seconds=10)
    clock.now += 12  # 'a' has run 12 of its estimated 30 s
    assert (b.state, c.state) == (QUEUED, QUEUED) and started == ["a"]
    # Asked at the same time, the cheaper 'c' goes first: it would be done sooner.
    assert pool.ahead(b) == [a, c] and pool.ahead(c) == [a]
    assert pool.wait_seconds(c) == 18 and pool.wait_seconds(b) == 28  # a's 18 s left, then c's 10
    assert pool.describe_wait(b) == "2 jobs ahead of yours, about 30 s"
    assert pool.describe_wait(a) == ""  # running: its progress is said instead
    clock.now += 25  # 'a' has run past its estimate (a loaded machine): no number rather than a wrong one
    assert pool.wait_seconds(b) is None
    assert pool.describe_wait(b) == "2 jobs ahead of yours, taking longer than estimated"
    for name, job in zip("acb", (a, c, b)):
        pool.touch(job)
        gates[name].set()
        assert pool.wait(job, 60) and job.state == FINISHED and job.result == name
    assert started == ["a", "c", "b"]  # one at a time, the soonest done first


def test_a_cheap_job_asked_later_than_a_dear_ones_estimate_waits_its_turn():
    clock, started, gate, pool, busy = _one_busy_worker()
    dear = pool.submit("dear", lambda reporter: started.append("dear"), seconds=100)
    clock.now += 95
    soon = pool.submit("soon", lambda reporter: started.append("soon"), seconds=4)  # done at 99 < 100: first
    late = pool.submit("late", lambda reporter: started.append("late"), seconds=6)  # done at 101: after 'dear'
    assert pool.ahead(late) == [busy, soon, dear]
    gate.set()
    for job in (busy, soon, dear, late):
        pool.touch(job)
        assert pool.wait(job, 60)
    assert started == ["busy", "soon", "dear", "late"]  # the dear job is not starved by cheap ones


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


def test_a_job_is_told_how_many_compute_beside_it():
    pool = Scheduler(workers=2)
    gates, started = [threading.Event(), threading.Event()], []
    first = pool.submit("a", gated(gates[0], started, "a"))
    assert pool.others(first) == 0  # queued or alone: nothing said
    second = pool.submit("b", gated(gates[1], started, "b"))
    while first.state != RUNNING or second.state != RUNNING:
        pool.wait(first, 0.05)
        pool.touch(second)
    assert pool.others(first) == 1 and pool.others(second) == 1 and pool.others() == 2
    for gate, job in zip(gates, (first, second)):
        gate.set()
        assert pool.wait(job, 60)
    assert pool.others() == 0


def test_interactive_jobs_are_served_before_background_ones():
    clock, started, gate, pool, busy = _one_busy_worker()
    full = pool.submit("full result", lambda reporter: started.append("full"), seconds=100, priority=BACKGROUND)
    preview = pool.submit("preview", lambda reporter: started.append("preview"), seconds=5, priority=INTERACTIVE)
    # The preview asked last but waits only for the running job; the full result waits for both.
    assert pool.ahead(preview) == [busy] and pool.ahead(full) == [busy, preview]
    assert pool.describe_wait(preview) == "1 job ahead of yours, about 10 s"
    gate.set()
    for job in (busy, preview, full):
        pool.touch(job)
        assert pool.wait(job, 60)
    assert started == ["busy", "preview", "full"]


def test_a_job_that_cannot_fit_in_memory_is_refused_before_it_starts():
    started = []
    pool = Scheduler(workers=1, free_memory=lambda: 2e9)
    big = pool.submit("big", lambda reporter: started.append("big"), memory=6e9)
    assert pool.wait(big, 60) and big.state == FINISHED and started == []
    assert isinstance(big.error, JobTooBig)
    assert "needs about 6.0 GB of memory and the server has 2.0 GB free now" in str(big.error)
    fits = pool.submit("fits", lambda reporter: started.append("fits") or "done", memory=1e9)
    unknown = Scheduler(workers=1, free_memory=lambda: None).submit("unknown", lambda reporter: "ran", memory=6e9)
    assert pool.wait(fits, 60) and fits.result == "done" and started == ["fits"]
    assert unknown._done.wait(60) and unknown.result == "ran"  # free memory unknown: never refused on a guess


def test_parts_handed_over_early_reach_the_waiters_in_order():
    gate = threading.Event()
    pool = Scheduler(workers=1)

    def work(reporter):
        reporter.partial("minilm", 1)
        gate.wait(60)
        reporter.partial("glove", 2)
        return "all"

    job = pool.submit("similarity", work)
    while not job.partials:
        pool.wait(job, 0.05)
    assert job.partials == [("minilm", 1)]
    gate.set()
    assert pool.wait(job, 60) and job.partials == [("minilm", 1), ("glove", 2)] and job.result == "all"


def test_a_started_job_says_what_it_computes_until_its_first_stage():
    gate = threading.Event()
    pool = Scheduler(workers=1)
    job = pool.submit("preview", gated(gate, [], "p"), label="Computing a preview on 500 of 10,287 pairs")
    while job.state != RUNNING:
        pool.wait(job, 0.05)
    assert job.describe().startswith("Computing a preview on 500 of 10,287 pairs")
    gate.set()
    assert pool.wait(job, 60)


def test_a_running_job_says_its_time_left_from_its_estimate_until_its_counts_give_a_pace():
    gate = threading.Event()
    pool = Scheduler(workers=1)
    job = pool.submit("preview", gated(gate, [], "p"), seconds=40, label="Computing a preview on 500 of 10,287 pairs")
    while job.state != RUNNING:
        pool.wait(job, 0.05)
    job.timer.start -= 10  # it has run 10 s of its estimated 40
    assert job.describe() == "Computing a preview on 500 of 10,287 pairs · 10 s, about 30 s left"
    job.label, job.done, job.total = "Scoring pairs: BLEU", 100, 400  # counts: the pace wins (10 s for 100 of 400)
    assert job.describe() == "Scoring pairs: BLEU · 100 / 400 · 10 s, about 30 s left"
    job.done = 200
    assert job.describe().endswith("about 10 s left")
    job.timer.start -= 60  # past its estimate and no counts: no time left said rather than a wrong one
    job.done = job.total = 0
    assert job.describe() == "Scoring pairs: BLEU · 1 min 10 s"
    gate.set()
    assert pool.wait(job, 60)


def test_waits_follow_the_pace_this_server_measured_on_its_finished_jobs():
    clock = Clock()
    pool = Scheduler(workers=1, clock=clock)
    assert pool.pace() == 1.0  # nothing measured yet: the bare estimates

    def slow(reporter):
        clock.now += 30  # estimated at 10 s, took 30: twenty users on two cores
        return "done"

    for name in ("x", "y"):
        pool.touch(job := pool.submit(name, slow, seconds=10))
        assert pool.wait(job, 60) and job.result == "done"
    assert pool.pace() == 3.0
    gate = threading.Event()
    busy = pool.submit("busy", gated(gate, [], "busy"), seconds=10)
    while busy.state != RUNNING:
        pool.wait(busy, 0.05)
    assert busy.expected == 30  # its 10 s at this server's pace
    clock.now += 12
    busy.timer.start -= 12
    queued = pool.submit("queued", lambda reporter: "q", seconds=10)
    assert pool.wait_seconds(queued) == 18  # not 0 s ('taking longer than estimated'): 30 expected, 12 run
    assert pool.describe_wait(queued) == "1 job ahead of yours, about 18 s"
    assert busy.describe().endswith("about 18 s left")
    gate.set()
    for job in (busy, queued):
        pool.touch(job)
        assert pool.wait(job, 60)


def stepping(name: str, started: list, gate: threading.Event, steps: int = 50):
    """A warm job's work: it reports every step (as a view reports every batch) and waits for the test in the middle."""
    def work(reporter):
        started.append(name)
        step = reporter.stage(f"Computing {name}")
        for i in range(steps):
            step(i, steps)
            if i == steps // 2:
                assert gate.wait(60), "the test never let the job go on"
        return name

    return work


def _watch(job, until, seconds: float = 60) -> None:
    """Wait for ``until(job)`` without asking for the job (pool.wait would be a waiter)."""
    pause = threading.Event()
    for _ in range(int(seconds / 0.02)):
        if until(job):
            return
        pause.wait(0.02)
    raise AssertionError(f"{job.key} stayed {job.state}")


def test_warm_jobs_start_only_when_no_users_job_waits():
    clock, started, gate, pool, busy = _one_busy_worker()
    warm = pool.submit("warm", lambda reporter: started.append("warm"), seconds=1, priority=WARM)
    full = pool.submit("full", lambda reporter: started.append("full"), seconds=500, priority=BACKGROUND)
    assert pool.ahead(warm) == [busy, full] and pool.ahead(full) == [busy]  # cheaper, but last
    clock.now += 1000  # nobody polls a warm job: it is never dropped as abandoned
    pool.touch(busy), pool.touch(full)
    gate.set()
    for job in (busy, full):
        assert pool.wait(job, 60)
    _watch(warm, lambda j: j.finished)
    assert warm.state == FINISHED and started == ["busy", "full", "warm"]


def test_a_running_warm_job_gives_its_slot_to_a_users_job_then_goes_on():
    pool, started, gate = Scheduler(workers=1), [], threading.Event()
    warm = pool.submit("warm", stepping("warm", started, gate), seconds=60, priority=WARM)
    _watch(warm, lambda j: j.state == RUNNING and j.total)
    user = pool.submit("user", lambda reporter: started.append("user") or "mine", seconds=5, priority=INTERACTIVE)
    assert warm.yielding and pool.ahead(user) == []  # the warm job's slot is the user's: nothing ahead of it
    gate.set()  # the warm job reaches its next progress report and stops there
    assert pool.wait(user, 60) and user.result == "mine"
    _watch(warm, lambda j: j.finished)
    assert warm.state == FINISHED and warm.result == "warm" and not warm.yielding
    assert started == ["warm", "user", "warm"]  # stopped, then computed again after the user's job


def test_a_free_slot_takes_a_users_job_without_stopping_a_warm_one():
    pool, started, gate = Scheduler(workers=2), [], threading.Event()
    warm = pool.submit("warm", stepping("warm", started, gate), seconds=60, priority=WARM)
    _watch(warm, lambda j: j.state == RUNNING)
    user = pool.submit("user", lambda reporter: "mine", seconds=5, priority=INTERACTIVE)
    assert pool.wait(user, 60) and user.result == "mine"
    assert not warm.yielding
    gate.set()
    _watch(warm, lambda j: j.finished)
    assert started == ["warm"]  # never stopped


def test_a_user_asking_for_a_warm_jobs_key_joins_it_at_the_users_priority():
    clock, started, gate, pool, busy = _one_busy_worker()
    other = pool.submit("other warm", lambda reporter: started.append("other"), seconds=1, priority=WARM)
    warm = pool.submit("leaderboard", lambda reporter: started.append("leaderboard") or "table", seconds=30,
                       priority=WARM)
    asked = pool.submit("leaderboard", lambda reporter: "never run", seconds=30, priority=BACKGROUND)
    assert asked is warm and warm.priority == BACKGROUND
    assert pool.ahead(warm) == [busy] and pool.ahead(other) == [busy, warm]
    clock.now += 100  # its asker polls it from now on, as any user's job
    pool.touch(busy), pool.touch(warm)
    gate.set()
    assert pool.wait(warm, 60) and warm.result == "table"
    _watch(other, lambda j: j.finished)
    assert started == ["busy", "leaderboard", "other"]
