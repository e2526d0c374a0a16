"""One transfer direction for a whole pair file, or one per system, when the file has no style columns.

A file of judged outputs often goes one way only (all informal -> formal) and says so nowhere in its
columns. Style measures (the classifier's target-style probability, style transfer intensity) and the
n-gram language model need each pair's target style, so the user states the direction once:
``--direction informal>formal`` for every pair, or ``--direction "A=informal>formal;B=formal>informal"``
per system (on the page: the *Direction* box of Home's column confirmation, suggested from the file's name or
values). The direction given is said in every
output, and a file whose own style columns disagree with it is refused rather than overwritten.

>>> parse_direction_spec("informal>formal")
{'*': ('informal', 'formal')}
"""

from __future__ import annotations

import dataclasses
import re

import pandas as pd

from stviz.data.schema import DataError, Dataset

#: The key of the direction that holds for every pair (not one system's).
EVERY_PAIR = "*"
_STYLES = re.compile(r"^\s*([^<>=;]+?)\s*(?:->|>|→)\s*([^<>=;]+?)\s*$")


def parse_direction_spec(spec: str) -> dict[str, tuple[str, str]]:
    """``SOURCE>TARGET`` or ``SYSTEM=SOURCE>TARGET;...`` -> {system or '*': (source style, target style)}."""
    out: dict[str, tuple[str, str]] = {}
    for entry in (e for e in re.split(r"[;\n]", spec or "") if e.strip()):
        system, sep, styles = entry.rpartition("=") if "=" in entry else ("", "", entry)
        match = _STYLES.match(styles)
        if not match or (sep and not system.strip()) or match.group(1) == match.group(2):
            raise DataError(f"direction '{entry.strip()}' is not SOURCE>TARGET (e.g. informal>formal) or "
                            "SYSTEM=SOURCE>TARGET, with two different styles")
        key = system.strip() or EVERY_PAIR
        if key in out:
            raise DataError(f"direction given twice for {'every pair' if key == EVERY_PAIR else repr(key)}")
        out[key] = (match.group(1), match.group(2))
    return out


def describe_direction(directions: dict[str, tuple[str, str]]) -> str:
    """One line for every output: which direction was given for which pairs."""
    parts = [f"{s} → {t} for {'every pair' if k == EVERY_PAIR else f'system {k}'}" for k, (s, t) in directions.items()]
    return "direction given: " + "; ".join(parts) + " (--direction)"


def apply_direction(dataset: Dataset, spec: str) -> Dataset:
    """The dataset with source and target styles from ``spec``; refused where they contradict the file's own."""
    directions = parse_direction_spec(spec)
    if not directions:
        return dataset
    if dataset.pairs is None:
        raise DataError(f"--direction applies to pairs, and {dataset.name} has none")
    pairs = dataset.pairs.copy()
    styles = _styles_per_pair(pairs, directions)
    for column, given in (("source_style", styles[0]), ("target_style", styles[1])):
        if column in pairs:
            own = pairs[column].astype(str)
            clash = pairs[column].notna() & (own != given)
            if clash.any():
                raise DataError(f"--direction says {given[clash].iloc[0]!r} but the file's {column.replace('_', ' ')} "
                                f"column says {own[clash].iloc[0]!r} (row {clash.idxmax()}); leave --direction out, "
                                "or map that column to nothing")
        pairs[column] = given
    note = describe_direction(directions)
    return dataclasses.replace(dataset, pairs=pairs, notes=dataset.notes + [note], direction=note)


#: Words of a file's name, column names or short cells -> the direction they suggest (the first found wins).
SUGGESTIONS = ((("toxic", "detox", "toxicity", "paradetox"), "toxic>neutral"),
               (("formal", "informal", "formality", "gyafc"), "informal>formal"),
               (("sentiment", "yelp", "amazon", "negative", "positive", "neg2pos", "pos2neg"), "negative>positive"))
_WORDS = re.compile(r"[a-z]+")


def suggest_direction(filename: str, frame: pd.DataFrame | None = None) -> tuple[str, str]:
    """A direction to suggest for a file without style columns, and what suggested it: from its name, else its
    column names and short cells; ('', '') when nothing does."""
    if found := _suggested(filename):
        return found, f"its name '{filename}'"
    if frame is not None:
        if found := _suggested(" ".join(map(str, frame.columns))):
            return found, "its column names"
        short = [str(v) for col in frame.columns for v in frame[col].head(200) if len(str(v).split()) <= 2]
        if found := _suggested(" ".join(short)):
            return found, "its values"
    return "", ""


def _suggested(text: str) -> str:
    """The direction the first style word in ``text`` suggests ('' when none)."""
    words = set(_WORDS.findall(str(text).lower().replace("_", " ")))
    return next((direction for names, direction in SUGGESTIONS if words & set(names)), "")


def _styles_per_pair(pairs: pd.DataFrame, directions: dict[str, tuple[str, str]]) -> tuple[pd.Series, pd.Series]:
    """Each pair's (source style, target style) under the given directions; refused when a pair has none."""
    named = {k: v for k, v in directions.items() if k != EVERY_PAIR}
    if named and "system" not in pairs:
        raise DataError("--direction names systems, but the pairs have no system column")
    if named:
        unknown = sorted(set(named) - set(pairs["system"].astype(str)))
        if unknown:
            raise DataError(f"--direction names system(s) {', '.join(unknown)}, which the file does not have; "
                            f"its systems: {', '.join(sorted(pairs['system'].astype(str).unique()))}")
    systems = pairs["system"].astype(str) if "system" in pairs else pd.Series(EVERY_PAIR, index=pairs.index)
    chosen = systems.map(lambda s: directions.get(s, directions.get(EVERY_PAIR)))
    if chosen.isna().any():
        missing = sorted(systems[chosen.isna()].unique())
        raise DataError(f"--direction gives no direction for system(s) {', '.join(missing)}: add SYSTEM=SOURCE>TARGET "
                        "for each, or one SOURCE>TARGET for every pair")
    return chosen.map(lambda d: d[0]), chosen.map(lambda d: d[1])


__all__ = ["EVERY_PAIR", "SUGGESTIONS", "apply_direction", "describe_direction", "parse_direction_spec",
           "suggest_direction"]
