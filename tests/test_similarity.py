"""Style-similarity computations (stviz.similarity), their figures, and the ``similarity`` command."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stviz import similarity as sim
from stviz.cache import Cache
from stviz.data.schema import DataError
from stviz.progress import Reporter


def _clustered(sizes=(30, 45, 20), dim=16, spread=0.3, seed=1):
    """Sentences as noisy copies of one centre per style (strong style signal); unequal style sizes."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(sizes), dim))
    vectors = np.concatenate([c + spread * rng.normal(size=(n, dim)) * np.linalg.norm(c) for c, n in zip(centres, sizes)])
    styles = np.repeat([f"s{i}" for i in range(len(sizes))], sizes)
    order = rng.permutation(len(vectors))  # input order must not matter
    return vectors[order].astype(np.float32), styles[order].tolist()


@pytest.mark.parametrize("include_self", [False, True])
def test_fast_matrix_equals_brute_force(include_self):
    vectors, styles = _clustered()
    vectors[3] = 0  # a sentence with no known word: cosine 0 with everything, itself included
    fast = sim.similarity_matrix(vectors, styles, include_self)
    slow = sim.brute_force_similarity_matrix(vectors, styles, include_self, block=7)
    assert list(fast.index) == ["s0", "s1", "s2"] == list(fast.columns)
    np.testing.assert_allclose(fast.to_numpy(), slow.to_numpy(), atol=1e-12)


def test_brute_force_matches_a_literal_loop():
    # The reference itself against the paper's words, pair by pair, on a tiny set.
    vectors, styles = _clustered(sizes=(4, 3), dim=5)
    vectors = vectors.astype(np.float64)
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    styles = np.asarray(styles)
    for include_self in (False, True):
        ref = sim.brute_force_similarity_matrix(vectors, styles, include_self)
        for a in ("s0", "s1"):
            for b in ("s0", "s1"):
                means = []
                for i in np.flatnonzero(styles == a):
                    cos = [float(units[i] @ units[j]) for j in np.flatnonzero(styles == b) if include_self or i != j]
                    means.append(np.mean(cos))
                assert ref.loc[a, b] == pytest.approx(np.mean(means), abs=1e-12)


def test_matrix_is_symmetric_and_self_pairs_shift_the_diagonal_exactly():
    vectors, styles = _clustered()
    excl = sim.similarity_matrix(vectors, styles, include_self=False).to_numpy()
    incl = sim.similarity_matrix(vectors, styles, include_self=True).to_numpy()
    np.testing.assert_allclose(excl, excl.T, atol=1e-12)
    n = np.array([30, 45, 20])
    # Including the n self-pairs (cosine 1) mixes 1 into the n(n-1) others.
    np.testing.assert_allclose(np.diag(incl), (np.diag(excl) * (n - 1) + 1) / n, atol=1e-12)
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_array_equal(excl[off], incl[off])


def test_orthogonal_styles_give_identity():
    vectors = np.array([[1, 0], [2, 0], [0, 3], [0, 1]], dtype=float)
    m = sim.similarity_matrix(vectors, ["a", "a", "b", "b"])
    np.testing.assert_allclose(m.to_numpy(), np.eye(2), atol=1e-12)


def test_bad_input_raises_data_error():
    with pytest.raises(DataError, match="at least 2 styles"):
        sim.similarity_matrix(np.ones((3, 2)), ["a", "a", "a"])
    with pytest.raises(DataError, match="at least 2 sentences"):
        sim.similarity_matrix(np.ones((3, 2)), ["a", "a", "b"])
    with pytest.raises(DataError, match="one vector per style label"):
        sim.similarity_matrix(np.ones((3, 2)), ["a", "b"])


def _matrix(values, names=("a", "b", "c")):
    return pd.DataFrame(np.asarray(values, dtype=float), index=list(names), columns=list(names))


def test_most_similar_lists_ties_at_three_decimals():
    m = _matrix([[0.9001, 0.9004, 0.1],  # a: tie with b at 3 decimals (0.900 vs 0.900)
                 [0.9004, 0.8000, 0.2],
                 [0.1000, 0.2000, 0.3]])
    table = sim.most_similar(m).set_index("style")
    assert table.loc["a", "most similar"] == "a, b"
    assert bool(table.loc["a", "tie"]) and bool(table.loc["a", "self is most similar"])
    assert table.loc["b", "most similar"] == "a"
    assert table.loc["c", "most similar"] == "c"
    assert sim.self_similarity_count(m) == 2
    # Exact comparison breaks the tie: a is then most similar to b only.
    assert sim.self_similarity_count(m, decimals=None) == 1


