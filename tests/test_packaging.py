"""stviz as Python tools ship: locked requirements, a wheel that carries the dashboard, a `stviz` command."""

from __future__ import annotations

import shutil
import subprocess
import sys
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
            "stviz/cli/dashboard.py", "stviz/data/manifest.json"} <= names
    assert {f"stviz/metrics/prompts/{aspect}.txt" for aspect in ("content", "style", "fluency")} <= names  # LLM judges
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "stviz = stviz.cli:console" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_stviz_dashboard_serves_the_app():
    stviz = Path(sys.executable).with_name("stviz")  # the console command `make setup` installs
    assert stviz.exists(), "make setup installs stviz into the venv (pip install -e .)"
    assert "dashboard" in subprocess.run([stviz, "--help"], capture_output=True, text=True, check=True).stdout
    port = _free_port()
    server = subprocess.Popen([stviz, "dashboard", "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert serving(f"http://127.0.0.1:{port}"), "stviz dashboard did not serve"
        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).status == 200
    finally:
        server.terminate()
        server.wait(30)
