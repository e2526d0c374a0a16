"""The Dockerfile's steps, run where no Docker engine runs: a fresh virtualenv in a temporary folder stands for the image.

    python tools/container_check.py

Reads ./Dockerfile and .dockerignore and does on this machine what each instruction does in an image:

- ``FROM python:X.Y-...``: this Python must be X.Y (the virtualenv is made from it).
- ``WORKDIR``, ``COPY``: the build context, less what .dockerignore leaves out (Docker's rules: a pattern excludes a
  path or any folder above it, ``**/`` any depth, ``!`` an exception), copied into the work folder.
- ``RUN``: each command between ``&&`` in turn. ``pip install ...`` runs in the virtualenv, from the package index as
  the image's does, but without byte-compiling what it installs (the image keeps that, the check has no use for it);
  PyTorch's CPU index is left out because this machine's pip finds the same wheel on disk (torch 2.13.0+cpu, checked
  once installed). ``apt-get install PKGS``: each package must be installed here (``make
  test`` installs them). ``mkdir DIR`` makes it. ``apt-get update``, ``rm -rf /var/lib/apt/lists/*``, ``useradd``
  and ``chown`` have nothing to do here (the check runs as its own user). Any other command fails the check: teach
  this script what it does first.
- ``ENV``: the server's environment; every absolute path the Dockerfile names (``/data``) maps to a temporary folder.
- ``CMD``: started on a free port; it must answer its health URL, ``HEALTHCHECK``'s command must exit 0, and its log
  must say it is computing the built-in views; then SIGTERM must stop it (exit code 0 within 30 s, the port free, no
  process of it left).

Prints each step with its seconds; exit code 0 when every step passed, 1 with the failing step's reason.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: PyTorch's CPU wheels: in the image, where torch 2.13.0+cpu comes from; here, pip's own configuration has it.
TORCH_INDEX = ("--extra-index-url", "https://download.pytorch.org/whl/cpu")
TORCH_BUILD = "2.13.0+cpu"
#: Commands that change nothing this check can see: the image's package lists, users and owners.
NOTHING_TO_DO = ("apt-get update", "rm -rf /var/lib/apt/lists/*", "useradd ", "chown ")
STOP_SECONDS = 30.0


class StepFailed(Exception):
    """A step of the Dockerfile did not do here what it does in an image."""


def instructions(text: str) -> list[tuple[str, str]]:
    """(KEYWORD, argument) of each instruction, continuation lines joined, comments left out."""
    joined = re.sub(r"\\\n\s*", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    return [(keyword.upper(), argument.strip()) for keyword, _, argument in
            (line.strip().partition(" ") for line in joined.splitlines() if line.strip())]


def ignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore's ``patterns`` leave ``path`` (relative, with /) out of the build context."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    out = False
    for pattern in patterns:
        exception = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/")
        candidates = [pattern] + ([pattern[3:]] if pattern.startswith("**/") else [])
        if any(fnmatch.fnmatchcase(prefix, p) for prefix in prefixes for p in candidates):
            out = not exception
    return out


def read_ignore(root: Path) -> list[str]:
    """The patterns of ``root/.dockerignore`` (none when it is missing)."""
    path = root / ".dockerignore"
    if not path.exists():
        return []
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def copy_context(root: Path, target: Path, patterns: list[str], source: str = ".") -> int:
    """Docker's ``COPY source target`` from the build context at ``root``, less what ``patterns`` leave out; how many
    files were copied."""
    start = (root / source).resolve()
    if start.is_file():
        target = target / start.name if target.is_dir() else target
        shutil.copy2(start, target)
        return 1
    copied = 0
    for folder, dirs, files in os.walk(start):
        relative = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if not ignored((relative / d).as_posix().removeprefix("./"), patterns)]
        for name in files:
            rel = (relative / name).as_posix().removeprefix("./")
            if not ignored(rel, patterns):
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / rel, target / rel)
                copied += 1
    return copied


class Image:
    """What the Dockerfile builds, in a temporary folder: a virtualenv, a work folder, the environment, the paths."""

    def __init__(self, base: Path):
        self.base, self.venv = base, base / "venv"
        self.workdir = self.map("/")
        self.env: dict[str, str] = {}
        self.healthcheck: str | None = None
        self.command: list[str] | None = None
        self.patterns = read_ignore(ROOT)

    def map(self, path: str) -> Path:
        """Where an absolute path of the image is here."""
        return self.base / "root" / path.lstrip("/")

    def mapped(self, value: str) -> str:
        """An ENV value as it is here: an absolute path of the image is its folder here."""
        return str(self.map(value)) if value.startswith("/") else value

    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    def run(self, keyword: str, argument: str) -> str:
        """Do one instruction; returns what was done, for the log."""
        handler = getattr(self, f"do_{keyword.lower()}", None)
        if handler is None:
            raise StepFailed(f"{keyword} is not handled by this check: teach tools/container_check.py what it does")
        return handler(argument)

    def do_from(self, argument: str) -> str:
        wanted = re.match(r"python:(\d+\.\d+)", argument)
        here = f"{sys.version_info.major}.{sys.version_info.minor}"
        if not wanted or wanted.group(1) != here:
            raise StepFailed(f"FROM {argument}: this check runs Python {here}")
        subprocess.run([sys.executable, "-m", "venv", str(self.venv)], check=True)
        return f"a fresh virtualenv on Python {here} stands for {argument}"

    def do_workdir(self, argument: str) -> str:
        self.workdir = self.map(argument)
        self.workdir.mkdir(parents=True, exist_ok=True)
        return f"work folder {self.workdir}"

    def do_copy(self, argument: str) -> str:
        *sources, target = shlex.split(argument)  # Docker's COPY SOURCE... TARGET
        count = sum(copy_context(ROOT, (self.workdir / target).resolve(), self.patterns, source) for source in sources)
        return (f"copied {' '.join(sources)} ({count} file{'s' if count != 1 else ''}; .dockerignore applied) into "
                f"{self.workdir}")

    def do_run(self, argument: str) -> str:
        return "; ".join(self.shell(command.strip()) for command in argument.split("&&"))

    def shell(self, command: str) -> str:
        """One command of a RUN, as this machine can stand for it."""
        if command.startswith(NOTHING_TO_DO):
            return f"'{command}': nothing to do here"
        words = shlex.split(command)
        if words[:2] == ["apt-get", "install"]:
            return self.installed_here([w for w in words[2:] if not w.startswith("-")])
        if words[:2] == ["pip", "install"]:
            return self.pip(words[2:])
        if words[0] == "mkdir":
            for folder in words[1:]:
                self.map(folder).mkdir(parents=True, exist_ok=True)
            return f"made {' '.join(words[1:])}"
        raise StepFailed(f"RUN '{command}': this check does not know what it does: teach tools/container_check.py")

    def installed_here(self, packages: list[str]) -> str:
        for package in packages:
            status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
            if status.stdout.strip() != "install ok installed":
                raise StepFailed(f"the Debian package {package} is not installed here (make test installs it)")
        return f"Debian packages installed here: {' '.join(packages)}"

    def pip(self, args: list[str]) -> str:
        text = " ".join(args)
        if " ".join(TORCH_INDEX) in text:  # this machine's pip configuration finds the same CPU wheel
            at = args.index(TORCH_INDEX[0])
            args = args[:at] + args[at + 2:]
        started = time.monotonic()
        # --no-compile: the image byte-compiles what it installs; here that is half of the step's time (47 s of 90 s
        # for requirements.txt) and changes nothing this check looks at: the same files are installed, and Python
        # compiles what the server imports when it imports it.
        done = subprocess.run([self.python(), "-m", "pip", "install", "--disable-pip-version-check", "--no-compile",
                               *args], cwd=self.workdir, env=_clean_env(), capture_output=True, text=True)
        if done.returncode:
            raise StepFailed(f"pip install {' '.join(args)} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
        return f"pip install {' '.join(args)} ({time.monotonic() - started:.0f} s; not byte-compiled here)"

    def do_user(self, argument: str) -> str:
        return f"USER {argument}: this check runs as its own user"

    def do_env(self, argument: str) -> str:
        name, _, value = argument.partition("=")
        self.env[name.strip()] = self.mapped(value.strip())
        return f"{name.strip()}={self.env[name.strip()]}"

    def do_volume(self, argument: str) -> str:
        self.map(argument).mkdir(parents=True, exist_ok=True)
        return f"volume {argument} is {self.map(argument)}"

    def do_expose(self, argument: str) -> str:
        return f"port {argument} (a free port here)"

    def do_healthcheck(self, argument: str) -> str:
        self.healthcheck = argument.removeprefix("CMD").strip()
        return "health check kept for the running server"

    def do_cmd(self, argument: str) -> str:
        self.command = json.loads(argument)
        return "command kept: " + " ".join(self.command)


def _clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This machine's environment without what points into a checkout or another virtualenv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return {**env, **(extra or {})}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(image: Image, say) -> None:
    """Start the image's command on a free port; healthy, its health check passing, warming; then a clean SIGTERM."""
    port = str(_free_port())
    argv = [str(image.venv / "bin" / image.command[0]), *(port if a == "8501" else a for a in image.command[1:])]
    base = next((image.command[i + 1] for i, a in enumerate(image.command) if a == "--base-url-path"), "")
    health = f"http://127.0.0.1:{port}/{base + '/' if base else ''}_stcore/health"
    home = image.base / "home"
    home.mkdir(exist_ok=True)
    # The image's environment: its ENV over a bare system's, the virtualenv first on PATH (as pip's base image has).
    env = {"PATH": f"{image.venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
           **image.env}
    log_path = image.base / "server.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(argv, cwd=image.workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            started = time.monotonic()
            _wait(lambda: _answers(health), 300, "the server never answered its health URL", server, log_path)
            say(f"CMD serves: {health} says ok after {time.monotonic() - started:.0f} s")
            check = image.healthcheck.replace("8501", port)
            done = subprocess.run(["sh", "-c", check], env=env, capture_output=True, text=True, timeout=60)
            if done.returncode:
                raise StepFailed(f"HEALTHCHECK exited {done.returncode}: {done.stderr[-1000:]}")
            say("HEALTHCHECK exits 0")
            _wait(lambda: "stviz: warming:" in log_path.read_text(), 180,
                  "the server never said it computes the built-in views", server, log_path)
            say("the log says it computes the built-in views: " + next(
                line for line in log_path.read_text().splitlines() if line.startswith("stviz: warming:")))
        finally:
            stopped = time.monotonic()
            server.send_signal(signal.SIGTERM)
            try:
                code = server.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                server.kill()
                raise StepFailed(f"SIGTERM: still running after {STOP_SECONDS:.0f} s") from None
    if code != 0:
        raise StepFailed(f"SIGTERM: exit code {code}\n{log_path.read_text()[-3000:]}")
    for _ in range(10):  # the worker processes get their parent-death signal as the server ends
        if not (left := _processes_of(image.venv)):
            break
        time.sleep(0.5)
    if _answers(health) or left:
        raise StepFailed(f"SIGTERM: the port still answers or processes are left: {left}")
    say(f"SIGTERM: stopped with exit code 0 in {time.monotonic() - stopped:.1f} s, nothing left running")


