"""Results ready before anyone asks: every view's full result on every built-in dataset installed here, with the
options its page opens with, computed in the background and kept in the disk cache.

Why: a researcher demoing stviz opened a view and waited, seconds for a sampled preview and minutes for the full
result, on data that had not changed since the server started. The tools they compare with answer in about a second
because their heavy work is done before the page opens; here too. When the server starts (its first script run:
``stviz dashboard`` asks for one as soon as it serves) and whenever a corpus is installed while it runs, a
:class:`Warmer` queues one job per view x dataset in the server's pool at the lowest priority
(:data:`stviz.pool.WARM`): a user's job always goes first, and a running warm job gives its slot up at its next
progress report. Each job keeps its result whole (:mod:`stviz.analyses.kept`), under the options the page opens
with (:mod:`stviz.analyses.opening`), so opening the view is one cache read. ``stviz data import --warm`` (or
``fetch --warm``, ``data warm``) computes the same results in the command's own process, with progress on stderr.

One job is one view on one dataset: the smallest unit a view's result is kept in, and what a user's job waits behind
at most until its next progress report. ``STVIZ_WARM_RESULTS=0`` turns the server's warming off.
"""

from __future__ import annotations

import functools
import importlib
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from stviz.analyses import ANALYSES
from stviz.analyses.kept import is_kept, job_key, keep_run, result_key
from stviz.analyses.opening import opening_options
from stviz.cache import default_cache
from stviz.data.corpora.sources import installed_corpora
from stviz.data.schema import Dataset
from stviz.pool import CANCELLED, QUEUED, RUNNING, WARM
from stviz.progress import Reporter, format_seconds
from stviz.warmup import results_enabled as enabled

log = logging.getLogger(__name__)
#: How often the server's warmer looks at its jobs and for corpora installed since (an import from the command line).
TICK_SECONDS = 5.0
#: The cache's kind of the views' kept cold estimates.
ESTIMATE_KIND = "view-estimate"
#: A view that failed, or did not fit in the memory free, is tried again after this long.
RETRY_SECONDS = 600.0


@dataclass(frozen=True)
class Item:
    """One view on one built-in dataset, with the options its page opens with and its cold estimate."""

    view: str  # the analysis module's name
    title: str
    dataset_name: str
    options: Any
    seconds: float | None = None
    memory: float = 0.0
    dataset: Dataset | None = field(default=None, compare=False, repr=False)
    language: str | None = None  # the dataset's chosen language (a mixed set's Language facet), in the job's key

    @property
    def key(self) -> str:
        """The pool's key of its job: the one a page opening the view asks for."""
        return job_key(self.view, self.dataset_name, self.options, self.language)

    @property
    def label(self) -> str:
        """'Leaderboard on li2018-yelp', 'Leaderboard on informal in Kannada (kn)'."""
        from stviz.languages import language_name

        return f"{self.title} on {self.dataset_name}" + (f" in {language_name(self.language)}" if self.language else "")

    def ready(self) -> bool:
        """Whether its full result is kept."""
        return is_kept(self.view, self.dataset, self.options)

    def work(self) -> Callable[[Reporter], Any]:
        """The job's work: the view's run, kept (a partial of a module-level function: it runs in a worker process)."""
        return functools.partial(keep_run, self.view, self.dataset, self.options)


def built_in_datasets() -> list[str]:
    """The datasets installed here that ship with stviz or its corpus list (the demo, fetched or imported corpora);
    never a user's upload."""
    from stviz.data import available_datasets

    return [info.name for info in available_datasets() if info.available]


def plan(names: list[str] | None = None) -> list[Item]:
    """Every view x built-in dataset the view applies to (``applies_to``), with its page's opening options and cold
    estimate, cheapest first (views without an estimate last); a view of one language at a time on a set of several
    languages once per language, as its page's Language facet opens it."""
    from stviz.data import load_dataset

    items = []
    for name in names or built_in_datasets():
        dataset = load_dataset(name)  # a name asked for that cannot be loaded is an error said to the asker
        for short in ANALYSES:
            analysis = importlib.import_module(f"stviz.analyses.{short}")
            for shown in facets(analysis, dataset):
                try:
                    if analysis.applies_to(shown) is None:
                        items.append(_item(analysis, shown))
                except Exception as exc:  # noqa: BLE001 - one view that cannot be planned leaves the others to warm
                    log.warning("warming: %s on %s (%s) left out (%s: %s)", analysis.TITLE, name,
                                shown.language or "as loaded", type(exc).__name__, exc)
    return sorted(items, key=lambda item: (item.seconds is None, item.seconds or 0.0))


def facets(analysis, dataset: Dataset) -> list[Dataset]:
    """The datasets the view's page opens on: each language of a mixed set, largest first, for a view of one language
    at a time (``ui.run.language_facet``), else the set itself."""
    from stviz.languages import facet_languages, with_language

    codes = facet_languages(dataset) if getattr(analysis, "ONE_LANGUAGE_AT_A_TIME", False) else []
    return [with_language(dataset, code) for code in codes] or [dataset]


