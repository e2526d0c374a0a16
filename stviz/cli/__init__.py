"""The command line: ``python -m stviz SUBCOMMAND``; the same computations as the pages, headless.

Each area registers its sub-commands from its own module (``register(subparsers)``); bad input
ends in one ``error: ...`` line and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from stviz.data.schema import DataError

#: Modules under stviz.cli that add sub-commands, in the order they appear in --help.
COMMAND_MODULES = ("data", "embed", "similarity", "metrics", "style", "leaderboard")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every available sub-command."""
    parser = argparse.ArgumentParser(prog="python -m stviz",
                                     description="Explore how text style transfer is evaluated.")
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
        return int(args.func(args) or 0)
    except (DataError, EmbedderError, ValueError, FileNotFoundError) as exc:
        end_progress_line()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
