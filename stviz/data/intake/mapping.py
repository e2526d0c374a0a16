"""Which column of a user's pair file plays which role: detection from names and content, the CLI's
``--columns``, and the checks a mapping must pass; plus reading score cells as numbers.

The user confirms or changes a detected mapping (the upload page, or ``--columns``); a column
named like a human score, a metric or an annotator's scores gets that role, and the two text
columns that are left become source and output.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.data.intake.cells import NA_WORDS, as_text, numeric_share, parse_numbers  # noqa: F401 - re-exported
from stviz.data.meanings import (HUMAN_WORDS, INDEX_NAMES, METRIC_WORDS, RATER_WORDS, REFERENCE_NAMES,  # noqa: F401
                                 SCORE_WORDS, SYNONYMS, counting_evidence, human_aggregate, is_human_name,
                                 is_id_strings, is_key_name, is_language_column, is_metric_name, is_row_numbers,
                                 names_a_role, names_an_aspect, pole_named_measures, rating_words, role_norm,
                                 style_evidence, words)
from stviz.data.schema import DataError, higher_is_better_guess, rater_stem

#: Roles one column at most can play (references, human scores, metrics, raters and keys may be many).
ROLES = ("source", "output", "system", "setting", "source_style", "target_style", "language")
#: Every role a column can be given, as the page and ``--columns`` name them.
ALL_ROLES = ROLES + ("reference", "human", "human-lower", "metric", "rater", "key")


@dataclass
class ColumnMapping:
    """Which file column plays which role.

    ``roles``: the one-column roles (:data:`ROLES`); ``references``: reference columns in order
    (they become ``reference``, ``reference:2``, ...); ``human``: human-score columns, with
    ``directions[column]`` True when higher is better; ``metrics``: precomputed metric columns;
    ``raters``: per-annotator scores (kept as ``rater:`` columns, never metrics), whose mean is
    added as a human score when ``rater_mean``.
    """

    roles: dict[str, str] = field(default_factory=dict)
    human: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    raters: list[str] = field(default_factory=list)
    directions: dict[str, bool] = field(default_factory=dict)
    rater_mean: bool = True
    #: Keys: ids, saved row numbers, indices into a test set; never a measure or a rating (listed, not used).
    keys: list[str] = field(default_factory=list)
    #: A wide file's output columns, one per system (``source, DualRL, DeleteOnly``): each becomes that system's pairs.
    outputs: list[str] = field(default_factory=list)
    #: Why a column got its role when more than its name decided (or a name alone misled): column -> evidence.
    evidence: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if "reference" in self.roles:  # the older one-reference form
            ref = self.roles.pop("reference")
            if ref and ref not in self.references:
                self.references.insert(0, ref)

    def higher_is_better(self, column: str) -> bool:
        """Direction of a human column: as confirmed, else guessed from its name."""
        return self.directions.get(column, higher_is_better_guess(column))

    def with_human(self, column: str, higher_is_better: bool | None = None) -> "ColumnMapping":
        """A copy where ``column`` is a human score (taken from the metric or rater columns if there)."""
        taken = [role for role, col in self.roles.items() if col == column] + (["reference"] if column in self.references else [])
        if taken:
            raise DataError(f"column '{column}' is mapped to '{taken[0]}'; it cannot also be a human score")
        directions = dict(self.directions)
        if higher_is_better is not None:
            directions[column] = higher_is_better
        return replace(self, human=self.human + ([column] if column not in self.human else []),
                       metrics=[c for c in self.metrics if c != column], raters=[c for c in self.raters if c != column],
                       roles=dict(self.roles), references=list(self.references), directions=directions)

    def assignments(self) -> list[tuple[str, str]]:
        """(column, role) for every mapped column, in role order."""
        out = [(self.roles[role], role) for role in ROLES if self.roles.get(role)]
        out += [(col, "output") for col in self.outputs]
        out += [(col, "reference") for col in self.references]
        out += [(col, "human") for col in self.human]
        out += [(col, "metric") for col in self.metrics]
        out += [(col, "rater") for col in self.raters]
        out += [(col, "key") for col in self.keys]
        return out

    def describe(self) -> str:
        """One line naming every mapped column, as ``--columns`` takes it."""
        parts = [f"{role}={self.roles[role]}" for role in ROLES if self.roles.get(role)]
        parts[1:1] = [f"output={col}" for col in self.outputs]  # a wide file: one output column per system
        parts += [f"reference={col}" for col in self.references]
        parts += [f"{'human' if self.higher_is_better(c) else 'human-lower'}={c}" for c in self.human]
        parts += [f"metric={col}" for col in self.metrics]
        parts += [f"rater={col}" for col in self.raters]
        parts += [f"key={col}" for col in self.keys]
        return ",".join(parts)

    def unused(self, frame: pd.DataFrame) -> list[str]:
        """The file's columns no role takes: unclear, shown as such (declare one with ``--columns ROLE=COL``)."""
        taken = {col for col, _ in self.assignments()}
        return [col for col in frame.columns if col not in taken]

    def explained(self, frame: pd.DataFrame) -> list[str]:
        """Notes for the columns whose role more than their name decided, and for those no role takes."""
        # Keys are said by the intake with their evidence (stviz.data.intake.build), the other columns here.
        notes = [f"'{col}' is read as {_AS.get(self._role_of(col), 'no role')}: {why}"
                 for col, why in self.evidence.items() if col in frame.columns and col not in self.keys]
        unused = self.unused(frame)
        if unused:
            notes.append(f"not used (unclear): {', '.join(repr(str(c)) for c in unused)}; give each a role with "
                         "--columns ROLE=COLUMN (on the page: its role)")
        return notes

    def _role_of(self, column: str) -> str:
        return next((role for col, role in self.assignments() if col == column), "")


