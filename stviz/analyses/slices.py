"""Slices (Zeno's core): saved filters over a dataset's pairs, so a view's numbers can be read per slice.

A slice is a name and filters, every one of which a pair must pass. A filter is written ``FIELD OP VALUE``;
filters are joined by ``;`` (``\\;`` inside a value):

* ``system=A,B`` / ``system!=A`` (likewise ``setting``, ``source_style``, ``target_style``, ``style``: either);
* ``length=5..20``, ``length>=5``: the input's length in words;
* ``human:NAME>=3``, ``metric:COLUMN<0.5``, ``bleu=0..20``: a human score, a precomputed column, or any metric
  stviz computes (``cosine:minilm``, ``chrf`` ...), per pair, from the disk cache;
* ``entity=source`` (``output``, ``either``, ``both``; ``!=`` for none): a named entity as spaCy finds it
  (:mod:`stviz.metrics.entities`, the same NER as the entity metrics);
* ``source~REGEX`` / ``output~REGEX``: a regular expression found in the text (Python ``re.search``);
* ``ids=3,17,42`` or ``ids=#HASH``: chosen pairs, e.g. a lasso on the Embedding map (a long set is kept in the
  cache under its hash, see :func:`keep_ids`).

``Slice.apply(dataset)`` gives the dataset with only the slice's pairs (their ids kept), so any analysis runs
on it unchanged: the page and ``--slice NAME=SPEC`` of ``correlate`` and ``leaderboard`` run the same code.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stviz.data.schema import DataError, Dataset

OPS = ("!=", ">=", "<=", "=", ">", "<", "~")
#: Pair columns compared with a list of names.
CATEGORIES = ("system", "setting", "source_style", "target_style", "style")
ENTITY_PLACES = ("source", "output", "either", "both")
TEXTS = ("source", "output")
#: Pairs ids in a spec longer than this are kept in the cache, the spec names their hash.
INLINE_IDS = 20
_CLAUSE = re.compile(r"^\s*([A-Za-z_][\w:.+\-]*?)\s*(!=|>=|<=|=|>|<|~)\s*(.*?)\s*$", re.S)
_SEPARATOR = re.compile(r"(?<!\\);")
_NAME = re.compile(r"^[^=\n]{1,60}$")


class EmptySlice(DataError):
    """A slice that keeps no pair of the dataset (the message says which slice and how many pairs there were)."""


@dataclass(frozen=True)
class Filter:
    """One condition on a pair: ``FIELD OP VALUE`` (see the module docstring)."""

    field: str
    op: str
    value: str

    def text(self) -> str:
        """The filter as written in a spec (``;`` escaped)."""
        return f"{self.field}{self.op}{self.value.replace(';', chr(92) + ';')}"

    def describe(self) -> str:
        """The filter in words: 'system is A or B', 'input 5..20 words', 'output matches /x/'."""
        if self.field in TEXTS:
            return f"{self.field} matches /{self.value}/"
        if self.field == "entity":
            return f"{'no' if self.op == '!=' else 'a'} named entity in {_entity_place(self.value)}"
        if self.field == "ids":
            return (f"the pairs selected ({self.value})" if self.value.startswith("#")
                    else f"{len(_id_list(self.value))} chosen pairs")
        name = "input length (words)" if self.field == "length" else self.field.replace("_", " ")
        if self.op in ("=", "!=") and ".." in self.value:
            low, high = self.value.split("..", 1)
            return f"{name} {'in' if self.op == '=' else 'outside'} {low or '-inf'}..{high or 'inf'}"
        if self.field in CATEGORIES:
            return f"{name} {'is' if self.op == '=' else 'is not'} {' or '.join(_names(self.value))}"
        return f"{name} {self.op} {self.value}"


@dataclass(frozen=True)
class Slice:
    """A named filter over a dataset's pairs."""

    name: str
    filters: tuple[Filter, ...]

    def spec(self) -> str:
        """The filters as one spec string (what ``--slice NAME=SPEC`` and the URL carry)."""
        return ";".join(f.text() for f in self.filters)

    def text(self) -> str:
        """``NAME=SPEC``: the slice as the command line takes it."""
        return f"{self.name}={self.spec()}"

    def describe(self) -> str:
        """The slice's filters in words, joined by 'and'."""
        return " and ".join(f.describe() for f in self.filters) or "every pair"

    def mask(self, dataset: Dataset) -> np.ndarray:
        """Which of the dataset's pairs the slice keeps (a boolean array in pair order)."""
        if dataset.pairs is None:
            raise DataError(f"slice '{self.name}': {dataset.title} has no pairs to slice")
        keep = np.ones(len(dataset.pairs), dtype=bool)
        for item in self.filters:
            keep &= _filter_mask(item, dataset.pairs, self.name)
        return keep

    def apply(self, dataset: Dataset) -> Dataset:
        """The dataset with this slice's pairs only (pair ids kept); :class:`EmptySlice` when none is left."""
        keep = self.mask(dataset)
        if not keep.any():
            raise EmptySlice(f"slice '{self.name}' ({self.describe()}) keeps none of the {len(keep):,} pairs of "
                             f"{dataset.title}; nothing is computed for it")
        # The name stays: companion corpora and style texts are found by it.
        return dataclasses.replace(dataset, pairs=dataset.pairs[keep], title=f"{dataset.title} · {self.name}")


