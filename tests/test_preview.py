"""The sampled preview: the sampler (stratified, seeded, a subset), the ranking stability, per-pair reuse (a preview
then the full run computes each pair once), and the command line's --preview / --preview-only."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from stviz.analyses.preview import preview_dataset, preview_options, preview_size, sample_dataset
from stviz.analyses.preview_rankings import top_order_held
from stviz.data.schema import Dataset


def _pairs_dataset(n_per_system=(600, 300, 100)) -> Dataset:
    rows = []
    for k, n in enumerate(n_per_system):
        for i in range(n):
            rows.append({"source": f"input {i}", "output": f"system {k} output {i}", "system": f"S{k}",
                         "human:content": float(i % 5)})
    return Dataset("toy", "Toy pairs", pairs=pd.DataFrame(rows), notes=["loaded"], human_direction={"human:content": True})


def test_sample_is_stratified_seeded_and_a_subset_keeping_the_metadata():
    full = _pairs_dataset()
    sample = sample_dataset(full, 100, by=("system",), seed=3)
    counts = sample.pairs["system"].value_counts()
    assert counts.to_dict() == {"S0": 60, "S1": 30, "S2": 10}  # in proportion to the systems' sizes
    assert set(sample.pairs.index) <= set(full.pairs.index)
    assert (sample.pairs == full.pairs.loc[sample.pairs.index]).all().all()  # rows as they were, in file order
    assert sample.pairs.index.is_monotonic_increasing
    assert sample.name == full.name and sample.human_direction == full.human_direction
    assert sample.notes[0] == "loaded" and sample.notes[-1].startswith("preview: 100 of 1,000 pairs")
    assert sample_dataset(full, 100, by=("system",), seed=3).pairs.index.equals(sample.pairs.index)
    assert not sample_dataset(full, 100, by=("system",), seed=4).pairs.index.equals(sample.pairs.index)


def test_sample_by_unit_keeps_whole_inputs_with_every_system():
    full = _pairs_dataset((200, 200, 200))
    sample = sample_dataset(full, 60, unit="source", seed=0)
    per_input = sample.pairs.groupby("source")["system"].nunique()
    assert len(sample.pairs) == 60 and (per_input == 3).all()  # 20 inputs, each with its three outputs


def test_preview_size_and_options_fixed_on_the_full_dataset():
    assert preview_size(10_287) == 515 and preview_size(8_000, 0.10) == 800 and preview_size(120) == 120
    from stviz.analyses import metrics_vs_humans

    full = _pairs_dataset((2_000, 1_500))
    options = preview_options(metrics_vs_humans, full, metrics_vs_humans.Options())
    sample, info = preview_dataset(metrics_vs_humans, full, options)
    assert "bertscore" not in options.metrics  # left out above 3,000 pairs: the 300-pair preview must not add it
    assert info.label == "preview: 300 of 3,500 pairs" and len(sample.pairs) == 300
    from stviz.analyses.preview import preview_inputs

    _, frozen, _ = preview_inputs(metrics_vs_humans, full, metrics_vs_humans.Options())  # what pages and CLI run
    assert frozen.metrics == options.metrics


def test_top_order_held_counts_resamples_keeping_the_top_three_order():
    assert top_order_held(np.array([[4, 3, 2, 1]] * 10)) == 1.0
    swapped = np.array([[4, 3, 2, 1]] * 7 + [[3, 4, 2, 1]] * 3)
    assert top_order_held(swapped) == 0.7
    assert top_order_held(np.array([[4, 3, 2, 1], [4, 3, 1, 2]]), observed=[0, 1, 2]) == 0.5
    assert top_order_held(np.array([[4, 3, 2, 1], [4, 3, 1, 2]]), top=2) == 1.0  # only the first two count
    assert top_order_held(np.array([[np.nan, 3, 2], [5, 3, 2]]), observed=[1, 2, 0]) == 0.5  # NaN ranks last
    assert np.isnan(top_order_held(np.zeros((0, 3))))


def test_preview_then_full_run_computes_each_pair_once(tmp_path, monkeypatch):
    import stviz.metrics as metrics
    from stviz.cache import Cache

    scored: list[tuple[str, str]] = []
    real = metrics.score_block

    def counting(name, wordnet, sources, outputs, progress=None):
        scored.extend(zip(sources, outputs))
        return real(name, wordnet, sources, outputs, progress)

    monkeypatch.setattr(metrics, "score_block", counting)
    cache = Cache(tmp_path / "cache")
    full = _pairs_dataset((400, 200))
    sample = sample_dataset(full, 60, by=("system",), seed=1)
    for dataset in (sample, full):
        pairs = dataset.pairs
        values = metrics.compute_metric("chrf", pairs["source"].tolist(), pairs["output"].tolist(), cache=cache)
        assert len(values) == len(pairs)
    assert len(scored) == len(set(scored)) == len(full.pairs)  # every pair once: the preview's 60, then the rest
    again = metrics.compute_metric("chrf", sample.pairs["source"].tolist(), sample.pairs["output"].tolist(),
                                   cache=Cache(tmp_path / "cache"))
    alone = real("chrf", None, sample.pairs["source"].tolist(), sample.pairs["output"].tolist())
    assert np.allclose(again, alone) and len(scored) == len(full.pairs)  # the same values, read back


def test_entity_scores_of_a_preview_are_reused_by_the_full_run(tmp_path, monkeypatch):
    import stviz.metrics.entities as entities
    from stviz.cache import Cache

    analysed: list[str] = []
    real = entities._find_entities

    def counting(texts, progress=None):
        analysed.extend(texts)
        return real(texts, progress)

    monkeypatch.setattr(entities, "_find_entities", counting)
    cache = Cache(tmp_path / "cache")
    sources = [f"Anna met Bob in Paris on day {i}" for i in range(40)]
    outputs = [f"Anna saw Bob in Rome on day {i}" for i in range(40)]
    entities.entity_scores(sources[:10], outputs[:10], cache=cache)
    entities._recent_scores.clear()
    entities.entity_scores(sources, outputs, cache=cache)
    # This test's texts only: a page test's background run in the same process may analyse others meanwhile.
    mine = [text for text in analysed if text.startswith("Anna ")]
    assert len(mine) == 80  # 10 pairs' two texts, then the other 30 pairs' (never the first 10 again)


def test_cli_preview_prints_the_sample_first_then_the_full_result(corpora, capsys):
    from stviz.cli import main

    assert main(["correlate", "--dataset", "demo-pairs", "--metrics", "chrf,bleu", "--method", "pearson",
                 "--preview", "40"]) == 0
    captured = capsys.readouterr()
    assert "preview: 40 of" in captured.err and "then the full result" in captured.err
    assert "full result (every pair" in captured.err
    assert captured.out.count("Correlation with") == 2
    assert main(["correlate", "--dataset", "demo-pairs", "--metrics", "chrf", "--preview-only"]) == 0
    captured = capsys.readouterr()
    assert "preview:" in captured.err and "full result (every pair" not in captured.err
    assert captured.out.count("Correlation with") == 1
    assert main(["failures", "--dataset", "demo-pairs", "--metric", "chrf", "--top", "3", "--preview", "30",
                 "--preview-only"]) == 0
    captured = capsys.readouterr()
    assert "preview: 30 of 72 pairs" in captured.err and "30 pairs match" in captured.out
    assert main(["meta-eval", "--datasets", "demo", "--metrics", "chrf", "--level", "sentence", "--format", "csv",
                 "--preview", "30", "--preview-only"]) == 0
    captured = capsys.readouterr()
    n = int(re.search(r"preview: (\d+) of 72 pairs", captured.err).group(1))
    assert 20 <= n <= 40 and f",{n}," in captured.out  # the sentence-level rows count the sample's pairs


@pytest.mark.parametrize("name", ["similarity", "leaderboard"])
def test_other_views_sample_their_units(corpora, name):
    import importlib

    from stviz.data import load_dataset

    analysis = importlib.import_module(f"stviz.analyses.{name}")
    dataset = load_dataset("demo" if name == "similarity" else "li2018-yelp")
    sample, info = preview_dataset(analysis, dataset, analysis.Options(), n=None)
    if name == "similarity":
        assert info.unit == "sentences" and set(sample.texts["style"]) == set(dataset.texts["style"])
    else:
        assert (sample.pairs.groupby("source")["system"].nunique() == dataset.pairs["system"].nunique()).all()
        assert info.label == "preview: 800 of 8,000 pairs"


def test_a_preview_then_the_full_run_embeds_each_sentence_once(tmp_path):
    from test_embed import CountingEmbedder

    from stviz.cache import Cache
    from stviz.embedders import embed

    cache = Cache(tmp_path / "cache")
    texts = pd.DataFrame({"text": [f"sentence {i} {'a' * (i % 7)}" for i in range(300)],
                          "style": [f"style{i % 3}" for i in range(300)]})
    full = Dataset("toy-styles", "Toy styles", texts=texts)
    sample = sample_dataset(full, 30, by=("style",), seed=0)
    assert sample.texts["style"].value_counts().to_dict() == {"style0": 10, "style1": 10, "style2": 10}
    embedder = CountingEmbedder()
    for dataset in (sample, full):
        embed(dataset.texts["text"].tolist(), embedder, cache=cache)
    assert sorted(embedder.seen) == sorted(texts["text"])  # 30, then the other 270: none twice


def _cold_page(page: str, dataset: Dataset, tmp_path, monkeypatch):
    """An AppTest of ``page`` on an uploaded ``dataset``, with an empty cache so that its run counts as long."""
    from pagetest import PAGES
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STVIZ_CONFIRM_SECONDS", "0")
    at = AppTest.from_file(str(PAGES / page), default_timeout=600)
    at.session_state["dataset_name"] = f"upload:{dataset.name}"
    at.session_state["uploaded_dataset"] = dataset
    return at


def test_a_preview_page_draws_every_tab_on_the_sample_rows(tmp_path, monkeypatch):
    """The scatter and values tabs pair the preview's values with the sample's rows, not the full file's (CI saw
    'Length of values (300) does not match length of index (2928)' in the Scatter tab of a preview)."""
    from pagetest import figures, open_tab

    from ui import preview

    full = _pairs_dataset((500, 300, 200))
    at = _cold_page("3_Metrics_vs_humans.py", full, tmp_path, monkeypatch)
    at.session_state["mvh-metrics"] = ["cosine:minilm"]  # an embedder: counted as work (chrF is too quick)
    at.session_state["mvh-tab"] = "Scatter"  # only the open tab is drawn (ui.lazy)
    at.run()
    assert not at.exception, at.exception
    info = at.session_state[preview.INFO_KEY]
    assert info.n < len(full.pairs) and any(f"preview: {info.n:,} of {len(full.pairs):,}" in i.value for i in at.info)
    assert [chart.key for chart in at.get("plotly_chart")] == ["mvh-scatter"]  # the forest plot's tab is hidden
    scatter = figures(at)[0]  # it says it is a preview, as every figure does
    assert info.label in [a.get("text") for a in scatter["layout"].get("annotations", [])]
    at = open_tab(at, "mvh-tab", "Metric values")
    assert not at.exception, at.exception
    now = at.session_state[preview.INFO_KEY] if preview.INFO_KEY in at.session_state else None  # the full run may be done
    shown_values = at.dataframe[-1].value  # one row per pair of the result shown: the sample's while a preview
    assert len(shown_values) == (now.n if now is not None else len(full.pairs))
    for job in list(preview.default_scheduler().jobs().values()):  # let the background full run end before the cache folder goes
        preview.wait_for(job, 300)


def test_failure_cases_preview_keeps_one_background_run_while_pairs_are_opened(tmp_path, monkeypatch):
    """Failure cases previews too; opening a pair (or filtering) during the full run finds the same background job
    (the pair and the filters are view-only options), and once it is done the page shows every pair's ranking."""
    from pagetest import shown

    from ui import preview

    full = _pairs_dataset((400, 300, 300))
    at = _cold_page("5_Failure_cases.py", full, tmp_path, monkeypatch)
    at.run()
    assert not at.exception, at.exception
    info = at.session_state[preview.INFO_KEY]
    assert info.n < len(full.pairs) and f"{info.n:,} pairs** match" in shown(at.markdown)
    assert f"({info.label}):" in shown(at.markdown)  # the ranking says it is the preview's
    jobs = preview.default_scheduler().jobs()
    sampled = [int(p) for p in at.dataframe[0].value.index]
    at.session_state["fail-pair"] = sampled[-1]  # a row clicked in the preview's ranking
    at.run()
    assert not at.exception, at.exception
    assert f"Pair #{sampled[-1]}" in [h.value for h in at.subheader]
    assert preview.default_scheduler().jobs() == jobs  # the same background full run, not a second one
    from stviz.analyses import failure_cases
    from stviz.analyses.preview import preview_inputs

    drawn, _, _ = preview_inputs(failure_cases, full, failure_cases.Options())
    outside = next(int(p) for p in full.pairs.index if p not in drawn.pairs.index)
    at.session_state["fail-pair"] = outside  # a link's pair the sample did not draw: it joins the preview
    at.run()
    assert not at.exception, at.exception
    assert f"Pair #{outside}" in [h.value for h in at.subheader] and preview.default_scheduler().jobs() == jobs
    at.session_state["fail-pair"] = sampled[-1]
    for job in jobs.values():
        preview.wait_for(job, 600)
    at.run()
    assert not at.exception, at.exception
    assert preview.INFO_KEY not in at.session_state and f"{len(full.pairs):,} pairs** match" in shown(at.markdown)
    assert f"Pair #{sampled[-1]}" in [h.value for h in at.subheader]  # the opened pair stays open


