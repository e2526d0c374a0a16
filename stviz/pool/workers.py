"""Worker processes of the server's pool: a job's work runs outside the server process.

Why: the server is one Python process. Run in its threads, the jobs of twenty sessions shared one interpreter lock
with every page's script: at most one core of Python-bound work (BLEU, METEOR, tokenising) ran at a time, whatever
the worker count, and a page waiting to say "2 jobs ahead of yours" waited for the lock behind them. Here each slot
of the pool (:class:`~stviz.pool.scheduler.Scheduler`) owns one worker process (a fresh interpreter, so no lock or
thread of the server is copied half-held, and no page script is imported again), which computes one job at a time:
the work goes over a pipe (pickled: a module-level function with its arguments, such as
``functools.partial(analysis.run, dataset, options)``), its stages, early parts and log records come back while it
runs, then its result or error. The page's side is unchanged: the job's label, progress and partials are the ones a
thread would have set, and a job nobody waits for is stopped at its next progress report. Work that cannot be pickled
(a closure over a live object) runs in the slot's thread as before.

Worker processes run at a lower priority (:data:`NICE`), so the server's pages answer first on a busy machine, and
die with the server (a parent-death signal, and the pipe's end). A worker that dies (killed, out of memory) fails
its job with a clear message; the slot starts a fresh one for the next job. ``kill -USR1`` on a worker writes its
threads' stacks to the server's stderr.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from stviz.progress import Reporter

#: ``STVIZ_WORKER_PROCESSES=0`` computes jobs in threads of the server process instead.
PROCESSES_ENV = "STVIZ_WORKER_PROCESSES"
#: How much lower the workers' CPU priority is than the server's (``nice``): pages are drawn first.
NICE = 5
#: A progress count is sent at most this often (a stage change always is): a loop reporting every pair would
#: otherwise spend its time on the pipe.
REPORT_EVERY = 0.2


class WorkerDied(RuntimeError):
    """The worker process computing a job ended before answering (killed, out of memory, crashed)."""


class Cancel(Exception):
    """Raised in the worker when the server says nobody waits for its job any more."""


def processes_enabled() -> bool:
    """Whether the server's jobs run in worker processes (the default, on POSIX) or in its own threads."""
    wanted = os.environ.get(PROCESSES_ENV, "1").strip().lower() not in ("0", "off", "no", "false")
    return wanted and os.name == "posix"  # the socket pair is handed to the child as a file descriptor


def portable(work: Any) -> bytes | None:
    """``work`` pickled for a worker process, or None when it cannot be (a closure: it runs in a thread)."""
    try:
        return pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError):
        return None


