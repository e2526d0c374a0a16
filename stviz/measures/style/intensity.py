"""Style transfer intensity: how far, and in which direction, an output moved toward its target style.

All measures take the style distributions a classifier assigns to each source and its output
(rows of ``predict_proba``) and the index of the target style:

* :func:`direction_corrected_emd` - Mir et al. (NAACL 2019): the Earth Mover's Distance between
  the two distributions, negated when the output puts less probability on the target style than
  the source did.
* :func:`normalised_intensity` - Cloudera Fast Forward Labs (2022, "Automated metrics for
  evaluating text style transfer"): the share of the possible move captured, so that
  [0.1, 0.9] -> [0, 1] toward style 1 counts as the full gain (1.0) although its EMD is 0.1.
* :func:`target_style_accuracy` / :func:`target_style_probability` - the older baselines: does the
  output's most probable style equal the target / how probable is the target for the output.

Ground distance
---------------
Styles are nominal: no style lies "between" two others. The ground distance is therefore the
discrete metric, d(i, j) = 1 for i != j and 0 for i = j, for any number of styles. With it the EMD
equals the total variation distance, 0.5 * sum_i |p_i - q_i|; for two styles that is
|p_target - q_target|, what Mir et al.'s code computes (pyemd with unit costs). A custom
``ground_distance`` matrix (symmetric, zero diagonal, non-negative) can be given instead, e.g. 1 -
the style-to-style cosine similarity of an embedder, when some styles are closer than others.
The direction sign stays defined by the target style's probability alone.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from stviz.data.schema import DataError


def discrete_ground_distance(n_styles: int) -> np.ndarray:
    """Ground distance between styles: 1 between different styles, 0 to itself (module docstring)."""
    return 1.0 - np.eye(n_styles)


def earth_movers_distance(source_probs: np.ndarray, output_probs: np.ndarray,
                          ground_distance: np.ndarray | None = None) -> np.ndarray:
    """Row-wise EMD between two stacks of style distributions (POT's exact solver)."""
    import ot

    p, q = _check_distributions(source_probs, output_probs)
    cost = discrete_ground_distance(p.shape[1]) if ground_distance is None else _check_ground(ground_distance, p.shape[1])
    out = np.empty(len(p))
    for i in range(len(p)):
        # Tiny negative rounding in classifier outputs would make POT reject the histograms.
        a, b = _renormalise(p[i]), _renormalise(q[i])
        out[i] = ot.emd2(a, b, cost)
    return out


def direction_corrected_emd(source_probs: np.ndarray, output_probs: np.ndarray, target_index: Sequence[int],
                            ground_distance: np.ndarray | None = None) -> np.ndarray:
    """Style transfer intensity of Mir et al. (2019): EMD, negative when the target probability fell."""
    p, q = _check_distributions(source_probs, output_probs)
    return earth_movers_distance(p, q, ground_distance) * _direction(p, q, _check_targets(target_index, p))


def _direction(p: np.ndarray, q: np.ndarray, t: np.ndarray) -> np.ndarray:
    """+1 where the output's target probability did not fall, else -1 (Mir et al.'s direction factor)."""
    rows = np.arange(len(p))
    return np.where(q[rows, t] >= p[rows, t], 1.0, -1.0)


def normalised_intensity(source_probs: np.ndarray, output_probs: np.ndarray, target_index: Sequence[int]) -> np.ndarray:
    """Share of the possible move toward the target captured, negative share of the possible move away (Cloudera 2022).

    With p and q the source's and output's target-style probability: (q - p) / (1 - p) when
    q >= p, else (q - p) / p; 0 when no move was possible. In [-1, 1].
    """
    p_all, q_all = _check_distributions(source_probs, output_probs)
    t = _check_targets(target_index, p_all)
    rows = np.arange(len(p_all))
    p, q = p_all[rows, t], q_all[rows, t]
    gain = q - p
    room = np.where(gain >= 0, 1.0 - p, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(room > 1e-12, gain / np.where(room > 1e-12, room, 1.0), 0.0)
    return np.clip(share, -1.0, 1.0)


def target_style_probability(output_probs: np.ndarray, target_index: Sequence[int]) -> np.ndarray:
    """Probability of the target style for each output (Mir et al.'s 'target style score' baseline)."""
    q = np.asarray(output_probs, dtype=float)
    t = _check_targets(target_index, q)
    return q[np.arange(len(q)), t]


def target_style_accuracy(output_probs: np.ndarray, target_index: Sequence[int]) -> np.ndarray:
    """1.0 where the output's most probable style is the target style, else 0.0 (the old baseline)."""
    q = np.asarray(output_probs, dtype=float)
    t = _check_targets(target_index, q)
    return (q.argmax(1) == t).astype(float)


def target_indices(classes: Sequence[str], target_styles: Sequence[str]) -> np.ndarray:
    """Column index of each target style in a classifier's ``classes``; DataError for unknown styles."""
    lookup = {str(c): i for i, c in enumerate(classes)}
    unknown = sorted({str(s) for s in target_styles if str(s) not in lookup})
    if unknown:
        raise DataError(f"target style(s) {', '.join(unknown)} unknown to the classifier, which knows "
                        f"{', '.join(map(str, classes))}; train it on texts of these styles")
    return np.array([lookup[str(s)] for s in target_styles], dtype=int)


def pair_distributions(classifier, sources: list[str], outputs: list[str],
                       progress=None) -> tuple[np.ndarray, np.ndarray]:
    """Style distributions of each pair's source and of its output. A cross-fitted classifier judges both by the model
    that never saw the source (:class:`~stviz.measures.style.own_text.CrossFittedStyleClassifier`); any other judges
    each distinct text once."""
    routed = getattr(getattr(classifier, "estimator", classifier), "pair_distributions", None)
    if routed is not None:
        return routed(sources, outputs, progress)
    texts = list(dict.fromkeys(sources + outputs))
    probs = classifier.predict_proba(texts, progress=progress)
    row = {t: i for i, t in enumerate(texts)}
    return probs[[row[t] for t in sources]], probs[[row[t] for t in outputs]]


def style_transfer_intensity(pairs: pd.DataFrame, classifier, ground_distance: np.ndarray | None = None,
                             progress=None) -> pd.DataFrame:
    """Every intensity measure for each pair (needs source, output, target_style columns).

    Columns: p_target_source, p_target_output, emd, direction_corrected_emd,
    normalised_intensity, target_style_probability, target_style_accuracy.
    """
    for col in ("source", "output", "target_style"):
        if col not in pairs:
            raise DataError(f"style transfer intensity needs a '{col}' column; the pairs have "
                            f"{', '.join(map(str, pairs.columns))}")
    targets = target_indices(classifier.classes, pairs["target_style"].astype(str))
    p, q = pair_distributions(classifier, pairs["source"].astype(str).tolist(), pairs["output"].astype(str).tolist(),
                              progress)
    rows = np.arange(len(p))
    emd = earth_movers_distance(p, q, ground_distance)
    return pd.DataFrame({
        "p_target_source": p[rows, targets],
        "p_target_output": q[rows, targets],
        "emd": emd,
        "direction_corrected_emd": emd * _direction(p, q, targets),
        "normalised_intensity": normalised_intensity(p, q, targets),
        "target_style_probability": target_style_probability(q, targets),
        "target_style_accuracy": target_style_accuracy(q, targets),
    }, index=pairs.index)


# -- checks ----------------------------------------------------------------------------------------
def _check_distributions(source_probs, output_probs) -> tuple[np.ndarray, np.ndarray]:
    p = np.atleast_2d(np.asarray(source_probs, dtype=float))
    q = np.atleast_2d(np.asarray(output_probs, dtype=float))
    if p.shape != q.shape:
        raise DataError(f"source and output distributions differ in shape: {p.shape} vs {q.shape}")
    if p.size and (np.any(p < -1e-6) or np.any(q < -1e-6)
                   or not np.allclose(p.sum(1), 1, atol=1e-3) or not np.allclose(q.sum(1), 1, atol=1e-3)):
        raise DataError("style distributions must be non-negative and sum to 1 per row")
    return p, q


def _check_targets(target_index, probs: np.ndarray) -> np.ndarray:
    t = np.broadcast_to(np.asarray(target_index, dtype=int), (len(probs),))
    if len(t) and (t.min() < 0 or t.max() >= probs.shape[1]):
        raise DataError(f"target style index out of range for {probs.shape[1]} styles")
    return t


def _check_ground(ground: np.ndarray, k: int) -> np.ndarray:
    ground = np.asarray(ground, dtype=float)
    if ground.shape != (k, k):
        raise DataError(f"ground distance must be {k} x {k} for {k} styles, got {ground.shape}")
    if np.any(ground < 0) or not np.allclose(np.diag(ground), 0) or not np.allclose(ground, ground.T):
        raise DataError("ground distance must be symmetric, non-negative, with a zero diagonal")
    return ground


def _renormalise(v: np.ndarray) -> np.ndarray:
    v = np.clip(v, 0, None)
    return v / v.sum()


# -- agreement with people (Mir et al. 2019, Table 7) ----------------------------------------------
def correlation_with_humans(pairs: pd.DataFrame, scores: pd.DataFrame, human: str = "human:style_transfer_intensity",
                            measures: Sequence[str] = ("direction_corrected_emd", "target_style_probability",
                                                       "target_style_accuracy"),
                            by: str = "system") -> pd.DataFrame:
    """Pearson r of each measure with a human score, per system (pooled over its settings) and averaged (Mir et al. Table 7)."""
    from scipy.stats import pearsonr

    if human not in pairs:
        raise DataError(f"the pairs have no human score '{human}'")
    groups = pairs[by].astype(str) if by in pairs else pd.Series("all", index=pairs.index)
    rows = {}
    for name in groups.unique():
        sel = (groups == name).to_numpy() & pairs[human].notna().to_numpy()
        rows[name] = {m: float(pearsonr(scores.loc[sel, m], pairs.loc[sel, human])[0])
                      if sel.sum() > 2 and scores.loc[sel, m].std() > 0 else float("nan") for m in measures}
    table = pd.DataFrame(rows).T
    table.index.name = by
    if len(table) > 1:
        table.loc["average"] = table.mean()
    return table