def _answers(url: str) -> bool:
    try:
        return urllib.request.urlopen(url, timeout=3).read() == b"ok"
    except OSError:
        return False


def _wait(condition, seconds: float, failure: str, server: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if server.poll() is not None or time.monotonic() > deadline:
            raise StepFailed(f"{failure}\n{log_path.read_text()[-3000:]}")
        time.sleep(1)


def _processes_of(venv: Path) -> list[str]:
    """Command lines of the processes still running from the virtualenv (the server and its workers)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(venv) in command:
            found.append(command.strip()[:200])
    return found


def check(say=print) -> None:
    """Every instruction of the Dockerfile in turn, then its command served and stopped (StepFailed on the first
    that fails)."""
    with tempfile.TemporaryDirectory(prefix="stviz-container-") as folder:
        image = Image(Path(folder))
        for keyword, argument in instructions((ROOT / "Dockerfile").read_text()):
            started = time.monotonic()
            done = image.run(keyword, argument)
            say(f"{keyword}: {done} [{time.monotonic() - started:.0f} s]")
        version = subprocess.run([image.python(), "-c", "import torch; print(torch.__version__)"], env=_clean_env(),
                                 capture_output=True, text=True).stdout.strip()
        if version != TORCH_BUILD:
            raise StepFailed(f"torch {version} was installed, not the image's CPU build {TORCH_BUILD}")
        say(f"torch {version}, the image's CPU build")
        serve(image, say)


def main() -> int:
    started = time.monotonic()
    try:
        check(lambda line: print(line, flush=True))
    except StepFailed as exc:
        print(f"FAILED: {exc}", flush=True)
        return 1
    print(f"every step of the Dockerfile passed ({time.monotonic() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
