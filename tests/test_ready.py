"""Results ready before anyone asks (stviz.ready): a server computes every built-in view's full result in its pool
when it starts, a page opening such a view reads it from the cache and asks the pool for nothing, the command line
does the same work, and the sidebar says how far it has got."""

from __future__ import annotations

import fcntl
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from browserkit import ROOT, SCREENSHOTS, _free_port, exceptions, server_stacks, wait_for_app
from pagetest import PAGES
from stviz.analyses import ANALYSES
from stviz.analyses.kept import KIND, dataset_identity, result_key
from stviz.analyses.opening import opening_options
from stviz.data import load_dataset
from stviz.pool import WARM, Scheduler
from stviz.ready import Readiness, built_in_datasets, plan

DEMO_VIEWS = 9  # every view applies to the demo


def test_the_readiness_line_says_what_is_ready_and_what_computes():
    assert Readiness(9, 7, [("Leaderboard on li2018-yelp", 240.0, False)]).line() == \
        "7 of 9 built-in views ready; Leaderboard on li2018-yelp: about 4 min 00 s left"
    assert Readiness(9, 7, [("Leaderboard on li2018-yelp", 240.0, True), ("Tradeoffs on demo", None, False)]).line() \
        == "7 of 9 built-in views ready; Leaderboard on li2018-yelp: paused while visitors' views compute (and 1 more " \
           "computing)"
    assert Readiness(9, 7, waiting=2).line() == "7 of 9 built-in views ready; 2 waiting while visitors' views compute"
    assert Readiness(9, 8, [], ["Tradeoffs on demo"]).line() == \
        "8 of 9 built-in views ready; 1 could not be computed (the server's log says why)"
    assert Readiness(9, 9).line() == "All 9 built-in views ready"


def test_every_process_of_one_install_agrees_on_the_code_fingerprint(tmp_path):
    # A command run from the checkout also finds the checkout's stviz.egg-info on sys.path: one stviz found twice
    # must not change the fingerprint, or the server's kept results are never read by the page or the command line.
    probe = "from stviz.analyses.kept import code_version; print(code_version())"
    here = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    elsewhere = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                               env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT}"}, check=True)
    from stviz.analyses.kept import code_version

    assert here.stdout.strip() == elsewhere.stdout.strip() == code_version()


class Planned:
    """A view x dataset as the warmer sees it: ready when its label is in ``kept``; computing it keeps it (or fails)."""

    def __init__(self, label: str, kept: set, fails: bool = False, kept_elsewhere: bool = False):
        self.key = self.label = label
        self.kept, self.fails, self.seconds, self.memory = kept, fails, 1.0, 0.0
        self.kept_elsewhere = kept_elsewhere  # computed, but kept under a key this process does not compute

    def ready(self) -> bool:
        return self.label in self.kept

    def work(self):
        def compute(reporter):
            if self.fails:
                raise ValueError("no human column")
            if not self.kept_elsewhere:
                self.kept.add(self.label)
            return self.label

        return compute


def test_the_warmer_queues_what_is_not_ready_says_each_and_queues_again_what_the_cache_lost(monkeypatch):
    from stviz import ready

    kept, lines, plans, stamp = {"B"}, [], [], {"cds": 1}
    items = [Planned("A", kept), Planned("B", kept), Planned("C", kept, fails=True)]
    monkeypatch.setattr(ready, "installed_corpora", lambda: dict(stamp))
    pool = Scheduler(workers=1)
    warmer = ready.Warmer(pool, say=lines.append, planner=lambda: plans.append(1) or items)

    def settle():
        for job in list(warmer._jobs.values()):
            assert job._done.wait(60)
        warmer.tick()

    warmer.tick()
    assert lines[0].startswith("warming: 1 of 3 built-in views ready") and lines[0].endswith("2 queued in the pool at "
                                                                                              "the lowest priority")
    assert {job.priority for job in warmer._jobs.values()} == {WARM}
    settle()
    assert any(line.startswith("warming: A ready in 0 s. 2 of 3 built-in views ready") for line in lines)
    assert any(line.startswith("warming: C could not be computed (ValueError: no human column); tried again in 10 min")
               for line in lines)
    assert warmer.status().line() == "2 of 3 built-in views ready; 1 could not be computed (the server's log says why)"
    warmer.tick()
    assert warmer._jobs == {}  # C failed a moment ago: not tried again yet
    kept.discard("A")  # the cache was cleared
    warmer.tick()
    assert list(warmer._jobs) == ["A"]
    settle()
    assert len(plans) == 1
    stamp["li2018"] = 2  # a corpus imported while the server runs: planned again
    warmer.tick()
    assert len(plans) == 2