class WorkerProcess:
    """One worker process, started when first needed and again after it dies; computes one job at a time."""

    def __init__(self, name: str = "stviz-worker"):
        self.name = name
        self._process = None
        self._conn = None

    def start(self) -> None:
        """Start the process (it loads the default models meanwhile) unless it runs.

        A plain ``python -c`` child over a socket pair, not :mod:`multiprocessing`'s spawn: spawn imports the
        parent's ``__main__`` again in the child, and under Streamlit that is the page script being run, which
        would draw a page (and start a pool) inside the worker."""
        if self._process is not None and self._process.poll() is None:
            return
        ours, theirs = socket.socketpair()
        with theirs:
            command = [sys.executable, "-c", "import sys; from stviz.pool.workers import main; main(int(sys.argv[1]))",
                       str(theirs.fileno())]
            self._process = subprocess.Popen(command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        self._conn = Connection(ours.detach())
        # The child finds what the server finds (the app's folder, a test's helpers), and logs what it logs.
        self._conn.send((list(sys.path), logging.getLogger().getEffectiveLevel()))

    def memory(self) -> float | None:
        """Bytes the process holds in memory now (its resident set, Linux), or None when it is not running or not
        known."""
        if self._process is None or self._process.poll() is not None:
            return None
        try:
            with open(f"/proc/{self._process.pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return float(line.split()[1]) * 1024
        except OSError:
            pass
        return None

    def stop(self) -> None:
        """End the process between jobs (what it loaded is freed); the next job starts a fresh one."""
        if self._process is None:
            return
        with contextlib.suppress(OSError):
            self._conn.close()  # the worker's loop ends at the closed pipe
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    def run(self, payload: bytes, reporter) -> Any:
        """Compute the pickled work ``payload`` in the process, relaying its news to ``reporter`` (the job's
        :class:`~stviz.pool.scheduler.JobReporter`); its result, or its error raised here."""
        self._send((payload, threads_for(reporter), settings()))
        cancelled = False
        while True:
            message = self._receive()
            kind = message[0]
            if kind == "stage":
                if not reporter.relay(*message[1:]) and not cancelled:  # nobody waits: it stops at its next report
                    self._conn.send("cancel")
                    cancelled = True
            elif kind == "partial":
                reporter.partial(*message[1:])
            elif kind == "log":
                logging.getLogger(message[1].name).handle(message[1])
            elif kind == "result":
                return message[1]
            elif kind == "error":
                raise message[1]
            elif kind == "cancelled":
                reporter.cancelled()

    def _send(self, job: tuple) -> None:
        """Hand the process a job; one that died while idle (killed for memory between jobs) is started again."""
        self.start()
        try:
            self._conn.send(job)
        except OSError:
            self._process = None
            self.start()
            self._conn.send(job)

    def _receive(self) -> tuple:
        try:
            return self._conn.recv()
        except (EOFError, OSError) as exc:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(5)
            code = self._process.returncode
            self._process = None
            self._conn.close()
            raise WorkerDied(f"the worker process computing this stopped before it finished (exit code {code}; "
                             "out of memory, or killed). Nothing else is lost: ask again to compute it anew.") from exc
        except Exception as exc:  # noqa: BLE001 - a result or error pickled in the worker that does not unpickle here
            raise RuntimeError(f"the worker's answer could not be read here ({type(exc).__name__}: {exc})") from exc


def settings() -> dict[str, str]:
    """The server's stviz settings now (``STVIZ_*``: its home and cache, its thresholds), sent with every job: the
    worker computes as the server would at that moment, not as it was when the worker started."""
    return {name: value for name, value in os.environ.items() if name.startswith("STVIZ_")}


def threads_for(reporter) -> int:
    """Torch threads for a job starting now: the cores shared among the jobs running, so a lone job uses them all
    and two at once do not oversubscribe them."""
    from stviz.threads import share_of_budget

    return share_of_budget(1 + reporter.scheduler.others(reporter.job))


# --- the worker's side -----------------------------------------------------------------------------------------


class _Pipe:
    """The worker's end of the pipe, shared by its job and its log records (the warm-up logs from a thread)."""

    def __init__(self, conn):
        self.conn, self.lock = conn, threading.Lock()

    def send(self, message) -> None:
        with self.lock:
            self.conn.send(message)

    def cancelled(self) -> bool:
        with self.lock:
            return self.conn.poll() and self.conn.recv() == "cancel"


class WorkerReporter(Reporter):
    """A job's stages and parts sent to the server (counts at most every :data:`REPORT_EVERY` s); raises
    :class:`Cancel` at a report once the server says nobody waits."""

    def __init__(self, pipe: _Pipe):
        self.pipe, self.sent = pipe, 0.0

    def stage(self, label: str):
        """Name the stage; the returned ``fn(done, total)`` counts its work."""
        self._send(label, 0, 0, force=True)

        def report(done: int, total: int) -> None:
            self._send(label, done, total, force=done >= total)

        return report

    def partial(self, name: str, value: Any) -> None:
        """Send a finished part to the waiting pages."""
        self.pipe.send(("partial", name, value))

    def _send(self, label: str, done: int, total: int, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self.sent < REPORT_EVERY:
            return  # a loop reporting every pair costs no system call between two reports
        if self.pipe.cancelled():
            raise Cancel()
        self.pipe.send(("stage", label, done, total))
        self.sent = now


class _Forward(logging.Handler):
    """The worker's log records, sent to the server, which handles them as its own (the page's notes read them)."""

    def __init__(self, pipe: _Pipe):
        super().__init__()
        self.pipe = pipe

    def emit(self, record: logging.LogRecord) -> None:
        try:
            record.msg, record.args = record.getMessage(), None
            if record.exc_info:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
            self.pipe.send(("log", record))
        except Exception:  # noqa: BLE001 - a log record is never worth a job
            pass


def main(fd: int) -> None:
    """The worker process: its end of the socket pair is ``fd``; the server sends its ``sys.path`` and log level
    first, then jobs."""
    conn = Connection(fd)
    path, level = conn.recv()
    sys.path[:] = path
    serve(conn, level)


def serve(conn, level: int = logging.INFO) -> None:
    """The worker process's loop: take a job, compute it, answer; until the server's end of the pipe closes."""
    _die_with_server()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle; it ends us
    # `kill -USR1 PID` writes every thread's stack to the server's stderr: what a job that seems stuck is doing.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    with contextlib.suppress(OSError):
        os.nice(NICE)
    pipe = _Pipe(conn)
    root = logging.getLogger()
    root.handlers[:] = [_Forward(pipe)]
    root.setLevel(level)
    from stviz import warmup

    warmup.start_in_background()  # the default models load while the worker waits for its first job
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message == "cancel":  # sent as its last job ended: nothing to stop
            continue
        # A job arriving at once (a server warming its views as it starts) must not import torch beside the warm-up
        # thread: it waits for the loads it would mostly need anyway.
        warmup.wait_for_loads()
        payload, threads, server_settings = message
        _set_threads(threads)
        _apply(server_settings)
        answer = _answer(payload, pipe)
        try:  # pickled once, here: a result that cannot be is said instead
            pipe.send(answer)
        except (pickle.PicklingError, AttributeError, TypeError):
            kind = type(answer[-1]).__name__
            pipe.send(("error", RuntimeError(f"the result ({kind}) could not be sent back to the server")))


def _answer(payload: bytes, pipe: _Pipe) -> tuple:
    try:
        value = pickle.loads(payload)(WorkerReporter(pipe))
    except Cancel:
        return ("cancelled",)
    except BaseException as exc:  # noqa: BLE001 - the page that waits says it
        return ("error", _sendable(exc))
    return ("result", value)


def _sendable(exc: BaseException) -> BaseException:
    """The error itself when it survives pickling (a DataError stays a DataError for the page), else its text."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _apply(server_settings: dict[str, str]) -> None:
    for name in [n for n in os.environ if n.startswith("STVIZ_") and n not in server_settings]:
        del os.environ[name]
    os.environ.update(server_settings)


def _set_threads(threads: int) -> None:
    # Every engine of the worker (torch, BLAS, OpenMP, ONNX Runtime sessions made from now on) takes the job's share.
    from stviz.threads import THREADS_ENV, apply_thread_budget

    os.environ[THREADS_ENV] = str(threads)
    apply_thread_budget(threads)


def _die_with_server() -> None:
    """Linux: the kernel ends this process when the server does, even when the server is killed outright."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


__all__ = ["NICE", "PROCESSES_ENV", "REPORT_EVERY", "WorkerDied", "WorkerProcess", "WorkerReporter",
           "main", "portable", "processes_enabled", "serve", "settings", "threads_for"]
