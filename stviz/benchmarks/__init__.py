"""Standard TST benchmarks, one card each: test inputs, references, directions and styles, the released outputs of
every published system known on it (repository, file, licence) and the numbers the papers reported.

``get(NAME)`` returns a card; :mod:`stviz.benchmarks.published` reads a card's files into pairs;
:mod:`stviz.benchmarks.match` recognises an upload whose inputs are a benchmark's test inputs. A new benchmark is a
new module with one :class:`~stviz.benchmarks.card.Benchmark` added to :data:`BENCHMARKS`.
"""

from __future__ import annotations

from stviz.benchmarks.card import Benchmark, PublishedSystem, ReleasedScore, Reported
from stviz.benchmarks.gyafc import GYAFC
from stviz.benchmarks.li2018_domains import AMAZON, CAPTIONS
from stviz.benchmarks.russe import RUSSE_DETOX
from stviz.benchmarks.russe_test import RUSSE_TEST
from stviz.benchmarks.style_transformer import IMDB
from stviz.benchmarks.yelp import YELP
from stviz.data.schema import DataError

BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (YELP, AMAZON, CAPTIONS, IMDB, RUSSE_DETOX, RUSSE_TEST, GYAFC)}


def get(name: str) -> Benchmark:
    """The card called ``name``; a DataError naming the known ones otherwise."""
    if name not in BENCHMARKS:
        raise DataError(f"unknown benchmark '{name}'; known: {', '.join(BENCHMARKS)}")
    return BENCHMARKS[name]


__all__ = ["BENCHMARKS", "Benchmark", "PublishedSystem", "ReleasedScore", "Reported", "get"]