# -- reading and writing ------------------------------------------------------------------------------
def parse_filters(spec: str, name: str = "slice") -> tuple[Filter, ...]:
    """The filters of a spec (``system=A;length>=5``); DataError, naming the slice, on anything unreadable."""
    clauses = [c for c in _SEPARATOR.split(spec) if c.strip()]
    if not clauses:
        raise DataError(f"slice '{name}' has no filter; write e.g. system=A;length=5..20")
    return tuple(_parse_clause(c, name) for c in clauses)


def parse_slice(text: str) -> Slice:
    """``NAME=SPEC`` (the ``--slice`` flag) as a Slice."""
    name, equals, spec = text.partition("=")
    if not equals:
        raise DataError(f"a slice is NAME=SPEC (e.g. long=length>=20), got '{text}'")
    return make_slice(name, spec)


def make_slice(name: str, spec: str) -> Slice:
    """A Slice from a name and a spec, both checked (a bad regex or number is one clear DataError)."""
    name = name.strip()
    if not _NAME.match(name):
        raise DataError(f"a slice name is 1 to 60 characters without '=' or a line break, got '{name}'")
    return Slice(name, parse_filters(spec, name))


def encode_slices(slices) -> str:
    """Slices as a short JSON object {name: spec} (the URL's ``slices`` value); stable for the same slices."""
    return json.dumps({s.name: s.spec() for s in slices}, separators=(",", ":"), ensure_ascii=False)


def decode_slices(text: str) -> tuple[list[Slice], list[str]]:
    """Slices from :func:`encode_slices`'s text, and a note per slice that could not be read (a link must not
    break a page)."""
    try:
        items = json.loads(text)
    except ValueError:
        return [], ["the link's slices were ignored: they are not a JSON object of name: spec"]
    if not isinstance(items, dict):
        return [], ["the link's slices were ignored: they are not a JSON object of name: spec"]
    slices, notes = [], []
    for name, spec in items.items():
        try:
            slices.append(make_slice(str(name), str(spec)))
        except DataError as exc:
            notes.append(f"the link's slice was ignored: {exc}")
    return slices, notes


def _parse_clause(clause: str, name: str) -> Filter:
    match = _CLAUSE.match(clause)
    if not match:
        raise DataError(f"slice '{name}': '{clause.strip()}' is not FIELD OP VALUE (ops: {' '.join(OPS)})")
    field, op, value = match.group(1), match.group(2), match.group(3).replace("\\;", ";")
    item = Filter(field, op, value)
    if problem := _check(item):
        raise DataError(f"slice '{name}': '{clause.strip()}': {problem}")
    return item


def _check(item: Filter) -> str | None:
    """What is wrong with a filter (None when nothing is): the op its field takes, a readable value."""
    field, op, value = item.field, item.op, item.value
    if not value:
        return "the value is empty"
    if field in TEXTS:
        return "a text takes a regular expression: source~REGEX" if op != "~" else _regex_problem(value)
    if op == "~":
        return "'~' (a regular expression) applies to source and output only"
    if field in CATEGORIES or field in ("entity", "ids"):
        if op not in ("=", "!="):
            return f"{field} takes = or !="
        if field == "entity" and value not in ENTITY_PLACES:
            return f"entity is one of {', '.join(ENTITY_PLACES)}"
        if field == "ids" and not value.startswith("#"):
            return None if _id_list(value, check=True) else "ids are pair numbers separated by commas"
        return None
    return _number_problem(op, value)


def _regex_problem(pattern: str) -> str | None:
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"the regular expression /{pattern}/ is not valid ({exc})"
    return None


def _number_problem(op: str, value: str) -> str | None:
    parts = value.split("..", 1) if op in ("=", "!=") and ".." in value else [value]
    try:
        [float(p) for p in parts if p.strip() or len(parts) == 1]
    except ValueError:
        return f"'{value}' is not a number" + (" or a range LOW..HIGH" if op in ("=", "!=") else "")
    return None


# -- which pairs a filter keeps --------------------------------------------------------------------------
def _filter_mask(item: Filter, pairs: pd.DataFrame, name: str) -> np.ndarray:
    if item.field in TEXTS:
        pattern = re.compile(item.value)
        return pairs[item.field].astype(str).map(lambda t: pattern.search(t) is not None).to_numpy(bool)
    if item.field in CATEGORIES:
        return _category_mask(item, pairs, name)
    if item.field == "entity":
        return _entity_mask(item, pairs)
    if item.field == "ids":
        keep = np.isin(pairs.index.to_numpy(), sorted(resolve_ids(item.value)))
        return keep if item.op == "=" else ~keep
    return _number_mask(item, _numbers(item.field, pairs, name))


