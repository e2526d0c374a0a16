"""One scheduler for the heavy work of every session of a server: a bounded pool, one computation per key.

Why: a team's server is one process; six researchers opening cold views at once started six full runs at once,
each slowed by the others, none saying why it took so long. Here every run of a view (:mod:`ui.queued`: its
preview, a quick run, a run confirmed by a click, a classifier a view trains, and a previewed view's full result,
:mod:`ui.preview`) is a :class:`Job` in one queue served by a fixed number of slots (the cores,
``STVIZ_WORKERS``). The same key (view, dataset, options) asked for by many sessions is computed once and each gets
the result; a queued job knows how many jobs are ahead of it and about how long they take (their cost estimates),
so the page says so at once; a job nobody waits for any more (every session waiting for it closed or moved on) is
dropped from the queue, or stopped at its next progress report when running. Interactive jobs (previews, quick
runs a page waits for) are served before background ones (full results), so previews keep answering first. A job
whose memory estimate exceeds what the machine has free is refused before it starts.

Within a priority, the job served next is the one that would be done first were it alone: asked earliest plus its
estimate. A cheap view's full result no longer waits behind a dear one asked a moment before it, and a dear job is
not starved: a cheap one asked later than the dear job's estimate goes after it.

Estimates are measured on an idle machine; on a busy server every job takes longer. The scheduler measures its own
pace (the recent finished jobs' time over their estimate) and says waits and times left at that pace, not the idle
one.

Each slot of the pool computes its jobs in a worker process of its own (:mod:`stviz.pool.workers`), so the server's
pages keep their interpreter and the jobs use every core; work that cannot be pickled runs in the slot's thread.
A worker keeps the models its jobs loaded for the next job, but not while the machine runs short of memory: then it is
ended after its job or while idle (:data:`MEMORY_RESERVE`), and the next job starts a fresh one.

Last come the warm jobs (:data:`WARM`, :mod:`stviz.ready`): the built-in views' full results computed before anyone
asks. Nobody waits for them, so they are never dropped as abandoned; a user's job never waits behind one: one is
started only when no user's job is queued, and when a user's job finds every slot taken, running warm jobs are asked
to give their slots up. Such a job stops at its next progress report (a view's work reports every batch) and is queued
again in its place; what it computed so far is in the disk cache, so it goes on from there later. A user asking for
the very job a warm one computes joins it, and it takes the user's priority.
"""

from __future__ import annotations

import collections
import contextlib
import faulthandler
import heapq
import itertools
import logging
import os
import signal
import statistics
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from stviz.pool.workers import WorkerProcess, portable, processes_enabled
from stviz.progress import Progress, Reporter, Timer, describe

log = logging.getLogger(__name__)

#: Priorities: what a page waits for in front of its user first, full results computed behind a preview after, and
#: last the results computed before anyone asks (warm jobs), which give their slot up to any user's job.
INTERACTIVE, BACKGROUND, WARM = 0, 1, 2

#: A job whose waiters have not polled for this long is abandoned. The page polls every 2 s, but a browser tab in
#: the background may run its timers once a minute only (Chrome's intensive throttling): three minutes spare it.
ABANDONED_AFTER = 180.0
#: Finished jobs kept for the sessions that come back for them (their results are also in the disk cache).
KEEP_FINISHED = 8
#: The estimate a job without one is placed by (after the estimated jobs asked at the same time).
UNKNOWN_SECONDS = 600.0
#: The pace of a busy server: the recent finished jobs' time taken over their estimate (estimates are measured on an
#: idle machine), kept for this many jobs, used once there are PACE_MIN, for jobs estimated at PACE_FLOOR s or more.
PACE_JOBS, PACE_MIN, PACE_FLOOR = 8, 2, 2.0
QUEUED, RUNNING, FINISHED, CANCELLED = "queued", "running", "finished", "cancelled"
#: A worker process keeps the models its jobs loaded, for the next job. While the machine has less than this share of
#: its memory available, a worker is ended after its job and when idle, and the next job starts a fresh one: memory
#: that only saves a reload must not push the machine into thrashing (late in a CI run, two test processes, their
#: workers holding USE, mE5, MiniLM and BERTScore, a Streamlit server and Chromium held 22.7 of 24 GB, and a 3 s view
#: ran for over 12 minutes). ``STVIZ_WORKER_MEMORY_MB`` also ends a worker holding more than that many MB.
MEMORY_RESERVE = 1 / 6
#: How often an idle slot looks at the machine's memory (seconds).
IDLE_CHECK = 30.0


class JobCancelled(Exception):
    """Nobody waits for the job any more: it stops at its next progress report."""


