"""Token-attribution speed on Mir-Yelp pairs: pairs/second (batched vs one text at a time), the
cache ratio (second request vs first), and the cost of re-masking at a new slider position.

    python benchmarks/attribution.py [--pairs 12]

Needs the mir-yelp and yelp-sentiment corpora installed (python -m stviz data import DIR); the
MiniLM classifier is trained once and cached. Attributions go to a fresh temporary cache, so the
first pass is really uncached.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stviz.cache import Cache  # noqa: E402
from stviz.data import load_dataset  # noqa: E402
from stviz.measures.style.attribution import attribute_texts, mask_by_attribution  # noqa: E402
from stviz.measures.style.classifiers import default_classifier  # noqa: E402


def texts_of(pairs) -> list[str]:
    """Distinct sources and outputs of some pairs."""
    return list(dict.fromkeys(pairs["source"].tolist() + pairs["output"].tolist()))


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=12, help="pairs per measurement")
    args = parser.parse_args()
    dataset = load_dataset("mir-yelp")
    trained = default_classifier(dataset, "transformer")
    trained.estimator.torch_model()  # load the model before timing
    # Pairs from the middle of the file: CAAE outputs differ from their inputs, so each pair is two texts.
    pairs = dataset.pairs.iloc[1000:1000 + 2 * args.pairs]
    batched, single = pairs.iloc[:args.pairs], pairs.iloc[args.pairs:]
    t_single = t_batch = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(tmp)
        # Alternate the two ways in chunks of 4 pairs: on a shared machine the load drifts, and
        # interleaving spreads it evenly over both measurements.
        for start in range(0, args.pairs, 4):
            t0 = time.perf_counter()
            attribute_texts(texts_of(single.iloc[start:start + 4]), trained, batch_size=1, cache=cache)
            t1 = time.perf_counter()
            attribute_texts(texts_of(batched.iloc[start:start + 4]), trained, batch_size=8, cache=cache)
            t2 = time.perf_counter()
            t_single, t_batch = t_single + t1 - t0, t_batch + t2 - t1
        start = time.perf_counter()
        cached = attribute_texts(texts_of(batched), trained, cache=cache)
        t_cached = time.perf_counter() - start
        start = time.perf_counter()
        for threshold in (0.1, 0.2, 0.3, 0.4, 0.5):
            for attribution in cached[:2]:
                mask_by_attribution(attribution, threshold, "placeholder")
        t_remask = (time.perf_counter() - start) / 5
    n = args.pairs
    print(f"pairs per measurement: {n} (texts: single {len(texts_of(single))}, batched {len(texts_of(batched))})")
    print(f"one text at a time : {n / t_single:6.2f} pairs/s ({t_single / n:.2f} s per pair)")
    print(f"batches of 8 texts : {n / t_batch:6.2f} pairs/s ({t_batch / n:.2f} s per pair); "
          f"batched/single speed-up {t_single / t_batch:.2f}x")
    print(f"cached (2nd request): {n / t_cached:8.0f} pairs/s; cache ratio uncached/cached {t_batch / t_cached:,.0f}x")
    print(f"re-mask one pair at a new threshold: {t_remask * 1000:.3f} ms")
    print(f"all 2,928 Mir-Yelp pairs ({len(texts_of(dataset.pairs)):,} distinct texts) batched: "
          f"~{len(texts_of(dataset.pairs)) * t_batch / len(texts_of(batched)) / 60:.0f} min on this machine")


if __name__ == "__main__":
    main()
