"""Models and resources shared by every session of one process, made safe to use from many threads.

Streamlit runs each browser session's script in its own thread, and one process keeps one copy of
each model (loading MiniLM or spaCy per session would be slow and costly). Two things then go
wrong without care:

* two sessions asking for a model at once both load it (and a half-built resource, such as the
  WordNet copy built from Debian's files, can be seen by the other);
* several libraries keep per-call state inside the shared object: NLTK's WordNet reader seeks and
  reads shared file handles (two threads get each other's lines: ``'NoneType' object has no
  attribute 'lemmas'``), Hugging Face fast tokenizers refuse concurrent reconfiguration
  ("Already borrowed"), captum registers hooks on the model for the duration of an attribution.

:func:`load_once` makes a loader run once per argument tuple even when called from many threads at
once; :func:`exclusive` gives the lock under which one shared object is used by one thread at a
time. A lock, not a copy per thread: the machines this runs on have two cores, so running the same
model in parallel gains little, while a copy per session would multiply memory.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_locks: dict[int, tuple[Any, threading.RLock]] = {}
_locks_guard = threading.Lock()


def load_once(maxsize: int = 4) -> Callable[[F], F]:
    """Like ``functools.lru_cache``, but concurrent first calls with the same arguments load once."""

    def wrap(loader: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize)(loader)
        guard = threading.RLock()  # re-entrant: a loader may call another loaded-once function

        @functools.wraps(loader)
        def load(*args, **kwargs):
            with guard:
                return cached(*args, **kwargs)

        load.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        load.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return load  # type: ignore[return-value]

    return wrap


def exclusive(obj: object) -> threading.RLock:
    """The lock under which the shared object ``obj`` is used by one thread at a time (one per object)."""
    with _locks_guard:
        entry = _locks.get(id(obj))
        if entry is None or entry[0] is not obj:  # ids are reused after an object dies: keep the object alive
            entry = _locks[id(obj)] = (obj, threading.RLock())
        return entry[1]