class JobTooBig(MemoryError):
    """A job whose memory estimate does not fit in what the machine has free: refused before it starts."""


@dataclass(eq=False)
class Job:
    """One computation of the pool: its state, its current stage and progress, then its result or error."""

    key: str
    work: Callable[[Reporter], Any]
    seconds: float | None = None  # the cost estimate of a cold run, for the wait said to those queued behind
    expected: float | None = None  # once it runs: its estimate at the server's pace then (see Scheduler.pace)
    priority: int = BACKGROUND
    memory: float = 0.0  # bytes it is estimated to hold at its peak (0: unknown, never refused)
    state: str = QUEUED
    label: str = "Waiting for a free worker"
    opening: str = "Starting"  # the label once it starts, until its work names its first stage
    done: int = 0
    total: int = 0
    result: Any = None
    error: BaseException | None = None
    timer: Timer = field(default_factory=Timer)
    seen: float = 0.0  # when a waiter last asked for it (the scheduler's clock)
    started: float | None = None
    yielding: bool = False  # a warm job asked to give its slot to a user's job: it stops at its next report
    partials: list = field(default_factory=list)  # (name, value) parts handed over before the end, in order
    _done: threading.Event = field(default_factory=threading.Event)

    @property
    def finished(self) -> bool:
        """Whether it has ended: with a result, an error, or cancelled."""
        return self.state in (FINISHED, CANCELLED)

    def describe(self) -> str:
        """'Scoring 10,287 pairs: METEOR · 3,200 / 10,287 · 1 min 10 s, about 2 min left' for a progress bar (the
        time left from the job's estimate until its stage's counts give a pace)."""
        return describe(self.label, self.done, self.total, self.timer, self.expected)


class JobReporter(Reporter):
    """An analysis's stages written into its Job (read by the pages' pollers); raises :class:`JobCancelled` when
    nobody waits any more."""

    def __init__(self, job: Job, scheduler: "Scheduler"):
        self.job, self.scheduler = job, scheduler

    def stage(self, label: str) -> Progress:
        """Name the stage; the returned ``fn(done, total)`` counts its work."""
        self.update(label, 0, 0)

        def report(done: int, total: int) -> None:
            self.update(label, done, total)

        return report

    def update(self, label: str, done: int, total: int) -> None:
        """The job is at ``done`` of ``total`` in stage ``label``; raises :class:`JobCancelled` when nobody waits."""
        if not self.relay(label, done, total):
            raise JobCancelled(self.job.key)

    def relay(self, label: str, done: int, total: int) -> bool:
        """A worker process's report, written into the job; False (and not written) when nobody waits any more."""
        if self.scheduler.abandoned(self.job):
            return False
        self.job.label, self.job.done, self.job.total = label, done, total
        return True

    def cancelled(self) -> None:
        """The work stopped because nobody waits for it any more (a worker process's word for it)."""
        raise JobCancelled(self.job.key)

    def partial(self, name: str, value: Any) -> None:
        """Keep a finished part for the waiting pages (they draw it while the rest runs)."""
        self.job.partials.append((name, value))


def default_workers() -> int:
    """Jobs computed at once: ``$STVIZ_WORKERS``, else the cores the server is given (each job's threads are its share
    of the thread budget: :func:`stviz.pool.workers.threads_for`)."""
    from stviz.threads import cores_given

    value = os.environ.get("STVIZ_WORKERS", "").strip()
    return max(1, int(value)) if value.isdigit() else cores_given()


def available_memory() -> float | None:
    """Bytes the machine can still give without swapping (Linux's MemAvailable), or None where it is not known."""
    return _meminfo("MemAvailable:")


def total_memory() -> float | None:
    """The machine's memory in bytes (Linux's MemTotal), or None where it is not known."""
    return _meminfo("MemTotal:")


def _meminfo(field_name: str) -> float | None:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith(field_name):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def worker_memory_cap() -> float | None:
    """``$STVIZ_WORKER_MEMORY_MB`` in bytes: a worker holding more is ended after its job (None: no cap)."""
    value = os.environ.get("STVIZ_WORKER_MEMORY_MB", "").strip()
    return float(value) * 1024 * 1024 if value.replace(".", "", 1).isdigit() and float(value) > 0 else None


