"""Is an upload on a known benchmark? Its inputs matched against every benchmark's test inputs, and its pairs
placed on the benchmark's items (direction, line), with the benchmark's styles and every one of its references.

Inputs are compared after the text-form normalisation the leaderboard applies (:func:`stviz.textform.tokenise_text`,
then case and spaces ignored), so ``It's good.`` written by a user matches the released ``it 's good .``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pandas as pd

from stviz.benchmarks import BENCHMARKS, Benchmark
from stviz.benchmarks.published import missing_corpora, official_inputs, published_pairs
from stviz.data.outputs import normalise
from stviz.data.schema import DataError, Dataset
from stviz.data.sources import corpora_dir
from stviz.textform import tokenise_text

#: Share of an upload's distinct inputs that must be a benchmark's test inputs for the upload to be placed on it.
MIN_SHARE = 0.9


def match_key(text: str) -> str:
    """An input as compared with a benchmark's: Treebank tokens, lower case, single spaces."""
    return normalise(tokenise_text(str(text)))


@dataclass(frozen=True)
class Placement:
    """An upload recognised on a benchmark: how many of the benchmark's inputs it covers, how many of its own match."""

    benchmark: Benchmark
    matched: int  # benchmark inputs (direction, line) the upload has an output for
    total: int  # benchmark inputs
    upload_inputs: int  # distinct inputs of the upload
    unmatched: int  # of those, how many are no test input

    def describe(self) -> str:
        """'the Yelp test set of Li et al. 2018: 1,000 of 1,000 inputs matched'."""
        extra = f"; {self.unmatched:,} of the upload's inputs are not in it and are left out" if self.unmatched else ""
        return f"{self.benchmark.title}: {self.matched:,} of {self.total:,} inputs matched{extra}"


def _where(benchmark: Benchmark) -> dict[str, list[tuple[str, int]]]:
    """Normalised input -> every (direction, line) holding it (remembered per benchmark and corpus state)."""
    stamp = tuple(corpora_dir().joinpath(c).stat().st_mtime_ns for c in benchmark.corpora)
    return _where_by_name(benchmark.name, stamp)


@functools.lru_cache(maxsize=8)
def _where_by_name(name: str, stamp: tuple) -> dict[str, list[tuple[str, int]]]:
    from stviz.benchmarks import get

    where: dict[str, list[tuple[str, int]]] = {}
    for d, lines in official_inputs(get(name)).items():
        for i, text in enumerate(lines):
            where.setdefault(match_key(text), []).append((d, i))
    return where


def recognise(dataset: Dataset) -> Placement | None:
    """The installed benchmark whose test inputs the dataset's inputs are (None when none fits)."""
    if dataset.pairs is None or dataset.name.startswith("benchmark-"):
        return None
    sources = pd.unique(dataset.pairs["source"].astype(str))
    keys = {match_key(s) for s in sources}
    best = None
    for benchmark in BENCHMARKS.values():
        if benchmark.obtain or missing_corpora(benchmark):
            continue
        where = _where(benchmark)
        found = sum(k in where for k in keys)
        if found < MIN_SHARE * len(keys) or not found:
            continue
        placed = place(benchmark, dataset)
        covered = placed[["direction", "line"]].drop_duplicates().shape[0]
        candidate = Placement(benchmark, covered, sum(len(v) for v in where.values()), len(keys), len(keys) - found)
        if best is None or candidate.matched > best.matched:
            best = candidate
    return best


def place(benchmark: Benchmark, dataset: Dataset) -> pd.DataFrame:
    """The dataset's pairs on the benchmark's items: official source, direction, line, styles and references.

    An input found in several directions (captions: one factual caption made romantic and humorous) is placed by
    the pair's target style, else its direction name; pairs whose input is no test input are left out.
    """
    where = _where(benchmark)
    published = published_pairs(benchmark).pairs
    refs = published.drop_duplicates(["direction", "line"]).set_index(["direction", "line"])
    columns = published_pairs(benchmark).reference_columns
    pairs = dataset.pairs
    rows, seen = [], {}
    for index, row in pairs.iterrows():
        key = match_key(row["source"])
        spots = where.get(key, [])
        if len(spots) > 1:
            spots = _disambiguate(benchmark, spots, row)
        if not spots:
            continue
        # An input repeated in the test set: a system's k-th output for it goes to its k-th line.
        seen_key = (row.get("system", ""), key, tuple(spots))
        count = seen[seen_key] = seen.get(seen_key, -1) + 1
        d, line = spots[min(count, len(spots) - 1)]
        rows.append({"pair": index, "direction": d, "line": line})
    if not rows:
        raise DataError(f"none of the upload's inputs is in {benchmark.title}")
    spots = pd.DataFrame(rows)
    inputs = official_inputs(benchmark)
    out = pd.DataFrame({
        "source": [inputs[d][i] for d, i in zip(spots["direction"], spots["line"])],
        "output": pairs.loc[spots["pair"], "output"].astype(str).to_numpy(),
        "system": pairs.loc[spots["pair"], "system"].astype(str).to_numpy() if "system" in pairs else dataset.name,
        "direction": spots["direction"].to_numpy(), "line": spots["line"].to_numpy(),
    })
    out["source_style"] = out["direction"].map(lambda d: benchmark.directions[d][0])
    out["target_style"] = out["direction"].map(lambda d: benchmark.directions[d][1])
    keyed = refs.reindex(pd.MultiIndex.from_arrays([out["direction"], out["line"]]))
    for column in columns:
        out[column] = keyed[column].to_numpy()
    return out


def _disambiguate(benchmark: Benchmark, spots: list[tuple[str, int]], row: pd.Series) -> list[tuple[str, int]]:
    target = str(row.get("target_style", "") or "").strip().lower()
    by_style = [s for s in spots if benchmark.directions[s[0]][1] == target]
    if by_style:
        return by_style
    direction = str(row.get("direction", "") or "")
    by_name = [s for s in spots if s[0] == direction or direction.startswith(s[0] + "-")]
    return by_name or spots[:1]


__all__ = ["MIN_SHARE", "Placement", "match_key", "place", "recognise"]
