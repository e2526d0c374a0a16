"""Shared test set-up: an isolated STVIZ_HOME, the real corpora imported once, shared datasets.

The corpora come from ``../shared/corpora`` (or ``$STVIZ_CORPORA``). Tests that need them fail,
never skip, when the folder is missing: CI must run them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Set before stviz is imported anywhere, so every module sees the test home. The folder is kept
# between runs on purpose: embeddings in its cache are shared by all tests and later runs.
os.environ.setdefault("STVIZ_HOME", str(ROOT / ".stviz-test"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Pages wait for a click before long cold runs; tests run them straight (one test checks the wait).
os.environ.setdefault("STVIZ_CONFIRM_SECONDS", "inf")
# No background model loading in test processes: tests that swap a loader (no WordNet, a broken model) must not
# race a warm-up thread. tests/test_warmup.py and the preview browser test turn it on.
os.environ.setdefault("STVIZ_WARMUP", "0")
# No results computed before anyone asks: a background warm job would race the tests for the cores and the cache
# (a page test would read a result another test did not compute). tests/test_ready.py turns it on.
os.environ.setdefault("STVIZ_WARM_RESULTS", "0")

SHARED_CORPORA = Path(os.environ.get("STVIZ_CORPORA", ROOT.parent / "shared" / "corpora"))


def _cores_per_test_process() -> int | None:
    """With several test processes (pytest-xdist sets its worker count before this file is read): each one's share
    of the cores, else None (one process uses them all)."""
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    return max(1, (os.cpu_count() or 1) // int(count)) if count.isdigit() and int(count) > 1 else None


# The cores shared among the test processes, as the server's pool shares them among its jobs (threads_for): two
# processes of two torch threads each on two cores embedded 3,000 sentences in 28.8 s each, against 22.2 s with one
# thread each (benchmarks/shared_cores.py; docs/benchmarks.md, "The test suite's time"). Set before
# torch or numpy is imported; servers and commands the tests start inherit it. A thread count set by whoever runs the
# tests is kept.
# stviz.threads reads the share from STVIZ_THREADS for every engine (ONNX Runtime, the C engines, the pool, Ray).
if (_share := _cores_per_test_process()) is not None:
    from stviz.threads import NATIVE_ENV, THREADS_ENV

    for _name in (THREADS_ENV, *NATIVE_ENV):
        os.environ.setdefault(_name, str(_share))


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than ~20 s (deselect with -m 'not slow'; CI runs it)")
    config.addinivalue_line("markers", "browser: drives headless Chromium against a running app")


def pytest_collection_modifyitems(config, items):
    """The slow and browser tests first, each group in file order: with several test processes (``make test`` runs
    one per core) the long tests start early and the short ones fill the gaps, instead of one process finishing a
    long test alone at the end. File order is kept within each group, so a file's tests mostly stay in one process
    and its module fixtures (a warmed server's home, a Ray cluster) are set up once."""
    items.sort(key=lambda item: not (item.get_closest_marker("slow") or item.get_closest_marker("browser")))


@pytest.fixture(autouse=True)
def _main_module_put_back():
    """Streamlit's script runner (every AppTest run) installs the page as ``sys.modules["__main__"]`` and never puts
    the real one back. A multiprocessing "spawn" child started later in the same test process runs the parent's
    ``__main__`` first, so it ran that page (or a test's temporary script) again and died before its work
    (tests/test_cache.py's children, in a CI run where an AppTest test came first in that process)."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The real corpora, imported into the test STVIZ_HOME once per session."""
    from stviz.data.corpora.sources import MANIFEST, corpora_dir, import_folder, is_installed

    with _one_process_at_a_time("corpora-import"):  # test processes share the home: one imports, the rest wait
        missing = [name for name in MANIFEST if not is_installed(name)]
        if missing:
            if not SHARED_CORPORA.is_dir():
                pytest.fail(f"real corpora not found at {SHARED_CORPORA} (set STVIZ_CORPORA); these tests must run")
            status = import_folder(SHARED_CORPORA, missing)
            failed = {k: v for k, v in status.items() if not v.startswith("imported")}
            if failed:
                pytest.fail(f"could not import corpora: {failed}")
    return corpora_dir()


@contextlib.contextmanager
def _one_process_at_a_time(name: str):
    """An exclusive lock on a file of the test home, held by one test process at a time (``make test`` runs
    several)."""
    home = Path(os.environ["STVIZ_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    with open(home / f".{name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed
        yield


@pytest.fixture(scope="module")
def one_ray_at_a_time():
    """Held while a test module starts and uses a local Ray: one test process at a time. Two Ray clusters of two
    CPUs each on a two-core machine (worksteal hands a module's tests to both processes) starved each other's
    actors: the Ray tests of both processes stalled for more than 15 minutes in one CI run.

    Ray's memory monitor is off for these clusters: it kills a worker when the whole machine is above 95% of its
    memory, and late in a suite run the other test process, its pool workers, a Streamlit server and Chromium held
    22.7 of 24 GB; the raylet then killed and restarted the tests' actors in a loop ("Memory usage above threshold
    but no workers are available for killing"), and the killed-workers test ran past 12 minutes in a local CI run.
    What these tests check (results equal to a local run, actors restarted after a SIGKILL) is not Ray's memory
    policy."""
    with _one_process_at_a_time("ray"):
        before = os.environ.get("RAY_memory_monitor_refresh_ms")
        os.environ["RAY_memory_monitor_refresh_ms"] = "0"  # read by the raylet ray.init starts
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("RAY_memory_monitor_refresh_ms", None)
            else:
                os.environ["RAY_memory_monitor_refresh_ms"] = before


def _dataset(name: str):
    from stviz.data import load_dataset

    return load_dataset(name)


@pytest.fixture(scope="session")
def cds(corpora):
    """Corpus of Diverse Styles (11 x 1,000)."""
    return _dataset("cds")


@pytest.fixture(scope="session")
def sgdd(corpora):
    """SGDD-TST pairs with human scores and the authors' metric columns."""
    return _dataset("sgdd-tst")


@pytest.fixture(scope="session")
def mir_yelp(corpora):
    """Mir et al. Yelp outputs, 12 settings x 244 pairs, with human scores."""
    return _dataset("mir-yelp")


@pytest.fixture(scope="session")
def yelp_sentiment(corpora):
    """Yelp sentiment sentences for training classifiers."""
    return _dataset("yelp-sentiment")


@pytest.fixture(scope="session")
def app_url(corpora):
    """The app served by Streamlit on a free loopback port, for every browser test of the session."""
    from browserkit import serve_app

    yield from serve_app()


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by playwright, for every browser test of the session."""
    from browserkit import launch_browser

    yield from launch_browser()


@pytest.fixture(autouse=True)
def _pages_closed(request):
    """Each browser test's pages closed when it ends. Left open, each kept a Chromium renderer and its Streamlit
    session (with the results it drew) alive to the end of the run: 33 Chromium processes held 5.7 GB a quarter of
    the way through a local CI run."""
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()


@pytest.fixture(scope="session")
def postgres_url():
    """A real PostgreSQL server and an empty database on it, for the rating studies' team database."""
    from pgserver import postgres_server

    yield from postgres_server()
