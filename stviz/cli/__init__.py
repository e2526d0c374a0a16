"""The command line: ``python -m stviz SUBCOMMAND``; the same computations as the pages, headless.

Each area registers its sub-commands from its own module (``register(subparsers)``); bad input
ends in one ``error: ...`` line and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from stviz.data.schema import DataError
from stviz.embedders.onnx_backend import BACKENDS
from stviz.embedders.precision import PRECISIONS

#: Modules under stviz.cli that add sub-commands, in the order they appear in --help.
COMMAND_MODULES = ("data", "embed", "similarity", "metrics", "meta", "blindspots", "style", "leaderboard", "study",
                   "dashboard", "cache", "doctor")
#: Each command and the module that registers it. A command line naming one imports that module alone: the
#: others pull in every analysis (scipy.stats, plotting, the meta-evaluation), seconds before any work starts.
COMMANDS = {"data": "data", "embed": "embed", "similarity": "similarity", "reduce": "similarity", "metrics": "metrics",
            "correlate": "metrics", "failures": "metrics", "meta-eval": "meta", "blindspots": "blindspots", "classify": "style",
            "intensity": "style", "attribute": "style", "tradeoff": "style", "leaderboard": "leaderboard",
            "study": "study", "dashboard": "dashboard", "cache": "cache", "doctor": "doctor"}


class Parser(argparse.ArgumentParser):
    """An argument parser that takes flags only as written: argparse's abbreviations are off.

    Why: with them on, ``meta-eval --language uk`` was completed to ``--language-model`` (a flag of the same
    command) and refused as an unknown language model. Sub-command parsers are of this class too (argparse makes a
    parser's sub-parsers of its own class), so no verb of the CLI completes a flag."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: with the sub-command ``argv`` names only (when it names one), else with every one."""
    parser = Parser(prog=_program_name(), description="Explore how text style transfer is evaluated.")
    add_global_arguments(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    named = command_named(argv) if argv is not None else None
    for name in [COMMANDS[named]] if named else COMMAND_MODULES:
        try:
            module = importlib.import_module(f"stviz.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"stviz.cli.{name}":
                continue  # an area not built yet
            raise
        module.register(sub)
    return parser


def add_global_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags that come before the command: engine, backend, precision, language."""
    add_engine_arguments(parser)
    parser.add_argument("--backend", choices=BACKENDS,
                        help="how transformer models run: auto (default: PyTorch on a GPU, ONNX Runtime fp32 on a "
                             "CPU when installed: the same vectors as torch), torch, onnx, or onnx-int8 (faster "
                             "under load, within a measured quality gate); also STVIZ_BACKEND")
    parser.add_argument("--precision", choices=PRECISIONS,
                        help="precision of transformer encoders on a GPU: auto (default: bf16 or fp16 where its gate "
                             "against fp32 passes on this GPU, else fp32), fp32, bf16 or fp16 (gated); a CPU always "
                             "runs fp32; also STVIZ_PRECISION")
    parser.add_argument("--language", dest="global_language", metavar="CODE",
                        help="the texts' language as an ISO 639-1 code (en, ru, zh, ar, ...), for every command: "
                             "measures are chosen for it, and in a file of several languages only its pairs are "
                             "compared; default: detected and said on stderr ('language: ...')")


def command_named(argv: list[str]) -> str | None:
    """The known command an argument list names after its global flags, or None (none, a typo, --help first)."""
    probe = Parser(add_help=False, exit_on_error=False)
    add_global_arguments(probe)
    probe.add_argument("command", nargs="?")
    try:
        known, _ = probe.parse_known_args(argv)
    except (argparse.ArgumentError, SystemExit):
        return None  # a bad global flag: the full parser says what is wrong
    if known.command not in COMMANDS or {"-h", "--help"} & set(argv[:argv.index(known.command)]):
        return None  # `stviz --help COMMAND` asks for the whole list
    return known.command


def _program_name() -> str:
    # `stviz` when run as the installed console command, else `python -m stviz`.
    return "stviz" if os.path.basename(sys.argv[0] or "") == "stviz" else "python -m stviz"


def console() -> int:
    """The installed ``stviz`` command: the verbs of ``python -m stviz``, ``stviz dashboard`` among them."""
    return main()


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """Global flags saying where batch work runs (``python -m stviz --engine ray COMMAND ...``); see stviz.engine."""
    import os

    from stviz.engine import ENGINES, Engine

    group = parser.add_argument_group("where batch work runs (embeddings, per-pair metrics; results are the same)")
    group.add_argument("--engine", choices=ENGINES, default=os.environ.get("STVIZ_ENGINE", "local").lower() or "local",
                       help="local = this process; ray = a Ray cluster, only for what the cache lacks "
                            "(needs requirements-ray.txt; default: $STVIZ_ENGINE or local)")
    group.add_argument("--address", default=os.environ.get("RAY_ADDRESS") or None, metavar="ADDR",
                       help="Ray cluster to join, e.g. ray://HOST:10001 or auto (default: $RAY_ADDRESS; unset = "
                            "start a Ray on this machine)")
    group.add_argument("--workers", type=_positive(int), default=None, metavar="N",
                       help="Ray actors, one model each (default: one per GPU if the cluster has GPUs, else one per CPU)")
    group.add_argument("--batch-size", type=_positive(int), default=Engine.batch_size, dest="engine_batch_size",
                       metavar="N",
                       help=f"texts or pairs per Ray block (default: {Engine.batch_size})")
    group.add_argument("--gpus-per-worker", type=_positive(float), default=None, metavar="G",
                       help="GPUs per Ray actor for model work (default: 1 when the cluster has GPUs, else 0)")


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _set_engine(args: argparse.Namespace) -> None:
    """Make the engine asked for on the command line this process's engine (say so when it is Ray)."""
    from stviz import engine

    chosen = engine.Engine(args.engine, address=args.address, workers=args.workers,
                           batch_size=args.engine_batch_size, gpus_per_worker=args.gpus_per_worker)
    engine.set_default(chosen)  # EngineError (a DataError) when Ray is not installed
    if not chosen.is_local:
        print(engine.describe(chosen), file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the process exit code."""
    from stviz.cli.common import end_progress_line
    from stviz.embedders import EmbedderError
    from stviz.threads import apply_thread_budget

    import os

    apply_thread_budget()  # every engine this command starts takes the cores it is given (stviz.threads)

    from stviz.embedders.onnx_backend import BACKEND_ENV
    from stviz.embedders.precision import PRECISION_ENV

    backend, precision = os.environ.get(BACKEND_ENV), os.environ.get(PRECISION_ENV)
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        _set_engine(args)
        _use_backend(args.backend, args.precision)
        from stviz.cli.common import set_language

        set_language(args.global_language)
        if hasattr(args, "llm_url"):  # a command that takes metric specs: its --llm-* flags
            from stviz.cli.llm_flags import apply_llm_arguments

            apply_llm_arguments(args)
        if getattr(args, "preview", None) is not None or getattr(args, "preview_only", False):
            from stviz.cli.common import run_previewed

            return run_previewed(args)
        return int(args.func(args) or 0)
    except (DataError, EmbedderError, ValueError, FileNotFoundError) as exc:
        end_progress_line()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        from stviz import engine

        engine.set_default(None)  # main() may run in a longer process (tests): the engine was for this command
        from stviz.cli.common import set_language

        set_language(None)  # so is --language
        from stviz.analyses.judges import reset_judges

        reset_judges()  # so are the --llm-* flags
        _restore_environment(BACKEND_ENV, backend)
        _restore_environment(PRECISION_ENV, precision)


def _use_backend(name: str | None, precision: str | None) -> None:
    """Apply ``--backend`` and ``--precision``; say on stderr how transformer models will run when it is not the plain CPU."""
    from stviz.embedders import select_device
    from stviz.embedders.onnx_backend import backend_note, resolve_backend, set_backend
    from stviz.embedders.precision import PRECISION_LABELS, set_precision

    if name:
        set_backend(name)
    if precision:
        set_precision(precision)
    device = select_device()
    if name or device != "cpu":
        line = f"note: transformer models run on {resolve_backend(device)} ({device}"
        if device == "cuda" and resolve_backend(device) == "torch":
            from stviz.embedders.precision import requested_precision

            line += f", precision {PRECISION_LABELS[requested_precision()]}"
        print(line + ")", file=sys.stderr)
    note = backend_note(device)
    if note:
        print(f"note: {note}", file=sys.stderr)


def _restore_environment(name: str, previous: str | None) -> None:
    """Put a variable back as it was: like the engine, ``--backend`` and ``--precision`` are for this command only."""
    if previous is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = previous
