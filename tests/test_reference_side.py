"""Reference-side content measures (``ref:METRIC``, issue 68 item 8): the metric computed between the output and the
pair's reference(s), offered only where a set has references, labelled beside its source side."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sacrebleu

from stviz.data.schema import DataError, Dataset
from stviz.metrics import available_metrics, default_metrics, get_card, metric_frame
from stviz.metrics.reference import side_labels

PAIRS = pd.DataFrame({
    "source": ["the cat sat on the mat", "a dog barked loudly at night", "hello there my old friend",
               "this food is awful", "the weather was terrible today"],
    "output": ["the cat is on the mat", "a dog barked at night", "hi there old friend", "this food is bad",
               "the weather was bad today"],
    "reference": ["a cat sat on a mat", "the dog barked in the night", "hi there my friend", "this food is not good",
                  "today the weather was bad"],
    "reference:2": ["the cat sat on the mat", None, "hello there friend", "", "the weather was poor today"],
})


def _refs(i: int, columns=("reference", "reference:2")) -> list[str]:
    return [PAIRS.loc[i, c] for c in columns if isinstance(PAIRS.loc[i, c], str) and PAIRS.loc[i, c].strip()]


def test_reference_side_chrf_is_sacrebleus_sentence_chrf_against_the_reference():
    one = PAIRS.drop(columns=["reference:2"])
    values = metric_frame(one, ["chrf", "ref:chrf"])
    expected = [sacrebleu.metrics.CHRF().sentence_score(o, [r]).score for o, r in zip(one.output, one.reference)]
    assert values["ref:chrf"].tolist() == pytest.approx(expected, abs=1e-9)
    source_side = [sacrebleu.metrics.CHRF().sentence_score(o, [s]).score for o, s in zip(one.output, one.source)]
    assert values["chrf"].tolist() == pytest.approx(source_side, abs=1e-9)


def test_several_references_bleu_and_chrf_as_sacrebleu_takes_them_and_the_others_the_best():
    values = metric_frame(PAIRS, ["ref:bleu", "ref:chrf", "ref:wmd", "ref:wmd-sim"])
    bleu = sacrebleu.metrics.BLEU(effective_order=True)
    for i, output in enumerate(PAIRS.output):
        refs = _refs(i)
        assert values.loc[i, "ref:bleu"] == pytest.approx(bleu.sentence_score(output, refs).score, abs=1e-9)
        assert values.loc[i, "ref:chrf"] == pytest.approx(sacrebleu.metrics.CHRF().sentence_score(output, refs).score)
    # A distance takes its smallest (best) reference; its similarity form follows it.
    single = [metric_frame(PAIRS.assign(reference=PAIRS[c]).drop(columns=["reference:2"]), ["ref:wmd"])["ref:wmd"]
              for c in ("reference", "reference:2")]
    stacked = np.vstack(single).astype(float)
    stacked[1, [1, 3]] = np.nan  # no second reference there
    assert values["ref:wmd"].to_numpy() == pytest.approx(np.nanmin(stacked, axis=0))
    assert values["ref:wmd-sim"].to_numpy() == pytest.approx(1 / (1 + values["ref:wmd"].to_numpy()))


def test_a_set_without_references_offers_no_reference_side_measure():
    bare = Dataset(name="bare", title="bare", pairs=PAIRS[["source", "output"]])
    assert not [n for n in available_metrics(bare) if n.startswith("ref:")]
    assert not [n for n in default_metrics(bare)[0] if n.startswith("ref:")]
    with pytest.raises(DataError, match="needs references"):
        metric_frame(bare.pairs, ["ref:chrf"])


def test_a_set_with_references_offers_and_computes_them_labelled_by_side():
    ds = Dataset(name="refs", title="refs", pairs=PAIRS)
    assert {"ref:chrf", "ref:bleu", "ref:cosine:minilm", "ref:bertscore"} <= set(available_metrics(ds))
    assert {"ref:chrf", "ref:bleu"} <= set(default_metrics(ds)[0])
    assert "ref:bertscore" not in default_metrics(ds)[0]  # only the cheap n-gram ones by default
    assert get_card("ref:chrf").label == "chrF (0-100) against the reference"
    labels = side_labels(["chrf", "ref:chrf", "bleu"], {n: get_card(n).label for n in ("chrf", "ref:chrf", "bleu")})
    assert labels == {"chrf": "chrF (0-100) against the source", "ref:chrf": "chrF (0-100) against the reference",
                      "bleu": "BLEU (0-100)"}


def test_a_precomputed_column_has_no_reference_side():
    with pytest.raises(DataError, match="no reference side"):
        get_card("ref:metric:chrf")