def index_columns(frame: pd.DataFrame) -> list[str]:
    """Columns that hold a saved row index: 'Unnamed: N', or named index/'' with increasing whole numbers from 0 or 1."""
    return [col for i, col in enumerate(frame.columns) if _is_index(str(col).strip(), frame[col], first=i == 0)]


def _is_index(name: str, series: pd.Series, first: bool) -> bool:
    if re.match(r"^unnamed: ?\d+(\.\d+)?$", name, re.I):
        return True  # pandas' name for a column written without a name: its saved index
    # Otherwise only a first column (where an index is saved) of row numbers: 1..5 further right may be scores.
    if not first or not len(series) or is_human_name(name) or is_metric_name(name) or names_a_role(name):
        return False
    values = parse_numbers(series)[0]
    if not np.isfinite(values).all() or not (values == np.round(values)).all() or values[0] not in (0, 1):
        return False
    if INDEX_NAMES.match(name):
        return bool((np.diff(values) > 0).all())
    # Under any other name, only row numbers counted one by one (0, 1, 2, ... or 1, 2, 3, ...) are taken as such.
    return len(values) >= 3 and bool((np.diff(values) == 1).all())


#: Names of a rating beside one text column (rated sentences as released: PT16's ``SID,label,sentence``).
RATING_NAMES = {"label", "labels", "score", "scores", "rating", "ratings", "gold", "target"}


def id_columns(frame: pd.DataFrame) -> list[str]:
    """Columns named as identifiers ('id', 'idx', 'pair_id', 'source_index'): never a metric, a score or a text."""
    return [col for col in frame.columns if is_key_name(col)]


