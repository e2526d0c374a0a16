"""The command line: ``python -m stviz SUBCOMMAND``; the same computations as the pages, headless.

Each area registers its sub-commands from its own module (``register(subparsers)``); bad input
ends in one ``error: ...`` line and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from stviz.data.schema import DataError
from stviz.onnx_backend import BACKENDS

#: Modules under stviz.cli that add sub-commands, in the order they appear in --help.
COMMAND_MODULES = ("data", "embed", "similarity", "metrics", "style")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every available sub-command."""
    parser = argparse.ArgumentParser(prog="python -m stviz",
                                     description="Explore how text style transfer is evaluated.")
    parser.add_argument("--backend", choices=BACKENDS,
                        help="how transformer models run: auto (default: PyTorch on a GPU, ONNX Runtime int8 on a "
                             "CPU when installed and its quality gate holds), torch, onnx (fp32, same vectors as "
                             "torch) or onnx-int8; also STVIZ_BACKEND")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"stviz.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"stviz.cli.{name}":
                continue  # an area not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the process exit code."""
    from stviz.cli.common import end_progress_line
    from stviz.embed import EmbedderError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        _use_backend(args.backend)
        return int(args.func(args) or 0)
    except (DataError, EmbedderError, ValueError, FileNotFoundError) as exc:
        end_progress_line()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _use_backend(name: str | None) -> None:
    """Apply ``--backend`` and say on stderr which backend transformer models will use."""
    from stviz.embed import select_device
    from stviz.onnx_backend import backend_note, resolve_backend, set_backend

    if name:
        set_backend(name)
        print(f"note: transformer models run on {resolve_backend(select_device())} ({select_device()})", file=sys.stderr)
    note = backend_note(select_device())
    if note:
        print(f"note: {note}", file=sys.stderr)