def _item(analysis, dataset: Dataset) -> Item:
    options = opening_options(analysis.__name__, dataset)
    seconds, memory = _estimate(analysis, dataset, options) if hasattr(analysis, "estimate") else (None, 0.0)
    return Item(analysis.__name__, analysis.TITLE, dataset.name, options, seconds, memory, dataset, dataset.language)


def _estimate(analysis, dataset: Dataset, options) -> tuple[float | None, float]:
    """The view's cold estimate (seconds, memory), kept on disk under its result's key.

    Why kept: estimating tokenises every dataset, detects its language and counts its cached values, 29 s of the
    server's interpreter for the 51 built-in views, on every start, beside the visitors' page scripts. Kept, a new
    server on the same data and code reads it. It stays the estimate made before the view was computed: it orders
    the warm jobs and says their time left, and a view computed since is not queued again.
    """
    def estimate() -> tuple[float | None, float]:
        try:
            cost = analysis.estimate(dataset, options)
            return cost.seconds, cost.memory
        except Exception as exc:  # noqa: BLE001 - the run itself says what is wrong; the plan only orders
            log.info("no estimate for %s on %s (%s)", analysis.TITLE, dataset.name, exc)
            return None, 0.0

    return default_cache().memo(ESTIMATE_KIND, result_key(analysis.__name__, dataset, options), estimate)


@dataclass
class Readiness:
    """What the sidebar says: how many built-in views are ready, what is computing and its time left."""

    total: int
    ready: int
    running: list[tuple[str, float | None, bool]] = field(default_factory=list)  # (label, seconds left, paused)
    failed: list[str] = field(default_factory=list)
    waiting: int = 0  # queued behind visitors' jobs (none of them running)

    def line(self) -> str:
        """'7 of 9 built-in views ready; Leaderboard on li2018-yelp: about 4 min left'."""
        if self.total and self.ready >= self.total:
            return f"All {self.total} built-in views ready"
        parts = [f"{self.ready} of {self.total} built-in views ready"]
        if self.running:
            label, left, paused = self.running[0]
            parts.append(f"{label}: " + ("paused while visitors' views compute" if paused else
                                         f"about {format_seconds(left)} left" if left is not None else "computing"))
            if len(self.running) > 1:
                parts[-1] += f" (and {len(self.running) - 1} more computing)"
        elif self.waiting:
            parts.append(f"{self.waiting} waiting while visitors' views compute")
        if self.failed:
            parts.append(f"{len(self.failed)} could not be computed (the server's log says why)")
        return "; ".join(parts)


def seconds_left(job) -> float | None:
    """A running job's time left: its estimate at the server's pace less its time so far, else its stage's pace."""
    elapsed = job.timer.elapsed()
    if job.expected is not None and job.expected - elapsed >= 1:
        return job.expected - elapsed
    return job.timer.remaining(job.done, job.total)


