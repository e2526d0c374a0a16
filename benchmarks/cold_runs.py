"""Cold runs in fresh processes: ``correlate`` on SGDD-TST per backend, and UMAP's numba compile time.

Prints, from one run:
* ``python -m stviz --backend B correlate --dataset sgdd-tst`` with the default metrics, each in a
  new process on an empty cache (models exported / quantised inside the timing, as a first run
  would), for ``torch`` (the pipeline before ONNX Runtime) and ``auto`` (the default now); their
  ratio, and the load average, since the machine may be shared;
* UMAP on the 11,000 CDS sentences (GloVe means: the vectors do not matter for compiling) in
  two new processes sharing one empty numba cache: compile time = import + first fit - second
  fit, for the first process (compiling, writing the cache) and the second (reading it).

Usage: python benchmarks/cold_runs.py [--skip-correlate] [--skip-umap]   (needs SGDD-TST and CDS imported)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stviz.data.corpora.sources import corpora_dir  # noqa: E402

UMAP_PROCESS = """
import sys, time, warnings
sys.path.insert(0, {root!r})
start = time.perf_counter()
from stviz.embedders import unit_normalise
from stviz.reduce import import_umap, exact_neighbours
umap = import_umap()
imported = time.perf_counter() - start
import numpy as np
units = unit_normalise(np.load({vectors!r}))
fits = []
for _ in range(2):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        umap.UMAP(random_state=0, precomputed_knn=exact_neighbours(units, 15)).fit_transform(units)
    fits.append(time.perf_counter() - start)
print(imported, fits[0], fits[1])
"""


def fresh_home(folder: Path) -> dict:
    """Environment for a new process on an empty stviz cache with the corpora linked in."""
    (folder / "corpora").parent.mkdir(parents=True, exist_ok=True)
    os.symlink(corpora_dir(), folder / "corpora")
    env = dict(os.environ, STVIZ_HOME=str(folder))
    env.pop("STVIZ_BACKEND", None)
    return env


def correlate(backend: str) -> float:
    """Seconds for a cold ``correlate --dataset sgdd-tst`` on ``backend`` in a new process."""
    with tempfile.TemporaryDirectory() as folder:
        env = fresh_home(Path(folder))
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "stviz", "--backend", backend, "correlate", "--dataset", "sgdd-tst"],
                       cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start


def umap_compile() -> list[tuple[float, float, float]]:
    """(import, first fit, second fit) seconds in two new processes sharing one empty numba cache."""
    import numpy as np

    from stviz.data import load_dataset
    from stviz.embedders import embed

    with tempfile.TemporaryDirectory() as folder:
        vectors = Path(folder) / "cds.npy"
        np.save(vectors, embed(load_dataset("cds").texts["text"].astype(str).tolist(), "glove-mean"))
        home = Path(folder) / "home"
        env = fresh_home(home)
        env.pop("NUMBA_CACHE_DIR", None)
        code = UMAP_PROCESS.format(root=str(ROOT), vectors=str(vectors))
        runs = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
            runs.append(tuple(float(x) for x in out.stdout.split()[-3:]))
        shutil.rmtree(home, ignore_errors=True)
        return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-correlate", action="store_true")
    parser.add_argument("--skip-umap", action="store_true")
    parser.add_argument("--backends", default="torch,auto",
                        help="comma-separated backends for correlate, the first is the baseline (default: torch,auto)")
    args = parser.parse_args()
    if not args.skip_umap:
        print(f"UMAP on 11,000 CDS vectors, load average {os.getloadavg()[0]:.1f}")
        for label, (imported, first, second) in zip(("first process ", "second process"), umap_compile()):
            print(f"  {label}: import {imported:5.1f} s, first fit {first:6.1f} s, second fit {second:5.1f} s, "
                  f"compile {imported + first - second:5.1f} s")
    if not args.skip_correlate:
        print(f"correlate --dataset sgdd-tst, default metrics, cold (empty cache, new process), "
              f"load average {os.getloadavg()[0]:.1f} at start")
        seconds = {}
        backends = args.backends.split(",")
        for backend in backends:
            seconds[backend] = correlate(backend)
            print(f"  --backend {backend:9s}: {seconds[backend]:6.1f} s  (load average {os.getloadavg()[0]:.1f})")
        for backend in backends[1:]:
            print(f"  {backends[0]} / {backend}: {seconds[backends[0]] / seconds[backend]:.2f}x")


if __name__ == "__main__":
    main()
