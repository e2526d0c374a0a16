"""One module per view: the rules shared by the pages and the command line.

Each module (see :mod:`stviz.analyses.base` for the contract) declares its ``Options`` once, says
whether it ``applies_to`` a dataset, and ``run``\\ s the computation into a ``Result`` that the page
draws and the CLI prints. Pages and CLI commands import these modules, never the computation
modules behind them, so the two can never prepare inputs differently.
"""

from __future__ import annotations

#: Analysis modules in the order the dashboard lists its views.
ANALYSES = ("similarity", "embedding_map", "metrics_vs_humans", "failure_cases", "attributions", "tradeoffs",
            "leaderboard", "meta_evaluation", "blind_spots")

