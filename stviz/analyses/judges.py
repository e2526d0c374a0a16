"""LLM judges and learned metrics in the views: the calls a run will make, notes on their values, the replies.

Shared by Metrics vs humans and Failure cases (pages and commands): an LLM judge's replies that held no
score are NaN in every table, counted in a note and listed by :func:`unparsed_replies`; a learned metric
recomputed here (``bleurt:MODEL``) is compared with the file's precomputed column of the same family.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from stviz.data.schema import Dataset, short_name

LLM_PREFIX = "llm:"
LEARNED = ("comet", "bleurt")


def base_name(name: str) -> str:
    """A metric's name without a derived suffix (``llm:x+ne`` -> ``llm:x``)."""
    return name.split("+", 1)[0]


def llm_metrics(names: Sequence[str]) -> list[str]:
    """The LLM judges among ``names`` (each once, suffixes removed)."""
    return list(dict.fromkeys(base_name(n) for n in names if base_name(n).startswith(LLM_PREFIX)))


def mentions_llm(options) -> bool:
    """Whether an analysis's options name an LLM judge (its metrics, or its one metric)."""
    values = [getattr(options, f, None) for f in ("metrics", "metric")]
    names = [v for value in values if value for v in (value if isinstance(value, tuple) else (value,))]
    return bool(llm_metrics([str(n) for n in names]))


def call_plans(analysis, dataset: Dataset, options) -> list[str]:
    """Before a run: one line per LLM judge with its calls and their measured time ([] when none is chosen)."""
    if not mentions_llm(options) or not hasattr(analysis, "estimate"):
        return []
    return analysis.estimate(dataset, options).call_plans


def _texts(dataset: Dataset) -> tuple[list[str], list[str]]:
    return dataset.pairs["source"].astype(str).tolist(), dataset.pairs["output"].astype(str).tolist()


def unparsed_replies(dataset: Dataset, names: Sequence[str], modification: str = "none",
                     lexicon=None) -> pd.DataFrame:
    """Every LLM judge's replies that held no score: metric, pair (the dataset's row), reply, source, output."""
    from stviz.metrics import get_card
    from stviz.metrics.llm import unparsed_replies as stored_replies
    from stviz.metrics.modify import apply_modification

    sources, outputs = _texts(dataset)
    judged = apply_modification(sources, modification, lexicon), apply_modification(outputs, modification, lexicon)
    frames = []
    for name in llm_metrics(names):
        found = stored_replies(name, *judged)
        pairs = dataset.pairs.index[found["position"].to_numpy()] if len(found) else []
        frames.append(pd.DataFrame({"metric": get_card(name).label, "pair": pairs, "reply": found["reply"],
                                    "source": [sources[i] for i in found["position"]],
                                    "output": [outputs[i] for i in found["position"]]}))
    columns = ["metric", "pair", "reply", "source", "output"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def judge_notes(dataset: Dataset, names: Sequence[str], values: pd.DataFrame) -> list[str]:
    """Notes on the values: each LLM judge's unparsed count, each learned metric against the file's column."""
    from stviz.metrics import get_card

    notes = []
    for name in llm_metrics(names):
        if name not in values:
            continue
        card = get_card(name)
        missing = int(np.isnan(values[name].to_numpy(dtype=float)).sum())
        if missing and card.options.get("content"):  # a judge run here: its reading, not a reply, was off the scale
            from stviz.metrics.llm_local import MIN_SCALE_MASS

            notes.append(f"{card.label}: {missing:,} of {len(values):,} pairs put less than "
                         f"{MIN_SCALE_MASS:.0%} of the answer's probability on the scale's scores; they are NaN (left "
                         "out of correlations and rankings), listed under 'Unparsed LLM replies' with their reading")
        elif missing:
            low, high = card.value_range
            notes.append(f"{card.label}: {missing:,} of {len(values):,} replies held no score on its "
                         f"{low:g}-{high:g} scale; they are unparsed (NaN, left out of correlations and rankings), "
                         "their replies are listed under 'Unparsed LLM replies' (command line: --llm-replies FILE)")
    return notes + learned_agreement(dataset, names, values)


def learned_agreement(dataset: Dataset, names: Sequence[str], values: pd.DataFrame) -> list[str]:
    """For each ``comet:``/``bleurt:`` metric, its agreement with the file's precomputed column of that family."""
    from stviz.metrics import get_card

    notes = []
    for name in (n for n in names if n.split(":", 1)[0] in LEARNED and n in values):
        family = name.split(":", 1)[0]
        for column in (c for c in dataset.metric_columns if family in c.lower() and c in dataset.pairs):
            ours = values[name].to_numpy(dtype=float)
            theirs = dataset.pairs[column].to_numpy(dtype=float)
            both = ~(np.isnan(ours) | np.isnan(theirs))
            if both.sum() < 3:
                continue
            r = float(np.corrcoef(ours[both], theirs[both])[0, 1])
            diff = float(np.mean(np.abs(ours[both] - theirs[both])))
            notes.append(f"{get_card(name).label} against the file's {short_name(column)} column: Pearson r = "
                         f"{r:.3f}, mean |difference| = {diff:.3f} over {int(both.sum()):,} pairs")
    return notes




def configure_judges(url: str | None = None, concurrency: int | None = None, prompts: Sequence[str] = (),
                     read: str | None = None) -> None:
    """Where LLM judges are, how hard to call them and how their scores are read, for this process (--llm-* flags)."""
    from stviz.metrics.llm import configure

    configure(url=url, concurrency=concurrency, prompts=prompts, read=read)


def reset_judges() -> None:
    """Back to the environment's LLM settings (STVIZ_LLM_URL, _CONCURRENCY, _PROMPTS, _READ)."""
    from stviz.metrics.llm import reset

    reset()


__all__ = ["base_name", "call_plans", "configure_judges", "judge_notes", "learned_agreement", "llm_metrics",
           "mentions_llm", "reset_judges", "unparsed_replies"]
