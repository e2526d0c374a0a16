"""Style transfer intensity: direction-corrected EMD (Mir et al.), normalised intensity (Cloudera), baselines."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stviz.data.schema import DataError
from stviz.measures.style.intensity import (direction_corrected_emd, discrete_ground_distance, earth_movers_distance,
                                            normalised_intensity, style_transfer_intensity, target_indices,
                                            target_style_accuracy, target_style_probability)
from stviz.measures.tradeoffs import pareto_front, tradeoff_table


def random_distributions(n: int, k: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.ones(k), size=n)


@pytest.mark.parametrize("k", [2, 3, 5, 11])
def test_emd_with_the_discrete_ground_distance_is_total_variation(k):
    p, q = random_distributions(50, k, 1), random_distributions(50, k, 2)
    assert np.allclose(earth_movers_distance(p, q), 0.5 * np.abs(p - q).sum(1), atol=1e-9)


def test_two_style_emd_is_the_change_in_target_probability_with_direction():
    p = np.array([[0.1, 0.9], [0.9, 0.1], [0.7, 0.3], [0.5, 0.5]])
    q = np.array([[0.0, 1.0], [0.5, 0.5], [0.9, 0.1], [0.5, 0.5]])
    target = np.array([1, 1, 1, 0])
    assert np.allclose(direction_corrected_emd(p, q, target), [0.1, 0.4, -0.2, 0.0])


def test_custom_ground_distance_changes_the_cost_and_is_validated():
    ground = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)  # styles on a line
    p, q = np.array([[1.0, 0, 0]]), np.array([[0, 0, 1.0]])
    assert earth_movers_distance(p, q, ground)[0] == pytest.approx(2.0)
    assert earth_movers_distance(p, q)[0] == pytest.approx(1.0)
    assert np.allclose(discrete_ground_distance(3), 1 - np.eye(3))
    with pytest.raises(DataError, match="zero diagonal"):
        earth_movers_distance(p, q, np.ones((3, 3)))
    with pytest.raises(DataError, match="3 x 3"):
        earth_movers_distance(p, q, np.zeros((2, 2)))
    with pytest.raises(DataError, match="sum to 1"):
        earth_movers_distance(np.array([[0.5, 0.1, 0]]), q)


def test_normalised_intensity_counts_the_share_of_the_possible_move():
    p = np.array([[0.1, 0.9], [0.9, 0.1], [0.1, 0.9], [0.0, 1.0], [0.4, 0.6]])
    q = np.array([[0.0, 1.0], [0.5, 0.5], [0.5, 0.5], [0.0, 1.0], [0.4, 0.6]])
    target = np.array([1, 1, 1, 1, 0])
    # [0.1,0.9] -> [0,1] toward style 1 is the full gain although its EMD is only 0.1 (Cloudera).
    assert np.allclose(normalised_intensity(p, q, target), [1.0, 0.4 / 0.9, -0.4 / 0.9, 0.0, 0.0])
    assert direction_corrected_emd(p[:1], q[:1], target[:1])[0] == pytest.approx(0.1)


def test_target_style_baselines():
    q = np.array([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
    target = np.array([1, 1, 0])
    assert np.allclose(target_style_accuracy(q, target), [1, 0, 0])
    assert np.allclose(target_style_probability(q, target), [0.8, 0.4, 0.3])
    with pytest.raises(DataError, match="unknown to the classifier"):
        target_indices(["negative", "positive"], ["positive", "formal"])


class FixedClassifier:
    """A stand-in classifier with fixed style distributions per text."""

    classes = ["negative", "positive"]

    def __init__(self, table: dict[str, list[float]]):
        self.table = table

    def predict_proba(self, texts, progress=None):
        return np.array([self.table[t] for t in texts])


def test_style_transfer_intensity_table_for_pairs():
    clf = FixedClassifier({"bad food": [0.9, 0.1], "good food": [0.2, 0.8], "food": [0.45, 0.55], "awful food": [1.0, 0.0]})
    pairs = pd.DataFrame({"source": ["bad food", "bad food", "good food"], "output": ["good food", "awful food", "food"],
                          "target_style": ["positive", "positive", "negative"], "system": ["a", "b", "a"]})
    out = style_transfer_intensity(pairs, clf)
    assert np.allclose(out["direction_corrected_emd"], [0.7, -0.1, 0.25])
    assert np.allclose(out["target_style_accuracy"], [1, 0, 0])
    assert np.allclose(out["normalised_intensity"], [0.7 / 0.9, -1.0, 0.25 / 0.8])
    table = tradeoff_table(pairs, out)
    assert table.loc["a", "direction_corrected_emd"] == pytest.approx(0.475) and table.loc["a", "n"] == 2
    with pytest.raises(DataError, match="target_style"):
        style_transfer_intensity(pairs.drop(columns="target_style"), clf)


def test_pareto_front():
    x = [0.1, 0.5, 0.9, 0.4, 0.9]
    y = [0.9, 0.6, 0.2, 0.5, 0.1]
    assert list(pareto_front(x, y)) == [True, True, True, False, False]


def test_reproduces_the_authors_direction_corrected_emd(corpora):
    """Our EMD on Mir et al.'s released style distributions equals their released scores."""
    base = corpora / "mir-yelp" / "evaluations" / "automated" / "style_transfer_intensity" / "sentence_level"
    inputs = np.load(base / "style_distributions" / "input_distributions.npz")
    target = np.r_[np.ones(122, int), np.zeros(122, int)]  # negatives first, transferred to positive
    checked = 0
    for path in sorted((base / "style_distributions").glob("*_*_*.npz")):
        outputs = np.load(path)
        scores = np.load(base / "scores_based_on_emd" / path.name)
        for clf in ("textcnn", "fasttext"):
            p = inputs[clf].astype(float)
            q = outputs[clf].astype(float)
            ours = direction_corrected_emd(p / p.sum(1, keepdims=True), q / q.sum(1, keepdims=True), target)
            assert np.allclose(ours, scores[clf], atol=2e-3), path.name
            checked += 1
    assert checked == 24


def test_cli_intensity_writes_one_row_per_pair(tmp_path, capsys):
    from stviz.cli import main

    assert main(["classify", "train", "--dataset", "demo", "--kind", "lr", "--out", str(tmp_path / "clf")]) == 0
    out_file = tmp_path / "intensity.csv"
    assert main(["intensity", "--dataset", "demo", "--classifier", str(tmp_path / "clf"), "--out", str(out_file)]) == 0
    frame = pd.read_csv(out_file)
    assert len(frame) == 72 and {"direction_corrected_emd", "normalised_intensity", "target_style_accuracy"} <= set(frame)
    assert "| careful |" in capsys.readouterr().out
    # A missing classifier folder is a clear error (exit 2), not a traceback.
    assert main(["intensity", "--dataset", "demo-pairs", "--classifier", str(tmp_path / "nowhere"),
                 "--out", str(out_file)]) == 2


def test_tradeoff_table_orders_settings_by_their_value():
    from stviz.measures.tradeoffs import tradeoff_table

    pairs = pd.DataFrame({"system": ["B", "A", "A", "A"], "setting": ["x", "lambda=1", "lambda=10", "lambda=5"]})
    per_pair = pd.DataFrame({"direction_corrected_emd": [0.1, 0.2, 0.3, 0.4]})
    table = tradeoff_table(pairs, per_pair)
    assert list(table.index) == [("A", "lambda=1"), ("A", "lambda=5"), ("A", "lambda=10"), ("B", "x")]
    assert list(table["direction_corrected_emd"]) == [0.2, 0.4, 0.3, 0.1]
