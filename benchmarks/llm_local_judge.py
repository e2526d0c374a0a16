"""The in-process LLM judge's speed (llm:smollm2): pairs per second with and without each of its speed-ups, in one run.

    python benchmarks/llm_local_judge.py [--pairs 96] [--threads 2] [--aspect content]

On the same SGDD-TST pairs (a seeded sample), with the model loaded and checked before the clock:

* naive: one pair per forward pass, the whole prompt each time (what a loop over ``model(...)`` does);
* batched: 16 pairs a pass, in the file's order;
* + sorted: pairs batched by length (less padding);
* + prefix: the instructions' key/value cache computed once and reused (stviz's default).

Every variant's scores are compared with the naive one's (largest difference of the scale probabilities), so a
speed-up that changed a number would show. Where a GPU is present, the default variant is timed there too.
Needs the sgdd-tst corpus imported.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(judge, template, sources, outputs, **options):
    """(seconds, readings) of one variant."""
    from stviz.metrics import llm_local

    start = time.perf_counter()
    readings = llm_local.score_pairs(judge, template.text, template.scale, sources, outputs, **options)
    return time.perf_counter() - start, readings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=96)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--aspect", default="content", choices=("content", "style", "fluency"))
    args = parser.parse_args()
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(args.threads)
    sys.path.insert(0, str(ROOT))
    import numpy as np
    import torch

    from stviz.data import load_dataset
    from stviz.metrics import llm_local
    from stviz.metrics.llm_prompts import read_template

    torch.set_num_threads(args.threads)
    pairs = load_dataset("sgdd-tst").pairs.sample(args.pairs, random_state=0)
    sources, outputs = pairs["source"].astype(str).tolist(), pairs["output"].astype(str).tolist()
    template = read_template(args.aspect)
    llm_local.verify_judge(llm_local.SHIPPED)
    judge = llm_local.load(llm_local.resolve(llm_local.SHIPPED), "cpu", "fp32")
    variants = {"naive (1 pair a pass)": {"batch_size": 1, "sort": False, "reuse_prefix": False},
                "batched (16)": {"sort": False, "reuse_prefix": False},
                "batched + sorted": {"sort": True, "reuse_prefix": False},
                "batched + sorted + prefix (default)": {"sort": True, "reuse_prefix": True}}
    print(f"{args.pairs} SGDD-TST pairs, {args.aspect} prompt, SmolLM2-135M-Instruct fp32 on {args.threads} CPU threads")
    print(f"{'variant':38s} {'seconds':>8s} {'pairs/s':>8s} {'x naive':>8s} {'max |dp| vs naive':>18s}")
    base = None
    for name, options in variants.items():
        seconds, readings = timed(judge, template, sources, outputs, **options)
        probs = np.array([r.probabilities for r in readings])
        base = base or (seconds, probs)
        print(f"{name:38s} {seconds:8.1f} {args.pairs / seconds:8.2f} {base[0] / seconds:8.2f} "
              f"{np.abs(probs - base[1]).max():18.1e}")
    if torch.cuda.is_available():
        gpu = llm_local.load(llm_local.resolve(llm_local.SHIPPED), "cuda", "fp32")
        timed(gpu, template, sources[:8], outputs[:8])  # kernels warmed
        seconds, _ = timed(gpu, template, sources, outputs)
        print(f"{'GPU ' + torch.cuda.get_device_name(0):38s} {seconds:8.1f} {args.pairs / seconds:8.2f}")
    else:
        print("no GPU here: the default variant runs 64 pairs a pass on one (stviz picks it by itself)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
