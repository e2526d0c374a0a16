"""stviz: explore how text style transfer is evaluated.

The computation library behind the dashboard and the command line, and its Python API for notebooks
(docs/python.md): the names in ``__all__`` are the stable surface; every other module is internal.

    import stviz
    ds = stviz.open("demo")                  # a built-in name, a file, a folder of outputs, or a DataFrame
    table = stviz.correlate(ds, metrics=("bleu", "chrf"))
    table.attrs["notes"], table.attrs["language"]

Nothing here is imported until it is used (the dashboard and the command line import this package too), and
nothing in this package imports streamlit: pages call into it, never the other way round.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: Each name of the API and the module that defines it (imported on first use).
_API = {
    "open": "stviz.api.intake", "metric_scores": "stviz.api.verbs", "correlate": "stviz.api.verbs",
    "failures": "stviz.api.verbs", "leaderboard": "stviz.api.verbs", "tradeoffs": "stviz.api.verbs",
    "blindspots": "stviz.api.verbs", "style_similarity": "stviz.api.verbs", "embedding_map": "stviz.api.verbs",
    "meta_evaluate": "stviz.api.verbs", "study": "stviz.api.studies", "DataError": "stviz.data.schema",
    "Dataset": "stviz.data.schema",
}

__all__ = ["DataError", "Dataset", "blindspots", "correlate", "embedding_map", "failures", "figures", "leaderboard",
           "meta_evaluate", "metric_scores", "open", "study", "style_similarity", "tradeoffs", "__version__"]


def __getattr__(name: str) -> Any:
    """The API's names, imported when first asked for (``import stviz`` alone loads nothing else)."""
    if name == "figures":
        return importlib.import_module("stviz.figures")
    if name in _API:
        value = getattr(importlib.import_module(_API[name]), name)
        globals()[name] = value  # asked once
        return value
    raise AttributeError(f"module 'stviz' has no attribute '{name}'")


def __dir__() -> list[str]:
    """The API's names beside the module's own."""
    return sorted(set(globals()) | set(__all__))
