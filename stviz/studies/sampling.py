"""Which outputs a study shows: inputs drawn evenly from every transfer direction, each with every chosen
system's output, seeded so that the same choices draw the same items."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from stviz.data.schema import DataError, Dataset

#: The pair columns an item carries to the rater's screen and back into the study's dataset.
ITEM_COLUMNS = ("source", "output", "system", "source_style", "target_style", "language", "reference")


def study_systems(dataset: Dataset) -> list[str]:
    """The systems a study can draw from (one unnamed system when the pairs carry no system column)."""
    if dataset.pairs is None:
        raise DataError(f"'{dataset.title}' holds no system outputs (no pairs): a rating study rates outputs")
    if "system" not in dataset.pairs:
        return ["(outputs)"]
    return sorted(dataset.pairs["system"].dropna().astype(str).unique())


def sample_items(dataset: Dataset, systems: list[str], inputs: int, seed: int = 0,
                 kind: str = "absolute") -> list[dict]:
    """The study's items: ``inputs`` inputs, stratified by direction, with every chosen system's output each.

    Only inputs that every chosen system transferred are drawn, so that systems are rated on the same inputs.
    Absolute studies get one item per (input, distinct output); pairwise studies one per (input, pair of distinct
    outputs), the order of the two drawn at random per item: systems that wrote the same text share its item
    (:func:`distinct_outputs`), and an input all systems rewrote alike has no pairwise item.
    """
    pairs = _chosen_pairs(dataset, systems)
    keys = _shared_inputs(pairs, systems)
    if inputs < 1:
        raise DataError("a study needs at least one input")
    if len(keys) < inputs:
        raise DataError(f"only {len(keys):,} inputs were transferred by all of {', '.join(systems)}; "
                        f"ask for at most that many")
    rng = np.random.default_rng(seed)
    chosen = _stratified(keys, inputs, rng)
    first = pairs.drop_duplicates(["__input", "system"]).set_index(["__input", "system"])
    items = []
    for key in chosen:
        outputs = distinct_outputs([_item(first.loc[(key, name)], name) for name in systems])
        if kind == "pairwise":
            for a, b in combinations(outputs, 2):
                a, b = (a, b) if rng.random() < 0.5 else (b, a)
                items.append({"input": key, "first": a, "second": b})
        else:
            items += [{"input": key, **out} for out in outputs]
    return items


def create_study(store, dataset: Dataset, *, systems: list[str] | None = None, inputs: int = 20,
                 kind: str = "absolute", aspects: tuple[str, ...] | None = None, scale: str = "1-5", repeats: int = 2,
                 seed: int = 0, title: str = "", raters: int = 3):
    """Sample a study's items from ``dataset`` and store it with ``raters`` rater links: (study, items, systems)."""
    from stviz.studies.protocol import ASPECTS, Protocol

    if raters < 0:
        raise DataError("--raters cannot be negative")
    systems = list(systems or study_systems(dataset))
    protocol = Protocol(kind=kind, aspects=tuple(aspects or ASPECTS), scale=scale, repeats=repeats)
    items = sample_items(dataset, systems, inputs, seed=seed, kind=kind)
    # raters see the title: no system name in the default (the study is blind)
    study = store.create_study(title or "Rating rewritten sentences", dataset.name, protocol, items)
    for _ in range(raters):
        store.add_rater(study)
    return study, items, systems


def distinct_outputs(outputs: list[dict]) -> list[dict]:
    """One output per distinct text of an input (spaces aside), crediting every system that wrote it.

    Rating the same text twice costs raters time and lets chance give two systems different scores for one text.
    An output written by several systems keeps the first one's name in ``system`` and lists them all in ``systems``.
    """
    by_text: dict[str, dict] = {}
    for out in outputs:
        text = " ".join(str(out.get("output", "")).split())
        if text in by_text:
            shared = by_text[text]
            shared["systems"] = [*shared.get("systems", [shared["system"]]), out["system"]]
        else:
            by_text[text] = dict(out)
    return list(by_text.values())


def merged_outputs(items: list[dict]) -> int:
    """How many system outputs share another system's item because they are the same text."""
    seen: dict[tuple, int] = {}
    for item in items:
        for out in (item["first"], item["second"]) if "first" in item else (item,):
            seen[(item["input"], out["system"])] = len(credited_systems(out)) - 1
    return sum(seen.values())


def credited_systems(output: dict) -> list[str]:
    """The systems an item's output stands for: every system that wrote its text (one, for items stored before
    identical outputs were merged)."""
    return list(output.get("systems") or [output["system"]])


def _chosen_pairs(dataset: Dataset, systems: list[str]) -> pd.DataFrame:
    if not systems:
        raise DataError("choose at least one system to rate")
    if dataset.pairs is None:
        raise DataError(f"'{dataset.title}' holds no system outputs (no pairs): a rating study rates outputs")
    pairs = dataset.pairs.copy()
    pairs["system"] = pairs["system"].astype(str) if "system" in pairs else "(outputs)"
    if "language" not in pairs:  # carried to the rater's question ("natural English text") and into the ratings
        pairs["language"] = _pair_languages(dataset)
    unknown = sorted(set(systems) - set(pairs["system"]))
    if unknown:
        raise DataError(f"no system named {', '.join(unknown)} in '{dataset.title}'; it has "
                        f"{', '.join(study_systems(dataset))}")
    pairs = pairs[pairs["system"].isin(systems)]
    direction = (pairs["source_style"].astype(str) + ">" + pairs["target_style"].astype(str)
                 if "target_style" in pairs and "source_style" in pairs else pd.Series("", index=pairs.index))
    pairs["__direction"] = direction
    # An input is its text in its direction: the same sentence sent both ways is two inputs.
    pairs["__input"] = direction + "\t" + pairs["source"].astype(str)
    return pairs


def _pair_languages(dataset: Dataset):
    """Each pair's language: as the dataset's language report gives it (per pair when mixed), "" when unknown."""
    from stviz.languages import dataset_language
    from stviz.languages.cards import UNKNOWN

    report = dataset_language(dataset)
    if report.rows is not None:
        return [code if code != UNKNOWN else "" for code in report.rows]
    return "" if report.language == UNKNOWN or report.mixed else report.language


def _shared_inputs(pairs: pd.DataFrame, systems: list[str]) -> pd.DataFrame:
    """One row per input every chosen system transferred: its key and its direction, in the file's order."""
    counts = pairs.drop_duplicates(["__input", "system"]).groupby("__input", sort=False)["system"].nunique()
    shared = counts[counts == len(systems)].index
    keys = pairs.drop_duplicates("__input").set_index("__input").loc[shared, ["__direction"]]
    return keys.reset_index()


def _stratified(keys: pd.DataFrame, inputs: int, rng: np.random.Generator) -> list[str]:
    """``inputs`` keys split as evenly as the directions allow, each direction's drawn at random."""
    groups = {d: list(rng.permutation(part["__input"].to_numpy())) for d, part in keys.groupby("__direction")}
    chosen: list[str] = []
    while len(chosen) < inputs:  # round robin over the directions: even strata, the rest from the larger ones
        for direction in sorted(groups):
            if groups[direction] and len(chosen) < inputs:
                chosen.append(groups[direction].pop())
    return chosen


def _item(row: pd.Series, system: str) -> dict:
    out = {"system": system}
    for column in ITEM_COLUMNS:
        if column != "system" and column in row.index and isinstance(row[column], str):
            out[column] = row[column]
    return out


__all__ = ["ITEM_COLUMNS", "create_study", "credited_systems", "distinct_outputs", "merged_outputs", "sample_items",
           "study_systems"]
