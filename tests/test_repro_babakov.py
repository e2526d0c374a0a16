"""Reproduce Babakov et al. (NLDB 2022), Table 4, on SGDD-TST (10,287 pairs, human score `average`).

Published Spearman correlations have two decimals; a reproduction from the authors' own metric
columns must land within 0.008 of them (the paper mostly rounds, but prints RoBERTa's 0.397 as
0.39, i.e. truncated; the authors' notebook shows 0.397). With our own
spaCy NER the merge is a different measurement, so the test checks the *direction* of each
change and its size band rather than the published digits (see docs/reproduction-metrics.md).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from stviz.meta import correlation, ne_table
from stviz.metrics import AUTHORS_NE_COLUMNS, compute_metric, metric_frame

HUMAN = "human:average"
# column -> (without NE, with NE), Babakov et al. Table 4
PUBLISHED = {
    "metric:Elron/bleurt-large-512": (0.56, 0.56),
    "metric:bertscore/microsoft/deberta-xlarge-mnli": (0.47, 0.45),
    "metric:bertscore/roberta-large": (0.39, 0.37),
    "metric:bleu": (0.35, 0.38),
    "metric:rouge1": (0.29, 0.36),
    "metric:bertscore/bert-base-multilingual-cased": (0.28, 0.36),
    "metric:rougeL": (0.27, 0.35),
    "metric:chrf": (0.27, 0.30),
    "metric:w2v_cossim": (0.22, 0.33),
    "metric:fasttext_cossim": (0.22, 0.32),
    "metric:rouge2": (0.15, 0.22),
    "metric:rouge3": (0.09, 0.14),
}
PUBLISHED_METEOR = (0.10, 0.25)
ROUNDING = 0.008


def _table(sgdd, ne_source: str):
    names = list(PUBLISHED) + [c + "+ne" for c in PUBLISHED]
    frame = metric_frame(sgdd.pairs, names, ne_source=ne_source)
    frame[HUMAN] = sgdd.pairs[HUMAN].to_numpy()
    return ne_table(frame, list(PUBLISHED), HUMAN, "spearman").set_index("metric")


def test_full_dataset_is_used(sgdd):
    assert len(sgdd.pairs) == 10287
    assert all(c in sgdd.pairs for c in list(PUBLISHED) + list(AUTHORS_NE_COLUMNS))


def test_table4_from_the_authors_columns(sgdd):
    table = _table(sgdd, "columns")
    for column, (without, with_ne) in PUBLISHED.items():
        assert table.loc[column, "without NE"] == pytest.approx(without, abs=ROUNDING), column
        assert table.loc[column, "with NE"] == pytest.approx(with_ne, abs=ROUNDING), column
    # the merge helps every lexical / static-embedding metric significantly (Williams test)
    gained = table[table["change"] > 0.02]
    assert set(gained.index) == set(PUBLISHED) - {"metric:Elron/bleurt-large-512",
                                                   "metric:bertscore/microsoft/deberta-xlarge-mnli",
                                                   "metric:bertscore/roberta-large"}
    assert (gained["Williams p"] < 0.01).all()


def test_the_ne_measure_alone_correlates_weakly(sgdd):
    rho, _, _ = correlation(sgdd.pairs["metric:scipy_ner"], sgdd.pairs[HUMAN], "spearman")
    assert 0 < rho < 0.1


@pytest.mark.slow
def test_table4_with_our_spacy_ner(sgdd):
    """Our NER (spaCy small, lemmatised Jaccard) reproduces the pattern, not the digits."""
    table = _table(sgdd, "spacy")
    published_change = {c: w - wo for c, (wo, w) in PUBLISHED.items()}
    for column, change in published_change.items():
        ours = table.loc[column, "change"]
        if change > 0.02:  # clear published gains stay clear gains
            assert ours > 0.02, (column, ours)
        elif change <= -0.015:  # RoBERTa / DeBERTa BERTScore lose, as published
            assert ours < 0, (column, ours)
        else:  # BLEURT: published -0.004; a change within +-0.02 either way
            assert abs(ours) < 0.02, (column, ours)
    assert (table.loc[list(PUBLISHED), "without NE"].to_numpy()
            == pytest.approx([PUBLISHED[c][0] for c in PUBLISHED], abs=ROUNDING))


def test_the_authors_bleu_column_is_character_level_nltk_bleu(sgdd):
    """Why our sacrebleu BLEU correlates less (0.20 vs 0.35): their column is nltk BLEU over characters."""
    from nltk.translate.bleu_score import sentence_bleu

    rows = sgdd.pairs.iloc[:200]
    chars = [sentence_bleu([s], o) for s, o in zip(rows["source"], rows["output"])]  # strings = char sequences
    np.testing.assert_allclose(chars, rows["metric:bleu"], atol=1e-9)


def test_our_rouge_and_chrf_equal_the_authors_columns(sgdd):
    rows = sgdd.pairs.iloc[:1000]
    src, out = rows["source"].tolist(), rows["output"].tolist()
    for ours, theirs in (("rouge1", "metric:rouge1"), ("rougeL", "metric:rougeL"), ("rouge3", "metric:rouge3")):
        np.testing.assert_allclose(compute_metric(ours, src, out), rows[theirs], atol=1e-9)
    # their chrF is chrF++ (Popovic's chrF++.py, word order 2) on a 0-1 scale
    chrfpp = compute_metric("chrf++", src, out) / 100
    assert stats.spearmanr(chrfpp, rows["metric:chrf"])[0] > 0.999


#: stviz's own metrics on SGDD-TST: Spearman (without NE, with spaCy NE), as docs/reproduction-metrics.md reports.
OURS = {
    "cosine:minilm": (0.418, 0.439), "bertscore": (0.403, 0.435), "meteor": (0.354, 0.398), "wmd": (0.337, 0.367),
    "rouge1": (0.292, 0.360), "chrf": (0.276, 0.330), "cosine:glove-mean": (0.273, 0.317), "rougeL": (0.271, 0.350),
    "chrf++": (0.268, 0.321), "bleu": (0.195, 0.210), "rouge2": (0.150, 0.220),
}
DOCUMENTED = 0.01  # the docs print three decimals; this guards them against silent drift


@pytest.mark.slow
def test_our_metrics_on_all_pairs(sgdd):
    """Our own metrics, reported the same way: every figure of the docs' table, within 0.01."""
    names = list(OURS)
    frame = metric_frame(sgdd.pairs, names + [n + "+ne" for n in names])
    frame[HUMAN] = sgdd.pairs[HUMAN].to_numpy()
    table = ne_table(frame, names, HUMAN, "spearman", distances={"wmd": True}).set_index("metric")
    table = table.rename(index={"wmd (-distance)": "wmd"})  # the distance is negated, and labelled so
    for name, (without, with_ne) in OURS.items():
        assert table.loc[name, "without NE"] == pytest.approx(without, abs=DOCUMENTED), name
        assert table.loc[name, "with NE"] == pytest.approx(with_ne, abs=DOCUMENTED), name
    assert table.loc["rouge1", "without NE"] == pytest.approx(PUBLISHED["metric:rouge1"][0], abs=ROUNDING)
    assert (table["change"] > 0).all()  # the NE merge helps every one of them
    # METEOR does not reproduce: nltk 3.10's METEOR with WordNet correlates far above the published
    # 0.10 / 0.25, which came from an older METEOR behind HF evaluate (see the reproduction notes).
    assert table.loc["meteor", "without NE"] > PUBLISHED_METEOR[0] + 0.2
    assert table.loc["meteor", "with NE"] > PUBLISHED_METEOR[1] + 0.1