def key_columns(frame: pd.DataFrame) -> dict[str, str]:
    """Every column that is a key, never a measure or a rating -> its evidence: named as an id, a saved row index,
    whole numbers counting the rows (or counting up by one from any start) anywhere in the file, or 'name_17'
    identifier strings."""
    out = {col: "a saved row index" for col in index_columns(frame)}
    out.update({col: "named as an identifier" for col in id_columns(frame) if col not in out})
    for col in frame.columns:
        name = str(col)
        if col in out or is_human_name(name) or is_metric_name(name) or names_a_role(name):
            continue
        counting = counting_evidence(parse_numbers(frame[col])[0]) if numeric_share(frame[col]) >= 0.99 else ""
        if counting:
            out[col] = counting
        elif numeric_share(frame[col]) < 0.5 and is_id_strings(frame[col]):
            out[col] = "its values are identifiers (a name and a number, no spaces)"
    return out


def _is_rating_scale(series: pd.Series) -> bool:
    """Whether a column holds numbers of more than two values (a rating), not labels (styles named 0 / 1)."""
    if numeric_share(series) < 0.95:
        return False
    values = parse_numbers(series)[0]
    return len(np.unique(values[np.isfinite(values)])) > 2


def detect_mapping(frame: pd.DataFrame) -> ColumnMapping:
    """Guess each column's role from its name and content; the user confirms or changes it."""
    from stviz.data.corpora.releases import release_roles

    if (released := release_roles(frame)) is not None:  # a file a built-in corpus releases: its roles
        return ColumnMapping(**released)
    mapping = ColumnMapping()
    # Row numbers saved with the file and identifiers are never roles (an id of numbers is not a metric).
    keys = key_columns(frame)
    mapping.keys, mapping.evidence = list(keys), dict(keys)
    used: set[str] = set(keys)
    ratings = _ratings_beside_one_text(frame, used)
    used.update(ratings)
    for role in ROLES:
        for col in frame.columns:
            if col not in used and role_norm(col) in SYNONYMS[role]:
                if role == "language" and not is_language_column(frame[col]):
                    mapping.evidence[col] = "named like a language, but its cells are not languages"
                    continue
                if role.endswith("_style"):
                    # A 'style' column of 1-5 scores is the raters' style judgment; a 'target' of sentences a reference.
                    why = None if _is_rating_scale(frame[col]) else style_evidence(role, col, frame[col])
                    if why is None:
                        continue
                    if why:
                        mapping.evidence[col] = why
                mapping.roles[role] = col
                used.add(col)
                break
    mapping.references = _reference_columns(frame, used)
    used.update(mapping.references)
    used.update(_ratings_in_words(frame, used, mapping))
    numeric = {c: numeric_share(frame[c]) for c in frame.columns if c not in used}
    text_cols = [c for c in frame.columns if c not in used and numeric[c] < 0.95 and not is_list_column(frame[c])]
    if _is_wide(frame, mapping.roles, text_cols, numeric):
        mapping.outputs = list(text_cols)
        mapping.evidence.update({c: "one column per system (a wide file): its outputs of the source" for c in text_cols})
        used.update(text_cols)
        text_cols = []
    # Files with unnamed text columns: the first two text columns are source and output.
    for role in ("source", "output"):
        if role not in mapping.roles and text_cols:
            mapping.roles[role] = text_cols.pop(0)
            used.add(mapping.roles[role])
    mapping.raters = _rater_columns([c for c in frame.columns if c not in used and numeric[c] >= 0.5], frame)
    used.update(mapping.raters)
    mapping.human += ratings
    mapping.directions.update({c: True for c in ratings})
    for col in frame.columns:
        if col in used:
            continue
        # A column named like a human score is taken even with some unreadable cells (reported later).
        if is_human_name(col) and numeric[col] >= 0.5:
            mapping.human.append(col)
            mapping.directions[col] = higher_is_better_guess(col)
        elif numeric[col] >= 0.95:
            mapping.metrics.append(col)
    _measures_and_ratings_by_value(frame, mapping)
    if mapping.raters:
        mean = rater_means(frame, mapping.raters)
        # A column that already holds the raters' mean (avg_score beside label_1..3) needs no second copy.
        mapping.rater_mean = not any(np.allclose(parse_numbers(frame[c])[0], mean, equal_nan=True, atol=1e-6)
                                     for c in mapping.human)
    return mapping


