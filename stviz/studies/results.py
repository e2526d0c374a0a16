"""A study's answers read as data: progress per rater, agreement (Krippendorff's alpha per aspect, each rater
against the others, each rater against themself on repeated items), and the study as a rated dataset.

The dataset is the export read back: one row per rated output, one ``ASPECT_K`` column per rater (rater K),
which the column vocabulary reads as raters of that aspect, their mean as the human rating. The page, the CLI
and an exported CSV opened again therefore see the same human columns and the same alpha.
"""

from __future__ import annotations

import warnings
from datetime import datetime

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from stviz.data.schema import DataError, Dataset, alpha_text, rater_alpha
from stviz.studies.judge_specs import judge_aspects
from stviz.studies.links import PREFIX
from stviz.studies.sampling import ITEM_COLUMNS, credited_systems
from stviz.studies.store import FLAGGED, MACHINES, RATED, SKIPPED, WHOLE_ITEM, Rater, Study, StudyStore



def first_answers(study: Study, answers: pd.DataFrame) -> pd.DataFrame:
    """Each rater's value per item and aspect from the item's first showing (repeats measure consistency only)."""
    rated = answers[(answers["status"] == RATED) & answers["aspect"].isin(study.protocol.aspects)]
    return rated.sort_values("position").drop_duplicates(["rater", "item", "aspect"])


def progress(study: Study, raters: list[Rater], answers: pd.DataFrame) -> pd.DataFrame:
    """Per rater: screens done of all, skipped, flagged, and when they last answered (local time, to the second, in
    ISO form with its offset: '2025-03-01 14:02:07+01:00'; '' before the first answer)."""
    rows = []
    for rater in raters:
        mine = answers[answers["rater"] == rater.id]
        last = (datetime.fromtimestamp(mine["answered"].max()).astimezone().isoformat(" ", "seconds")
                if len(mine) else "")
        rows.append({"rater": rater.name, **tally(study, mine), "of": len(rater.sequence), "last answer": last})
    return pd.DataFrame(rows, columns=["rater", "done", "of", "skipped", "flagged unreadable", "last answer"])


def tally(study: Study, answers: pd.DataFrame) -> dict[str, int]:
    """One rater's screens: done, and of those skipped and flagged unreadable (the rest rated)."""
    whole = answers[answers["aspect"] == WHOLE_ITEM]
    return {"done": len(screens_done(study, answers)), "skipped": int((whole["status"] == SKIPPED).sum()),
            "flagged unreadable": int((whole["status"] == FLAGGED).sum())}


def screens_done(study: Study, answers: pd.DataFrame) -> set[int]:
    """The positions a rater has finished: every aspect answered, or the item skipped or flagged."""
    whole = set(answers.loc[answers["aspect"] == WHOLE_ITEM, "position"])
    rated = answers[(answers["status"] == RATED) & answers["aspect"].isin(study.protocol.aspects)]
    counts = rated.groupby("position")["aspect"].nunique()
    return whole | set(counts[counts == len(study.protocol.aspects)].index)


def next_position(study: Study, rater: Rater, answers: pd.DataFrame) -> int | None:
    """The first screen this rater has not finished (None: all done)."""
    done = screens_done(study, answers[answers["rater"] == rater.id])
    return next((p for p in range(len(rater.sequence)) if p not in done), None)


def ratings_matrix(study: Study, answers: pd.DataFrame, aspect: str, raters: list[Rater]) -> np.ndarray:
    """Raters x items of one aspect (NaN where a rater gave no value), from the first showings."""
    first = first_answers(study, answers)
    first = first[first["aspect"] == aspect]
    matrix = np.full((len(raters), len(study.items)), np.nan)
    index = {r.id: k for k, r in enumerate(raters)}
    for rater, item, value in first[["rater", "item", "value"]].itertuples(index=False):
        matrix[index[rater], int(item)] = value
    return matrix


def agreement(study: Study, raters: list[Rater], answers: pd.DataFrame) -> pd.DataFrame:
    """Per aspect, and per language for items in several (each language had its own raters, as in every table):
    Krippendorff's alpha (interval) over the items two or more raters rated, how many, and the alpha said
    (:func:`~stviz.data.schema.alpha_text`: a number, or why it is not measurable yet)."""
    rows = []
    for language, items in item_languages(study):
        for aspect in study.protocol.aspects:
            measured = rater_alpha(ratings_matrix(study, answers, aspect, raters)[:, items])
            rows.append({"language": language, "aspect": aspect, "alpha": measured.alpha,
                         "items rated by 2+": measured.units, "raters": measured.raters,
                         "said": alpha_text(measured, unit="item")})
    return pd.DataFrame(rows, columns=["language", "aspect", "alpha", "items rated by 2+", "raters", "said"])


