"""``data list | fetch NAME | import DIR | warm``: which datasets are here, getting the corpora, and computing the
built-in views' results before anyone asks (``--warm``)."""

from __future__ import annotations

import sys

from stviz.cli.common import progress_printer


def register(sub) -> None:
    """Add the ``data`` command group."""
    data = sub.add_parser("data", help="list, fetch or import datasets")
    verbs = data.add_subparsers(dest="verb", metavar="VERB", required=True)
    verbs.add_parser("list", help="each dataset with its counts, or how to get it").set_defaults(func=run_list)
    fetch = verbs.add_parser("fetch", help="download a corpus from its public source and verify it")
    fetch.add_argument("name", help="a corpus (cds, sgdd-tst, mir-yelp, yelp-sentiment, paradetox, li2018, dualrl, "
                                    "style-transformer, russe-detox, pt16) or a benchmark (yelp, amazon, captions, imdb, "
                                    "russe-detox, russe-test: every corpus it needs)")
    _add_warm(fetch)
    fetch.set_defaults(func=run_fetch)
    verbs.add_parser("benchmarks", help="each benchmark: its published systems, sources and whether its data is here"
                     ).set_defaults(func=run_benchmarks)
    imp = verbs.add_parser("import", help="import corpora from a local folder laid out like shared/corpora")
    imp.add_argument("folder")
    imp.add_argument("--only", nargs="*", help="corpus names to import (default: all found)")
    _add_warm(imp)
    imp.set_defaults(func=run_import)
    warm = verbs.add_parser("warm", help="compute every view's full result on the built-in datasets installed here "
                                         "(what a page opens with), so opening it is a cache read; progress on stderr")
    warm.add_argument("--datasets", nargs="*", metavar="NAME", help="only these datasets (default: every one installed)")
    warm.set_defaults(func=run_warm)


def _add_warm(parser) -> None:
    parser.add_argument("--warm", action="store_true",
                        help="then compute every view's full result on the built-in datasets installed here, as a "
                             "server does in the background (see 'data warm')")


def run_list(args) -> int:
    """Print every dataset: counts when installed, the command to get it otherwise."""
    from stviz.data import available_datasets, load_dataset

    for info in available_datasets():
        if info.available:
            counts = ", ".join(f"{v:,} {k}" for k, v in load_dataset(info.name).counts().items())
            print(f"{info.name:15s} {info.title}\n{'':15s} {counts}")
        else:
            print(f"{info.name:15s} {info.title}\n{'':15s} not installed: {info.how_to_get}")
    return 0


def run_fetch(args) -> int:
    """Download one corpus, or every corpus a benchmark needs that is not here yet."""
    from stviz.benchmarks import BENCHMARKS
    from stviz.benchmarks.published import missing_corpora
    from stviz.data.corpora.sources import SOURCES, fetch
    from stviz.data.schema import DataError

    names = [args.name]
    if args.name in BENCHMARKS:
        benchmark = BENCHMARKS[args.name]
        if benchmark.obtain:
            raise DataError(f"{benchmark.name}: {benchmark.obtain}")
        names = missing_corpora(benchmark)
        if not names:
            print(f"benchmark {args.name}: its corpora ({', '.join(benchmark.corpora)}) are installed", file=sys.stderr)
    for name in names:
        path = fetch(name, progress=progress_printer(f"fetching {name}"))
        print(f"installed {name} in {path} (licence: {SOURCES[name].licence})", file=sys.stderr)
    return warm_views() if args.warm else 0


def run_benchmarks(args) -> int:
    """Print every benchmark card: what it holds, its published systems, and whether its data is here."""
    from stviz.benchmarks import BENCHMARKS
    from stviz.benchmarks.published import missing_corpora, reported

    for b in BENCHMARKS.values():
        missing = missing_corpora(b)
        state = (b.obtain if b.obtain else f"not installed: python -m stviz data fetch {b.name}" if missing
                 else f"installed ({', '.join(b.corpora)})")
        print(f"{b.name:12s} {b.title}: {len(b.systems)} published systems\n{'':12s} {state}\n"
              f"{'':12s} licence: {b.licence}")
        # With the data here, the numbers the release itself publishes too (RUSSE 2022's human J, computed from it).
        numbers = reported(b) if not b.obtain and not missing else {s.name: s.reported for s in b.systems}
        for system in b.systems:
            said = ", ".join(f"{r.metric} {r.value:g}" for r in numbers[system.name])
            print(f"{'':14s}{system.name:23s} {system.source}" + (f"  [reported: {said}]" if said else ""))
    return 0


def run_import(args) -> int:
    """Import corpora from a folder; exit 2 when none could be imported."""
    from stviz.data.corpora.sources import import_folder

    status = import_folder(args.folder, args.only, progress=progress_printer("importing"))
    for name, what in status.items():
        print(f"{name:15s} {what}")
    if not any(v.startswith("imported") for v in status.values()):
        return 2
    return warm_views() if args.warm else 0


def run_warm(args) -> int:
    """Compute the built-in views' full results now (exit code 1 when one could not be computed)."""
    return warm_views(args.datasets or None)


def warm_views(names: list[str] | None = None) -> int:
    """Every view's full result on the built-in datasets, kept in the cache, each view's stages on stderr; 1 when
    one could not be computed (each said with its reason), else 0."""
    from stviz.cli.common import CliReporter, end_progress_line
    from stviz.ready import warm_now

    def say(line: str) -> None:
        end_progress_line()
        print(line, file=sys.stderr, flush=True)

    return 1 if warm_now(names, reporter_for=lambda item: CliReporter(), say=say) else 0
