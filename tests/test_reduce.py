"""2-D maps (stviz.reduce), the scatter figure, and the ``reduce`` command."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from stviz.cache import Cache
from stviz.data.schema import DataError
from stviz import reduce as red


def _blobs(n_per=40, k=3, dim=12, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(k, dim)) * 4
    vectors = np.concatenate([c + rng.normal(size=(n_per, dim)) for c in centres]).astype(np.float32)
    return vectors, np.repeat([f"s{i}" for i in range(k)], n_per)


def test_pca_is_cached_by_inputs_and_parameters(tmp_path):
    vectors, _ = _blobs()
    cache = Cache(tmp_path)
    first = red.project(vectors, "pca", cache=cache)
    assert first.coords.shape == (120, 2) and not first.sampled
    assert len(first.info["explained variance"]) == 2
    again = red.project(vectors, "pca", cache=cache)
    np.testing.assert_array_equal(first.coords, again.coords)
    assert again.seconds == first.seconds  # read back, not recomputed
    red.project(vectors, "pca", seed=1, cache=cache)
    assert len(list((tmp_path / "results" / "projection").glob("*.pkl"))) == 2


def test_pca_uses_unit_normalised_vectors(tmp_path):
    vectors, _ = _blobs()
    scaled = vectors * np.random.default_rng(1).uniform(0.1, 10, size=(len(vectors), 1)).astype(np.float32)
    a = red.project(vectors, "pca", cache=Cache(tmp_path))
    b = red.project(scaled, "pca", cache=Cache(tmp_path))
    np.testing.assert_allclose(np.abs(a.coords), np.abs(b.coords), atol=1e-4)


def test_tsne_separates_clusters_and_reports_progress(tmp_path):
    vectors, styles = _blobs()
    calls = []
    proj = red.project(vectors, "tsne", cache=Cache(tmp_path), progress=lambda d, t: calls.append((d, t)))
    assert proj.coords.shape == (120, 2)
    assert calls[0] == (0, 750) and (750, 750) in calls and calls[-1] == (1, 1)
    # Points lie nearer their own style's centre than the others'.
    centres = np.stack([proj.coords[styles == s].mean(0) for s in np.unique(styles)])
    nearest = np.argmin(((proj.coords[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    assert (np.unique(styles)[nearest] == styles).mean() > 0.95


@pytest.mark.slow  # UMAP compiles with numba on its first call in a process (~40 s)
def test_umap_projects(tmp_path):
    vectors, _ = _blobs(n_per=30)
    proj = red.project(vectors, "umap", n_neighbors=10, cache=Cache(tmp_path))
    assert proj.coords.shape == (90, 2) and np.isfinite(proj.coords).all()


def test_sampling_is_explicit_and_stratified(tmp_path):
    vectors, styles = _blobs(n_per=100)
    styles = styles.astype(object)
    styles[:5] = "rare"
    proj = red.project(vectors, "pca", max_points=60, strata=styles, cache=Cache(tmp_path))
    assert proj.sampled and proj.n_total == 300 and len(proj.rows) == len(proj.coords)
    assert "rare" in set(styles[proj.rows])  # a small style keeps at least one point
    assert 55 <= len(proj.rows) <= 65 and (np.diff(proj.rows) > 0).all()
    np.testing.assert_array_equal(red.sample_rows(300, 60, 0, styles), red.sample_rows(300, 60, 0, styles))
    np.testing.assert_array_equal(red.sample_rows(10, None), np.arange(10))


def test_bad_input():
    with pytest.raises(DataError, match="unknown reduction method"):
        red.project(np.ones((5, 2)), "lda")
    with pytest.raises(DataError, match="at least 3"):
        red.project(np.ones((2, 2)), "pca")


def test_map_frames_for_style_corpora_and_pairs():
    from stviz.data import load_dataset

    styles = load_dataset("demo-styles")
    pairs = load_dataset("demo-pairs")
    assert red.map_sources(styles) == ["texts"]
    frame = red.map_frame(styles, "texts")
    assert {"text", "style"} <= set(frame.columns)
    outputs = red.map_frame(pairs, "outputs")
    assert len(outputs) == len(pairs.pairs) and "system" in outputs
    categorical, numeric = red.colour_columns(outputs)
    assert "system" in categorical and any(c.startswith("human:") for c in numeric)
    assert "style" not in outputs and "target_style" in outputs  # an output's style is not known, only aimed at
    sources = red.map_frame(pairs, "sources")
    assert sources["text"].is_unique and "style" in sources
    # Each source has several outputs: no single output's score or system is pinned on it.
    assert not any(str(c).startswith(("human:", "metric:")) for c in sources) and "system" not in sources
    assert red.map_sources(pairs) == ["outputs", "sources"]  # pair-only: its style texts are the sources
    with pytest.raises(DataError, match="no pairs"):
        red.map_frame(styles, "outputs")


def test_embedding_map_figure():
    from stviz.plots.similarity import HOVER_CHARS, embedding_map

    frame = pd.DataFrame({"x": [0.0, 1, 2, 3], "y": [0.0, 1, 0, 1], "row": [10, 11, 12, 13],
                          "text": ["a <b>bold</b> claim", "b" * 1000, "c", "d"], "style": ["p", "q", "p", "q"],
                          "score": [0.1, 0.2, 0.3, np.nan]})
    fig = embedding_map(frame, "style")
    assert [t.type for t in fig.data] == ["scattergl", "scattergl"]
    assert [t.name for t in fig.data] == ["p", "q"]
    assert list(fig.data[0].customdata) == [10, 12]  # selections map back to rows
    long = fig.data[1].text[0]
    assert len(long.replace("<br>", "")) == HOVER_CHARS and long.endswith("…")
    numeric = embedding_map(frame, "score")
    assert len(numeric.data) == 1 and numeric.data[0].marker.showscale


def test_embedding_map_gives_eleven_styles_eleven_distinct_colours():
    """CDS has 11 styles: each gets its own colour, none near-white (invisible on the white plot)."""
    from plotly.colors import hex_to_rgb

    from stviz.plots.similarity import embedding_map

    styles = [f"style {k:02d}" for k in range(11)]
    frame = pd.DataFrame({"x": np.arange(22.0), "y": np.arange(22.0), "row": np.arange(22), "text": "t",
                          "style": styles * 2})
    colours = [t.marker.color for t in embedding_map(frame, "style").data]
    assert len(set(colours)) == 11
    assert all(sum(hex_to_rgb(c)) < 3 * 220 for c in colours)


def test_cli_reduce_writes_coordinates_and_figures(tmp_path, capsys):
    from stviz.cli import main

    out = tmp_path / "map.csv"
    assert main(["reduce", "--dataset", "demo-styles", "--embedder", "glove-sum", "--method", "pca",
                 "--out", str(out)]) == 0
    points = pd.read_csv(out)
    assert {"row", "x", "y", "text", "style"} <= set(points.columns)
    assert points["row"].is_unique and points[["x", "y"]].notna().all().all()
    html = tmp_path / "map.html"
    assert main(["reduce", "--dataset", "demo-pairs", "--embedder", "glove-sum", "--method", "pca",
                 "--texts", "outputs", "--colour", "system", "--out", str(html)]) == 0
    page = html.read_text()
    assert "scattergl" in page
    assert not re.search(r"<script[^>]+src=", page) and "Plotly.newPlot" in page  # plotly.js inside: opens offline
    assert main(["reduce", "--dataset", "demo-styles", "--embedder", "glove-sum", "--method", "pca",
                 "--out", str(tmp_path / "map.xyz")]) == 2
    assert "--out must end" in capsys.readouterr().err


def test_map_points_embeds_only_the_sampled_rows(tmp_path):
    from stviz.data import load_dataset

    frame = red.map_frame(load_dataset("demo-styles"), "texts")
    cache = Cache(tmp_path)
    points, proj = red.map_points(frame, "glove-sum", "pca", max_points=50, cache=cache)
    assert proj.sampled and proj.n_total == len(frame) and len(points) == len(proj.rows)
    assert cache.summary()["vectors"] == len(set(frame["text"].iloc[proj.rows]))  # the rest never embedded
    # Each point keeps its sentence and style: row indexes the full frame.
    pd.testing.assert_frame_equal(points[["text", "style"]], frame.iloc[points["row"]][["text", "style"]].reset_index(drop=True))
    assert set(points["style"]) == set(frame["style"])  # stratified: every style kept