def test_a_result_its_worker_kept_under_another_key_is_not_counted_ready(monkeypatch):
    # A warm job runs in a worker process, which keeps the result under the key it computes there: when that differs
    # from the server's (a worker's code, settings or loaded models), no page of this server finds it, so the server
    # must not say it is ready (the sidebar said "All 9 ready" while every page recomputed).
    from stviz import ready

    kept, lines = set(), []
    monkeypatch.setattr(ready, "installed_corpora", lambda: {})
    warmer = ready.Warmer(Scheduler(workers=1), say=lines.append,
                          planner=lambda: [Planned("A", kept), Planned("B", kept, kept_elsewhere=True)])
    warmer.tick()
    for job in list(warmer._jobs.values()):
        assert job._done.wait(60)
    warmer.tick()
    assert any(line.startswith("warming: A ready in ") for line in lines)
    assert any(line.startswith("warming: B could not be computed here: its worker kept it under another key than "
                               "this server's") for line in lines), lines
    assert warmer.status().line() == "1 of 2 built-in views ready; 1 could not be computed (the server's log says why)"


@pytest.mark.slow
def test_the_plan_is_every_view_on_every_built_in_dataset_it_applies_to(corpora):
    items = plan()
    names = built_in_datasets()
    assert "demo" in names and "cds" in names and not any(n.startswith(("upload:", "outputs:")) for n in names)
    expected = {(f"stviz.analyses.{view}", name) for name in names for view in ANALYSES
                if importlib.import_module(f"stviz.analyses.{view}").applies_to(load_dataset(name)) is None}
    assert {(item.view, item.dataset_name) for item in items} == expected
    assert ("stviz.analyses.leaderboard", "cds") not in expected  # sentences without outputs: no leaderboard
    estimated = [item.seconds for item in items if item.seconds is not None]
    assert estimated == sorted(estimated)  # cheapest first, so the count of ready views climbs soonest


def test_a_new_plan_reads_the_estimates_kept_by_the_last(tmp_path, monkeypatch):
    # A new server's first plan estimated every view (29 s of its interpreter for the 51 built-in views); a plan on
    # the same data and code reads them from the disk cache: none is estimated again, and the order is the same.
    from stviz import ready
    from stviz.analyses import leaderboard

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))  # a cache of its own: every estimate is made here first
    first = plan(["demo"])
    estimated = []
    real = leaderboard.estimate
    monkeypatch.setattr(leaderboard, "estimate", lambda *a, **k: estimated.append(a) or real(*a, **k))
    again = plan(["demo"])
    assert estimated == [] and [(i.key, i.seconds, i.memory) for i in again] == [(i.key, i.seconds, i.memory)
                                                                                 for i in first]
    monkeypatch.setattr(ready, "result_key", lambda view, dataset, options: {"other": "data", "view": view})
    plan(["demo"])  # another key (other data, code or corpora): estimated again
    assert len(estimated) == 1


def test_the_installed_corpora_are_read_again_when_a_corpus_folder_changes(tmp_path, monkeypatch):
    # Every result key holds them, asked for on each page run and for every view at each warmer tick: a corpus file's
    # check (thousands of stat calls) is skipped while no corpus folder changed, and never longer than a short while.
    from stviz.data.corpora import sources

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    checked = []
    monkeypatch.setattr(sources, "is_installed", lambda name: checked.append(name) or name == "demo-corpus")
    monkeypatch.setattr(sources, "MANIFEST", {"demo-corpus": {}, "other": {}})
    (tmp_path / "corpora" / "demo-corpus").mkdir(parents=True)
    assert sources.installed_corpora().keys() == {"demo-corpus"} and checked == ["demo-corpus"]  # folders present
    assert sources.installed_corpora().keys() == {"demo-corpus"} and len(checked) == 1  # nothing changed: not checked
    (tmp_path / "corpora" / "other").mkdir()  # a corpus imported
    sources.installed_corpora()
    assert len(checked) == 3
    monkeypatch.setattr(sources, "INSTALLED_SECONDS", 0.0)  # a file changed deep inside: seen after a while
    sources.installed_corpora()
    assert len(checked) == 5