def test_gram_matrix_always_has_a_self_similar_style():
    # With self-pairs included the matrix is a Gram matrix of the style means, whose largest entry
    # lies on the diagonal (Cauchy-Schwarz): at least one style is always most similar to itself,
    # so 1/k is not the chance rate of the paper's count - the permutation null is.
    rng = np.random.default_rng(0)
    for _ in range(20):
        vectors = rng.normal(size=(60, 4)) + rng.normal(size=4)
        styles = rng.integers(0, 6, size=60).astype(str)
        assert sim.self_similarity_count(sim.similarity_matrix(vectors, styles, include_self=True), None) >= 1


def test_permutation_test_separates_style_from_no_style():
    vectors, styles = _clustered(spread=0.2)
    strong = sim.permutation_test(vectors, styles, n_permutations=199, seed=0)
    assert strong.observed == 3
    assert strong.p_value == pytest.approx(1 / 200)  # no shuffle reaches 3 of 3
    rng = np.random.default_rng(3)
    noise = rng.normal(size=(300, 8)) + 2.0
    labels = rng.integers(0, 6, size=300).astype(str)
    null = sim.permutation_test(noise, labels, n_permutations=199, seed=0)
    assert null.p_value > 0.05
    assert len(null.null_counts) == 199


def test_bootstrap_intervals_cover_the_estimate_and_narrow_with_more_data():
    small_v, small_s = _clustered(sizes=(15, 15, 15), seed=2)
    big_v, big_s = _clustered(sizes=(300, 300, 300), seed=2)
    small = sim.bootstrap_intervals(small_v, small_s, n_bootstrap=100, seed=0)
    big = sim.bootstrap_intervals(big_v, big_s, n_bootstrap=100, seed=0)
    est = sim.similarity_matrix(big_v, big_s).to_numpy()
    assert (big.low.to_numpy() <= est + 1e-12).all() and (est <= big.high.to_numpy() + 1e-12).all()
    assert (big.high - big.low).to_numpy().mean() < (small.high - small.low).to_numpy().mean()
    assert 0 <= big.count_low <= big.count_high <= 3


def test_style_leakage_high_for_clusters_and_near_chance_for_noise():
    vectors, styles = _clustered(sizes=(60, 60, 60), spread=0.3)
    clear = sim.style_leakage(vectors, styles, folds=3)
    assert clear.accuracy > 0.9 and clear.silhouette > 0.2
    assert clear.majority_rate == pytest.approx(1 / 3)
    rng = np.random.default_rng(4)
    noise = sim.style_leakage(rng.normal(size=(180, 8)), np.repeat(["a", "b", "c"], 60), folds=3)
    assert noise.leakage < 0.25 < clear.leakage


def test_similarity_report_is_cached_and_ranked(tmp_path):
    from stviz.data import load_dataset

    texts = load_dataset("demo-styles").style_texts()
    cache = Cache(tmp_path)
    calls = []

    class Recorder(Reporter):
        def stage(self, label):
            return lambda done, total: calls.append((label, done, total))

    args = (texts["text"].tolist(), texts["style"].tolist())
    first = sim.similarity_report(*args, "glove-sum", n_permutations=99, n_bootstrap=20, cache=cache,
                                  progress=Recorder())
    stages = list(dict.fromkeys(label for label, _, _ in calls))
    # GloVe pools 120 sentences in one step (reported done at once, so no stage for it); the tests take a while.
    assert any("permutation test (99" in s for s in stages)
    assert any("style leakage" in s for s in stages)
    assert all(done == total for label, done, total in calls if (label, done, total) == calls[-1])
    assert len(list((tmp_path / "results" / "style-similarity").glob("*.pkl"))) == 1
    again = sim.similarity_report(*args, "glove-sum", n_permutations=99, n_bootstrap=20, cache=cache)
    pd.testing.assert_frame_equal(first.matrix, again.matrix)
    assert first.self_count == sim.self_similarity_count(first.matrix)
    ranking = sim.invariance_ranking([first, again])
    assert list(ranking["rank"]) == [1, 2] and "leakage" in ranking
    assert 0 <= first.leakage.accuracy <= 1


def test_invariance_ranking_orders_by_leakage():
    vectors, styles = _clustered(sizes=(40, 40, 40))
    rng = np.random.default_rng(5)

    def report(name, vecs):
        m = sim.similarity_matrix(vecs, styles)
        return sim.SimilarityReport(name, m, False, 3, sim.most_similar(m), sim.self_similarity_count(m),
                                    sim.permutation_test(vecs, styles, n_permutations=19), None, {}, 0,
                                    leakage=sim.style_leakage(vecs, styles, folds=3))

    ranking = sim.invariance_ranking([report("styled", vectors), report("noise", rng.normal(size=vectors.shape))])
    assert list(ranking["embedder"]) == ["noise", "styled"]


def test_tables_in_the_papers_layout():
    m = _matrix([[0.5, 0.7, 0.1], [0.7, 0.9, 0.2], [0.1, 0.2, 0.3]], names=("a_x", "b", "c"))
    table = sim.matrix_table(m)
    assert table.loc["a_x", "b"] == "**0.700**" and table.loc["a_x", "a_x"] == "0.500"
    latex = sim.matrix_latex(m, caption="GloVe 50% sum")
    assert r"\textbf{0.700}" in latex and r"a\_x" in latex and r"50\%" in latex
    assert latex.count(r"\textbf") == 3


