"""Issue 68, item 18: the Meta-evaluation's sets x measures heatmap of a file of several languages. Row labels keep
their language code, measure labels what tells them apart, and the cosine is one column, 'cosine (the language's
encoder)', each cell saying its encoder (MiniLM for English, USE for Russian, multilingual-e5 elsewhere)."""

from __future__ import annotations

import pandas as pd
import pytest

from multilingual_data import pairs_frame
from stviz.data.intake.build import load_pairs_file

LANGUAGES = ("en", "fr", "ru", "zh")
#: A file name long enough that every row label is cut.
STEM = "nine-languages-human-ratings-of-rewrites"
#: A human column name long enough that cutting in the middle of the whole label loses the language code.
HUMAN = "human_content_preservation_mean"


@pytest.fixture(scope="module")
def heatmap(tmp_path_factory):
    """The content heatmap's rows and figure of one run on a file of four languages with content ratings."""
    from stviz.analyses import meta_evaluation
    from stviz.plots.meta_evaluation import sets_heatmap

    frames = [pairs_frame(code).assign(language=code) for code in LANGUAGES]
    frame = pd.concat(frames, ignore_index=True)
    frame[HUMAN] = [float((i * 7) % 5 + 1) for i in range(len(frame))]
    path = tmp_path_factory.mktemp("heat") / f"{STEM}.csv"
    frame.to_csv(path, index=False)
    ds = load_pairs_file(str(path))[0]
    options = meta_evaluation.Options(datasets=(ds.name,), levels=("sentence",), bootstrap=20)
    result = meta_evaluation.run(None, options, uploads=[ds])
    rows = meta_evaluation.heatmap_frame(result, "content", "sentence", "spearman")
    return result, rows, sets_heatmap(rows, "Spearman ρ")


def test_row_labels_are_cut_but_keep_their_language_code(heatmap):
    _, _, fig = heatmap
    rows = list(fig.data[0].y)
    assert len(rows) == len(LANGUAGES) == len(set(rows))
    assert all(len(label) <= 40 for label in rows)
    assert [next(c for c in LANGUAGES if f"[{c}]" in label) for label in rows] == list(LANGUAGES), rows


def test_one_cosine_column_says_each_cells_encoder(heatmap):
    result, rows, fig = heatmap
    columns = list(fig.data[0].x)
    assert columns.count("cosine (the language's encoder)") == 1, columns
    own = ("cosine: MiniLM", "cosine: USE", "cosine: multilingual-e5")  # GloVe's (English only) keeps its column
    assert not any(label.startswith(own) for label in columns), columns
    j = columns.index("cosine (the language's encoder)")
    hovers = {code: fig.data[0].customdata[i][j] for i, code in enumerate(LANGUAGES)}
    assert "encoder: MiniLM" in hovers["en"] and "encoder: USE multilingual" in hovers["ru"]
    assert "encoder: multilingual-e5" in hovers["fr"] and "encoder: multilingual-e5" in hovers["zh"]
    assert all("not computed" not in hover for hover in hovers.values()), hovers
    # Only the heatmap merges them: the tables keep each encoder's own rows.
    assert {"cosine:minilm", "cosine:usem3", "cosine:me5"} <= set(result.table["metric"])


def test_measure_labels_keep_what_tells_them_apart():
    from stviz.plots import plot_labels

    names = ["own-text style classifier: P(target) gain", "own-text style classifier on vectors: P(target) gain",
             "cosine: multilingual-e5-small, 4-bit against the reference"]
    labels = plot_labels(names, 40, parts=True)
    assert all(len(label) <= 40 for label in labels)
    assert labels[0].endswith("classifier: P(target) gain") and labels[1].endswith("on vectors: P(target) gain")
    assert labels[2].endswith("against the reference")
    sets = plot_labels([f"{STEM}-and-more [{c}] · human:content" for c in ("ru", "uk")], parts=True)
    assert sets[0].endswith("[ru] · human:content") and sets[1].endswith("[uk] · human:content")


def test_the_colour_bar_and_slanted_labels_have_room(heatmap):
    fig = heatmap[2]
    assert fig.data[0].colorbar.title.side == "right"
    assert fig.layout.xaxis.automargin and fig.layout.yaxis.automargin
