"""An LLM judge as a rater of a study: it answers the study's items through the same protocol as the people, its
answers are stored as a machine rater's, and it is compared with them (Spearman's rho with the people's mean,
Krippendorff's alpha of the people with and without it); in the study's dataset it is a measure, never a rating.

The judge is any ``llm:`` metric (a server judge, ``llm:smollm2``, ``llm:hf:...``): ``llm:MODEL`` answers every
aspect the study asks, each with the judge's prompt of that aspect (``llm:MODEL:ASPECT``); ``llm:MODEL:ASPECT``
answers that aspect alone. Its score is computed per pair by :func:`stviz.metrics.compute_metric` (kept in the
judgment store as it arrives) and written to the study a block of items at a time, so an interrupted run resumes
with the items still unanswered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from stviz.data.schema import alpha_text, rater_alpha
from stviz.progress import Progress
from stviz.studies.judge_specs import judge_aspects
from stviz.studies.protocol import SCALES, Protocol
from stviz.studies.results import rho_with_the_others, item_languages, ratings_matrix
from stviz.studies.store import RATED, SKIPPED, Rater, Study, StudyStore

#: Items judged and written to the study at a time (an interrupt loses at most one block's writes, never its calls:
#: those are in the judgment store).
BLOCK = 16
#: A pairwise item's two scores closer than this share of the judge's scale are "about the same".
TIE_SHARE = 0.125


@dataclass(frozen=True)
class JudgeRun:
    """What a judge run did: its rater, the answers written now, and what it left out (with why)."""

    rater: Rater
    written: int
    notes: list[str] = field(default_factory=list)


def study_range(protocol: Protocol) -> tuple[float, float]:
    """The lowest and highest answer of an absolute study (1-5: (1, 5); 0-0.5-1: (0, 1))."""
    values = [v for v, _ in SCALES[protocol.scale]]
    return values[0], values[-1]


def rescale(values: np.ndarray, judge: tuple[float, float], study: tuple[float, float]) -> np.ndarray:
    """The judge's scores moved linearly from its scale onto the study's (unchanged when they are the same)."""
    (lo, hi), (to_lo, to_hi) = judge, study
    if (lo, hi) == (to_lo, to_hi):
        return np.asarray(values, dtype=float)
    return to_lo + (np.asarray(values, dtype=float) - lo) * (to_hi - to_lo) / (hi - lo)


def scale_note(study: Study, spec: str) -> str:
    """How the judge's scores become answers: 'on the study's 1-5 scale as they are', or the rescaling said."""
    from stviz.metrics import get_card

    judge = tuple(get_card(next(iter(judge_aspects(spec, study.protocol).values()))).value_range)
    if study.protocol.kind == "pairwise":
        return (f"{spec}: each output scored on the judge's {judge[0]:g}-{judge[1]:g} scale; the better scored output is "
                f"preferred, 'about the same' when the scores differ by less than {TIE_SHARE * (judge[1] - judge[0]):g}")
    target = study_range(study.protocol)
    if judge == target:
        return f"{spec}: scores on the study's {study.protocol.scale} scale as the judge gives them (not rounded)"
    return (f"{spec}: scores rescaled linearly from the judge's {judge[0]:g}-{judge[1]:g} to the study's "
            f"{study.protocol.scale} scale (not rounded to its choices)")


# -- before and during a run -----------------------------------------------------------------------------------
def missing_items(store: StudyStore, study: Study, spec: str) -> dict[str, list[int]]:
    """Per aspect's metric, the items the judge has not answered yet and can (its language is the judge's)."""
    from stviz.metrics import get_card

    known = _answered(store, study, spec)
    out = {}
    for aspect, name in judge_aspects(spec, study.protocol).items():
        valid = _in_languages(study, get_card(name).languages)
        out[name] = [k for k in valid if (k, aspect) not in known]
    return out


def plans(store: StudyStore, study: Study, spec: str) -> list[str]:
    """One line per aspect's metric: the calls still to make and their measured time (a few timed now, kept)."""
    from stviz.metrics.llm import plan

    lines = []
    for name, items in missing_items(store, study, spec).items():
        sources, outputs = _texts(study, items)
        lines.append(plan(name, sources, outputs).describe() if items else f"{name}: every item is answered already")
    return lines


def run_judge(store: StudyStore, study: Study, spec: str, progress: Progress | None = None) -> JudgeRun:
    """Add the judge as a machine rater (or find it) and answer every item it has not answered, a block at a time."""
    from stviz.metrics import compute_metric, get_card

    aspects = judge_aspects(spec, study.protocol)
    rater = store.add_judge(study, spec)
    todo = missing_items(store, study, spec)
    total, done, written = sum(len(v) for v in todo.values()), 0, 0
    for aspect, name in aspects.items():
        judge_scale = tuple(get_card(name).value_range)
        for start in range(0, len(todo[name]), BLOCK):
            items = todo[name][start:start + BLOCK]
            scores = compute_metric(name, *_texts(study, items))
            rows = _answers(study, items, aspect, scores, judge_scale)
            store.record_judged(rater, rows)
            written, done = written + len(rows), done + len(items)
            if progress:
                progress(done, total)
    return JudgeRun(rater, written, _left_out(study, aspects))


def _answered(store: StudyStore, study: Study, spec: str) -> set[tuple[int, str]]:
    rater = next((r for r in store.judges(study.id) if r.judge == spec), None)
    if rater is None:
        return set()
    mine = store.answers(study.id, rater)
    return set(zip(mine["item"].astype(int), mine["aspect"]))


