"""docs/deploy.md's recipes: its nginx block, run as written (on loopback ports, with a password file of the test's
own) in front of `stviz dashboard --base-url-path`; the container's command parses."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from browserkit import ROOT, _free_port, serving

DEPLOY = ROOT / "docs" / "deploy.md"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _block(language: str) -> str:
    match = re.search(rf"```{language}\n(.*?)```", DEPLOY.read_text(), re.S)
    assert match, f"docs/deploy.md has no {language} block"
    return match.group(1)


def _htpasswd(path: Path, user: str, password: str) -> None:
    """A password file as `htpasswd` writes one, in nginx's salted-SHA scheme (RFC 2307 {SSHA})."""
    salt = os.urandom(8)
    digest = base64.b64encode(hashlib.sha1(password.encode() + salt).digest() + salt).decode()
    path.write_text(f"{user}:{{SSHA}}{digest}\n")


def _get(url: str, auth: tuple[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url)
    if auth:
        request.add_header("Authorization", "Basic " + base64.b64encode(":".join(auth).encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


def _websocket_status(port: int, path: str, auth: tuple[str, str]) -> str:
    """The status line nginx answers a websocket handshake with (the page's connection to the server)."""
    key = base64.b64encode(os.urandom(16)).decode()
    token = base64.b64encode(":".join(auth).encode()).decode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Basic {token}\r\n\r\n")
                     .encode())
        return conn.recv(4096).decode("latin-1").split("\r\n")[0]


def test_the_nginx_recipe_asks_for_a_password_and_proxies_the_dashboard(tmp_path):
    if not os.path.exists(NGINX):
        pytest.fail("nginx is missing: run 'make test' (it installs Debian's nginx)")
    stviz = Path(sys.executable).with_name("stviz")
    app_port, proxy_port = _free_port(), _free_port()
    dashboard = subprocess.Popen([stviz, "dashboard", "--port", str(app_port), "--base-url-path", "stviz", "--team"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    rate_port = _free_port()  # the raters' server of the same recipe
    raters = subprocess.Popen([stviz, "dashboard", "--raters-only", "--port", str(rate_port), "--base-url-path", "rate"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    _htpasswd(tmp_path / "stviz.htpasswd", "alice", "s3cret")
    site = (_block("nginx").replace("listen 80;", f"listen 127.0.0.1:{proxy_port};")
            .replace("127.0.0.1:8501", f"127.0.0.1:{app_port}").replace("127.0.0.1:8502", f"127.0.0.1:{rate_port}")
            .replace("/etc/nginx/stviz.htpasswd", str(tmp_path / "stviz.htpasswd"))
            .replace("/var/log/nginx/stviz-access.log", str(tmp_path / "stviz-access.log")))
    temp = {name: tmp_path / name for name in ("client", "proxy", "fastcgi", "uwsgi", "scgi")}
    for folder in temp.values():
        folder.mkdir()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        ("user root;\n" if os.geteuid() == 0 else "")  # a root master's workers would run as nobody
        + f"pid {tmp_path / 'nginx.pid'};\nerror_log {tmp_path / 'error.log'};\nevents {{}}\nhttp {{\n"
        f"access_log {tmp_path / 'access.log'};\nclient_body_temp_path {temp['client']};\n"
        f"proxy_temp_path {temp['proxy']};\nfastcgi_temp_path {temp['fastcgi']};\nuwsgi_temp_path {temp['uwsgi']};\n"
        f"scgi_temp_path {temp['scgi']};\n{site}\n}}\n")
    nginx = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    proxy = f"http://127.0.0.1:{proxy_port}/stviz"
    try:
        assert serving(f"http://127.0.0.1:{app_port}/stviz"), "stviz dashboard did not serve"
        assert serving(proxy), f"nginx did not proxy the health URL: {(tmp_path / 'error.log').read_text()}"
        assert _get(f"{proxy}/")[0] == 401  # no password, no page
        assert _get(f"{proxy}/", ("alice", "wrong"))[0] == 401
        status, page = _get(f"{proxy}/", ("alice", "s3cret"))
        assert status == 200 and b"<html" in page.lower()
        assert _get(f"{proxy}/_stcore/health") == (200, b"ok")  # the monitor's URL needs no password
        assert " 101 " in _websocket_status(proxy_port, "/stviz/_stcore/stream", ("alice", "s3cret"))
        # Raters reach their server without the password (what it shows: tests/test_pages_study.py).
        assert serving(f"http://127.0.0.1:{proxy_port}/rate")
        status, page = _get(f"http://127.0.0.1:{proxy_port}/rate/Rating_study?rate=x")
        assert status == 200 and b"<html" in page.lower()
        assert " 101 " in _websocket_status(proxy_port, "/rate/_stcore/stream", ("nobody", ""))
        _get(f"http://127.0.0.1:{proxy_port}/rate/Rating_study?rate=SECRET-TOKEN")
        _get(f"{proxy}/Rating_study?own=OWNER-TOKEN", ("alice", "s3cret"))
        log = (tmp_path / "stviz-access.log").read_text()
        assert "/rate/Rating_study" in log and "TOKEN" not in log  # requests logged, tokens never
    finally:
        nginx.terminate()
        nginx.wait(30)
        for server in (dashboard, raters):
            server.terminate()
            server.wait(60)


def test_the_containers_command_is_one_stviz_dashboard_takes():
    from stviz.cli import build_parser

    dockerfile = _block("dockerfile")
    command = re.search(r'^CMD (\[.*\])$', dockerfile, re.M).group(1)
    argv = [part.strip().strip('"') for part in command.strip("[]").split(",")]
    assert argv[0] == "stviz"
    args = build_parser().parse_args(argv[1:])
    assert (args.server_address, args.port, args.base_url_path) == ("0.0.0.0", 8501, "stviz")
    assert "-r requirements.txt" in dockerfile  # on the lock
    health = re.search(r"^HEALTHCHECK CMD (.*)$", dockerfile, re.M).group(1)
    assert "/stviz/_stcore/health" in shlex.split(health)[-1]
