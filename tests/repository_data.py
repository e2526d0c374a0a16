"""A repository as researchers download it, for issue 42's tests: Style Transformer's release (Dai et al. 2019;
the real test inputs, references and outputs of ``../shared/corpora/style-transformer``) laid out as its GitHub
repository is, with what the shared copy leaves out made up around it: train and dev files, a vocabulary, a README,
a licence, code, hidden folders, and GitHub's "Download ZIP" wrapper folder ``style-transformer-master/``."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from conftest import SHARED_CORPORA

RELEASE = SHARED_CORPORA / "style-transformer"
WRAPPER = "style-transformer-master"
#: Released files (as in the shared copy) -> the repository's path.
RELEASED = sorted(str(p.relative_to(RELEASE)) for p in RELEASE.rglob("*") if p.is_file())
#: Files that are not systems, inputs or references, and why each is left out (the inventory's words).
IGNORED = {
    "data/yelp/train.neg": "training data (train split)", "data/yelp/train.pos": "training data (train split)",
    "data/yelp/dev.neg": "training data (dev split)", "data/yelp/dev.pos": "training data (dev split)",
    "data/imdb/train.neg": "training data (train split)", "data/imdb/train.pos": "training data (train split)",
    "data/imdb/dev.neg": "training data (dev split)", "data/imdb/dev.pos": "training data (dev split)",
    "data/imdb/vocab.txt": "README, licence, notes", "README.md": ".md file", "LICENSE": "README, licence, notes",
    "requirements.txt": "requirements", "main.py": ".py file", "models/transformer.py": ".py file",
    "evaluator/evaluator.py": ".py file", "evaluator/acc_yelp.bin": "binary",
    "evaluator/yelp_vocab.txt": "vocabulary",
}


def _made_up(path: str) -> bytes:
    """Content for a file the shared copy leaves out: sentences for data files (so a misread would count them)."""
    if path.startswith("data/") and not path.endswith("vocab.txt"):
        style = path.rsplit(".", 1)[1]
        test = (RELEASE / Path(path).parent / f"test.{style}").read_text(encoding="utf-8").splitlines()
        return ("\n".join(reversed(test[:40])) + "\n").encode()
    if path.endswith(".bin"):
        return b"\x00\x01fastText model\x00" * 64
    if path.endswith(".py"):
        return b"import torch\n"
    return b"the\na\nof\n" if "vocab" in path else b"Style Transformer\n"


def repository_files(wrapper: str = WRAPPER) -> dict[str, bytes]:
    """Every file of the repository, by its path (under ``wrapper/`` when one is given)."""
    files = {rel: (RELEASE / rel).read_bytes() for rel in RELEASED}
    files |= {path: _made_up(path) for path in IGNORED if path not in files}
    files |= {".gitignore": b"*.pt\n", ".vscode/settings.json": b"{}\n", "models/__pycache__/x.pyc": b"\x00"}
    return {f"{wrapper}/{path}" if wrapper else path: data for path, data in files.items()}


def write_repository(root: Path, wrapper: str = WRAPPER) -> Path:
    """The repository unpacked under ``root`` (as a checkout or an unzipped download); returns ``root``."""
    for path, data in repository_files(wrapper).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return root


def zip_repository(path: Path, wrapper: str = WRAPPER) -> Path:
    """GitHub's "Download ZIP" of the repository: everything under ``wrapper/``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in repository_files(wrapper).items():
            archive.writestr(name, data)
    path.write_bytes(buffer.getvalue())
    return path


def released_lines(rel: str) -> list[str]:
    """A released file's lines, as in the shared copy."""
    return (RELEASE / rel).read_text(encoding="utf-8").splitlines()
