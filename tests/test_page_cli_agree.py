"""Every view's page (Streamlit AppTest) and its command give the same numbers for the same options.

Both translate their controls into one analysis's Options and run it (stviz.analyses): these
tests hold that promise for each view, on the demo data.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from pagetest import figures, run_page, values

from stviz.cli import main


def cli_csv(argv: list[str], capsys, index_col=0) -> pd.DataFrame:
    """Run a command with --format csv and read its stdout table ('#' lines are headings)."""
    assert main(argv + ["--format", "csv"]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out), index_col=index_col, comment="#", dtype={"p": str})


def test_style_similarity(capsys):
    at = run_page("1_Style_similarity.py", state={"sim-embedders": ["glove-sum"], "sim-perms": 199})
    assert not at.exception, at.exception
    page = at.table[0].value  # the matrix in the paper's layout
    cli = cli_csv(["similarity", "--dataset", "demo", "--embedder", "glove-sum", "--permutations", "199",
                   "--decimals", "6"], capsys)  # 6 decimals printed; the matrix does not depend on them
    cli = cli.loc[page.index, [str(c) for c in page.columns]]
    np.testing.assert_allclose(page.to_numpy(), cli.to_numpy(), atol=5e-7)  # CSV keeps 6 decimals


def test_embedding_map(capsys, tmp_path):
    at = run_page("2_Embedding_map.py", state={"map-method": "pca", "map-embedder": "glove-sum"})
    assert not at.exception, at.exception
    page = pd.concat([pd.DataFrame({"row": values(t["customdata"]).ravel(), "x": values(t["x"]), "y": values(t["y"])})
                      for t in figures(at)[0]["data"]]).sort_values("row").reset_index(drop=True)
    out = tmp_path / "map.csv"
    assert main(["reduce", "--dataset", "demo", "--method", "pca", "--embedder", "glove-sum", "--out", str(out)]) == 0
    cli = pd.read_csv(out).sort_values("row").reset_index(drop=True)
    assert list(page["row"]) == list(cli["row"])
    np.testing.assert_allclose(page[["x", "y"]].to_numpy(float), cli[["x", "y"]].to_numpy(), rtol=1e-5, atol=1e-5)


def _numeric(values) -> np.ndarray:
    return pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(float)


def test_metrics_vs_humans(capsys):
    state = {"mvh-metrics": ["bleu", "wmd", "cosine:glove-mean"], "mvh-methods": ["pearson", "spearman"],
             "mvh-by": "system"}
    at = run_page("3_Metrics_vs_humans.py", state=state)
    assert not at.exception, at.exception
    page = at.dataframe[0].value
    cli = cli_csv(["correlate", "--dataset", "demo", "--metrics", "bleu,wmd,cosine:glove-mean",
                   "--method", "pearson,spearman", "--by", "system"], capsys, index_col=None)
    assert list(page["metric"]) == list(cli["metric"]) and list(page["group"]) == list(cli["group"])
    for column in ("r", "95% CI low", "95% CI high"):
        np.testing.assert_allclose(_numeric(page[column]), _numeric(cli[column]), atol=5e-4)  # CSV: 3 decimals
    assert list(page["p"].astype(str).replace("nan", "")) == list(cli["p"].fillna("").astype(str))


def test_failure_cases(capsys):
    at = run_page("5_Failure_cases.py", state={"fail-metric": "bleu", "fail-top": 20})
    assert not at.exception, at.exception
    page = at.dataframe[0].value
    cli = cli_csv(["failures", "--dataset", "demo", "--metric", "bleu", "--top", "20"], capsys)
    assert list(page.index) == list(cli.index)
    for column in ("rank difference", "metric value", "human score"):
        np.testing.assert_allclose(page[column].to_numpy(float), cli[column].to_numpy(float), atol=5e-4)


def test_token_attributions_sweep(capsys, tmp_path):
    at = run_page("4_Token_attributions.py", state={"sweep-n": 12, "sweep-done": True})
    assert not at.exception, at.exception
    page = next(d.value for d in at.dataframe if "pearson_r" in d.value.columns)
    out = tmp_path / "masked.csv"
    cli = cli_csv(["attribute", "--dataset", "demo", "--sample", "12", "--out", str(out)], capsys)
    assert list(page.index) == list(cli.index)
    np.testing.assert_allclose(page[["pearson_r", "spearman_r"]].to_numpy(float),
                               cli[["pearson_r", "spearman_r"]].to_numpy(float), atol=5e-4)


@pytest.mark.slow
def test_tradeoffs(capsys):
    at = run_page("6_Tradeoffs.py", state={"trade-nat": "unigram"})
    assert not at.exception, at.exception
    page = next(d.value for d in at.dataframe if "direction_corrected_emd" in d.value.columns)
    cli = cli_csv(["tradeoff", "--dataset", "demo", "--naturalness", "unigram"], capsys)
    for column in ("direction_corrected_emd", "content_preservation", "p_human_output"):
        np.testing.assert_allclose(page[column].to_numpy(float), cli[column].to_numpy(float), atol=5e-4)


def _markdown_table(text: str) -> pd.DataFrame:
    """The first pipe table of a command's Markdown output, as text cells indexed by its first column."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith("|") and not line.startswith("|---")]
    return pd.DataFrame(rows[1:], columns=rows[0]).set_index(rows[0][0])