@pytest.fixture(scope="session")
def warmed_home(tmp_path_factory):
    """A fresh home warmed by a `stviz dashboard` nobody visits, then stopped with SIGTERM: (home, server log).

    Once per test run: the first test process that needs it warms it under a lock, the others wait and read it. Once
    per process, two processes warmed the same views side by side (about 55 s of a core each, every CI run); a module
    fixture was worse: work stealing tore it down between a file's tests and it was warmed again (stop 51). The
    tests read it; those that change a home, or start a server in one, work on a copy (:func:`copy_of_warmed_home`)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's folder, above each worker's
    home, done = shared / "warm-home", shared / "warm-home.done"
    with open(shared / "warm-home.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():  # not warmed yet, or a warm failed in another process: warmed (and failing) here
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir()
            _warm(home)
            done.touch()
    return home, (home / "server.log").read_text()


def _warm(home: Path) -> None:
    log_path = home / "server.log"
    env = {**os.environ, "STVIZ_HOME": str(home), "STVIZ_WARM_RESULTS": "1", "STVIZ_WARMUP": "1"}
    with open(log_path, "w") as log:
        server = subprocess.Popen([sys.executable, "-m", "stviz", "dashboard", "--port", str(_free_port())], cwd=ROOT,
                                  env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 900
            while f"All {DEMO_VIEWS} built-in views ready" not in (said := log_path.read_text()):
                assert server.poll() is None, said[-3000:]
                assert time.monotonic() < deadline, server_stacks(server.pid, log_path)
                assert "could not be computed" not in said and "Traceback" not in said, said[-3000:]
                time.sleep(1)
        finally:
            server.send_signal(signal.SIGTERM)
            code = server.wait(60)
    assert code == 0, log_path.read_text()[-3000:]


@pytest.fixture
def copy_of_warmed_home(warmed_home, tmp_path, monkeypatch):
    """A copy of the warmed home of this test's own, for a test that changes it (the other processes read the
    original meanwhile)."""
    home = tmp_path / "warm-home"
    shutil.copytree(warmed_home[0], home)
    monkeypatch.setenv("STVIZ_HOME", str(home))
    return home, warmed_home[1]


@pytest.fixture
def in_warmed_home(warmed_home, monkeypatch):
    """This test works in the warmed home (the others keep the shared test home)."""
    monkeypatch.setenv("STVIZ_HOME", str(warmed_home[0]))
    return warmed_home


@pytest.mark.slow
def test_a_server_computes_every_built_in_view_when_it_starts_before_anyone_visits(in_warmed_home):
    home, log = in_warmed_home
    lines = [line for line in log.splitlines() if line.startswith("stviz: warming:")]
    assert lines[0].startswith(f"stviz: warming: 0 of {DEMO_VIEWS} built-in views ready;")
    assert lines[0].endswith(f"; {DEMO_VIEWS} queued in the pool at the lowest priority")
    assert sum(" ready in " in line for line in lines) == DEMO_VIEWS
    missing = [item.view for item in plan(["demo"]) if not item.ready()]  # read here, computed in the server's workers
    assert missing == [], f"not kept under this process's key: {missing}; {_key_differences(missing)}"
    assert len(list((home / "cache" / "results" / KIND).glob("*.pkl"))) == DEMO_VIEWS


#: The pages that draw a view's result (the Rating study page collects ratings: it has no result to warm).
VIEW_PAGES = sorted(p.name for p in PAGES.glob("[0-9]*_*.py") if "from stviz.analyses import" in p.read_text())


@pytest.mark.slow
@pytest.mark.parametrize("page", VIEW_PAGES)
def test_a_ready_view_is_drawn_from_one_cache_read(in_warmed_home, page, monkeypatch):
    asked = []
    submit = Scheduler.submit

    def recording(self, key, *args, **kwargs):
        asked.append(key)
        return submit(self, key, *args, **kwargs)

    monkeypatch.setattr(Scheduler, "submit", recording)
    at = AppTest.from_file(str(PAGES / page), default_timeout=600)
    at.session_state["dataset_name"] = "demo"
    if page == "8_Meta_evaluation.py":  # the demo's axes have no best group for its first tab: its every row instead
        at.session_state["meta-tab"] = "Every row"
    at.run()
    assert not at.exception, at.exception
    views = [key for key in asked if key.startswith("stviz.analyses.")]
    views = [key.split(":", 1)[0] for key in views]
    assert views == [], f"{page} asked the pool for its view instead of reading it: {views}; {_key_differences(views)}"
    assert at.get("plotly_chart") or len(at.dataframe) or at.get("metric")  # the result is drawn


def _key_differences(views: list[str]) -> str:
    """What differs between this test process's kept-result key of each view and a fresh process's (as the warm
    server's): which part of the key made this process miss the warm result; and the results the home keeps."""
    script = ("import json, sys; from stviz.analyses.kept import result_key; from stviz.analyses.opening import "
              "opening_options; from stviz.data import load_dataset; d = load_dataset('demo'); print(json.dumps("
              "{v: result_key(v, d, opening_options(v, d)) for v in sys.argv[1:]}, default=str))")
    done = subprocess.run([sys.executable, "-c", script, *views], cwd=ROOT, capture_output=True, text=True, timeout=300)
    fresh = json.loads(done.stdout) if done.returncode == 0 else {}
    from stviz.cache import default_cache

    demo = load_dataset("demo")
    said = []
    for view in views:
        here = json.loads(json.dumps(result_key(view, demo, opening_options(view, demo)), default=str))
        there = fresh.get(view, {})
        differ = {part: (here.get(part), there.get(part)) for part in set(here) | set(there)
                  if here.get(part) != there.get(part)}
        file = default_cache()._result_key(result_key(view, demo, opening_options(view, demo)), 1)
        said.append(f"{view} (here {file}.pkl): key parts that differ from a fresh process's (here, there): {differ!r}")
    from stviz.analyses.kept import code_version

    if code_version() != code_version.__wrapped__():  # fingerprinted once per process, at its first use
        said.append(f"stviz's files or installed packages changed since this test process first fingerprinted them "
                    f"({code_version()[:12]}, now {code_version.__wrapped__()[:12]}): a checkout edited, committed "
                    "to or switched while the tests ran; the server fingerprinted the code as it found it")
    kept = sorted(p.name for p in (Path(os.environ["STVIZ_HOME"]) / "cache" / "results" / KIND).glob("*.pkl"))
    return "; ".join(said) + f"; {done.stderr[-1000:] if done.returncode else ''}kept results: {kept}"


@pytest.mark.slow
def test_the_command_line_computes_only_the_views_not_ready(copy_of_warmed_home):
    home, _ = copy_of_warmed_home
    demo = load_dataset("demo")
    from stviz.analyses import leaderboard
    from stviz.cache import default_cache

    options = opening_options(leaderboard.__name__, demo)
    key = default_cache()._result_key(result_key(leaderboard.__name__, demo, options), 1)
    (home / "cache" / "results" / KIND / f"{key}.pkl").unlink()  # cleared since: computed again, alone
    done = subprocess.run([sys.executable, "-m", "stviz", "data", "warm", "--datasets", "demo"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith(("warming", "["))]
    assert lines[0] == f"warming 1 of {DEMO_VIEWS} built-in views (view x dataset); {DEMO_VIEWS - 1} ready already"
    assert lines[-1].startswith("[1/1] Leaderboard on demo: ready (")
    assert all(item.ready() for item in plan(["demo"]))


@pytest.mark.parametrize("dataset", ["demo", "cds", "sgdd-tst", "mir-yelp", "yelp-sentiment", "paradetox",
                                     "li2018-yelp", "li2018-amazon", "li2018-captions", "russe2022-humaneval",
                                     "informal"])
def test_every_page_opens_with_the_options_its_warm_job_computes(corpora, dataset, monkeypatch):
    # A warm result is read only under the page's own options: each page, opened on each built-in dataset with
    # nothing chosen, must ask for exactly opening_options (the run is stopped there: nothing is computed). On a set of
    # several languages (InFormal), a view of one language at a time opens on the largest language and then on each
    # one the Language facet offers: the server warms each of them, under the page's own key.
    import streamlit as st

    import ui
    from stviz.analyses.kept import job_key
    from stviz.languages import facet_languages
    from ui.run import FACET_KEY

    asked = []

    def stop_at_the_run(analysis, ds, options, **kwargs):
        asked.append((analysis.__name__, ds, options))
        st.stop()

    monkeypatch.setattr(ui, "run_analysis", stop_at_the_run)
    loaded = load_dataset(dataset)
    languages, first = facet_languages(loaded), None
    for language in [None, *languages[1:]]:  # first as a visitor opens it (the largest language), then the others
        for page in sorted(PAGES.glob("[0-9]*_*.py")):
            at = AppTest.from_file(str(page), default_timeout=600)
            at.session_state["dataset_name"] = dataset
            if language:
                at.session_state[FACET_KEY] = language
            at.run()
            assert not at.exception, (page.name, language, at.exception)
        first = len(asked) if first is None else first
    if languages:
        assert {ds.language for _, ds, _ in asked[:first] if ds.language} == {languages[0]}  # largest first
    opened = {job_key(view, dataset, options, ds.language): (view, ds, options) for view, ds, options in asked}
    items = {item.key: item for item in plan([dataset])}
    assert sorted(opened) == sorted(items)  # one warm job per view and language the pages open, none more
    for key, (view, ds, options) in opened.items():
        assert repr(options) == repr(items[key].options) == repr(opening_options(view, ds)), (view, dataset)
        # The content and language the warm job computed on: the page finds its result kept under its key.
        assert dataset_identity(ds) == dataset_identity(items[key].dataset), (view, dataset, ds.language)
        assert result_key(view, ds, options) == result_key(view, items[key].dataset, items[key].options)


def test_the_sidebar_says_how_many_built_in_views_are_ready(monkeypatch):
    from stviz import ready

    class Warming:
        def start(self):
            pass

        def status(self):
            return Readiness(9, 7, [("Leaderboard on li2018-yelp", 250.0, False)])

    monkeypatch.setenv("STVIZ_WARM_RESULTS", "1")
    monkeypatch.setattr(ready, "default_warmer", lambda say=None: Warming())
    at = AppTest.from_file(str(Path(ROOT / "app.py")), default_timeout=120).run()
    assert not at.exception
    assert "7 of 9 built-in views ready; Leaderboard on li2018-yelp: about 4 min 10 s left" in \
        [c.value for c in at.sidebar.caption]
    monkeypatch.setenv("STVIZ_WARM_RESULTS", "0")  # turned off: nothing said
    at = AppTest.from_file(str(Path(ROOT / "app.py")), default_timeout=120).run()
    assert not any("built-in views" in c.value for c in at.sidebar.caption)


@pytest.mark.slow
@pytest.mark.browser
def test_in_a_browser_a_ready_view_opens_without_computing_and_the_sidebar_says_all_are_ready(copy_of_warmed_home,
                                                                                                 browser):
    home, _ = copy_of_warmed_home  # a server of its own starts in it: it writes its log and what it checks there
    port, log_path = _free_port(), home / "browser-server.log"
    env = {**os.environ, "STVIZ_WARM_RESULTS": "1"}
    with open(log_path, "w") as log:
        server = subprocess.Popen([sys.executable, "-m", "stviz", "dashboard", "--port", str(port)], cwd=ROOT, env=env,
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while f"All {DEMO_VIEWS} built-in views ready" not in log_path.read_text():  # its plan found them kept
            assert server.poll() is None, log_path.read_text()[-3000:]
            assert time.monotonic() < deadline, server_stacks(server.pid, log_path)
            time.sleep(1)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.add_init_script("""window.__bars = 0; setInterval(() => { if (document.querySelector(
            "[data-testid='stMain'] [data-testid='stProgress']")) window.__bars += 1; }, 50);""")
        page.goto(f"http://127.0.0.1:{port}/Leaderboard?dataset=demo")
        page.wait_for_selector("[data-testid='stTab']:has-text('Worst and best outputs')", timeout=120_000)
        wait_for_app(page)
        assert page.evaluate("window.__bars") == 0  # no queue notice, no progress: read, not computed
        sidebar = page.locator("[data-testid='stSidebar']").inner_text()
        assert f"All {DEMO_VIEWS} built-in views ready" in sidebar
        page.screenshot(path=str(SCREENSHOTS / "ready-leaderboard.png"))
        assert not exceptions(page)
        page.close()
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(60) == 0