#: Word overlap (Jaccard, median over the rows) with the source from which a column reads as the source's rewrites.
REWRITE_OVERLAP = 0.1


def _is_wide(frame: pd.DataFrame, roles: dict[str, str], text_cols: list[str], numeric: dict[str, float]) -> bool:
    """Whether a file holds one output column per system (``source, DualRL, DeleteOnly, RetrieveOnly``): a named
    source, no named output, two text columns or more that each rewrite the source, and no scores (which would not
    say whose they are)."""
    if "source" not in roles or "output" in roles or len(text_cols) < 2:
        return False
    if any(numeric[c] >= 0.5 for c in numeric if c not in text_cols):
        return False
    source = frame[roles["source"]].map(lambda v: set(str(v).lower().split()))
    for col in text_cols:
        other = frame[col].map(lambda v: set(str(v).lower().split()))
        overlap = [len(a & b) / len(a | b) for a, b in zip(source, other) if a | b]
        if not overlap or float(np.median(overlap)) < REWRITE_OVERLAP:
            return False
    return True


def _measures_and_ratings_by_value(frame: pd.DataFrame, mapping: ColumnMapping) -> None:
    """What names alone decide wrongly: a column named by one pole (``toxicity``) beside the human style rating is a
    measure; a column whose values are the product or mean of the human ratings (RUSSE's ``J``) is a rating."""
    for col, why in pole_named_measures(mapping.human, mapping.human).items():
        mapping.human.remove(col)
        mapping.directions.pop(col, None)
        mapping.metrics.append(col)
        mapping.evidence[col] = why
    humans = {h: parse_numbers(frame[h])[0] for h in mapping.human}
    for col in [c for c in mapping.metrics if not is_metric_name(str(c))]:
        if why := human_aggregate(parse_numbers(frame[col])[0], humans):
            mapping.metrics.remove(col)
            mapping.human.append(col)
            mapping.directions[col] = True
            mapping.evidence[col] = why


def _ratings_in_words(frame: pd.DataFrame, used: set[str], mapping: ColumnMapping) -> list[str]:
    """Columns named like a human rating that hold their ratings in words ('high', 'low'): a human rating when the words
    are on a scale stviz knows (read as numbers when the pairs are built, said), else said with its words and not used;
    never a text either way."""
    from stviz.data.intake.cells import word_scale

    found = {c: rating_words(c, frame[c]) for c in frame.columns if c not in used}
    for col, words in ((c, w) for c, w in found.items() if w):
        if word_scale(frame[col]) is not None:
            mapping.human.append(col)
            mapping.directions[col] = higher_is_better_guess(col)
        else:
            mapping.evidence[col] = (f"named like a human rating, its cells are words on no scale stviz knows "
                                     f"({', '.join(repr(w) for w in words[:10])}); write them as numbers")
    return [c for c, w in found.items() if w]


def _ratings_beside_one_text(frame: pd.DataFrame, used: set[str]) -> list[str]:
    """Numeric columns named only as a rating (``label``, ``score``, ``rating``) in a file with one text column: the
    human ratings of rated sentences, never a style label (a numeric ``label`` beside two texts still may be one)."""
    candidates = [c for c in frame.columns if c not in used and not is_list_column(frame[c])]
    numeric = {c: numeric_share(frame[c]) for c in candidates}
    texts = [c for c in candidates if numeric[c] < 0.95]
    if len(texts) != 1:
        return []
    return [c for c in candidates if numeric[c] >= 0.95 and set(words(c)) and set(words(c)) <= RATING_NAMES]


def _reference_columns(frame: pd.DataFrame, used: set[str]) -> list[str]:
    found = []
    for col in frame.columns:
        match = REFERENCE_NAMES.match(role_norm(col))
        if col not in used and match and numeric_share(frame[col]) < 0.5:
            found.append((int(match.group(2) or 0), list(frame.columns).index(col), col))
    return [col for _, _, col in sorted(found)]


