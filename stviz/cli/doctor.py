"""``doctor``: every model stviz ships, checked on its known answer, with where it came from and the time taken."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict


def register(sub) -> None:
    """Add the ``doctor`` command."""
    doctor = sub.add_parser("doctor", help="check every shipped model on its known answer and list where each came "
                                           "from, its content hash, backend, device and result (cached after)")
    doctor.add_argument("--all-backends", action="store_true",
                        help="check the transformer models on every backend that runs here (torch, onnx, onnx-int8), "
                             "not only the one in force (--backend)")
    doctor.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    doctor.set_defaults(func=run)


def run(args) -> int:
    """Print every model's check; exit 1 when one failed or could not be loaded."""
    from stviz.cli.common import end_progress_line, progress_printer
    from stviz.models.doctor import report_lines, run_doctor

    report = run_doctor(all_backends=args.all_backends, progress=progress_printer("Checking models"))
    end_progress_line()
    if args.format == "json":
        print(json.dumps({"rows": [asdict(row) for row in report.rows], "seconds": round(report.seconds, 2),
                          "passed": report.passed}, indent=1))
    else:
        print("\n".join(report_lines(report)))
    if not report.passed:
        print("error: a model failed its check: the measures it serves are refused (see above)", file=sys.stderr)
    return 0 if report.passed else 1
