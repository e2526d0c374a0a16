"""``embed --dataset NAME --embedder SPEC --out FILE``: sentence vectors to Parquet or .npy."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from stviz.cli.common import add_dataset_argument, load_dataset_arg, print_notes, progress_printer


def register(sub) -> None:
    """Add the ``embed`` command."""
    from stviz.embedders import SPEC_HELP

    cmd = sub.add_parser("embed", help="embed a dataset's texts (cached) and write the vectors")
    add_dataset_argument(cmd)
    cmd.add_argument("--embedder", default="minilm", help=SPEC_HELP)
    cmd.add_argument("--texts", choices=("auto", "style", "source", "output"), default="auto",
                     help="which texts: style-labelled sentences, pair sources or pair outputs (auto: "
                          "style texts for a style corpus, else sources and outputs)")
    cmd.add_argument("--out", required=True, help="a .parquet (texts, labels, vector columns) or .npy file")
    cmd.set_defaults(func=run)


def dataset_texts(ds, which: str) -> pd.DataFrame:
    """The texts a command embeds, with whatever labels they carry."""
    if which == "style" or (which == "auto" and ds.texts is not None):
        return ds.style_texts().reset_index(drop=True)
    frames = []
    for role in (("source", "output") if which == "auto" else (which,)):
        keep = [c for c in ("system", "setting") if c in ds.pairs]
        frame = ds.pairs[[role] + keep].rename(columns={role: "text"})
        frame.insert(1, "role", role)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def precision_note(embedder) -> str:
    """', bf16 (gated against fp32)' where an embedder runs in half precision; '' in fp32."""
    from stviz.embedders.base import embedder_precision

    precision = embedder_precision(embedder)
    return "" if precision == "fp32" else f", {precision} (gated against fp32)"


def run(args) -> int:
    """Embed and write."""
    from stviz.analyses.common import oov_notes
    from stviz.embedders import embed, parse_embedder, select_device

    ds = load_dataset_arg(args.dataset)
    embedder = parse_embedder(args.embedder)
    frame = dataset_texts(ds, args.texts)
    print(f"embedding {len(frame):,} texts with {embedder.label} on {select_device()}"
          f"{precision_note(embedder)}", file=sys.stderr)
    vectors = embed(frame["text"].tolist(), embedder, progress=progress_printer("embedding"))
    # Computed on the texts, not remembered from encoding: a cache hit encodes nothing.
    print_notes(oov_notes([args.embedder], frame["text"].tolist()))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".npy":
        np.save(out, vectors)
    elif out.suffix == ".parquet":
        columns = pd.DataFrame(vectors, columns=[f"v{i}" for i in range(vectors.shape[1])])
        pd.concat([frame, columns], axis=1).to_parquet(out)
    else:
        raise ValueError(f"--out must end in .parquet or .npy, not '{out.suffix}'")
    print(f"wrote {vectors.shape[0]:,} x {vectors.shape[1]} vectors to {out}", file=sys.stderr)
    return 0
