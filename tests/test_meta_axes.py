"""Meta-evaluation on every axis (issue 31): raters per aspect, a direction for pairs without style columns,
style-rated sentences, sanity flags found anywhere in a name, coverage in the aggregate, refusals before any
measure, and previews marked on stdout."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from stviz.cli import main
from stviz.data.intake.build import load_pairs_file
from stviz.data.schema import DataError

from meta_axes_data import three_axis_file as _three_axis_file


def test_raters_of_each_aspect_are_averaged_not_ranked_as_metrics(tmp_path):
    ds, mapping, _ = load_pairs_file(_three_axis_file(tmp_path))
    assert sorted(mapping.raters) == ["content_1", "content_2", "fluency_1", "fluency_2", "style_1", "style_2"]
    assert not mapping.metrics
    assert {"human:content_mean", "human:style_mean", "human:fluency_mean"} <= set(ds.pairs.columns)
    assert set(ds.rater_agreement()) == {"content", "style", "fluency"}  # Krippendorff's alpha per aspect


def test_aspect_names_are_read_as_human_ratings():
    from stviz.analyses.meta_measures import guess_aspect
    from stviz.data.intake.mapping import detect_mapping

    frame = pd.DataFrame({"source": ["a b", "c d", "e f", "g h"], "output": ["b a", "d c", "f e", "h g"],
                          "fluency_a": [1, 2, 3, 4], "fluency_b": [2, 3, 4, 5], "meaning_human": [1, 2, 3, 3],
                          "formality_human": [1, 1, 2, 3], "combined": [1, 2, 3, 4], "style_rater1": [1, 2, 3, 4],
                          "style_rater2": [1, 2, 2, 4], "rouge_l": [0.1, 0.2, 0.3, 0.4]})
    mapping = detect_mapping(frame)
    assert set(mapping.human) == {"meaning_human", "formality_human", "combined"}
    assert set(mapping.raters) == {"fluency_a", "fluency_b", "style_rater1", "style_rater2"}
    assert mapping.metrics == ["rouge_l"]
    assert [guess_aspect(c) for c in ("meaning_human", "formality_human", "combined", "fluency_mean",
                                      "style_rater_mean")] == ["content", "style", "overall", "fluency", "style"]


def test_three_axes_at_sentence_and_system_level_with_a_direction(tmp_path, capsys):
    path = _three_axis_file(tmp_path)
    assert main(["meta-eval", "--datasets", path, "--direction", "informal>formal", "--bootstrap", "50",
                 "--method", "pearson", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "direction given: informal → formal for every pair" in err
    table = pd.read_csv(io.StringIO(out))
    for aspect in ("content", "style", "fluency"):
        rows = table[table["aspect"] == aspect]
        assert {"sentence", "system"} <= set(rows["level"]), aspect
        assert rows["95% CI low"].notna().any(), aspect
    style = set(table.loc[table["aspect"] == "style", "measure"])
    # No corpus of the file's styles: the style classifier is the own-text one, cross-fitted, listed once.
    assert {"own-text style classifier: P(target)", "own-text style classifier: P(target) gain"} <= style
    assert "target-style probability" not in style and "no separate style classifier measures" in err
    assert "naturalness (adversarial)" in set(table.loc[table["aspect"] == "fluency", "measure"])


def test_without_a_direction_content_is_shown_at_once_and_the_direction_is_asked_for(tmp_path, capsys):
    # Issue 54: nothing waits for the direction that does not need it; stviz's style and fluency measures do.
    assert main(["meta-eval", "--datasets", _three_axis_file(tmp_path), "--bootstrap", "20", "--level", "sentence",
                 "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    table = pd.read_csv(io.StringIO(out))
    assert set(table["aspect"]) == {"content"} and "chrF (0-100) against the source" in set(table["measure"])
    assert "stviz's style and fluency measures need each pair's target style" in err
    assert "--direction toxic>neutral" in err and "Traceback" not in err


def test_direction_per_system_and_its_refusals(tmp_path):
    from stviz.data.intake.file_direction import apply_direction

    ds = load_pairs_file(_three_axis_file(tmp_path))[0]
    both = apply_direction(ds, "careful=informal>formal;copycat=informal>formal;drifter=formal>informal")
    assert set(both.pairs.loc[both.pairs["system"] == "drifter", "target_style"]) == {"informal"}
    with pytest.raises(DataError, match="no direction for system"):
        apply_direction(ds, "careful=informal>formal")
    with pytest.raises(DataError, match="which the file does not have"):
        apply_direction(ds, "nobody=informal>formal;informal>formal")
    with pytest.raises(DataError, match="not SOURCE>TARGET"):
        apply_direction(ds, "informal")
    with pytest.raises(DataError, match="file.s source style column says"):
        apply_direction(both, "formal>informal")


def test_correlate_without_human_scores_is_refused_before_scoring(tmp_path, capsys, monkeypatch):
    from stviz.analyses import metrics_vs_humans

    path = tmp_path / "unrated.csv"
    pd.DataFrame({"source": ["a b c", "d e f"], "output": ["a b", "d e"]}).to_csv(path, index=False)
    monkeypatch.setattr(metrics_vs_humans, "metric_values", lambda *a, **k: pytest.fail("scored before refusing"))
    assert main(["correlate", "--dataset", str(path)]) == 2
    assert "no human-score columns" in capsys.readouterr().err


# -- rated sentences ---------------------------------------------------------------------------------------
def _formality_file(tmp_path) -> str:
    """48 demo sentences with a human formality score: informal sources low, careful rewrites high."""
    from stviz.data import load_dataset

    pairs = load_dataset("demo").pairs
    rng = np.random.default_rng(2)
    rows = [(t, 2 + rng.normal(0, 0.7)) for t in pairs["source"].unique()]
    rows += [(t, 6 + rng.normal(0, 0.7)) for t in pairs.loc[pairs["system"] == "careful", "output"].unique()]
    frame = pd.DataFrame(rows, columns=["sentence", "formality"]).drop_duplicates("sentence").round(2)
    path = tmp_path / "formality.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_a_style_rated_sentence_file_gives_a_style_scorer_table(tmp_path, capsys):
    path = _formality_file(tmp_path)
    ds = load_pairs_file(path)[0]
    assert ds.pairs is None and len(ds.texts) == 48 and "human:formality" in ds.texts
    assert main(["meta-eval", "--datasets", path, "--bootstrap", "50", "--method", "spearman",
                 "--style-scorer", "learn:demo:formal", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    table = pd.read_csv(io.StringIO(out))
    assert set(table["aspect"]) == {"style"} and set(table["level"]) == {"sentence"}
    measures = " ".join(table["measure"])
    assert "ridge on MiniLM vectors (learned from the ratings, held-out folds)" in measures
    assert "p(formal) by a TF-IDF logistic regression on demo" in measures
    assert (table["r"] > 0.3).all()  # every scorer tracks formality here; none scored its own training rows
    assert "MAE" in err and "held-out" in err


def test_held_out_scores_never_see_their_own_rating():
    from stviz.measures.style.classifiers.scorers import StyleRegressor, cross_validated

    texts = [f"sentence number {i} with word{i}" for i in range(40)]
    scores = np.arange(40, dtype=float)
    held = cross_validated(texts, scores, "ridge-tfidf")
    inside = StyleRegressor("ridge-tfidf")
    fitted = inside.fit(texts, scores).predict(texts)
    # Each sentence carries a unique word: fitted on itself it recalls its rating; held out it cannot.
    assert np.abs(fitted - scores).mean() < 0.5 * np.abs(held.values - scores).mean()
    assert held.folds == 5 and np.isfinite(held.values).all()


# -- sanity flags and the aggregate ------------------------------------------------------------------------
def test_flags_find_the_name_anywhere_and_check_reference_side_columns(tmp_path):
    import sacrebleu

    from stviz.analyses import meta_evaluation
    from stviz.metrics import compute_metric

    frame = pd.read_csv(_three_axis_file(tmp_path))
    chrf = compute_metric("chrf", frame["source"].tolist(), frame["output"].tolist())
    frame["src_chrF"], frame["charF"] = -chrf, -chrf
    frame["ref-BLEU"] = [sacrebleu.sentence_bleu(o, [r]).score for o, r in zip(frame["output"], frame["reference"])]
    frame["src_BLEU"] = frame["ref-BLEU"]  # a reference-side BLEU mislabelled as source-side
    frame["style_acc"] = np.random.default_rng(0).random(len(frame))
    path = tmp_path / "flags.csv"
    frame.to_csv(path, index=False)
    ds = load_pairs_file(path)[0]
    result = meta_evaluation.run(ds, meta_evaluation.Options(datasets=(ds.name,), bootstrap=20, aspects=(
        "style_mean=none", "fluency_mean=none"), levels=("sentence",), methods=("pearson",)))
    disagree = set(result.flags.loc[result.flags["kind"] == "disagrees", "column"])
    assert {"metric:src_chrF", "metric:charF"} <= disagree
    assert "metric:ref-BLEU" not in disagree  # checked against the references, where it agrees
    assert "metric:src_BLEU" in disagree
    assert any("not checked" in n and "'style_acc'" in n for n in result.notes)


def test_the_aggregate_never_ranks_a_rare_measure_above_well_covered_ones():
    from stviz.meta.system import aggregate

    rows = [dict(set=f"s{t}", human="h", aspect="content", level="sentence", statistic="pearson", metric=m,
                 r=r + 0.01 * t, best_group=True) for t in range(4) for m, r in (("a", 0.5), ("b", 0.4))]
    rows.append(dict(set="s0", human="h", aspect="content", level="sentence", statistic="pearson", metric="rare",
                     r=0.9, best_group=True))
    table = aggregate(pd.DataFrame(rows))
    assert table["metric"].tolist() == ["a", "b", "rare"]
    assert table["common"].tolist() == [True, True, False] and table["tasks"].tolist() == [4, 4, 1]
    assert (table["of_tasks"] == 4).all()


def test_a_preview_is_marked_on_stdout(tmp_path, capsys):
    path = _three_axis_file(tmp_path)
    assert main(["meta-eval", "--datasets", path, "--aspects", "style_mean=none,fluency_mean=none",
                 "--bootstrap", "20", "--method", "pearson", "--level", "sentence", "--preview", "30",
                 "--preview-only", "--metrics", "bleu,chrf"]) == 0
    assert "[preview: 30 of 72 pairs: a seeded random sample, not the full result]" in capsys.readouterr().out
    assert main(["meta-eval", "--datasets", path, "--aspects", "style_mean=none,fluency_mean=none",
                 "--bootstrap", "20", "--method", "pearson", "--level", "sentence", "--preview", "30",
                 "--preview-only", "--metrics", "bleu,chrf", "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(table["preview"]) == {"preview: 30 of 72 pairs"}


def test_an_unmeta_evaluable_file_is_refused_before_any_measure(tmp_path, capsys, monkeypatch):
    from stviz.analyses import metrics_vs_humans

    monkeypatch.setattr(metrics_vs_humans, "metric_values", lambda *a, **k: pytest.fail("scored before refusing"))
    path = tmp_path / "no-ratings.csv"
    pd.DataFrame({"source": ["a b c"] * 5, "output": ["a b"] * 5, "bleu": [1, 2, 3, 4, 5]}).to_csv(path, index=False)
    assert main(["meta-eval", "--datasets", str(path)]) == 2
    assert "no numeric human scores" in capsys.readouterr().err
    assert main(["meta-eval", "--datasets", _three_axis_file(tmp_path), "--aspects", "nosuch=style"]) == 2
    assert "--aspects names nosuch" in capsys.readouterr().err


def test_the_page_shows_each_axis_with_its_best_group(tmp_path):
    from pagetest import plain, run_page

    ds = load_pairs_file(_three_axis_file(tmp_path))[0]
    at = run_page("8_Meta_evaluation.py", upload=ds, state={"meta-sets": [ds.name], "meta-boot": 100})
    assert not at.exception and "Direction* box" in plain(" ".join(e.value for e in at.info))
    assert {"Content"} == {s.value for s in at.subheader}  # shown at once: what needs no direction
    at.text_input(key="meta-direction").input("informal>formal").run()
    assert not at.exception, at.exception
    assert {"Content", "Style", "Fluency"} <= {s.value for s in at.subheader}
    groups = [d.value for d in at.dataframe if "best" in d.value.columns]
    assert groups and any("own-text style classifier" in " ".join(g["best group"]) for g in groups)


def test_rated_sentences_in_russian_leave_the_english_minilm_out(tmp_path, capsys):
    from multilingual_data import PAIRS

    rows = [(informal, 2.0 + (i % 3) * 0.1) for i, (informal, _) in enumerate(PAIRS["ru"])]
    rows += [(formal, 6.0 - (i % 3) * 0.1) for i, (_, formal) in enumerate(PAIRS["ru"])]
    path = tmp_path / "formality-ru.csv"
    pd.DataFrame(rows, columns=["text", "formality"]).to_csv(path, index=False)
    assert main(["meta-eval", "--datasets", str(path), "--bootstrap", "20", "--method", "spearman",
                 "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    measures = set(pd.read_csv(io.StringIO(out))["measure"])
    assert measures == {"ridge on TF-IDF word + character n-grams (learned from the ratings, held-out folds)"}
    assert "language: ru" in err and "MiniLM is English-only" in err


def test_fluency_with_a_causal_language_model_by_path(tmp_path, capsys):
    """meta-eval --language-model hf:FOLDER scores fluency with that causal LM (a tiny random GPT-2: no download)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    from stviz.measures.style.classifiers.transformer import minilm_tokenizer

    tokenizer = minilm_tokenizer()
    GPT2LMHeadModel(GPT2Config(vocab_size=tokenizer.vocab_size, n_embd=16, n_layer=1, n_head=2,
                               n_positions=64)).save_pretrained(tmp_path / "lm")
    tokenizer.save_pretrained(tmp_path / "lm")
    assert main(["meta-eval", "--datasets", _three_axis_file(tmp_path), "--direction", "informal>formal",
                 "--aspects", "content_mean=none,style_mean=none", "--language-model", f"hf:{tmp_path / 'lm'}",
                 "--bootstrap", "20", "--method", "pearson", "--level", "sentence", "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert f"−perplexity ({tmp_path / 'lm'})" in set(table["measure"])


def test_masked_lm_pseudo_perplexity_on_a_tiny_local_model(tmp_path, capsys):
    """mlm:FOLDER scores each token masked in turn (Salazar et al. 2020); a tiny random BERT: no download."""
    import math

    from transformers import BertConfig, BertForMaskedLM

    from stviz.measures.fluency.language_models import masked_lm_pll, sentence_nll
    from stviz.measures.style.classifiers.transformer import minilm_tokenizer

    tokenizer = minilm_tokenizer()
    BertForMaskedLM(BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=1,
                               num_attention_heads=2, intermediate_size=32)).save_pretrained(tmp_path / "mlm")
    tokenizer.save_pretrained(tmp_path / "mlm")
    out = masked_lm_pll(["the food was good .", "bad"], str(tmp_path / "mlm"))
    assert out[:, 1].tolist() == [len(tokenizer("the food was good .", add_special_tokens=False)["input_ids"]), 1]
    assert out[0, 0] / out[0, 1] == pytest.approx(math.log(tokenizer.vocab_size), rel=0.1)  # random: about log V
    np.testing.assert_allclose(sentence_nll(["the food was good .", "bad"], f"mlm:{tmp_path / 'mlm'}"), out)
    assert main(["meta-eval", "--datasets", _three_axis_file(tmp_path), "--direction", "informal>formal",
                 "--aspects", "content_mean=none,style_mean=none", "--language-model", f"mlm:{tmp_path / 'mlm'}",
                 "--bootstrap", "20", "--method", "pearson", "--level", "sentence", "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert any("pseudo-perplexity (masked LM" in m for m in table["measure"])
    assert main(["meta-eval", "--datasets", _three_axis_file(tmp_path), "--language-model", "mlm:"]) == 2


def test_a_pretrained_classifier_by_path_is_a_style_scorer(tmp_path, capsys):
    """--style-scorer hf:FOLDER:LABEL: any sequence classifier (a tiny random BERT saved locally: no download)."""
    from transformers import BertConfig, BertForSequenceClassification

    from stviz.measures.style.classifiers.transformer import minilm_tokenizer

    tokenizer = minilm_tokenizer()
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=2, id2label={0: "informal", 1: "formal"},
                        label2id={"informal": 0, "formal": 1})
    BertForSequenceClassification(config).save_pretrained(tmp_path / "clf")
    tokenizer.save_pretrained(tmp_path / "clf")
    path = _formality_file(tmp_path)
    assert main(["meta-eval", "--datasets", path, "--bootstrap", "20", "--method", "spearman",
                 "--style-scorer", f"hf:{tmp_path / 'clf'}", "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert any(m.startswith("p(formal) by the pretrained classifier") for m in table["measure"])  # label from name
    assert main(["meta-eval", "--datasets", path, "--style-scorer", "hf:no-such-org/no-such-model-xyz:formal",
                 "--bootstrap", "20"]) == 0
    assert "could not load the classifier 'no-such-org/no-such-model-xyz'" in capsys.readouterr().err


@pytest.mark.parametrize("page", ["8_Meta_evaluation.py", "1_Style_similarity.py", "2_Embedding_map.py",
                                  "3_Metrics_vs_humans.py", "5_Failure_cases.py", "6_Tradeoffs.py",
                                  "7_Leaderboard.py", "4_Token_attributions.py"])
def test_every_page_takes_rated_sentences(tmp_path, page):
    """Rated sentences are the session's dataset: Meta-evaluation compares style scorers, the others say why not."""
    from pagetest import run_page

    ds = load_pairs_file(_formality_file(tmp_path))[0]
    at = run_page(page, upload=ds, state={"meta-boot": 100})
    assert not at.exception, at.exception
    if page.startswith("8_"):
        assert "Style" in {s.value for s in at.subheader}
        assert any("Style scorers" in t.label for t in at.text_input)