def worker_too_big(held: float | None, free: float | None, total: float | None, cap: float | None) -> str | None:
    """Why a worker holding ``held`` bytes should be ended now (the machine short of memory, or past the cap), or
    None to keep it and the models it loaded."""
    from stviz.costs import describe_bytes

    if held is None:
        return None
    if cap is not None and held > cap:
        return f"it held {describe_bytes(held)}, over STVIZ_WORKER_MEMORY_MB"
    if free is not None and total and free < MEMORY_RESERVE * total:
        return f"the machine had {describe_bytes(free)} of {describe_bytes(total)} available"
    return None


class Scheduler:
    """A bounded pool of slots over one queue of keyed jobs (interactive first, then the soonest done were it alone);
    with ``processes``, each slot computes in a worker process of its own."""

    def __init__(self, workers: int | None = None, abandoned_after: float = ABANDONED_AFTER,
                 clock: Callable[[], float] = time.monotonic, free_memory: Callable[[], float | None] = available_memory,
                 processes: bool = False, idle_check: float = IDLE_CHECK):
        self.workers = workers or default_workers()
        self.processes = processes
        self.abandoned_after, self.clock, self.free_memory = abandoned_after, clock, free_memory
        self.idle_check = idle_check
        self._jobs: dict[str, Job] = {}
        self._queue: list[tuple[int, float, int, Job]] = []
        self._order = itertools.count()
        # id(job) -> its place in line: (priority, when it would be done were it alone, order asked)
        self._seq: dict[int, tuple[int, float, int]] = {}
        self._threads: list[threading.Thread] = []
        self._paces: collections.deque[float] = collections.deque(maxlen=PACE_JOBS)
        self._idle = 0
        self._cond = threading.Condition()

    def submit(self, key: str, work: Callable[[Reporter], Any], seconds: float | None = None,
               priority: int = BACKGROUND, memory: float = 0.0, label: str = "Starting") -> Job:
        """The job computing ``key``: the one queued, running or just finished (every asker shares it, and it takes
        the most urgent priority asked), else a new one queued for ``work(reporter)`` (``label``: what its bar says
        until its first stage). A failed or cancelled job is replaced."""
        with self._cond:
            free = self._idle + self.workers - len(self._threads)  # slots that take a job at once
            job = self._jobs.get(key)
            if job is None or job.error is not None or job.state == CANCELLED:
                job = self._jobs[key] = Job(key, work, seconds=seconds, priority=priority, memory=memory, opening=label)
                due = self.clock() + (seconds if seconds is not None else UNKNOWN_SECONDS)
                self._queue_at(job, (priority, due, next(self._order)))
                self._forget_old()
                waiting = sum(1 for j in self._jobs.values() if j.state == QUEUED)
                if waiting > self._idle:
                    self._add_slot()
                self._cond.notify()
            elif priority < job.priority:
                self._promote(job, priority)
            if priority < WARM:
                self._make_room(free)
            job.seen = self.clock()
            return job

    def _queue_at(self, job: Job, place: tuple[int, float, int]) -> None:
        """Put ``job`` in line at ``place`` (an earlier entry of it in the heap is stale from now on)."""
        self._seq[id(job)] = place
        heapq.heappush(self._queue, (*place, job))

    def _promote(self, job: Job, priority: int) -> None:
        """A user asks for a job queued or running at a lower priority (a warm one): it becomes the user's."""
        job.priority, job.yielding = priority, False
        if job.state == QUEUED:
            self._queue_at(job, (priority, self._seq[id(job)][1], next(self._order)))
            self._cond.notify()

    def _make_room(self, free: int) -> None:
        """Ask running warm jobs to give their slots to the users' jobs that ``free`` slots cannot take at once: each
        stops at its next progress report and is queued again (:meth:`_requeue`)."""
        waiting = sum(1 for j in self._jobs.values() if j.state == QUEUED and j.priority < WARM)
        warm = [j for j in self._jobs.values() if j.state == RUNNING and j.priority == WARM]
        needed = waiting - free - sum(j.yielding for j in warm)
        # The last started first: it has the least work to pick up again (the rest is in the disk cache anyway).
        latest = sorted((j for j in warm if not j.yielding), key=lambda j: j.started or 0.0, reverse=True)
        for job in latest[:max(needed, 0)]:
            job.yielding = True

    def start(self) -> None:
        """Open every slot now (its worker process loads the default models before the first job asks)."""
        with self._cond:
            while self._add_slot():
                pass

    def _add_slot(self) -> bool:
        """One more slot thread (and its worker process) unless there are ``workers``; whether one was added."""
        if len(self._threads) >= self.workers:
            return False
        number = len(self._threads) + 1
        worker = WorkerProcess(f"stviz-worker-{number}") if self.processes else None
        thread = threading.Thread(target=self._serve, args=(worker,), name=f"stviz-slot-{number}", daemon=True)
        self._threads.append(thread)
        thread.start()
        return True

    def others(self, job: Job | None = None) -> int:
        """How many jobs run beside ``job`` (all running jobs when None): on a busy server each stage takes longer."""
        with self._cond:
            return sum(1 for j in self._jobs.values() if j.state == RUNNING and j is not job)

    def get(self, key: str) -> Job | None:
        """The job for ``key`` (any state), or None."""
        return self._jobs.get(key)

    def jobs(self) -> dict[str, Job]:
        """Every job known, by key (a copy)."""
        with self._cond:
            return dict(self._jobs)

    def touch(self, job: Job) -> None:
        """A waiter asked for the job: it is not abandoned."""
        job.seen = self.clock()

    def forget(self, key: str) -> None:
        """Drop a finished job (its error was shown)."""
        with self._cond:
            if (job := self._jobs.get(key)) is not None and job.finished:
                del self._jobs[key]

    def wait(self, job: Job, seconds: float) -> bool:
        """Block up to ``seconds`` for ``job`` to end, as its waiter (it is not abandoned meanwhile); whether it ended."""
        deadline = time.monotonic() + seconds
        while not job._done.is_set() and time.monotonic() < deadline:
            self.touch(job)
            job._done.wait(min(1.0, max(deadline - time.monotonic(), 0.0)))
        return job._done.is_set()

    def abandoned(self, job: Job) -> bool:
        """Whether no waiter has asked for the job for ``abandoned_after`` seconds; a warm job, which nobody waits for,
        only when it was asked to give its slot up."""
        if job.priority == WARM:
            return job.yielding
        return self.clock() - job.seen > self.abandoned_after

    def ahead(self, job: Job) -> list[Job]:
        """The jobs a queued job waits behind: those running, then those queued before it (empty once it runs). A
        user's job does not wait behind running warm jobs: they give their slots up."""
        with self._cond:
            if job.state != QUEUED:
                return []
            mine = self._seq.get(id(job), (0, 0.0, 0))
            queued = sorted((j for *place, j in self._queue
                             if tuple(place) < mine and j.state == QUEUED and self._seq.get(id(j)) == tuple(place)),
                            key=lambda j: self._seq[id(j)])
            running = [j for j in self._jobs.values()
                       if j.state == RUNNING and not (j.priority == WARM and job.priority < WARM)]
            return running + queued

    def pace(self) -> float:
        """How much longer than estimated jobs take on this server now: the median of the recent finished jobs' time
        over their estimate (1 until there are a few). Estimates are measured on an idle machine; twenty users on two
        cores make every job slower, and a wait said from the bare estimates would be too short."""
        with self._cond:
            paces = list(self._paces)
        return min(max(statistics.median(paces), 0.25), 50.0) if len(paces) >= PACE_MIN else 1.0

    def wait_seconds(self, job: Job) -> float | None:
        """About how long until a queued job starts (0 when it runs), from the estimates of the jobs ahead at the
        server's pace and how long the running ones have run; None when a job ahead has no estimate or has run past
        it (then no number is better than a wrong one)."""
        ahead = self.ahead(job)
        if not ahead:
            return 0.0
        now, pace = self.clock(), self.pace()
        running = [j for j in ahead if j.state == RUNNING]
        if any(j.seconds is None for j in ahead) or any(now - (j.started or now) > (j.expected or 0) for j in running):
            return None
        # When each worker is next free: a running job's expected time less its time so far, then the queued ones in
        # turn on the first worker free.
        free = sorted([j.expected - (now - (j.started or now)) for j in running]
                      + [0.0] * max(self.workers - len(running), 0))
        for queued in ahead[len(running):]:
            heapq.heapreplace(free, free[0] + queued.seconds * pace)
        return free[0]

    def describe_wait(self, job: Job) -> str:
        """'2 jobs ahead of yours, about 40 s' for a queued job, '' once it runs."""
        ahead = self.ahead(job)
        if not ahead:
            return ""
        seconds = self.wait_seconds(job)
        from stviz.costs import describe_seconds

        count = f"{len(ahead)} job{'s' if len(ahead) != 1 else ''} ahead of yours"
        return count + (f", {describe_seconds(seconds)}" if seconds is not None else
                        ", taking longer than estimated" if all(j.seconds is not None for j in ahead) else "")

    def _forget_old(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.finished]
        for key in finished[:-KEEP_FINISHED]:
            self._jobs.pop(key, None)

    def _next(self, timeout: float | None = None) -> Job | None:
        """The first queued job someone still waits for (abandoned ones are cancelled on the way); blocks, at most
        ``timeout`` seconds when given (then None)."""
        with self._cond:
            while True:
                while self._queue:
                    *place, job = heapq.heappop(self._queue)
                    if job.state != QUEUED or self._seq.get(id(job)) != tuple(place):
                        continue  # started or ended already, or queued again at another place
                    if self.abandoned(job):
                        self._end(job, CANCELLED)
                        continue
                    if (refusal := self._too_big(job)) is not None:
                        job.error = refusal
                        self._end(job, FINISHED)
                        continue
                    job.state, job.started, job.timer = RUNNING, self.clock(), Timer()
                    job.expected = job.seconds * self.pace() if job.seconds is not None else None
                    job.label = job.opening
                    return job
                self._idle += 1
                woken = self._cond.wait(timeout)
                self._idle -= 1
                if not woken and timeout is not None:
                    return None

    def _too_big(self, job: Job) -> JobTooBig | None:
        """The refusal of a job whose memory estimate exceeds the memory free now (None when it fits or either is
        unknown); said before it starts, so it neither swaps the server nor is killed halfway."""
        free = self.free_memory() if job.memory else None
        if free is None or job.memory <= free:
            return None
        from stviz.costs import describe_bytes

        return JobTooBig(f"This computation needs about {describe_bytes(job.memory)} of memory and the server has "
                         f"{describe_bytes(free)} free now, so it was not started (nothing is lost). Try again when "
                         "other work has finished, or ask for less: fewer pairs, a sample, fewer or smaller models.")

    def _end(self, job: Job, state: str) -> None:
        job.state = state
        self._seq.pop(id(job), None)
        job._done.set()

    def _requeue(self, job: Job) -> None:
        """A warm job that gave its slot up goes back in line at its old place, behind every user's job."""
        job.yielding, job.state, job.started = False, QUEUED, None
        job.label, job.done, job.total = "Waiting for a free worker", 0, 0
        self._queue_at(job, self._seq[id(job)])
        self._cond.notify()

    def _serve(self, worker: WorkerProcess | None) -> None:
        if worker is not None:
            # Started by this long-lived thread: the kernel's parent-death signal follows the thread that started
            # the process, and a page script's thread ends with its run.
            worker.start()
        while True:
            job = self._next(self.idle_check if worker is not None else None)
            if job is None:  # idle a while: its models are worth keeping only while the machine can spare them
                self._end_if_too_big(worker)
                continue
            reporter = JobReporter(job, self)
            try:
                payload = portable(job.work) if worker is not None else None
                job.result = worker.run(payload, reporter) if payload is not None else job.work(reporter)
                state = FINISHED
            except JobCancelled:
                state = CANCELLED
            except BaseException as exc:  # noqa: BLE001 - said on the page that waits for it
                job.error, state = exc, FINISHED
            with self._cond:
                if state == CANCELLED and job.yielding:
                    self._requeue(job)
                    continue
                if state == FINISHED and job.error is None and (job.seconds or 0) >= PACE_FLOOR:
                    self._paces.append((self.clock() - job.started) / job.seconds)
                self._end(job, state)
            if worker is not None:
                self._end_if_too_big(worker)

    def _end_if_too_big(self, worker: WorkerProcess) -> None:
        """End the idle ``worker`` when the memory it holds is wanted elsewhere (:func:`worker_too_big`)."""
        why = worker_too_big(worker.memory(), self.free_memory(), total_memory(), worker_memory_cap())
        if why is not None:
            log.info("%s ended between jobs (%s); the next job starts a fresh one and loads its models again",
                     worker.name, why)
            worker.stop()


_default: Scheduler | None = None
_default_lock = threading.Lock()


def default_scheduler() -> Scheduler:
    """The process-wide scheduler (one per server, shared by every session)."""
    global _default
    with _default_lock:
        if _default is None:
            # `kill -USR1` on the server writes every thread's stack to its log, as on a worker: what a page waits on.
            with contextlib.suppress(AttributeError, ValueError, RuntimeError):  # (no SIGUSR1 on Windows)
                faulthandler.register(signal.SIGUSR1, all_threads=True)
            _default = Scheduler(processes=processes_enabled())
        return _default


__all__ = ["ABANDONED_AFTER", "BACKGROUND", "CANCELLED", "FINISHED", "INTERACTIVE", "Job", "JobCancelled", "JobReporter",
           "JobTooBig", "QUEUED", "RUNNING", "Scheduler", "UNKNOWN_SECONDS", "WARM", "available_memory",
           "default_scheduler", "default_workers", "total_memory", "worker_memory_cap", "worker_too_big"]
