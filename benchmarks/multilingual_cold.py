"""A mixed file of 16,000 pairs in six languages, meta-evaluated cold and warm, each in a new process.

The file is built from three public human evaluations in the shared corpora, read as released: RUSSE 2022's final
test (Russian, 4,375 outputs, people's content judgment), InFormal (Hindi, Bengali, Telugu, Kannada: 4,041 pairs,
the mean of three raters' meaning similarity) and SGDD-TST's first pairs (English, as many as make 16,000: crowd
similarity votes). Columns: ``source``, ``output``, ``language``, ``human_content``. One ``meta-eval`` computes every
language's table from the file's own language column: each language's content measures (its multilingual cosine:
mE5 or USE by what agrees best there; chrF; BLEU, ...) against people.

* cold: a new process on an empty stviz cache (the corpora linked in), so every model loads and every measure,
  vector and statistic is computed (the ONNX exports of MiniLM and mE5 included);
* warm: the same command again on that cache.

    python benchmarks/multilingual_cold.py [--pairs 16000] [--bootstrap 200] [--keep DIR]

Prints the file's languages, the seconds of each run with the load average, and the rows per language.
Needs russe2022-humaneval, informal and sgdd-tst imported.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stviz.data.corpora.sources import corpora_dir  # noqa: E402


def mixed_file(pairs: int) -> pd.DataFrame:
    """The six-language file: RUSSE 2022 and InFormal whole, SGDD-TST's first pairs up to ``pairs`` rows."""
    corpora = corpora_dir()
    russe = pd.read_csv(corpora / "russe2022-humaneval" / "test_all_metrics_russe2022.csv")
    parts = [pd.DataFrame({"source": russe["original"], "output": russe["method_output"], "language": "ru",
                           "human_content": russe["content"]})]
    similarity = {"Approximately Same Meaning": 1.0, "Slight Difference in Meaning": 0.5, "Different Meaning": 0.0}
    for code in ("hi", "bn", "te", "kn"):
        rows = [json.loads(line) for line in (corpora / "informal" / f"{code}_annotations.jsonl").open(encoding="utf-8")]
        parts.append(pd.DataFrame({
            "source": [r["candidate_0"] for r in rows], "output": [r["candidate_1"] for r in rows], "language": code,
            "human_content": [sum(similarity[a["semantic_similarity"]] for a in r["annotations"]) / len(r["annotations"])
                              for r in rows]}))
    sgdd = pd.read_csv(corpora / "sgdd-tst" / "SGDD-TST.csv")
    room = max(0, pairs - sum(len(p) for p in parts))
    parts.append(pd.DataFrame({"source": sgdd["INPUT:text_first"], "output": sgdd["INPUT:text_second"],
                               "language": "en", "human_content": sgdd["average"]}).head(room))
    return pd.concat(parts, ignore_index=True)


def run(command: list[str], env: dict) -> tuple[float, str]:
    """Seconds of one command in a new process, and its standard output."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "stviz", *command], env=env, capture_output=True, text=True,
                          check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=16_000)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="a folder for the file and the stviz home (default: a temporary one)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="stviz-multilingual-"))
    folder.mkdir(parents=True, exist_ok=True)
    frame = mixed_file(args.pairs)
    path = folder / "mixed_six_languages.csv"
    frame.to_csv(path, index=False)
    counts = frame["language"].value_counts()
    print(f"{len(frame):,} pairs: " + ", ".join(f"{code} {n:,}" for code, n in counts.items()))
    home = folder / "home"
    home.mkdir(exist_ok=True)
    if not (home / "corpora").exists():
        os.symlink(corpora_dir(), home / "corpora")
    env = dict(os.environ, STVIZ_HOME=str(home))
    command = ["meta-eval", "--datasets", str(path), "--level", "sentence", "--bootstrap", str(args.bootstrap),
               "--format", "csv"]
    cold, out = run(command, env)
    print(f"cold meta-eval: {cold:.1f} s (load average {os.getloadavg()[0]:.1f})")
    warm, _ = run(command, env)
    print(f"warm meta-eval: {warm:.1f} s; cold / warm {cold / warm:.1f}x")
    table = pd.read_csv(StringIO(out))
    for code, rows in table.groupby("language"):
        best = rows.sort_values("r", ascending=False).iloc[0]
        print(f"  {code}: {len(rows)} rows; best content measure {best['measure']} (rho {best['r']:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
