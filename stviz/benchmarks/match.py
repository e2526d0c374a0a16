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
from stviz.data.corpora.sources import corpora_dir
from stviz.data.released.outputs import align_inputs, normalise
from stviz.data.schema import DataError, Dataset
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
    by_position: int = 0  # inputs written differently (a model's <unk>), placed by their line

    def describe(self) -> str:
        """'the Yelp test set of Li et al. 2018: 1,000 of 1,000 inputs matched'."""
        extra = f"; {self.unmatched:,} of the upload's inputs are not in it and are left out" if self.unmatched else ""
        if self.by_position:
            extra = f" ({self.by_position:,} of them by line: their text differs, e.g. <unk> for a rare word)" + extra
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
    """The installed benchmark whose test inputs an uploaded dataset's inputs are (None when none fits).

    A built-in corpus is never placed: Li et al.'s own outputs (li2018-yelp) are among the published systems
    already, and would be compared with themselves (``leaderboard --benchmark NAME`` still places one on request).
    """
    from stviz.data import DATASET_NAMES

    if dataset.pairs is None or dataset.name.startswith("benchmark-") or dataset.name in DATASET_NAMES:
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
        by_position = placed.loc[placed["by_position"], ["direction", "line"]].drop_duplicates().shape[0]
        placed_keys = {match_key(s) for s in dataset.pairs.loc[placed["pair"], "source"].astype(str)}
        candidate = Placement(benchmark, covered, sum(len(v) for v in where.values()), len(keys),
                              len(keys - placed_keys), by_position)
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
    rows = []
    for _, group in pairs.groupby([c for c in ("system", "direction") if c in pairs] or (lambda _: 0), sort=False):
        rows += _place_group(benchmark, where, group)
    placed = {index for r in rows for index in [r["pair"]]}
    if len(placed) < MIN_SHARE * len(pairs):
        raise DataError(f"{len(placed):,} of the upload's {len(pairs):,} pairs have an input of {benchmark.title}; "
                        f"place it on a benchmark whose test inputs it was run on (--benchmark auto finds it)")
    spots = pd.DataFrame(rows)
    inputs = official_inputs(benchmark)
    out = pd.DataFrame({
        "source": [inputs[d][i] for d, i in zip(spots["direction"], spots["line"])],
        "output": pairs.loc[spots["pair"], "output"].astype(str).to_numpy(),
        "system": pairs.loc[spots["pair"], "system"].astype(str).to_numpy() if "system" in pairs else dataset.name,
        "direction": spots["direction"].to_numpy(), "line": spots["line"].to_numpy(),
        # Where each row came from and how it was placed (dropped before the board is computed).
        "pair": spots["pair"].to_numpy(), "by_position": spots["by_position"].to_numpy(dtype=bool),
    })
    out["source_style"] = out["direction"].map(lambda d: benchmark.directions[d][0])
    out["target_style"] = out["direction"].map(lambda d: benchmark.directions[d][1])
    keyed = refs.reindex(pd.MultiIndex.from_arrays([out["direction"], out["line"]]))
    for column in columns:
        out[column] = keyed[column].to_numpy()
    return out


def _place_group(benchmark: Benchmark, where: dict, group: pd.DataFrame) -> list[dict]:
    """One system's rows (of one direction when the upload has them) on the benchmark's (direction, line).

    When the rows' inputs are one direction's test inputs, they are aligned as released files are
    (:func:`stviz.data.released.outputs.align_inputs`: by text, and an input written differently, such as a model's
    ``<unk>`` for a rare word, by its position); otherwise each row is placed by its own input.
    """
    keys = [match_key(s) for s in group["source"]]
    votes = pd.Series([d for k in keys for d in {d for d, _ in where.get(k, [])}], dtype=object).value_counts()
    inputs = official_inputs(benchmark)
    if len(votes) and votes.iloc[0] >= MIN_SHARE * len(keys) and (len(votes) == 1 or votes.iloc[1] < votes.iloc[0]):
        d = votes.index[0]
        alignment = align_inputs([match_key(t) for t in inputs[d]], keys, len(keys))
        return [{"pair": group.index[r], "direction": d, "line": i, "by_position": i in alignment.differing}
                for i, r in enumerate(alignment.rows) if r is not None]
    rows, seen = [], {}
    for index, key, (_, row) in zip(group.index, keys, group.iterrows()):
        spots = where.get(key, [])
        if len(spots) > 1:
            spots = _disambiguate(benchmark, spots, row)
        if not spots:
            continue
        # An input repeated in the test set: the k-th output for it goes to its k-th line.
        count = seen[tuple(spots)] = seen.get(tuple(spots), -1) + 1
        d, line = spots[min(count, len(spots) - 1)]
        rows.append({"pair": index, "direction": d, "line": line, "by_position": False})
    return rows


def _disambiguate(benchmark: Benchmark, spots: list[tuple[str, int]], row: pd.Series) -> list[tuple[str, int]]:
    target = str(row.get("target_style", "") or "").strip().lower()
    by_style = [s for s in spots if benchmark.directions[s[0]][1] == target]
    if by_style:
        return by_style
    direction = str(row.get("direction", "") or "")
    by_name = [s for s in spots if s[0] == direction or direction.startswith(s[0] + "-")]
    return by_name or spots[:1]


__all__ = ["MIN_SHARE", "Placement", "match_key", "place", "recognise"]