def test_map_preview_maps_a_sample_of_the_whole_sets_rows_then_the_full_map(tmp_path, monkeypatch):
    """The map previews through its own max_points: the preview's points keep their rows in the whole set (a point
    opened in the preview is the same sentence in the full map), then the full map replaces it."""
    from ui import preview

    texts = pd.DataFrame({"text": [f"{'the food was' if i % 2 else 'thou art'} number {i} of {w}"
                                   for i, w in enumerate(["many", "some", "few", "all"] * 200)],
                          "style": ["modern" if i % 2 else "shakespeare" for i in range(800)]})
    pairs = pd.DataFrame({"source": texts["text"].head(10), "output": texts["text"].head(10) + " indeed"})
    full = Dataset("toy-texts", "Toy texts", pairs=pairs, texts=texts)  # an upload always has pairs
    at = _cold_page("2_Embedding_map.py", full, tmp_path, monkeypatch)
    at.session_state["map-method"] = "pca"
    at.run()
    assert not at.exception, at.exception
    info = at.session_state[preview.INFO_KEY]
    assert (info.n, info.total, info.unit) == (300, 800, "sentences")
    assert "300" in str(at.query_params.get("preview"))  # still in the URL after the page remembers its options
    from stviz.analyses import embedding_map
    from stviz.analyses.preview import preview_inputs

    options = embedding_map.Options(method="pca")
    sample, frozen, _ = preview_inputs(embedding_map, full, options)
    points = embedding_map.run(sample, frozen).points  # what the page drew (from the cache now)
    assert len(points) == 300 and points["text"].tolist() == texts["text"].iloc[points["row"]].tolist()
    job = next(j for k, j in preview.default_scheduler().jobs().items() if k.startswith("stviz.analyses.embedding_map:upload:toy-texts"))
    preview.wait_for(job, 600)
    mapped = job.result.points
    assert len(mapped) == 800 and mapped["row"].tolist() == list(range(800))  # same rows, the whole set
    at.run()
    assert not at.exception, at.exception
    assert preview.INFO_KEY not in at.session_state


