"""The command line's LLM-judge flags (global, like --engine): where the judge is, its prompts, how hard to call it,
and where its unparsed replies go. Used by ``llm:MODEL[:ASPECT]`` metrics in any command (docs/llm-judges.md)."""

from __future__ import annotations

import argparse
import os
import sys

from stviz.analyses import judges
from stviz.cli.common import write_frame


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """``--llm-url``, ``--llm-prompt ASPECT=FILE``, ``--llm-concurrency``, ``--llm-read``, ``--llm-replies FILE``."""
    group = parser.add_argument_group("LLM judges (llm:MODEL[:content|style|fluency] metrics; key from "
                                      "STVIZ_LLM_KEY or OPENAI_API_KEY, never stored)")
    group.add_argument("--llm-url", default=None, metavar="URL",
                       help="OpenAI-compatible server, e.g. http://localhost:8000/v1 (default: $STVIZ_LLM_URL)")
    group.add_argument("--llm-prompt", action="append", default=[], metavar="ASPECT=FILE",
                       help="replace an aspect's prompt template by a file (copy stviz/metrics/prompts/ASPECT.txt); "
                            "repeatable")
    group.add_argument("--llm-concurrency", type=int, default=None, metavar="N",
                       help="LLM calls in flight per process (default: $STVIZ_LLM_CONCURRENCY or 4)")
    group.add_argument("--llm-read", choices=("expected", "text"), default=None,
                       help="a server judge's score: the expected score over its first token's log probabilities "
                            "where the server gives them, else the number in the reply (expected); or always the "
                            "number (text) (default: $STVIZ_LLM_READ or expected)")
    group.add_argument("--llm-replies", default=None, metavar="FILE",
                       help="write the LLM replies that held no score to this CSV (metrics also writes them "
                            "beside --out)")


def apply_llm_arguments(args: argparse.Namespace) -> None:
    """Make the flags this process's LLM settings (the environment's fill what is not given)."""
    judges.configure_judges(args.llm_url, args.llm_concurrency, args.llm_prompt, getattr(args, "llm_read", None))


def report_unparsed(args: argparse.Namespace, dataset, names, modification: str = "none", lexicon=None,
                    beside: str | None = None) -> None:
    """Write the unparsed replies to --llm-replies (or beside ``beside``, the command's output) and say where."""
    if not judges.llm_metrics(names):
        return
    table = judges.unparsed_replies(dataset, names, modification, lexicon)
    if table.empty:
        return
    path = args.llm_replies or (f"{os.path.splitext(beside)[0]}.llm-unparsed.csv" if beside else None)
    if path is None:
        first = table["reply"].iloc[0].replace("\n", " ")[:120]
        print(f"note: {len(table):,} LLM replies held no score (first: '{first}'); write them all with "
              "--llm-replies FILE", file=sys.stderr)
        return
    write_frame(table, path)  # spreadsheet formula cells neutralised, as every table the CLI writes
    print(f"wrote {len(table):,} unparsed LLM replies to {path}", file=sys.stderr)