def agreement_lines(table: pd.DataFrame) -> list[str]:
    """:func:`agreement`'s rows as the owner's page and ``study status`` say them: 'style [de]: α = 0.712 (...)'."""
    return [f"{aspect}{f' [{language}]' if language else ''}: {said}"
            for language, aspect, said in table[["language", "aspect", "said"]].itertuples(index=False)]


def item_languages(study: Study) -> list[tuple[str, list[int]]]:
    """The study's items by their language, [('', every item)] when they are in one language (or say none)."""
    by: dict[str, list[int]] = {}
    for k, item in enumerate(study.items):
        by.setdefault(str(item.get("first", item).get("language") or ""), []).append(k)
    return list(by.items()) if len(by) > 1 else [("", list(range(len(study.items))))]


def rater_agreement(study: Study, raters: list[Rater], answers: pd.DataFrame) -> pd.DataFrame:
    """Each rater against the others: Spearman's rho of their values with the others' mean, per aspect, and their
    consistency on repeated items (the share of repeats answered as the first time)."""
    matrices = {aspect: ratings_matrix(study, answers, aspect, raters) for aspect in study.protocol.aspects}
    rows = []
    for k, rater in enumerate(raters):
        row = {"rater": rater.name}
        for aspect, matrix in matrices.items():
            row[f"{aspect}: rho with the others"] = rho_with_the_others(matrix, k)
        row["same answer when repeated"] = _consistency(study, rater, answers)
        rows.append(row)
    return pd.DataFrame(rows)


def rho_with_the_others(matrix: np.ndarray, k: int) -> float:
    """Spearman's rho of rater ``k``'s values with the other raters' mean, over the items both have (NaN: too few)."""
    mine, others = matrix[k], np.delete(matrix, k, axis=0)
    with warnings.catch_warnings():  # an item no other rater rated has no mean: NaN, left out below
        warnings.simplefilter("ignore", RuntimeWarning)
        rest = np.nanmean(others, axis=0) if len(others) else np.full_like(mine, np.nan)
    both = ~np.isnan(mine) & ~np.isnan(rest)
    if both.sum() < 3 or not np.ptp(mine[both]) or not np.ptp(rest[both]):
        return np.nan
    return float(spearmanr(mine[both], rest[both])[0])


def _consistency(study: Study, rater: Rater, answers: pd.DataFrame) -> float:
    """The share of a rater's answers to a repeated item that equal their first answer to it (NaN: no repeat done)."""
    mine = answers[(answers["rater"] == rater.id) & (answers["status"] == RATED)]
    same = []
    for (item, aspect), part in mine.groupby(["item", "aspect"]):
        if len(part) >= 2:
            values = part.sort_values("position")["value"].to_numpy()
            same += [v == values[0] for v in values[1:]]
    return float(np.mean(same)) if same else np.nan


def study_frame(study: Study, raters: list[Rater], answers: pd.DataFrame) -> pd.DataFrame:
    """The study as a pair file: one row per system output rated, one ``ASPECT_K`` column per rater K (stviz reads
    it back); systems that wrote the same text for an input each get its row, with the same ratings.

    A pairwise study scores an output by each rater's mean preference for it over its comparisons (1 preferred,
    0.5 about the same, 0 the other preferred).
    """
    outputs, scores = _outputs(study)
    frame = pd.DataFrame(outputs)
    columns = [c for c in ITEM_COLUMNS if c in frame]
    frame = frame[columns]
    for aspect in study.protocol.aspects:
        matrix = ratings_matrix(study, answers, aspect, raters)
        for k in range(len(raters)):
            frame[f"{aspect}_{k + 1}"] = scores(matrix[k])
    return frame


def _outputs(study: Study):
    """The outputs rated, one row per system credited (systems that wrote the same text share its ratings), and a
    function turning one rater's item values into per-row scores."""
    texts, scores = _texts(study)
    rows, owner = [], []  # owner[r]: the rated text that row r stands for
    for k, text in enumerate(texts):
        for system in credited_systems(text):
            rows.append({**{c: text.get(c) for c in ITEM_COLUMNS if c in text}, "system": system})
            owner.append(k)
    owner = np.asarray(owner, dtype=int)
    return rows, lambda values: scores(values)[owner] if len(owner) else np.array([])


