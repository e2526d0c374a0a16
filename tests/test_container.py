"""The container (Dockerfile, .dockerignore): no Docker engine runs here, so tools/container_check.py stands a fresh
virtualenv for the image and runs every step; docs/deploy.md shows the very file."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from browserkit import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import container_check  # noqa: E402 - a script of tools/, imported for its functions


def test_the_deploy_doc_shows_the_dockerfile_itself():
    block = re.search(r"```dockerfile\n(.*?)```", (ROOT / "docs" / "deploy.md").read_text(), re.S)
    assert block and block.group(1) == (ROOT / "Dockerfile").read_text()


def test_dockerignore_leaves_out_the_local_environment_and_keeps_what_the_build_needs(tmp_path):
    patterns = container_check.read_ignore(ROOT)
    out = [".git/HEAD", ".venv/bin/python", ".stviz-test/cache/vectors.sqlite", ".stviz/corpora/cds/formal.txt",
           "artifacts/streamlit-test.log", "stviz/__pycache__/ready.cpython-311.pyc", "ui/__pycache__/run.pyc",
           "stviz.egg-info/PKG-INFO", "build/lib/stviz/ready.py", "tests/test_ready.py", "benchmarks/warm.py"]
    kept = ["app.py", "pages/7_Leaderboard.py", "ui/run.py", "stviz/ready.py", "stviz/data/corpora/manifest.json",
            "data/demo/pairs.csv", ".streamlit/config.toml", "requirements.txt", "pyproject.toml", "setup.py",
            "README.md"]
    assert [p for p in out if not container_check.ignored(p, patterns)] == []
    assert [p for p in kept if container_check.ignored(p, patterns)] == []
    # Docker's exceptions and depths, as the copy applies them.
    assert container_check.ignored("a/b/c.log", ["**/*.log"]) and container_check.ignored("c.log", ["**/*.log"])
    assert not container_check.ignored("docs/keep.md", ["docs", "!docs/keep.md"])
    (tmp_path / "context").mkdir()
    container_check.copy_context(ROOT, tmp_path / "context", patterns)
    copied = {p.relative_to(tmp_path / "context").as_posix() for p in (tmp_path / "context").rglob("*") if p.is_file()}
    assert "stviz/ready.py" in copied and "app.py" in copied and not any(p.startswith((".venv", ".git/")) for p in copied)


def test_the_check_knows_every_instruction_and_refuses_a_command_it_cannot_stand_for(tmp_path):
    image = container_check.Image(tmp_path)
    steps = container_check.instructions((ROOT / "Dockerfile").read_text())
    assert [k for k, _ in steps if not hasattr(image, f"do_{k.lower()}")] == []
    assert ("RUN", "pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cpu -r requirements.txt") \
        in steps  # the locked requirements, as the image installs them
    with pytest.raises(container_check.StepFailed, match="does not know what it does"):
        image.shell("curl -sSL https://example.org/install.sh")
    assert image.shell("mkdir /data").startswith("made") and (tmp_path / "root" / "data").is_dir()


@pytest.mark.slow
def test_the_dockerfiles_steps_build_a_server_that_is_healthy_and_stops_cleanly():
    # Minutes: a fresh virtualenv from the lock, the package built from the context, the server started and stopped.
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "container_check.py")], cwd=ROOT, capture_output=True,
                          text=True, timeout=3600)
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-3000:]
    for said in ("FROM: a fresh virtualenv on Python 3.11", "RUN: 'apt-get update': nothing to do here",
                 "pip install --no-cache-dir -r requirements.txt", "torch 2.13.0+cpu, the image's CPU build",
                 "CMD serves:", "HEALTHCHECK exits 0", "the log says it computes the built-in views",
                 "SIGTERM: stopped with exit code 0"):
        assert said in done.stdout, said