def _category_mask(item: Filter, pairs: pd.DataFrame, name: str) -> np.ndarray:
    columns = ["source_style", "target_style"] if item.field == "style" else [item.field]
    missing = [c for c in columns if c not in pairs]
    if missing:
        raise DataError(f"slice '{name}': the pairs have no {missing[0].replace('_', ' ')}")
    wanted = set(_names(item.value))
    keep = np.zeros(len(pairs), dtype=bool)
    for column in columns:
        keep |= pairs[column].astype(str).isin(wanted).to_numpy()
    return keep if item.op == "=" else ~keep


def _entity_mask(item: Filter, pairs: pd.DataFrame) -> np.ndarray:
    from stviz.metrics.entities import analyse_entities

    found = {side: np.array([bool(e.entities) for e in analyse_entities(pairs[side].astype(str).tolist())],
                            dtype=bool) for side in TEXTS}
    place = item.value
    keep = (found["source"] | found["output"] if place == "either" else
            found["source"] & found["output"] if place == "both" else found[place])
    return keep if item.op == "=" else ~keep


def _numbers(field: str, pairs: pd.DataFrame, name: str) -> np.ndarray:
    """A numeric field per pair: input length, a column of the pairs, or a metric stviz computes (cached)."""
    if field == "length":
        return pairs["source"].astype(str).str.split().str.len().to_numpy(float)
    for column in (field, f"human:{field}"):
        if column in pairs:
            return pd.to_numeric(pairs[column], errors="coerce").to_numpy(float)
    from stviz.metrics import metric_frame

    try:
        frame = metric_frame(pairs, [field])
    except DataError as exc:
        raise DataError(f"slice '{name}': {exc}") from None
    return frame.iloc[:, 0].to_numpy(float)


def _number_mask(item: Filter, values: np.ndarray) -> np.ndarray:
    op, value = item.op, item.value
    with np.errstate(invalid="ignore"):  # a pair without a value (NaN) passes no comparison
        if op in ("=", "!=") and ".." in value:
            low, high = (float(p) if p.strip() else np.nan for p in value.split("..", 1))
            inside = ((values >= low) | np.isnan(low)) & ((values <= high) | np.isnan(high))
            return inside if op == "=" else ~inside & ~np.isnan(values)
        number = float(value)
        compare = {"=": np.equal, "!=": np.not_equal, ">=": np.greater_equal, "<=": np.less_equal,
                   ">": np.greater, "<": np.less}[op]
        return compare(values, number) & ~np.isnan(values)


# -- chosen pairs (a lasso): long id sets kept in the cache under their hash -------------------------------
def ids_hash(ids) -> str:
    """A short stable hash of a set of pair ids (what a spec's ``ids=#HASH`` names)."""
    text = ",".join(str(i) for i in sorted({int(i) for i in ids}))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def keep_ids(ids, cache=None) -> str:
    """The ``ids=`` value for a set of pair ids: the ids themselves when few, else ``#HASH`` with the set kept in
    the disk cache (so a URL stays short and the CLI, sharing the cache, reads the same set)."""
    from stviz.cache import default_cache

    ids = sorted({int(i) for i in ids})
    if len(ids) <= INLINE_IDS:
        return ",".join(map(str, ids))
    key = ids_hash(ids)
    (cache or default_cache()).memo("slice-ids", {"hash": key}, lambda: ids)
    return f"#{key}"


def resolve_ids(value: str, cache=None) -> set[int]:
    """The pair ids of an ``ids=`` value (a list, or a ``#HASH`` kept by :func:`keep_ids`)."""
    from stviz.cache import default_cache

    if not value.startswith("#"):
        return set(_id_list(value))
    key = value[1:]

    def missing():
        raise DataError(f"the selection {value} is not in this cache (made with another cache, or the cache was "
                        "cleared): select the pairs again")

    return set((cache or default_cache()).memo("slice-ids", {"hash": key}, missing))


def _id_list(value: str, check: bool = False) -> list[int]:
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if check and not all(p.lstrip("-").isdigit() for p in parts):
        return []
    return [int(p) for p in parts if p.lstrip("-").isdigit()]


def _names(value: str) -> list[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


def _entity_place(value: str) -> str:
    return {"either": "the source or the output", "both": "both texts"}.get(value, f"the {value}")


__all__ = ["EmptySlice", "Filter", "Slice", "decode_slices", "encode_slices", "ids_hash", "keep_ids", "make_slice",
           "parse_filters", "parse_slice", "resolve_ids"]