class Warmer:
    """The server's warming: queues every built-in view not ready in the pool at the lowest priority, again when a
    corpus is installed or the cache is cleared, and says where it stands."""

    def __init__(self, scheduler, say: Callable[[str], None] = lambda line: None, planner=plan):
        self.scheduler, self.say, self.planner = scheduler, say, planner
        self.items: list[Item] | None = None
        self._stamp: dict | None = None
        self._jobs: dict[str, Any] = {}  # key -> the job this warmer queued
        self._failed: dict[str, float] = {}  # key -> when it failed
        self._ready: set[str] = set()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start warming in a background thread (once)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="stviz-warmer", daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        from stviz import warmup

        warmup.wait_for_loads()  # jobs computed in the server's own threads must not import beside its warm-up
        said = None
        while True:
            try:
                self.tick()
            except Exception as exc:  # noqa: BLE001 - warming is a service to users, never a reason to stop the server
                if repr(exc) != said:  # said once, not every tick
                    log.exception("warming the built-in views failed; trying again every %.0f s", TICK_SECONDS)
                    said = repr(exc)
            time.sleep(TICK_SECONDS)

    def tick(self) -> None:
        """Plan again if the installed corpora changed, note the jobs that ended, queue what is neither ready nor
        queued nor failed lately."""
        stamp = installed_corpora()
        planned = stamp != self._stamp
        if planned:
            self.items, self._stamp = self.planner(), stamp
        self._collect()
        queued = 0
        for item in self.items:
            if item.key in self._jobs or self._failed_lately(item.key):
                continue
            if item.ready():
                self._ready.add(item.key)
                continue
            self._ready.discard(item.key)  # never computed, or cleared since
            # A finished job under this key computed another content (a corpus imported again) or was not kept.
            self.scheduler.forget(item.key)
            self._jobs[item.key] = self.scheduler.submit(item.key, item.work(), seconds=item.seconds, priority=WARM,
                                                         memory=item.memory, label=f"Computing {item.label}")
            queued += 1
        if planned:
            self.say(f"warming: {self.status().line()}"
                     + (f"; {queued} queued in the pool at the lowest priority" if queued else ""))

    def _failed_lately(self, key: str) -> bool:
        return key in self._failed and time.monotonic() - self._failed[key] < RETRY_SECONDS

    def _collect(self) -> None:
        """Say each job that ended since the last tick: ready, or why not (tried again later)."""
        items = {item.key: item for item in self.items or []}
        labels = {key: item.label for key, item in items.items()}
        for key, job in list(self._jobs.items()):
            if not job.finished:
                continue
            del self._jobs[key]
            if job.error is None and job.state != CANCELLED and key in items and not items[key].ready():
                # Computed in a worker process, which keeps it under the key it computes there: a worker whose code,
                # settings or loaded models differ from this server's kept it where no page of this server looks.
                self._failed[key] = time.monotonic()
                self.say(f"warming: {labels[key]} could not be computed here: its worker kept it under another key "
                         f"than this server's ({key_parts_here(items[key])}); tried again in "
                         f"{format_seconds(RETRY_SECONDS)}")
            elif job.error is not None:
                self._failed[key] = time.monotonic()
                self.say(f"warming: {labels.get(key, key)} could not be computed ({type(job.error).__name__}: "
                         f"{job.error}); tried again in {format_seconds(RETRY_SECONDS)}")
            elif job.state != CANCELLED:
                self._ready.add(key)
                self._failed.pop(key, None)
                self.say(f"warming: {labels.get(key, key)} ready in {format_seconds(job.timer.elapsed())}. "
                         f"{self.status().line()}")

    def status(self) -> Readiness | None:
        """Where warming stands (None until the first plan is made)."""
        if self.items is None:
            return None
        keys = {item.key for item in self.items}
        running = [(item.label, seconds_left(job), job.yielding) for item in self.items
                   if (job := self._jobs.get(item.key)) is not None and job.state == RUNNING]
        waiting = sum(1 for job in list(self._jobs.values()) if job.state == QUEUED)
        return Readiness(len(self.items), len(self._ready & keys), running,
                         [item.label for item in self.items if self._failed_lately(item.key)],
                         waiting if not running and waiting and self.scheduler.others() else 0)


def key_parts_here(item: Item) -> str:
    """The parts of ``item``'s kept-result key in this process that a worker could see otherwise, said short: its code
    fingerprint, settings and dataset content (what to compare with the worker's when a warm result goes missing)."""
    if not hasattr(item, "view"):  # a stand-in item (tests)
        return "key parts not known"
    key = result_key(item.view, item.dataset, item.options)
    return (f"code {key['code'][:12]}, settings {key['settings']}, dataset content {key['dataset']['content'][:12]}, "
            f"corpora {sorted(key['corpora'])}")


def warm_now(names: list[str] | None = None, reporter_for: Callable[[Item], Reporter] | None = None,
             say: Callable[[str], None] = print) -> int:
    """Compute every built-in view not ready yet, one after the other in this process (the command line's
    ``--warm``); returns how many could not be computed (each said with its reason)."""
    items = plan(names)
    todo = [item for item in items if not item.ready()]
    say(f"warming {len(todo)} of {len(items)} built-in views (view x dataset); {len(items) - len(todo)} ready already"
        if todo else f"all {len(items)} built-in views (view x dataset) are ready already")
    failed = 0
    for number, item in enumerate(todo, 1):
        say(f"[{number}/{len(todo)}] {item.label}")
        start = time.monotonic()
        try:
            keep_run(item.view, item.dataset, item.options, reporter_for(item) if reporter_for else None)
        except Exception as exc:  # noqa: BLE001 - one view's failure must not stop the others; said, counted
            failed += 1
            say(f"[{number}/{len(todo)}] {item.label}: could not be computed ({type(exc).__name__}: {exc})")
            continue
        say(f"[{number}/{len(todo)}] {item.label}: ready ({format_seconds(time.monotonic() - start)})")
    return failed


_default: Warmer | None = None
_default_lock = threading.Lock()


def default_warmer(say: Callable[[str], None] = lambda line: None) -> Warmer:
    """The server's one warmer, over its one scheduler (``say``: where its progress lines go, the first time)."""
    global _default
    from stviz.pool import default_scheduler

    with _default_lock:
        if _default is None:
            _default = Warmer(default_scheduler(), say)
        return _default


__all__ = ["Item", "Readiness", "RETRY_SECONDS", "TICK_SECONDS", "Warmer", "built_in_datasets",
           "default_warmer", "enabled", "facets", "key_parts_here", "plan", "seconds_left", "warm_now"]
