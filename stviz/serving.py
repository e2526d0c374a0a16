"""How the dashboard is served: on one's own machine, or as a team's server (``stviz dashboard --team``).

A team's server is used by people who do not run it: what only its operator should do (clearing the cache
everyone shares) is hidden from the page unless the operator allows it. The decision is made here, once, for
the command that starts the server and for the page that reads it.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import socket

TEAM_ENV = "STVIZ_TEAM"  # set by `stviz dashboard` for the server it starts: "1" when it serves a team
CLEAR_ENV = "STVIZ_ALLOW_CLEAR_CACHE"
#: Set by `stviz dashboard --raters-only`: a server that shows rating links and nothing else (docs/deploy.md).
RATERS_ONLY_ENV = "STVIZ_RATERS_ONLY"
_NO = ("0", "false", "no", "off")


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine (127.0.0.1, ::1, localhost)."""
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: whatever it resolves to, others may reach it
        return False


def team_server(host: str | None = None) -> bool:
    """Whether this dashboard serves a team: ``$STVIZ_TEAM`` set (``--team``), or listening beyond this machine."""
    flag = os.environ.get(TEAM_ENV, "").strip().lower()
    if flag:
        return flag not in _NO
    return host is not None and not is_loopback(host)


def raters_only() -> bool:
    """Whether this server only takes answers to rating studies (the raters' server, reachable without a password)."""
    return os.environ.get(RATERS_ONLY_ENV, "").strip().lower() not in ("", *_NO)


def clearing_allowed(host: str | None = None) -> bool:
    """Whether visitors may clear the cache: ``$STVIZ_ALLOW_CLEAR_CACHE`` when set, else on one's own machine only
    (a team's server hides it: clearing costs everyone hours of computation)."""
    flag = os.environ.get(CLEAR_ENV, "").strip().lower()
    if flag:
        return flag not in _NO
    return not team_server(host)


def port_problem(host: str, port: int) -> str | None:
    """Why the dashboard cannot listen on ``host:port`` (the port taken, the address not here), or None.

    Bound the way the server binds (SO_REUSEADDR), so a port left in TIME_WAIT by a stopped server is free.
    """
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"the address '{host}' cannot be resolved ({exc.strerror})"
    failures = []
    for family, kind, proto, _, address in infos:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
                probe.listen(1)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} is already in use on {host} (another server is running: stop it or choose --port)"
            failures.append(exc)
    # 'localhost' may also name ::1 on a machine without IPv6: one address that works is enough.
    return f"cannot listen on {host}:{port} ({failures[0].strerror})" if len(failures) == len(infos) else None


__all__ = ["CLEAR_ENV", "TEAM_ENV", "clearing_allowed", "is_loopback", "port_problem", "team_server"]