def test_meta_evaluation_previews_a_sample_of_each_set_then_every_pair(tmp_path, monkeypatch):
    """Meta-evaluation samples each set itself (max_pairs: whole inputs, by system), the page first, then the full
    run; the command line's --preview goes the same way."""
    from ui import preview

    full = _pairs_dataset((400, 300, 300))
    at = _cold_page("8_Meta_evaluation.py", full, tmp_path, monkeypatch)
    at.query_params["metrics"] = "cosine:minilm"
    at.run()
    assert not at.exception, at.exception
    info = at.session_state[preview.INFO_KEY]
    assert info.total == 1000 and 250 <= info.n <= 350 and info.unit == "pairs"
    job = next(j for k, j in preview.default_scheduler().jobs().items() if k.startswith("stviz.analyses.meta_evaluation:upload:toy"))
    preview.wait_for(job, 600)
    table = job.result.table
    assert set(table.loc[table["level"] == "sentence", "n"]) == {1000}  # the full run: every pair
    at.run()
    assert not at.exception, at.exception
    assert preview.INFO_KEY not in at.session_state


def test_a_full_run_queued_behind_other_work_says_how_much_is_ahead(tmp_path, monkeypatch):
    """On a busy server the page's own work waits in the one queue: its preview first (an interactive job, ahead of
    background ones), then the full result, and the page says how many jobs are ahead of it and about how long they
    take, instead of a progress bar that does not move."""
    import threading

    from stviz.pool import scheduler as scheduling

    from ui import preview
    from ui.queued import status

    busy = scheduling.Scheduler(workers=1)
    monkeypatch.setattr(scheduling, "_default", busy)
    gates = threading.Event(), threading.Event()
    # Estimates long enough that a loaded machine's slow page start does not outrun them (then no wait is said).
    first = busy.submit("someone else's view", lambda reporter: gates[0].wait(600), seconds=400)
    seen = {}

    def another_user_arrives():
        """When this page's preview is queued behind the running job, another user's full run asks too; then the
        running job ends."""
        for _ in range(12_000):
            queued = [j for k, j in busy.jobs().items() if k.startswith("preview") and j.state == scheduling.QUEUED]
            if queued:
                seen["preview"], seen["preview seconds"] = status(queued[0])[1], queued[0].seconds
                seen["other"] = busy.submit("another full run", lambda reporter: gates[1].wait(600), seconds=400)
                gates[0].set()
                return
            threading.Event().wait(0.05)

    watcher = threading.Thread(target=another_user_arrives, daemon=True)
    watcher.start()
    at = _cold_page("3_Metrics_vs_humans.py", _pairs_dataset((500, 300, 200)), tmp_path, monkeypatch)
    at.session_state["mvh-metrics"] = ["cosine:minilm"]
    at.run()
    watcher.join(60)
    assert not at.exception, at.exception
    assert re.fullmatch(r"Queued on this server: 1 job ahead of yours, about \d+ min", seen["preview"]), seen
    # The preview carries its own estimate: pages queued behind it are told a wait, its bar a time left.
    assert seen["preview seconds"] is not None and seen["preview seconds"] > 0
    bars = [e.proto.text for e in at.get("progress")]
    # The preview went ahead of the other full run (interactive first); the page's full run waits behind it.
    assert any(re.search(r"queued on this server: 1 job ahead of yours, about \d+ min", b) for b in bars), bars
    (mine,) = [j for k, j in busy.jobs().items() if k.startswith("stviz.analyses.metrics_vs_humans")]
    assert first.state == scheduling.FINISHED and seen["other"].state == scheduling.RUNNING
    assert mine.state == scheduling.QUEUED
    gates[1].set()
    preview.wait_for(mine, 600)  # then it runs, and the page draws it
    assert mine.state == scheduling.FINISHED and mine.error is None
    at.run()
    assert not at.exception and preview.INFO_KEY not in at.session_state
