"""``dashboard``: start the Streamlit dashboard (the same as ``make run``, without the set-up)."""

from __future__ import annotations

import os
import subprocess
import sys

DEFAULT_PORT = 8501


def register(sub) -> None:
    """Add the ``dashboard`` command."""
    dashboard = sub.add_parser("dashboard", help="start the dashboard in this terminal (Ctrl+C stops it)")
    dashboard.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to serve on (default: {DEFAULT_PORT})")
    dashboard.add_argument("--address", dest="server_address", default="127.0.0.1",
                           help="interface to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 for all)")
    dashboard.set_defaults(func=run_dashboard)


def dashboard_command(port: int = DEFAULT_PORT, address: str = "127.0.0.1") -> list[str]:
    """The ``streamlit run`` command line that serves stviz's app.py."""
    from stviz.cache import app_root

    return [sys.executable, "-m", "streamlit", "run", str(app_root() / "app.py"), "--server.headless", "true",
            "--server.port", str(port), "--server.address", address]


def run_dashboard(args) -> int:
    """Serve the dashboard until interrupted; the app's own Streamlit settings come from its folder."""
    from stviz.cache import app_root

    print(f"stviz: open http://{args.server_address}:{args.port} in your browser (Ctrl+C stops it)", file=sys.stderr)
    # Streamlit reads .streamlit/config.toml from the working folder: run from the app's own.
    return subprocess.call(dashboard_command(args.port, args.server_address), cwd=app_root(), env=os.environ.copy())