def test_leaderboard(capsys):
    at = run_page("7_Leaderboard.py", state={"board-metrics": ["accuracy", "bleu", "self_bleu"],
                                             "board-resamples": 200, "board-full-open": True})
    assert not at.exception, at.exception
    page = next(d.value for d in at.dataframe if any(str(c).endswith(" · rank") for c in d.value.columns))
    assert main(["leaderboard", "--dataset", "demo", "--metrics", "accuracy,bleu,self_bleu", "--n-resamples", "200",
                 "--format", "md"]) == 0
    cli = _markdown_table(capsys.readouterr().out)
    assert list(page.index) == list(cli.index)
    labels = [c for c in page.columns if " · " not in c]
    assert len(labels) >= 3
    for label in labels:
        for system in page.index:
            value, interval = page.loc[system, label], page.loc[system, f"{label} · 95% CI"]
            assert page.loc[system, f"{label} · rank"] == cli.loc[system, f"rank ({label})"]
            if pd.isna(value):
                assert cli.loc[system, label] == "–"
                continue
            # The same digits on both sides: the page's interval shows the precision the command prints.
            digits = len(interval.strip("[]").split(",")[0].partition(".")[2])
            assert cli.loc[system, label] == f"{value:.{digits}f} {interval}"


# -- a human score where lower is better (SGDD-TST's vote_different) ------------------------------------
def _votes_file(tmp_path) -> str:
    """Pairs whose raters' 'vote_different' (share who found the meaning different) mostly follows the texts,
    except pair 0: word for word the same, yet every rater called it different (a metric over-rates it)."""
    rows = [("the food was good", "the food was good", 1.0), ("we met at noon", "we met at noon", 0.0),
            ("the room was clean", "the room was very clean", 0.1), ("he sold the car", "he sold his car", 0.2),
            ("she likes tea", "she hates coffee", 0.8), ("the bus was late", "my cat is asleep", 1.0),
            ("rain fell all day", "it rained all day long", 0.3), ("the shop opens at nine", "dogs bark", 0.9)]
    path = tmp_path / "votes.csv"
    pd.DataFrame(rows, columns=["source", "output", "vote_different"]).to_csv(path, index=False)
    return str(path)


def test_reversed_human_score_on_failure_cases_page_and_command(tmp_path, capsys):
    from stviz.data.intake.build import apply_mapping
    from stviz.data.intake.mapping import detect_mapping
    from stviz.data.intake.readers import read_pairs_file

    path = _votes_file(tmp_path)
    cli = cli_csv(["failures", "--dataset", path, "--metric", "bleu", "--human", "vote_different",
                   "--disagreement", "over-rated"], capsys)
    assert 0 in cli.index  # identical texts the raters called different: over-rated, not under-rated
    assert (cli["metric − human (points)"] > 0).all()
    frame, _ = read_pairs_file("votes.csv", open(path, "rb").read())
    mapping = detect_mapping(frame)
    mapping.human = ["vote_different"]
    dataset = apply_mapping(frame, mapping, name="votes.csv", title="votes.csv")
    at = run_page("5_Failure_cases.py", upload=dataset, state={"fail-metric": "bleu", "fail-direction": "over-rated"})
    assert not at.exception, at.exception
    page = at.dataframe[0].value
    assert list(page.index) == list(cli.index)


