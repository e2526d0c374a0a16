"""A real PostgreSQL server for the tests of the rating studies' team database: Debian's ``postgresql`` binaries
(installed by ``make test``), a cluster of its own in a temporary folder on a free loopback port, trust
authentication, stopped when the generator is closed. Run as the ``postgres`` user when the tests run as root
(the server refuses root)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest


def _binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    if not found:
        pytest.fail("PostgreSQL is missing: run 'make test' (it installs Debian's postgresql)")
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_server():
    """Yield the URL of a fresh database ``studies`` on a new server; the server and its folder go at the end."""
    bin_dir = _binaries()
    folder = Path(tempfile.mkdtemp(prefix="stviz-pg-"))
    os.chmod(folder, 0o755)
    as_user: list[str] = []
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", _free_port()

    def run(*command: str) -> None:
        subprocess.run([*as_user, *command], check=True, capture_output=True, timeout=120)

    try:
        run(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "stviz", "--no-sync")
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(folder / "server.log"), "-w", "-t", "60",
            "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1", "start")
        run(str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "stviz", "studies")
    except subprocess.CalledProcessError as exc:
        log = (folder / "server.log").read_text() if (folder / "server.log").exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        pytest.fail(f"PostgreSQL did not start: {exc.stderr.decode(errors='replace')}{log}")
    try:
        yield f"postgresql://stviz@127.0.0.1:{port}/studies"
    finally:
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                       capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)
