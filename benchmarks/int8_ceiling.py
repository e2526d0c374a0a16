"""How much int8 can gain on this CPU at most: one MatMul of each MiniLM shape, fp32 against int8.

MiniLM-L6's time is almost all in its MatMuls: per layer the query/key/value/attention-output
projections (384 x 384), the FFN up-projection (384 x 1536) and down-projection (1536 x 384). Each
is timed alone in ONNX Runtime on 1,728 rows (64 sentences x 27 tokens, SGDD-TST's mean padded
batch), fp32 against ONNX Runtime's dynamic int8 (per-channel weights; activations quantised per
call, which is part of int8's cost). From those, the best speed-up any int8 recipe could give the
whole model, if everything else cost nothing:

* every MatMul int8 (fails the quality gate: worst cosine 0.96, docs/benchmarks.md);
* the gated recipe, the FFN down-projections kept fp32.

Also prints the fp32 GFLOP/s, against this CPU's peak, to show how close fp32 already is.

Usage: python benchmarks/int8_ceiling.py [--rows 1728] [--threads 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

#: (rows of the weight, columns, MatMuls of that shape per layer)
SHAPES = {"attention projections": (384, 384, 4), "FFN up-projection": (384, 1536, 1),
          "FFN down-projection": (1536, 384, 1)}


def matmul_model(k: int, n: int, path: Path) -> None:
    """An ONNX graph with one MatMul X (rows x k) @ W (k x n), W random."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array(np.random.default_rng(0).standard_normal((k, n)).astype(np.float32) * 0.05, "W")
    graph = helper.make_graph([helper.make_node("MatMul", ["X", "W"], ["Y"], name="matmul")], "matmul",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["rows", k])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["rows", n])], [weight])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def seconds_per_call(path: Path, x: np.ndarray, threads: int, repeats: int = 20, rounds: int = 5) -> float:
    """Best mean seconds of one call over ``rounds`` rounds of ``repeats`` calls."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    session.run(None, {"X": x})
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeats):
            session.run(None, {"X": x})
        best = min(best, (time.perf_counter() - start) / repeats)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1728)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    from onnxruntime.quantization import QuantType, quantize_dynamic

    x_rng = np.random.default_rng(1)
    fp32_s, int8_s = {}, {}
    with tempfile.TemporaryDirectory() as folder:
        for name, (k, n, _) in SHAPES.items():
            fp32, int8 = Path(folder) / f"{k}x{n}.onnx", Path(folder) / f"{k}x{n}-int8.onnx"
            matmul_model(k, n, fp32)
            quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
            x = x_rng.standard_normal((args.rows, k)).astype(np.float32)
            fp32_s[name], int8_s[name] = seconds_per_call(fp32, x, args.threads), seconds_per_call(int8, x, args.threads)
            gflops = 2 * args.rows * k * n / fp32_s[name] / 1e9
            print(f"{name:22s} {k:4d}x{n:<4d}: fp32 {fp32_s[name] * 1e3:6.2f} ms ({gflops:4.0f} GFLOP/s), "
                  f"int8 {int8_s[name] * 1e3:6.2f} ms: {fp32_s[name] / int8_s[name]:.2f}x")
    per_layer = {name: SHAPES[name][2] for name in SHAPES}
    fp32_total = sum(fp32_s[k] * c for k, c in per_layer.items())
    all_int8 = sum(int8_s[k] * c for k, c in per_layer.items())
    gated = sum((fp32_s if k == "FFN down-projection" else int8_s)[k] * c for k, c in per_layer.items())
    print(f"MatMuls of one layer: every one int8 {fp32_total / all_int8:.2f}x faster than fp32; "
          f"down-projection kept fp32 (the gated recipe) {fp32_total / gated:.2f}x "
          f"(ceilings against ONNX Runtime fp32, everything else free)")


if __name__ == "__main__":
    main()
