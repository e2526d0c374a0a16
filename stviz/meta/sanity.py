"""Sanity checks of a dataset's precomputed metric columns (``metric:NAME``) against stviz's own metrics.

A column named like a metric stviz computes (BLEU, chrF, METEOR, ROUGE, BERTScore, a cosine) should
rank the pairs as stviz's metric does. When it does not (Spearman rho below 0.9, or negative), or
when two columns rank every pair alike (a copy under another name), a correlation with people built
on that column measures something else than its name says. Each flag carries its evidence (the rho)
and, where a check can find it, the reason: SGDD-TST's ``bleu`` is NLTK sentence BLEU over
*characters* on a 0-1 scale (Babakov et al.'s column; tests/test_repro_babakov.py), not word BLEU. A human rating
that never varies is said once (:func:`constant_rating`): no correlation with it can be computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from stviz.data.meanings import namesake, reference_side, source_side  # noqa: F401 - the vocabulary's, re-exported
from stviz.data.schema import METRIC_PREFIX, short_name

#: Below this Spearman rho with stviz's own metric, a column named like it is flagged.
AGREEMENT = 0.9
#: At or above this |rho|, two columns rank the pairs alike (one is a copy, or the negation, of the other).
IDENTICAL = 0.999
#: Pairs the character-level BLEU check recomputes (NLTK is slow; 200 pairs decide it).
CHECK_PAIRS = 200

#: Reference-side metrics the sanity check adds when not computed already (the registry's ``ref:``: sacrebleu, against
#: every reference of the pair).
REFERENCE_CHECKED = ("bleu", "chrf", "chrf++")


@dataclass(frozen=True)
class SanityFlag:
    """One suspicious column: what was found, the evidence and (when known) why."""

    column: str
    kind: str  # "disagrees" (named like a metric, ranks otherwise), "identical" (ranks like another column) or
    # "direction" (a style column following the pairs' direction more than the rating: one style's pole?)
    other: str  # the stviz metric or column it was compared with (the human rating, for "direction")
    rho: float
    reason: str = ""
    twin: str = ""  # a stviz metric the column ranks exactly as (what it most likely is)
    rho_human: float = float("nan")  # "direction": the correlation with the rating it was compared with
    pole: str = ""  # "direction": the target style its values are higher for (the pole it likely measures)

    def message(self, labels: Mapping[str, str] | None = None) -> str:
        """One sentence for the page, the notes and stderr."""
        labels = labels or {}
        name, other = f"'{short_name(self.column)}'", labels.get(self.other, self.other)
        if self.kind == "direction":
            column = short_name(self.column)
            return (f"{name} follows the pairs' direction (Spearman rho = {self.rho:.3f} with 'target is "
                    f"{self.pole}') more than the rating '{short_name(self.other)}' (rho = {self.rho_human:.3f}"
                    f"{'; ' + self.reason if self.reason else ''}): it looks like a measure of one pole of the style, "
                    f"compared upside down on part of the pairs. Say what it measures: --poles {column}={self.pole} "
                    f"(on the page: what each style column measures), or --poles {column}=target if it already "
                    "measures toward each pair's target")
        if self.kind == "identical":
            how = "in the reverse order of" if self.rho < 0 else "in the same order as"
            text = f"{name} ranks every pair {how} {other} (Spearman rho = {self.rho:.3f}): a copy under another name?"
        else:
            text = (f"{name} is named like stviz's {other} but ranks the pairs otherwise (Spearman rho = "
                    f"{self.rho:.3f}{', negative' if self.rho < 0 else ''}; agreement means rho ≥ {AGREEMENT})")
        if self.twin:
            return text + f"; it ranks the pairs exactly as stviz's {labels.get(self.twin, self.twin)} does"
        return text + (f"; {self.reason}" if self.reason else "")


def constant_rating(name: str, values) -> str:
    """Why a human column cannot be correlated with anything, once: 'content: every pair has the same rating (3): no
    correlation can be computed'; '' when its ratings vary (or none is there)."""
    from stviz.data.intake.cells import float_text

    finite = np.asarray(values, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    if not len(finite) or (finite != finite[0]).any():
        return ""
    return (f"{short_name(name)}: every pair has the same rating ({float_text(float(finite[0]))}): no correlation can "
            "be computed")


def reference_values(values: pd.DataFrame, pairs: pd.DataFrame | None) -> pd.DataFrame:
    """stviz's reference-side BLEU / chrF per pair (the registry's ``ref:bleu``, ``ref:chrf``, ``ref:chrf++``: sacrebleu
    against every reference), for the columns of ``values`` named after one that ``values`` does not hold already."""
    from stviz.metrics import metric_frame
    from stviz.metrics.reference import reference_columns

    # Every namesake, whatever side its name says: RUSSE 2022's 'chrf' is chrF against the reference.
    wanted = {namesake(c) for c in values.columns if str(c).startswith(METRIC_PREFIX)} & set(REFERENCE_CHECKED)
    missing = [f"ref:{m}" for m in sorted(wanted) if f"ref:{m}" not in values.columns]
    if not missing or pairs is None or not reference_columns(pairs):
        return pd.DataFrame(index=values.index)
    return metric_frame(pairs, missing).set_axis(values.index)


def rank_agreement(values: pd.DataFrame) -> pd.DataFrame:
    """Metric x metric Spearman rho over the pairs where both have values (the agreement matrix)."""
    return values.apply(pd.to_numeric, errors="coerce").replace([np.inf, -np.inf], np.nan).corr(method="spearman")


def sanity_flags(values: pd.DataFrame, sources: Sequence[str] | None = None,
                 outputs: Sequence[str] | None = None, agreement: pd.DataFrame | None = None) -> list[SanityFlag]:
    """Flags for the precomputed columns of ``values`` (raw, not negated), checked against its other columns.

    ``sources`` / ``outputs`` let a disagreeing BLEU column be tested for character-level NLTK BLEU.
    """
    rho = agreement if agreement is not None else rank_agreement(values)
    precomputed = [c for c in values.columns if str(c).startswith(METRIC_PREFIX)]
    flags = []
    for column in precomputed:
        compared = variants(column, values)
        found = {v: float(rho.loc[column, v]) for v in compared if np.isfinite(rho.loc[column, v])}
        # A name that says its side ('src_chrF', 'ref-BLEU') is held to it; one that says none ('chrf') is flagged only
        # when no variant stviz computes (against the source, against the references) ranks as it does.
        said = {v: r for v, r in found.items() if v == compared[0]} if names_a_side(column) else found
        if said and max(said.values()) < AGREEMENT:
            metric = next(v for v in compared if v in said)
            twin = [o for o in values.columns if o not in (column, *compared) and not str(o).startswith(METRIC_PREFIX)
                    and np.isfinite(rho.loc[column, o]) and rho.loc[column, o] >= IDENTICAL]
            reason = "" if twin else _known_reason(column, metric, values, found[metric], sources, outputs)
            others = [f"against {'the references' if v.startswith('ref:') else 'the source'} rho = {found[v]:.3f}"
                      for v in found if v != metric]
            reason = "; ".join(r for r in [reason, *others] if r)
            flags.append(SanityFlag(column, "disagrees", metric, found[metric], reason, twin[0] if twin else ""))
        for other in values.columns:
            if other == column or other in compared or (str(other).startswith(METRIC_PREFIX) and other < column):
                continue  # each pair of columns once; a column agreeing with its namesake is as it should be
            r = rho.loc[column, other]
            if np.isfinite(r) and abs(r) >= IDENTICAL:
                flags.append(SanityFlag(column, "identical", other, float(r)))
    return flags


#: Within one target style, correlations with the rating of opposite signs, each at least this strong, mean the
#: column's sign flips with the target style.
FLIP = 0.1


def direction_flags(values: pd.DataFrame, columns: Sequence[str], targets: Sequence[str],
                    humans: Mapping[str, Sequence[float]]) -> list[SanityFlag]:
    """Style columns nobody declared whose values follow the pairs' direction more than a style rating.

    A measure of one pole (P(formal)) compared with ratings of "was the target reached" on pairs of two directions
    runs with the direction (high on formal targets, low on informal ones) and its correlation with the rating flips
    sign between the directions. The within-direction correlations decide: flagged when they have opposite signs
    (each at least 0.1). A column positive within every direction is oriented right, however much it also follows
    the direction (one direction may simply be easier), and is never advised a flip; only where fewer than two
    directions can be read alone is a column flagged for following the direction more than the rating. Both
    correlations are in the flag."""
    from scipy.stats import spearmanr

    targets = pd.Series([str(t) for t in targets], index=values.index)
    styles = sorted(targets.unique())
    if len(styles) < 2:
        return []
    flags = []
    for column in columns:
        for human, rating in humans.items():
            rows = pd.DataFrame({"v": values[column].to_numpy(float), "h": np.asarray(rating, float),
                                 "t": targets.to_numpy()}).dropna()
            if len(rows) < 10 or rows["v"].nunique() < 2 or rows["t"].nunique() < 2:
                continue
            means = rows.groupby("t")["v"].mean()
            pole = str(means.idxmax())
            with np.errstate(all="ignore"):
                rho_dir = float(spearmanr(rows["v"], rows["t"] == pole)[0])
                rho_human = float(spearmanr(rows["v"], rows["h"])[0])
                within = {t: float(spearmanr(part["v"], part["h"])[0]) for t, part in rows.groupby("t")
                          if len(part) >= 5 and part["v"].nunique() > 1 and part["h"].nunique() > 1}
            flips = [r for r in within.values() if np.isfinite(r) and abs(r) >= FLIP]
            flipped = bool(flips) and min(flips) < 0 < max(flips)
            readable = sum(np.isfinite(r) for r in within.values()) >= 2
            if flipped or (not readable and abs(rho_dir) > abs(rho_human)):
                reason = ", ".join(f"within {t} targets {r:.3f}" for t, r in within.items())
                flags.append(SanityFlag(column, "direction", human, rho_dir, reason, rho_human=rho_human, pole=pole))
    return flags


def names_a_side(column: str) -> bool:
    """Whether a column's name says which text it compares the output with (the source or the references)."""
    return reference_side(column) or source_side(column)


def variants(column: str, values: pd.DataFrame) -> list[str]:
    """The stviz columns of ``values`` a precomputed column may equal: its namesake on the side its name says first
    (source-side ``chrf``, reference-side ``ref:chrf``), then on the other side."""
    metric = namesake(column)
    if metric is None:
        return []
    sides = [f"ref:{metric}", metric] if reference_side(column) else [metric, f"ref:{metric}"]
    return [v for v in sides if v in values.columns]


def identified(values: pd.DataFrame, agreement: pd.DataFrame | None = None) -> list[str]:
    """Notes for precomputed columns that rank the pairs as stviz's namesake on the *other* side than their name says
    (RUSSE 2022's ``chrf`` is chrF against the reference): checked, and read as what they are."""
    rho = agreement if agreement is not None else rank_agreement(values)
    notes = []
    for column in (c for c in values.columns if str(c).startswith(METRIC_PREFIX)):
        compared = variants(column, values)
        found = {v: float(rho.loc[column, v]) for v in compared if np.isfinite(rho.loc[column, v])}
        if (len(found) == 2 and max(found.values()) >= AGREEMENT and max(found, key=found.get) != compared[0]
                and not names_a_side(column)):  # a name that says the other side is flagged instead
            best = max(found, key=found.get)
            side = "the references" if best.startswith("ref:") else "the source"
            notes.append(f"'{short_name(column)}' ranks the pairs as stviz's {best.removeprefix('ref:')} against {side} "
                         f"does (Spearman rho = {found[best]:.3f}; against the other side {found[compared[0]]:.3f}): "
                         f"checked, it is {best.removeprefix('ref:')} against {side}")
    return notes


def _compared_with(column: str) -> str | None:
    """The stviz column a precomputed one is first checked against: its namesake, reference-side where its name says so."""
    metric = namesake(column)
    return f"ref:{metric}" if metric and reference_side(column) else metric


def unchecked(values: pd.DataFrame, columns: Sequence[str] | None = None) -> list[str]:
    """Notes for every precomputed column (of ``columns``, default those of ``values``) that could not be checked:
    no stviz namesake computed, or a name that matches no measure."""
    notes, nameless = [], []
    columns = [c for c in (values.columns if columns is None else columns) if str(c).startswith(METRIC_PREFIX)]
    for column in columns:
        metric = _compared_with(column)
        if metric is None:
            nameless.append(f"'{short_name(column)}'")
        elif not variants(column, values):
            side = "reference-side " if metric.startswith("ref:") else ""
            why = ("the set has no references" if metric.startswith("ref:") and metric[4:] in REFERENCE_CHECKED
                   else "it was not computed here")
            notes.append(f"'{short_name(column)}' is named like stviz's {side}{metric.removeprefix('ref:')}, which "
                         f"could not be compared ({why}), so its values were not checked")
    if nameless:
        notes.append(f"not checked (their names match no measure stviz computes): {', '.join(nameless)}")
    return notes


def _known_reason(column: str, metric: str, values: pd.DataFrame, rho: float, sources, outputs) -> str:
    """Why a column disagrees with its namesake, when a check can tell."""
    if rho <= -AGREEMENT:
        return "it looks negated (a distance, or 1 - the score)"
    if metric == "bleu" and sources is not None and _is_character_bleu(values[column], sources, outputs):
        return (f"its values equal NLTK sentence BLEU over characters (0-1) on the first {CHECK_PAIRS} pairs, not "
                "word-level BLEU (sacrebleu, 0-100) as stviz computes it")
    if metric == "bertscore":
        return "BERTScore depends on its model; stviz's is MiniLM-L6, the column may name another"
    if metric.startswith("cosine:"):
        return "a cosine depends on its embedding; the column's vectors may differ from stviz's"
    return ""


def _is_character_bleu(column: pd.Series, sources: Sequence[str], outputs: Sequence[str]) -> bool:
    """Whether the column equals NLTK's sentence BLEU with strings as character sequences (Babakov et al.)."""
    import warnings

    try:
        from nltk.translate.bleu_score import sentence_bleu
    except ImportError:
        return False
    head = min(CHECK_PAIRS, len(column))
    given = pd.to_numeric(column.iloc[:head], errors="coerce").to_numpy(float)
    with warnings.catch_warnings():  # NLTK warns for every pair without 4-gram overlap: expected here
        warnings.simplefilter("ignore")
        chars = np.array([sentence_bleu([str(s)], str(o)) for s, o in zip(list(sources)[:head], list(outputs)[:head])])
    # The column may come on its file's 0-1 scale or as the tables show it, x100 (precomputed.on_percent_scale).
    return bool(head) and any(np.allclose(given, chars * scale, atol=1e-6 * scale, equal_nan=True) for scale in (1, 100))


__all__ = ["AGREEMENT", "FLIP", "IDENTICAL", "SanityFlag", "constant_rating", "direction_flags", "identified",
           "namesake", "rank_agreement", "reference_side", "reference_values", "sanity_flags", "unchecked", "variants"]