def _in_languages(study: Study, languages) -> list[int]:
    """The items whose language the judge reads (every item for a judge of any language or items of none said)."""
    from stviz.languages.cards import ANY

    return [k for k, item in enumerate(study.items)
            if ANY in languages or (item.get("first", item).get("language") or "") in ("", *languages)]


def _left_out(study: Study, aspects: dict[str, str]) -> list[str]:
    from stviz.metrics import get_card

    notes = []
    for name in aspects.values():
        card = get_card(name)
        skipped = len(study.items) - len(_in_languages(study, card.languages))
        if skipped:
            notes.append(f"{card.label} reads {', '.join(card.languages)} only: {skipped:,} of {len(study.items):,} "
                         "items in other languages are left to the people")
    return notes


def _texts(study: Study, items: list[int]) -> tuple[list[str], list[str]]:
    """The pairs the judge scores for these items: one per absolute item, both outputs of a pairwise one."""
    sources, outputs = [], []
    for k in items:
        item = study.items[k]
        for side in ((item["first"], item["second"]) if study.protocol.kind == "pairwise" else (item,)):
            sources.append(str(side["source"]))
            outputs.append(str(side["output"]))
    return sources, outputs


def _answers(study: Study, items: list[int], aspect: str, scores: np.ndarray,
             judge_scale: tuple[float, float]) -> list[tuple[int, str, float | None, str]]:
    """The judge's answers to these items (position = item: a judge sees them in order): a score with no value (an
    unparsed reply) is a skipped answer, kept so that a rerun does not ask again."""
    if study.protocol.kind == "pairwise":
        first, second = scores[0::2], scores[1::2]
        tie = TIE_SHARE * (judge_scale[1] - judge_scale[0])
        values = np.where(first - second > tie, 1.0, np.where(second - first > tie, 0.0, 0.5))
        values[np.isnan(first) | np.isnan(second)] = np.nan
    else:
        values = rescale(scores, judge_scale, study_range(study.protocol))
    return [(k, aspect, None if np.isnan(v) else float(v), SKIPPED if np.isnan(v) else RATED)
            for k, v in zip(items, values)]


# -- afterwards: progress, agreement, the judge as a measure --------------------------------------------------
def judge_progress(study: Study, judges: list[Rater], judged: pd.DataFrame) -> pd.DataFrame:
    """Per judge: the aspects it answers, items answered of all, and answers with no score (unparsed replies)."""
    rows = []
    for judge in judges:
        mine = judged[judged["rater"] == judge.id]
        aspects = list(judge_aspects(judge.judge, study.protocol))
        counts = mine[mine["aspect"].isin(aspects)].groupby("item")["aspect"].nunique()
        rows.append({"judge": judge.name, "aspects": ", ".join(aspects), "answered": int((counts == len(aspects)).sum()),
                     "of": len(study.items), "no score": int((mine["status"] == SKIPPED).sum())})
    return pd.DataFrame(rows, columns=["judge", "aspects", "answered", "of", "no score"])


def judge_agreement(study: Study, raters: list[Rater], answers: pd.DataFrame, judges: list[Rater],
                    judged: pd.DataFrame) -> pd.DataFrame:
    """Per judge, aspect (and language, for items in several): Spearman's rho of the judge with the people's mean,
    over the items both rated; Krippendorff's alpha of the people, and of the people with the judge."""
    rows = []
    for judge in judges:
        for aspect in judge_aspects(judge.judge, study.protocol):
            people = ratings_matrix(study, answers, aspect, raters)
            machine = ratings_matrix(study, judged[judged["rater"] == judge.id], aspect, [judge])
            for language, items in item_languages(study):
                both = np.vstack([people[:, items], machine[:, items]])
                shared = ~np.isnan(machine[0, items]) & (~np.isnan(people[:, items])).any(axis=0)
                without, with_judge = rater_alpha(people[:, items]), rater_alpha(both)
                rho = rho_with_the_others(both, len(raters))
                rows.append({"judge": judge.name, "language": language, "aspect": aspect,
                             "rho with the people's mean": rho, "items": int(shared.sum()),
                             "alpha (people)": without.alpha, "alpha with the judge": with_judge.alpha,
                             "said": _said(judge.name, aspect, language, rho, int(shared.sum()), without, with_judge)})
    return pd.DataFrame(rows, columns=["judge", "language", "aspect", "rho with the people's mean", "items",
                                       "alpha (people)", "alpha with the judge", "said"])


def _said(judge: str, aspect: str, language: str, rho: float, items: int, without, with_judge) -> str:
    """'llm:M · style: ρ = 0.951 with the people's mean (12 items); α = 0.904 (2 raters, 12 items), with the judge
    0.912': one line of the owner's page, the people's alpha in the words of every other table."""
    said_rho = (f"ρ = {rho:.3f} with the people's mean ({items:,} item{'s' if items != 1 else ''})" if np.isfinite(rho)
                else f"ρ not measurable yet ({items:,} items rated by the judge and a person; it needs 3, and values "
                     "that vary)")
    with_it = f"{with_judge.alpha:.3f}" if np.isfinite(with_judge.alpha) else "not measurable yet"
    return (f"{judge} · {aspect}{f' [{language}]' if language else ''}: {said_rho}; people "
            f"{alpha_text(without, unit='item')}, with the judge {with_it}")


__all__ = ["BLOCK", "JudgeRun", "TIE_SHARE", "judge_agreement", "judge_aspects", "judge_progress", "missing_items",
           "plans", "rescale", "run_judge", "scale_note", "study_range"]