def test_heatmap_marks_row_maxima_and_side_by_side_panels():
    from stviz.plots.similarity import similarity_heatmap, similarity_heatmaps

    m = _matrix([[0.5, 0.7, 0.1], [0.7, 0.9, 0.2], [0.1, 0.2, 0.3]])
    fig = similarity_heatmap(m, "t", low=m - 0.01, high=m + 0.01)
    text = fig.data[0].text
    assert text[0][1] == "<b>0.700*</b>" and text[0][0] == "0.500"
    assert "CI" in fig.data[0].hovertemplate
    both = similarity_heatmaps({"one": m, "two": m * 0.5, "three": m})
    assert [t.type for t in both.data] == ["heatmap"] * 3
    assert {t.coloraxis for t in both.data} == {"coloraxis"} and both.layout.coloraxis.cmin == pytest.approx(0.05)
    apart = similarity_heatmaps({"one": m, "two": m * 0.5}, shared_scale=False)
    assert [t.coloraxis for t in apart.data] == [None, None] and all(t.showscale for t in apart.data)
    assert apart.data[0].colorbar.x < apart.data[1].colorbar.x  # each colour bar beside its own panel


def test_permutation_figure():
    from stviz.plots.similarity import permutation_figure

    fig = permutation_figure(np.array([1, 1, 2, 1, 3]), observed=3, k=11)
    assert list(fig.data[0].x) == [1, 2, 3]
    assert sum(fig.data[0].y) == pytest.approx(1.0)


def test_cli_similarity_tables(capsys):
    from stviz.cli import main

    assert main(["similarity", "--dataset", "demo-styles", "--embedder", "glove-sum", "--format", "csv",
                 "--permutations", "99"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line and not line.startswith("#")]
    frame = pd.read_csv(pd.io.common.StringIO("\n".join(lines)), index_col=0)
    assert frame.shape == (5, 5) and (frame.to_numpy() == frame.to_numpy().T).all()

    assert main(["similarity", "--dataset", "demo-styles", "--embedder", "glove-sum", "--most-similar",
                 "--permutations", "99", "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert "| style | most similar | similarity |" in out
    assert "permutation p" in out and "self-similar %" in out

    assert main(["similarity", "--dataset", "demo-styles", "--embedder", "glove-sum", "--format", "latex",
                 "--permutations", "99"]) == 0
    assert r"\textbf{" in capsys.readouterr().out


def test_cli_similarity_errors(capsys):
    from stviz.cli import main

    assert main(["similarity", "--dataset", "demo-pairs", "--embedder", "glove-sum"]) == 2
    err = capsys.readouterr().err
    assert "single style" in err and "two or more" in err
    assert "glove-sum:" not in err  # refused before anything was embedded
    assert main(["similarity", "--dataset", "no-such-set"]) == 2
    assert "unknown dataset" in capsys.readouterr().err
    assert main(["similarity", "--dataset", "demo-styles", "--embedder", "nonsense:x"]) == 2
    assert "unknown embedder" in capsys.readouterr().err


def test_cli_refuses_bad_numbers_and_specs_before_any_work(capsys):
    from stviz.cli import main

    for argv, message in [
        (["similarity", "--dataset", "demo-styles", "--permutations", "-5"], "--permutations: must be at least 1"),
        (["similarity", "--dataset", "demo-styles", "--decimals", "-1"], "--decimals: must be at least 0"),
        (["similarity", "--dataset", "demo-styles", "--per-style", "many"], "expected a number, got 'many'"),
        (["reduce", "--dataset", "demo-styles", "--max-points", "-1", "--out", "x.csv"], "--max-points: must be at least 0"),
        (["reduce", "--dataset", "demo-styles", "--perplexity", "-3", "--out", "x.csv"], "--perplexity: must be at least 1"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert message in err.strip().splitlines()[-1], err
    # A typo in the second embedder is reported before the first one is run.
    assert main(["similarity", "--dataset", "demo-styles", "--embedder", "glove-sum,nonsense:x"]) == 2
    err = capsys.readouterr().err
    assert "unknown embedder 'nonsense:x'" in err and "glove-sum:" not in err


def test_cli_samples_per_style_and_says_so(capsys):
    from stviz.cli import main

    assert main(["similarity", "--dataset", "demo-styles", "--embedder", "glove-sum", "--per-style", "10",
                 "--permutations", "19", "--bootstrap", "0", "--most-similar", "--format", "md"]) == 0
    captured = capsys.readouterr()
    assert "note: sampled 50 of 120 sentences (at most 10 per style, seed 0)" in captured.err
    assert "| 20.0 |" in captured.out  # chance 1/k of 5 styles, shares printed to 1 decimal
