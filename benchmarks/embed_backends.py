"""MiniLM on each backend (PyTorch fp32, ONNX Runtime fp32 and int8) and model2vec, from one run.

Prints, for sentences sampled from CDS and SGDD-TST:
* throughput on the CPU with the machine's torch thread count (2 here), each backend timed in
  alternating rounds (best of ROUNDS), so load drift hits every backend alike;
* agreement with PyTorch fp32: mean and worst cosine on each corpus (the int8 gate: mean >= 0.99,
  worst >= 0.97 on both);
* model2vec against MiniLM: Spearman with SGDD-TST's human similarity of the pair cosine, and the
  number of CDS styles most similar to themselves (Fitzpatrick et al.'s count).

The last line: ``best backend: NAME speedup R x, mean cosine C, worst W`` - the fastest MiniLM
backend that passes the gate, R against PyTorch fp32 measured in this run, C and W its worst
corpus's mean and worst cosine.

Usage: python benchmarks/embed_backends.py [--n 1500] [--rounds 3]   (needs CDS and SGDD-TST imported)
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from stviz.embedders import onnx_backend  # noqa: E402
from stviz.data import load_dataset  # noqa: E402
from stviz.embedders import SentenceTransformerEmbedder, parse_embedder, unit_normalise  # noqa: E402

BACKENDS = ("torch", "onnx", "onnx-int8")


def encode_with(backend: str, texts: list[str]) -> np.ndarray:
    """MiniLM vectors of ``texts`` on one backend (no cache: every call really encodes)."""
    os.environ[onnx_backend.BACKEND_ENV] = backend
    minilm = SentenceTransformerEmbedder("minilm")
    assert minilm.backend() == backend, f"{backend} did not run ({minilm.backend()} did)"
    return minilm.encode(texts)


def sample(texts: list[str], n: int, seed: int = 0) -> list[str]:
    """``n`` distinct texts drawn at random."""
    unique = list(dict.fromkeys(str(t) for t in texts))
    return random.Random(seed).sample(unique, min(n, len(unique)))


def timed_rounds(encoders: dict, texts: list[str], rounds: int) -> dict[str, float]:
    """Best seconds per encoder over alternating rounds."""
    best = {name: float("inf") for name in encoders}
    for _ in range(rounds):
        for name, encode in encoders.items():
            start = time.perf_counter()
            encode(texts)
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def agreement(vectors: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """(mean, worst) cosine of matching rows."""
    cosines = np.einsum("ij,ij->i", unit_normalise(vectors), unit_normalise(reference))
    return float(cosines.mean()), float(cosines.min())


def static_vs_minilm(sgdd, cds) -> None:
    """model2vec beside MiniLM: Spearman with humans on SGDD-TST, self-similar styles on CDS."""
    from scipy.stats import spearmanr

    from stviz.embedders import embed
    from stviz.similarity import self_similarity_count, similarity_matrix

    human = next(c for c in sgdd.human_columns)
    print(f"\nmodel2vec beside MiniLM (SGDD-TST: Spearman of the pair cosine with {human}, all pairs; "
          "CDS: styles most similar to themselves of 11, Fitzpatrick et al.; MiniLM on the default backend)")
    for spec in ("minilm", "model2vec"):
        n = len(sgdd.pairs)
        vectors = unit_normalise(embed(sgdd.pairs["source"].astype(str).tolist()
                                       + sgdd.pairs["output"].astype(str).tolist(), spec))
        cosine = np.einsum("ij,ij->i", vectors[:n], vectors[n:])
        rho = spearmanr(cosine, sgdd.pairs[human].astype(float), nan_policy="omit")[0]
        styles = cds.texts["style"].astype(str).tolist()
        matrix = similarity_matrix(embed(cds.texts["text"].astype(str).tolist(), spec), styles)
        print(f"  {spec:10s} Spearman {rho:.3f}   self-similar styles {self_similarity_count(matrix)} of {len(matrix)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1500, help="sentences per corpus (default 1500)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import torch

    cds, sgdd = load_dataset("cds"), load_dataset("sgdd-tst")
    corpora = {"CDS": sample(cds.texts["text"].tolist(), args.n),
               "SGDD-TST": sample(sgdd.pairs["source"].tolist() + sgdd.pairs["output"].tolist(), args.n)}
    print(f"MiniLM-L6 on the CPU, {torch.get_num_threads()} threads, {args.n:,} sentences per corpus, "
          f"load average {os.getloadavg()[0]:.1f} at start")
    reference = {name: encode_with("torch", texts) for name, texts in corpora.items()}
    quality = {}
    for backend in BACKENDS[1:]:
        quality[backend] = {name: agreement(encode_with(backend, texts), reference[name])
                            for name, texts in corpora.items()}
    static = parse_embedder("model2vec")
    static.encode(["warm-up"])  # distils once per cache (minutes); not part of the timing
    encoders = {b: (lambda texts, b=b: encode_with(b, texts)) for b in BACKENDS}
    encoders["model2vec"] = static.encode
    timing_texts = corpora["SGDD-TST"]
    for encode in encoders.values():
        encode(timing_texts[:64])  # load and export before timing
    seconds = timed_rounds(encoders, timing_texts, args.rounds)
    base = seconds["torch"]
    print(f"\n{'backend':12s} {'sent/s':>8s} {'speedup':>8s}   " + "   ".join(f"{c} mean / worst" for c in corpora))
    for name in encoders:
        rate = len(timing_texts) / seconds[name]
        cells = ("   ".join(f"{quality[name][c][0]:.4f} / {quality[name][c][1]:.4f}" for c in corpora)
                 if name in quality else ("reference" if name == "torch" else "(different space)"))
        print(f"{name:12s} {rate:8.0f} {base / seconds[name]:7.2f}x   {cells}")
    print(f"model2vec / MiniLM fastest backend throughput: "
          f"{min(seconds[b] for b in BACKENDS) / seconds['model2vec']:.0f}x")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    os.environ[onnx_backend.BACKEND_ENV] = "auto"  # MiniLM as users now get it
    static_vs_minilm(sgdd, cds)
    gated = [b for b in BACKENDS[1:] if all(mean >= onnx_backend.GATE_MEAN and worst >= onnx_backend.GATE_WORST
                                           for mean, worst in quality[b].values())]
    best = min(gated, key=lambda b: seconds[b]) if gated else "torch"
    mean = min((quality[best][c][0] for c in corpora), default=1.0) if best != "torch" else 1.0
    worst = min((quality[best][c][1] for c in corpora), default=1.0) if best != "torch" else 1.0
    print(f"best backend: {best} speedup {base / seconds[best]:.2f} x, mean cosine {mean:.4f}, worst {worst:.4f}")


if __name__ == "__main__":
    main()
