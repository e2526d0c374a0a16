"""stviz as Python tools ship: locked requirements, a wheel that carries the dashboard, a `stviz` command."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

from browserkit import ROOT, _free_port, serving


def test_the_locks_match_pyproject():
    check = subprocess.run([sys.executable, "tools/lock.py", "check"], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_the_wheel_carries_the_dashboard_and_the_command(tmp_path):
    # Built from a copy of the sources: an in-tree build leaves build/ and *.egg-info in the checkout.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv*", ".stviz*", "artifacts", "build",
                                                                "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), str(source)],
                   check=True, capture_output=True)
    (wheel,) = tmp_path.glob("stviz-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    pages = sorted(p.name for p in (ROOT / "pages").glob("*.py"))
    assert len(pages) >= 7 and {f"stviz/_app/pages/{name}" for name in pages} <= names
    assert {"stviz/_app/app.py", "stviz/_app/.streamlit/config.toml", "stviz/_app/data/demo/pairs.csv",
            "stviz/cli/dashboard.py", "stviz/data/corpora/manifest.json"} <= names
    assert {f"stviz/metrics/prompts/{aspect}.txt" for aspect in ("content", "style", "fluency")} <= names  # LLM judges
    assert "stviz/models/known_answers.json" in names  # every model's check needs its recorded answer
    assert {"stviz/measures/style/classifiers/training.py", "stviz/measures/style/attribution.py",
            "stviz/measures/fluency/language_models.py", "stviz/measures/tradeoffs.py"} <= names  # the axes' families
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "stviz = stviz.cli:console" in zipfile.ZipFile(wheel).read(entry_points).decode()


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _stviz() -> Path:
    stviz = Path(sys.executable).with_name("stviz")  # the console command `make setup` installs
    assert stviz.exists(), "make setup installs stviz into the venv (pip install -e .)"
    return stviz


def test_stviz_dashboard_serves_the_app_and_stops_with_sigterm(tmp_path):
    assert "dashboard" in subprocess.run([_stviz(), "--help"], capture_output=True, text=True, check=True).stdout
    port = _free_port()
    env = {**os.environ, "STVIZ_HOME": str(tmp_path)}  # its own temp folder: checked below
    server = subprocess.Popen([_stviz(), "dashboard", "--port", str(port), "--base-url-path", "team/stviz"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert serving(f"http://127.0.0.1:{port}/team/stviz"), "stviz dashboard did not serve"
        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/team/stviz/", timeout=10).status == 200
        assert list((tmp_path / "tmp").glob("dashboard-*")), "the server's temporary files go under STVIZ_HOME/tmp"
        server.send_signal(signal.SIGTERM)  # a service manager stopping it
        code = server.wait(60)
        for _ in range(100):  # the port is free within 10 s: a restart can take it
            if not _listening(port):
                break
            time.sleep(0.1)
        assert not _listening(port), "the Streamlit server kept serving after stviz dashboard was stopped"
        # 0: it stopped by itself; 137: still stopping after the grace period (a machine loaded enough that
        # Streamlit's own shutdown takes longer), so killed, by design: either way it is gone and the port free.
        assert code in (0, 128 + signal.SIGKILL), code
        out = server.stdout.read()
        assert f"/team/stviz/_stcore/health" in out  # said on start, as logs go: stdout
        assert not list((tmp_path / "tmp").glob("dashboard-*")), "the server's temporary folder is removed"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(30)


def test_stviz_dashboard_on_a_taken_port_says_so_in_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        run = subprocess.run([_stviz(), "dashboard", "--port", str(port)], capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert run.stderr.strip() == f"error: port {port} is already in use on 127.0.0.1 (another server is running: " \
                                 "stop it or choose --port)", run.stderr


def test_an_address_the_server_cannot_listen_on_is_said_before_it_starts():
    from stviz.serving import port_problem

    port = _free_port()
    assert port_problem("127.0.0.1", port) is None and port_problem("localhost", port) is None
    assert port_problem("no.such.host.invalid", port).startswith("the address 'no.such.host.invalid' cannot be resolved")
    run = subprocess.run([_stviz(), "dashboard", "--host", "192.0.2.1", "--port", str(port)],  # TEST-NET: not here
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stderr.strip().startswith(f"error: cannot listen on 192.0.2.1:{port} ("), run.stderr


STUBBORN_SERVER = """
import signal, sys, time
import stviz.cli.dashboard as dashboard
from stviz.cli import main

# The server, at its border: a child that ignores SIGTERM, as a server whose computation does not stop would.
dashboard.dashboard_command = lambda *args: [sys.executable, "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('child up', flush=True); time.sleep(600)"]
dashboard.STOP_GRACE_SECONDS = 2.0
sys.exit(main(["dashboard", "--port", sys.argv[1]]))
"""


def test_a_server_that_does_not_stop_when_asked_is_killed_after_the_grace_period(tmp_path):
    port = _free_port()
    command = subprocess.Popen([sys.executable, "-c", STUBBORN_SERVER, str(port)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env={**os.environ, "STVIZ_HOME": str(tmp_path)})
    try:
        lines = []
        while "child up" not in "".join(lines):
            line = command.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        child = [p for p in Path("/proc").glob("[0-9]*") if _parent(p) == command.pid]
        assert len(child) == 1
        command.send_signal(signal.SIGTERM)
        code = command.wait(60)  # the grace period is 2 s here: it ends, it does not hang
        assert code == 128 + signal.SIGKILL  # the child was killed, and the command said so in its code
        assert not child[0].exists() or "zombie" in (child[0] / "status").read_text()
    finally:
        if command.poll() is None:
            command.kill()
            command.wait(30)


def _parent(proc: Path) -> int:
    try:
        return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1
