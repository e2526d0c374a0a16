"""``dashboard``: serve the Streamlit dashboard, in a terminal (Ctrl+C) or as a service (SIGTERM).

Run like a service: the server is a child this command supervises. SIGTERM, SIGINT and SIGHUP are forwarded
to it and the command exits when it does, with its code (a service manager that stops the command stops the
server; the port is free again). A server still running :data:`STOP_GRACE_SECONDS` after the signal (a computation
that does not stop: Python waits for its thread pools at exit) is killed, so a stop never hangs on work in
progress; what was computed so far is in the disk cache. The child dies with this command even when it is killed outright (Linux's
parent-death signal). The server's log goes to stdout; its temporary files go to a folder of its own under
``$STVIZ_HOME/tmp``, removed when it stops (ONNX Runtime's ``.ses`` telemetry files, torch's inductor cache).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

DEFAULT_PORT = 8501
#: Seconds a stopped server has to exit by itself before it is killed (systemd's own default is 90 s; a restart
#: should not wait that long for a computation nobody will see).
STOP_GRACE_SECONDS = 10.0
HEALTH_PATH = "_stcore/health"  # Streamlit's own: "ok" once the server runs, under the base path if any
FIRST_RUN_PATH = "_stcore/script-health-check"  # runs the app's script once, in a session of its own


def register(sub) -> None:
    """Add the ``dashboard`` command."""
    dashboard = sub.add_parser(
        "dashboard", help="serve the dashboard (Ctrl+C or SIGTERM stops it)",
        description="Serve the dashboard until stopped (Ctrl+C, or SIGTERM from a service manager: the server "
                    f"stops with this command). Logs go to stdout; GET /{HEALTH_PATH} (under --base-url-path) answers "
                    "'ok' while it serves. A team's server (--team, or a --host other than loopback) hides 'Clear "
                    "cache' unless STVIZ_ALLOW_CLEAR_CACHE=1. Recipes behind a reverse proxy: docs/deploy.md.")
    dashboard.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to serve on (default: {DEFAULT_PORT})")
    dashboard.add_argument("--host", "--address", dest="server_address", default="127.0.0.1", metavar="HOST",
                           help="interface to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 for all, "
                                "which serves a team)")
    dashboard.add_argument("--base-url-path", default="", metavar="PATH",
                           help="serve under http://HOST:PORT/PATH/ (for a reverse proxy that forwards /PATH/)")
    dashboard.add_argument("--team", action="store_true",
                           help="a team's server: 'Clear cache' is hidden unless STVIZ_ALLOW_CLEAR_CACHE=1 "
                                "(implied by a --host other than loopback)")
    dashboard.add_argument("--raters-only", action="store_true",
                           help="serve rating links only (pages/9_Rating_study.py ?rate=...): every other page says "
                                "so and shows nothing; for raters outside the team's password (docs/deploy.md)")
    dashboard.set_defaults(func=run_dashboard)


def dashboard_command(port: int = DEFAULT_PORT, address: str = "127.0.0.1", base_url_path: str = "") -> list[str]:
    """The ``streamlit run`` command line that serves stviz's app.py."""
    from stviz.cache import app_root

    command = [sys.executable, "-m", "streamlit", "run", str(app_root() / "app.py"), "--server.headless", "true",
               "--server.port", str(port), "--server.address", address, "--browser.gatherUsageStats", "false",
               "--server.scriptHealthCheckEnabled", "true"]  # the first script run, asked for by start_warming
    return command + (["--server.baseUrlPath", base_url_path.strip("/")] if base_url_path.strip("/") else [])


def health_url(host: str, port: int, base_url_path: str = "") -> str:
    """Where the server says 'ok' while it serves (under the base path, as Streamlit routes it)."""
    base = base_url_path.strip("/")
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    return f"http://{shown}:{port}/{base + '/' if base else ''}{HEALTH_PATH}"