#: Most distinct values one rater's column of a scale holds (a 1-7 Likert scale, 0 / 0.5 / 1 labels).
RATER_SCALE = 11


def _rater_columns(candidates: Sequence[str], frame: pd.DataFrame | None = None) -> list[str]:
    """Columns named STEM + number that share a rater-like stem with another: one annotator each. A stem that is a
    measure's word ('similarity_1..3') counts when every column holds a few scale values (InFormal's 1 / 0.5 / 0),
    never continuous scores (ROUGE-1, ROUGE-2 stay measures)."""
    groups: dict[str, list[str]] = {}
    for col in candidates:
        stem = rater_stem(col)
        # 'label_1', 'rater2', and one column per rater of an aspect: 'content_1', 'style_rater2', 'fluency_a'.
        if stem is not None and not is_metric_name(stem) and (any(w in RATER_WORDS for w in words(stem) or [stem])
                                                               or names_an_aspect(words(stem))):
            groups.setdefault(stem, []).append(col)
        elif stem is not None and frame is not None and is_metric_name(stem) and _on_a_scale(frame[col]):
            groups.setdefault(f"scale:{stem}", []).append(col)
    return [c for cols in groups.values() if len(cols) >= 2 for c in cols]


def _on_a_scale(series: pd.Series) -> bool:
    """Whether a numeric column holds a rating scale's few values (at most :data:`RATER_SCALE`), over 20 rows."""
    values = parse_numbers(series)[0]
    values = values[np.isfinite(values)]
    return len(values) >= 20 and len(np.unique(values)) <= RATER_SCALE


def rater_means(frame: pd.DataFrame, raters: Sequence[str]) -> np.ndarray:
    """Per row, the mean of the raters' scores that could be read (NaN when none)."""
    matrix = np.column_stack([parse_numbers(frame[c])[0] for c in raters])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows stay NaN
        return np.nanmean(matrix, axis=1)


def is_list_column(series: pd.Series) -> bool:
    """Whether every non-empty cell holds a list (a JSON list, or a list from JSONL)."""
    present = [v for v in series if not (isinstance(v, str) and not v.strip())]
    return bool(present) and all(isinstance(v, list) or json_list(v) is not None for v in present)


def json_list(value: object) -> list[str] | None:
    """A cell's list of strings (a list, or a JSON list written as text), else None."""
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        if isinstance(parsed, list) and all(isinstance(v, str) for v in parsed):
            return parsed
    return None


# "source-style" and "source_style", "human_lower" and "human-lower" name the same role.
_ROLE_ALIASES = {alias: role for role in ALL_ROLES for alias in (role, role.replace("_", "-"), role.replace("-", "_"))}