def _texts(study: Study):
    """The distinct texts rated and a function turning one rater's item values into per-text scores."""
    if study.protocol.kind == "absolute":
        return list(study.items), lambda values: np.asarray(values, dtype=float)
    keys: dict[tuple, int] = {}
    outputs, where = [], []  # where[i]: (output of the first, output of the second) of item i
    for item in study.items:
        ends = []
        for side in ("first", "second"):
            out = item[side]
            key = (item["input"], out["system"])
            if key not in keys:
                keys[key] = len(outputs)
                outputs.append(out)
            ends.append(keys[key])
        where.append(ends)

    def scores(values: np.ndarray) -> np.ndarray:
        total, count = np.zeros(len(outputs)), np.zeros(len(outputs))
        for (a, b), value in zip(where, values):
            if not np.isnan(value):  # value: the first output's score; the second gets the rest
                total[a] += value
                total[b] += 1 - value
                count[a] += 1
                count[b] += 1
        with np.errstate(all="ignore"):
            return np.where(count > 0, total / count, np.nan)

    return outputs, scores


def with_judges(frame: pd.DataFrame, study: Study, judges: list[Rater],
                judged: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The study's pair file with one column per judge and aspect, named by its metric (``llm:MODEL:ASPECT``): a
    measure of each output (read back as a precomputed metric, never a rater), and the columns added."""
    _, scores = _outputs(study)
    frame, added = frame.copy(), []
    for judge in judges:
        for aspect, name in judge_aspects(judge.judge, study.protocol).items():
            if name in frame:  # 'llm:M' and 'llm:M:content' ask the same judge the same question: one column
                continue
            frame[name] = scores(ratings_matrix(study, judged[judged["rater"] == judge.id], aspect, [judge])[0])
            added.append(name)
    return frame, added


def study_pairs(store: StudyStore, study: Study) -> tuple[pd.DataFrame, list[str]]:
    """The study as a pair file, the people as rater columns and each judge as a measure column; and those columns."""
    frame = study_frame(study, store.raters(study.id), store.answers(study.id))
    return with_judges(frame, study, store.judges(study.id), store.answers(study.id, who=MACHINES))


def study_dataset(store: StudyStore, study_id: str) -> Dataset:
    """A study's rated outputs as a dataset (``study:ID``): the raters' mean per aspect a human column, alpha said."""
    from stviz.data.intake.build import apply_mapping
    from stviz.data.intake.mapping import ColumnMapping

    study = store.study(study_id)
    raters = store.raters(study.id)
    answers = store.answers(study.id)
    frame, judged = study_pairs(store, study)  # an LLM judge who rated is a measure column, never a rater
    rater_columns = [c for c in frame if c not in judged and c.rsplit("_", 1)[0] in study.protocol.aspects]
    if not raters or frame[rater_columns].isna().all().all():
        raise DataError(f"study '{study.title}' has no answers yet: share its rater links, then come back")
    roles = {c: c for c in ("source", "output", "system", "source_style", "target_style", "language") if c in frame}
    mapping = ColumnMapping(roles=roles, references=["reference"] if "reference" in frame else [],
                            raters=rater_columns, directions={c: True for c in rater_columns}, metrics=judged)
    ds = apply_mapping(frame, mapping, name=PREFIX + study.id, title=f"Study: {study.title}")
    # A rater who has not reached an output leaves its cell empty: said once here, not per rater column.
    ds.notes = [n for n in ds.notes if not (n.startswith("Column '") and "empty cell(s) were read as missing" in n)]
    unrated = int(frame[rater_columns].isna().any(axis=1).sum())
    if unrated:
        ds.notes.insert(0, f"{unrated:,} of {len(frame):,} outputs are not rated yet by every rater (each mean is "
                           "over the raters who rated it)")
    shared = len(frame) - len(_texts(study)[0])
    if shared:
        ds.notes.insert(0, f"{shared:,} output{'s were' if shared != 1 else ' was'} the same text as another "
                           "system's output for the same input: each such text was rated once and its ratings "
                           "credited to every system that wrote it")
    done = f"{len(answers.loc[answers['status'] == RATED]):,} answers from {len(raters)} raters"
    ds.notes.insert(0, f"Ratings collected with stviz ({study.protocol.kind}, {', '.join(study.protocol.aspects)}"
                       f"{'' if study.protocol.kind == 'pairwise' else ', scale ' + study.protocol.scale}; {done}) "
                       f"on {len(frame):,} outputs of {study.dataset}.")
    if judged:
        ds.notes.insert(1, f"LLM judges that answered as raters are measures here, not ratings: {', '.join(judged)}.")
    return ds


def load_study(name: str) -> Dataset:
    """Open ``study:ID`` from the default studies database."""
    from stviz.studies.store import open_store

    return study_dataset(open_store(), name[len(PREFIX):])


__all__ = ["agreement", "agreement_lines", "first_answers", "item_languages", "load_study", "next_position", "progress", "rho_with_the_others",
           "rater_agreement", "ratings_matrix", "screens_done", "study_dataset", "study_frame", "study_pairs", "tally",
           "with_judges"]
