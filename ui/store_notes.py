"""A damaged per-pair store set aside (:mod:`stviz.cache.pair_values`), said on the page once.

The store says so in a log warning, which the command line prints on stderr; a dashboard has no stderr to read.
Here a logging handler (installed by :func:`ui.page_setup`, before any view computes) keeps those warnings for the
server's pages, and :func:`take` hands each one out once: the sidebar's cache panel takes what happened before a
page's run (a background run, another session), and ``ui.show_notes`` what the page's own run found.
"""

from __future__ import annotations

import logging
from pathlib import Path

#: The logger of :mod:`stviz.cache.pair_values` (the per-pair values and the LLM judgments' store).
LOGGER = "stviz.cache.pair_values"


class _Kept(logging.Handler):
    """Keeps each set-aside warning once (``emit`` runs under the handler's lock, ``take`` takes it too)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.pending: list[str] = []
        self.said: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        if "set aside" not in str(record.msg):  # a store that could not be read or written is not news for the page
            return
        message = record.getMessage()
        if message not in self.said:
            self.said.add(message)
            self.pending.append(message)


_handler = _Kept()


def install() -> None:
    """Keep the store's set-aside warnings from now on (once per process: calling again changes nothing)."""
    logger = logging.getLogger(LOGGER)
    if _handler not in logger.handlers:
        logger.addHandler(_handler)


def take(root: str | Path | None = None) -> list[str]:
    """The set-aside warnings not yet said about stores under ``root`` (the server's cache folder by default),
    each once, as logged (lower case, no full stop: a note); those about other folders are dropped."""
    if root is None:
        from stviz.cache import default_cache

        root = default_cache().root
    _handler.acquire()
    try:
        out, _handler.pending = _handler.pending, []
    finally:
        _handler.release()
    return [m for m in out if str(root) in m]


__all__ = ["LOGGER", "install", "take"]
