"""Blind spots (issue 64): known answers of the detection table, the command line's CSV, per language, and the page.

The damages themselves (seeded, per language) are tested in tests/test_damages.py; here the whole view: which
measure notices which damage on real outputs, through the code path a user runs.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from multilingual_data import pairs_frame
from pagetest import figures, run_page
from stviz.analyses import blind_spots
from stviz.data import load_dataset
from stviz.data.intake.build import load_pairs_file
from stviz.meta.detection import bootstrap_interval, detection

ROOT = Path(__file__).resolve().parents[1]


def _row(result, damage: str, measure: str) -> pd.Series:
    table = result.table
    found = table[(table["damage"] == damage) & (table["measure"] == measure)]
    assert len(found) == 1, (damage, measure, table[["damage", "measure"]].to_dict("records"))
    return found.iloc[0]


# -- the statistic --------------------------------------------------------------------------------------------
def test_detection_counts_strictly_worse_pairs_and_ties_as_missed():
    intact = np.array([1.0, 2.0, 3.0, 4.0, np.nan])
    damaged = np.array([0.5, 2.0, 3.5, 1.0, 0.0])  # worse, tie, better, worse; the NaN pair is left out
    found = detection(intact, damaged, n_boot=200)
    assert (found.detected, found.ties, found.n) == (0.5, 0.25, 4)
    assert found.mean_change == pytest.approx(np.mean([-0.5, 0.0, 0.5, -3.0]))
    assert found.effect == pytest.approx(found.mean_change / np.std([1.0, 2.0, 3.0, 4.0]))
    assert 0 <= found.low <= found.detected <= found.high <= 1


def test_a_last_bit_difference_is_a_tie_not_a_detection():
    intact = np.linspace(0, 1, 50)
    assert detection(intact, intact * (1 - 1e-12)).ties == 1.0


def test_the_bootstrap_interval_is_the_percentile_interval_of_resampled_shares():
    hits = np.array([True] * 30 + [False] * 70)
    low, high = bootstrap_interval(hits, n_boot=2000, seed=3)
    # About the normal approximation's 95% interval of a share of 0.3 in 100 pairs.
    assert low < 0.3 < high and high - low == pytest.approx(2 * 1.96 * np.sqrt(0.3 * 0.7 / 100), abs=0.04)
    assert bootstrap_interval(np.ones(40, bool)) == (1.0, 1.0)


# -- known answers on real outputs ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_result():
    """The demo's 72 outputs, damaged by a shuffle, a truncation, half deleted and a copied input, scored by ROUGE-1
    and chrF (and every style, fluency and joint measure)."""
    options = blind_spots.Options(damages=("shuffle", "truncated", "half-deleted", "copy-input"),
                                  metrics=("rouge1", "chrf"),
                                  bootstrap=200)
    return blind_spots.run(load_dataset("demo"), options)


def test_rouge1_cannot_see_a_shuffle_of_word_order(demo_result):
    row = _row(demo_result, "shuffle", "rouge1")
    assert row["detected"] == 0 and row["ties"] == 1 and row["n"] == demo_result.damages.loc["shuffle", "applied"]
    assert not row["should_notice"]  # a shuffle breaks fluency: not ROUGE's job, and not a blind spot


def test_chrf_sees_a_truncation_in_nine_pairs_of_ten(demo_result):
    truncated = _row(demo_result, "truncated", "chrf")  # cut mid-sentence: fluency's damage, content lost with it
    assert not truncated["should_notice"] and truncated["detected"] >= 0.9
    half = _row(demo_result, "half-deleted", "chrf")  # half deleted at a clause boundary: content's own damage
    assert half["should_notice"] and half["detected"] >= 0.9


def test_a_source_side_content_measure_never_detects_the_copied_input_while_the_style_classifier_does(demo_result):
    for measure in ("rouge1", "chrf"):
        assert _row(demo_result, "copy-input", measure)["detected"] == 0
    # The demo's own-text classifier (learned from its inputs and references, cross-fitted) sees nearly every copy; the
    # classifier of its 5 x 24 style sentences, most of them.
    own = _row(demo_result, "copy-input", "own_style_probability")
    assert own["should_notice"] and own["detected"] >= 0.8
    corpus = _row(demo_result, "copy-input", "target_style_probability")
    assert corpus["should_notice"] and corpus["detected"] >= 0.5
    missed = blind_spots.blind_spots(demo_result)
    assert not ((missed["damage"] == "copy-input") & missed["measure"].isin(["own_style_probability",
                                                                             "target_style_probability"])).any()


def test_the_examples_of_a_cell_show_both_texts_and_both_values(demo_result):
    frame = blind_spots.examples(demo_result, "shuffle", "rouge1")
    assert len(frame) > 0 and set(frame["verdict"]) == {"tie (missed)"}
    pair = frame.index[0]
    demo = load_dataset("demo").pairs
    assert frame.loc[pair, "output"] == demo.loc[pair, "output"] != frame.loc[pair, "damaged"]
    assert sorted(frame.loc[pair, "damaged"].split()) == sorted(demo.loc[pair, "output"].split())
    assert frame.loc[pair, "intact"] == frame.loc[pair, "after damage"]


def test_the_same_seed_gives_the_same_table_and_another_seed_other_damage():
    options = blind_spots.Options(damages=("typos",), metrics=("chrf",), bootstrap=100)
    first = blind_spots.run(load_dataset("demo"), options)
    again = blind_spots.run(load_dataset("demo"), options)
    other = blind_spots.run(load_dataset("demo"), options.changed(seed=1))
    assert first.texts["typos"].equals(again.texts["typos"])
    pd.testing.assert_frame_equal(first.table, again.table)
    assert not first.texts["typos"]["damaged"].equals(other.texts["typos"]["damaged"])


def _upload(tmp_path: Path, language: str):
    path = tmp_path / f"{language}.csv"
    pairs_frame(language).drop(columns=["id"]).to_csv(path, index=False)
    return load_pairs_file(path, columns="human=fluency_score")[0]


def test_a_language_without_word_lists_gets_the_damages_that_need_none_and_a_note_for_the_rest(tmp_path):
    result = blind_spots.run(_upload(tmp_path, "ar"), blind_spots.Options(metrics=("chrf",), bootstrap=100))
    applied = set(result.damages.index)
    assert {"shuffle", "typos", "truncated", "copy-input", "number"} & applied
    assert not {"negation", "entity", "antonym"} & applied
    said = " ".join(result.notes)
    for label in ("negation", "entit", "antonym"):
        assert label in said.lower()
    assert result.language == "ar" and set(result.table["language"]) == {"ar"}


# -- the command line ------------------------------------------------------------------------------------------
def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stviz", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900)


def test_the_command_prints_one_csv_row_per_damage_and_measure_for_each_language(tmp_path):
    mixed = pd.concat([pairs_frame("en"), pairs_frame("ru")]).drop(columns=["id"])
    path = tmp_path / "mixed.csv"
    mixed.to_csv(path, index=False)
    done = _cli("blindspots", "--dataset", str(path), "--damages", "shuffle,truncated", "--metrics", "chrf",
                "--bootstrap", "100", "--format", "csv")
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(io.StringIO(done.stdout))
    assert list(table.columns) == ["language", "damage", "breaks", "measure", "detected", "low", "high", "ties", "n"]
    assert set(table["language"]) == {"en", "ru"} and set(table["damage"]) == {"shuffle", "truncated"}
    assert table["detected"].between(0, 1).all() and (table["low"] <= table["high"]).all()
    # The English table is the library's run on the English pairs, value for value.
    english = blind_spots.run(_upload(tmp_path, "en"), blind_spots.Options(damages=("shuffle", "truncated"),
                                                                           metrics=("chrf",), bootstrap=100))
    printed = table[table["language"] == "en"].set_index(["damage", "measure"])
    for row in english.table.itertuples():
        assert printed.loc[(row.damage, row.measure), "detected"] == pytest.approx(row.detected, abs=5e-4)
        assert printed.loc[(row.damage, row.measure), "n"] == row.n


def test_the_command_refuses_an_unknown_damage_in_one_line():
    done = _cli("blindspots", "--dataset", "demo", "--damages", "earthquake")
    assert done.returncode == 2 and "earthquake" in done.stderr and "Traceback" not in done.stderr


# -- the page -----------------------------------------------------------------------------------------------------
def test_the_page_draws_the_heatmap_the_blind_spots_and_the_examples(demo_result):
    at = run_page("10_Blind_spots.py", dataset="demo", state={
        "bs-damages": ["shuffle", "truncated", "copy-input"], "bs-metrics": ["rouge1", "chrf"], "bs-boot": 200})
    assert not at.exception, at.exception
    heatmap = figures(at)[0]["data"][0]
    assert heatmap["type"] == "heatmap" and len(heatmap["x"]) == 3
    assert any("Pair" in m.value and "→" in m.value for m in at.markdown)  # examples with both values


def test_style_words_removed_takes_the_words_of_each_pairs_target_style(tmp_path):
    # A lexicon learned from two styles weighs a word toward the second style (sorted) positively: a rude word here.
    from stviz.analyses.common import style_lexicon

    frame = pairs_frame("en").drop(columns=["id"]).assign(from_style="rude", to_style="polite")
    path = tmp_path / "en.csv"
    frame.to_csv(path, index=False)
    dataset = load_pairs_file(path, columns="human=fluency_score,source_style=from_style,target_style=to_style")[0]
    lexicon, _ = style_lexicon(dataset, "learn", "the test")
    assert lexicon["please"] < 0 < lexicon["lol"]  # 'please' only in the polite rewrites, 'lol' only in rude inputs
    words, targets, note = blind_spots.style_words(dataset)
    assert len(targets) == len(dataset.pairs) and "target style" in note
    assert "please" in targets[0] and "lol" not in targets[0] and {"please", "lol"} <= words


def test_a_set_without_style_or_fluency_measures_says_so_beside_its_table(tmp_path):
    # No style columns, no direction: only content measures; 'no blind spot' must not read as 'every axis is fine'.
    result = blind_spots.run(_upload(tmp_path, "en"), blind_spots.Options(damages=("copy-input", "truncated", "typos"),
                                                                          metrics=("chrf",), bootstrap=100))
    assert set(result.table["axis"]) == {"content"}
    said = blind_spots.uncovered(result)
    assert said.startswith("no style or fluency measure could be computed here")


def test_a_cells_pair_opens_its_story_on_the_page(demo_result):
    state = {"bs-damages": ["shuffle", "truncated", "half-deleted", "copy-input"], "bs-metrics": ["rouge1", "chrf"],
             "bs-boot": 200, "bs-ex-measure": "rouge1", "bs-ex-damage": "shuffle"}
    at = run_page("10_Blind_spots.py", dataset="demo", state=state)
    assert not at.exception, at.exception
    pair = blind_spots.examples(demo_result, "shuffle", "rouge1").index[0]
    at.selectbox(key="bs-story-pair").set_value(int(pair)).run()
    assert not at.exception, at.exception
    source = load_dataset("demo").pairs.loc[pair, "source"]
    shown = [m.value for m in at.markdown]
    assert any(v.startswith("**Source**") for v in shown)  # the story's two texts, with their word diff
    assert any(source.split()[-1] in v and "<div" in v and "damaged:" not in v for v in shown)


def test_an_output_holding_markup_is_shown_escaped_in_the_examples(tmp_path):
    frame = pairs_frame("en").drop(columns=["id"])
    frame.loc[0, "rewrite"] = "I <script>alert(1)</script> will <b>be</b> late again, sorry."
    path = tmp_path / "markup.csv"
    frame.to_csv(path, index=False)
    dataset = load_pairs_file(path, columns="human=fluency_score")[0]
    at = run_page("10_Blind_spots.py", upload=dataset, state={
        "bs-damages": ["typos"], "bs-metrics": ["chrf"], "bs-boot": 200, "bs-ex-measure": "chrf",
        "bs-ex-damage": "typos"})
    assert not at.exception, at.exception
    shown = [m.value for m in at.markdown if "damaged:" in m.value]
    assert any("&lt;script&gt;" in v for v in shown)  # the example of the pair with markup, escaped
    assert not any("<script" in v or "<b>" in v for v in shown)