def run_dashboard(args) -> int:
    """Serve the dashboard until stopped; exits with the server's code. A taken port is one ``error:`` line."""
    from stviz.cache import app_root
    from stviz.serving import RATERS_ONLY_ENV, TEAM_ENV, is_loopback, port_problem

    host, port, base = args.server_address, args.port, args.base_url_path.strip("/")
    if problem := port_problem(host, port):
        raise ValueError(problem)  # said in one line, exit code 2, before anything starts
    env = dict(os.environ)
    if args.team or not is_loopback(host):
        env[TEAM_ENV] = "1"
    if args.raters_only:  # it computes nothing: no warming of the built-in views either
        env.update({RATERS_ONLY_ENV: "1", TEAM_ENV: "1", "STVIZ_WARM_RESULTS": "0"})
    temp = _server_temp_folder()
    env["TMPDIR"] = str(temp)
    team = (" for raters only" if args.raters_only else " as a team's server" if env.get(TEAM_ENV) == "1" else "")
    print(f"stviz: serving {health_url(host, port, base).removesuffix(HEALTH_PATH)}{team}; health check "
          f"{health_url(host, port, base)}; Ctrl+C or SIGTERM stops it", flush=True)
    # Streamlit reads .streamlit/config.toml from the working folder: run from the app's own. Its own process
    # group, so a terminal's Ctrl+C reaches it once, through this command.
    server = subprocess.Popen(dashboard_command(port, host, base), cwd=app_root(), env=env,
                              stderr=subprocess.STDOUT, process_group=0, preexec_fn=_die_with_parent)
    start_warming(server, health_url(host, port, base))
    asked = []

    def forward(signum, _frame) -> None:
        asked.append(signum)
        if len(asked) > 1:  # asked twice: stop now
            server.kill()
            return
        server.send_signal(signum)
        deadline = threading.Timer(STOP_GRACE_SECONDS, lambda: server.poll() is None and server.kill())
        deadline.daemon = True
        deadline.start()

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    try:
        code = server.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if server.poll() is None:  # this command failed while the server runs: never leave it behind
            server.kill()
            server.wait()
        shutil.rmtree(temp, ignore_errors=True)
    return code if code >= 0 else 128 - code  # killed by a signal: the shell's convention


def start_warming(server: subprocess.Popen, health: str) -> None:
    """Once the server answers its health check, ask it for its first script run (in a thread): its pool starts and
    it computes the built-in views' results before anyone visits (unless ``STVIZ_WARM_RESULTS=0``)."""
    from stviz.warmup import results_enabled

    if results_enabled():
        threading.Thread(target=_first_run, args=(server, health), name="stviz-first-run", daemon=True).start()


def _first_run(server: subprocess.Popen, health: str, tries: int = 600) -> None:
    for _ in range(tries):  # a cold start imports torch and Streamlit: up to five minutes
        if server.poll() is not None:
            return
        try:
            if urllib.request.urlopen(health, timeout=5).read() == b"ok":
                break
        except OSError:
            pass
        time.sleep(0.5)
    else:
        return
    with contextlib.suppress(OSError):  # the script runs to its end either way; its answer says nothing more
        urllib.request.urlopen(health.removesuffix(HEALTH_PATH) + FIRST_RUN_PATH, timeout=120).read()


def _server_temp_folder() -> Path:
    """A fresh temporary folder for this server under ``$STVIZ_HOME/tmp``; those of servers no longer running
    (killed outright, so never cleaned) are removed first."""
    from stviz.cache import stviz_home

    root = stviz_home() / "tmp"
    root.mkdir(parents=True, exist_ok=True)
    for old in root.glob("dashboard-*"):
        pid = old.name.removeprefix("dashboard-")
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    folder = root / f"dashboard-{os.getpid()}"
    folder.mkdir(exist_ok=True)
    return folder


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: running
        return True
    return True


def _die_with_parent() -> None:
    """In the child before it starts: Linux sends it SIGTERM when this command dies, however it dies."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no prctl: SIGTERM and SIGINT are still forwarded
            pass