# -- --columns ------------------------------------------------------------------------------------
def parse_columns_spec(spec: str, frame: pd.DataFrame, detected: ColumnMapping | None = None) -> ColumnMapping:
    """Apply ``role=COL,role=COL,...`` (the CLI's ``--columns``) over the detected mapping.

    Roles are those of the upload page (:data:`ALL_ROLES`); list roles (reference, human,
    human-lower, metric, rater) may repeat. A role named replaces what was detected for it;
    ``role=`` with no column clears it.
    """
    mapping = detected or detect_mapping(frame)
    given: dict[str, list[str]] = {}
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        role, sep, column = part.partition("=")
        role, column = _ROLE_ALIASES.get(role.strip().lower(), role.strip()), column.strip()
        if not sep or role not in ALL_ROLES:
            raise DataError(f"--columns: '{part}' is not ROLE=COLUMN; roles: {', '.join(ALL_ROLES)}")
        if column and column not in frame.columns:
            raise DataError(f"--columns: no column '{column}' in the file; it has: {', '.join(map(str, frame.columns))}")
        given.setdefault(role, [])
        if column:
            given[role].append(column)
    roles = dict(mapping.roles)
    outputs, wide = list(mapping.outputs), []
    if len(given.get("output", [])) > 1:  # one output column per system: a wide file
        outputs = wide = given.pop("output")
        roles.pop("output", None)
    elif "output" in given:
        outputs = []
    for role in ROLES:
        if role in given:
            if len(given[role]) > 1:
                raise DataError(f"--columns: '{role}' is given {len(given[role])} columns; it takes one")
            roles.pop(role, None)
            if given[role]:
                roles[role] = given[role][0]
    directions = dict(mapping.directions)
    human = mapping.human
    if "human" in given or "human-lower" in given:
        human = given.get("human", []) + given.get("human-lower", [])
        directions.update({c: True for c in given.get("human", [])})
        directions.update({c: False for c in given.get("human-lower", [])})
    chosen = ColumnMapping(
        roles=roles, human=human, directions=directions,
        metrics=given.get("metric", mapping.metrics), references=given.get("reference", mapping.references),
        raters=given.get("rater", mapping.raters), rater_mean=mapping.rater_mean,
        keys=given.get("key", mapping.keys), evidence=dict(mapping.evidence), outputs=outputs,
    )
    # A column named for one role leaves the detected role it had (e.g. a detected metric made a human score).
    named = {c for cols in given.values() for c in cols} | set(wide)
    for column in named:
        chosen.evidence.pop(column, None)  # the user's word: no evidence to show
    for role, cols in (("metric", "metrics"), ("reference", "references"), ("rater", "raters"), ("key", "keys")):
        if role not in given:
            setattr(chosen, cols, [c for c in getattr(chosen, cols) if c not in named])
    if "human" not in given and "human-lower" not in given:
        chosen.human = [c for c in chosen.human if c not in named]
    for role in ROLES:
        if role not in given and chosen.roles.get(role) in named:
            chosen.roles.pop(role)
    return chosen


#: What a column is read as, in the notes that say why.
_AS = {"human": "a human score", "metric": "a measure", "output": "a system's outputs", "rater": "one rater's scores",
       "language": "the pairs' language", "reference": "a reference", "source_style": "the pairs' source style",
       "target_style": "the pairs' target style"}
#: Roles as messages name them.
ROLE_NAMES = {"source": "source", "output": "output", "system": "system", "setting": "setting",
              "source_style": "source style", "target_style": "target style", "reference": "reference",
              "human": "human score", "metric": "metric", "rater": "rater", "language": "language",
              "key": "key"}


def check_mapping(frame: pd.DataFrame, mapping: ColumnMapping) -> None:
    """Refuse a mapping with a missing source/output, an unknown column, or a column in two roles."""
    for role in ("source", "output"):
        if not mapping.roles.get(role) and not (role == "output" and mapping.outputs):
            # Texts that are all numbers ('42') under a name stviz does not know look like a metric: say so.
            numbers = [c for c in mapping.metrics + mapping.human if not is_metric_name(c) and not is_human_name(c)]
            hint = (f"; column '{numbers[0]}' holds numbers only and was taken as a metric: if it holds the "
                    f"{role} texts, say --columns {role}={numbers[0]} (on the page: its role)") if numbers else ""
            raise DataError(f"no column is mapped to '{role}'; the file has: {', '.join(map(str, frame.columns))}"
                            + hint)
    seen: dict[str, str] = {}
    for col, role in mapping.assignments():
        if col not in frame.columns:
            raise DataError(f"column '{col}' (mapped to '{ROLE_NAMES[role]}') is not in the file")
        if col in seen:
            roles = (ROLE_NAMES[seen[col]], ROLE_NAMES[role])
            raise DataError(f"column '{col}' is mapped twice ({roles[0]} and {roles[1]}): "
                            "give each column one role")
        seen[col] = role