def test_reversed_human_score_in_correlate(tmp_path, capsys):
    cli = cli_csv(["correlate", "--dataset", _votes_file(tmp_path), "--metrics", "bleu", "--human", "vote_different",
                   "--method", "spearman", "--bootstrap", "100"], capsys, index_col=None)
    assert (cli["r"] > 0).all()  # BLEU agrees with the raters once 'more different' is read as less content kept


def test_meta_evaluation(capsys):
    at = run_page("8_Meta_evaluation.py", state={"meta-sets": ["demo"], "meta-boot": 100, "meta-tab": "Every row"})
    assert not at.exception, at.exception
    page = next(d.value for d in at.dataframe if "best group" in d.value.columns and "Williams p" in d.value.columns)
    cli = cli_csv(["meta-eval", "--datasets", "demo", "--bootstrap", "100"], capsys, index_col=None)
    cli = cli.fillna({c: "" for c in ("p", "p (best > measure)", "Williams p", "best group")})
    assert list(page["measure"]) == list(cli["measure"]) and list(page["level"]) == list(cli["level"])
    assert list(page["statistic"]) == list(cli["statistic"])
    for column in ("r", "95% CI low", "95% CI high"):
        np.testing.assert_allclose(_numeric(page[column]), _numeric(cli[column]), atol=5e-4)  # CSV: 3 decimals
    for column in ("p (best > measure)", "best group"):
        assert list(page[column].fillna("").astype(str)) == list(cli[column].astype(str))


def test_metrics_vs_humans_system_level(capsys):
    state = {"mvh-metrics": ["bleu", "wmd"], "mvh-methods": ["pearson"], "mvh-levels": ["sentence", "system"]}
    at = run_page("3_Metrics_vs_humans.py", state=state)
    assert not at.exception, at.exception
    page = at.dataframe[0].value
    cli = cli_csv(["correlate", "--dataset", "demo", "--metrics", "bleu,wmd", "--method", "pearson",
                   "--level", "sentence,system"], capsys, index_col=None)
    assert list(page["level"]) == list(cli["level"]) and "system" in set(cli["level"])
    assert "pairwise_accuracy" in set(cli["method"])
    np.testing.assert_allclose(_numeric(page["r"]), _numeric(cli["r"]), atol=5e-4)


def test_metrics_vs_humans_per_slice(capsys):
    """A slice saved on the page and --slice NAME=SPEC give the same correlations and intervals."""
    from stviz.analyses.slices import make_slice

    slices = {"demo": [make_slice("long", "length>=8;system=careful,drifter")]}
    at = run_page("3_Metrics_vs_humans.py", state={"mvh-metrics": ["bleu", "chrf"], "slices": slices})
    assert not at.exception, at.exception
    per_slice = [d.value for d in at.dataframe if "95% CI" in d.value.columns]
    assert len(per_slice) == 2  # all pairs, then the slice
    page = per_slice[1]
    cli = cli_csv(["correlate", "--dataset", "demo", "--metrics", "bleu,chrf", "--method", "pearson,spearman",
                   "--slice", "long=length>=8;system=careful,drifter"], capsys)
    cli = cli.loc["long"]
    assert list(page["metric"]) == list(cli["metric"]) and list(page["n"]) == list(cli["n"])
    np.testing.assert_allclose(page["r"].to_numpy(float), cli["r"].to_numpy(float), atol=5e-4)
    lows = [float(c.strip("[]").split(",")[0]) for c in page["95% CI"]]
    np.testing.assert_allclose(lows, cli["95% CI low"].to_numpy(float), atol=5e-4)
