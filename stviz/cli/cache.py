"""``cache info | clear``: what the disk cache holds, area by area, and emptying it."""

from __future__ import annotations


def register(sub) -> None:
    """Add the ``cache`` command group."""
    cache = sub.add_parser("cache", help="show or clear the disk cache, area by area")
    verbs = cache.add_subparsers(dest="verb", metavar="VERB", required=True)
    verbs.add_parser("info", help="each area of the cache folder with its size").set_defaults(func=run_info)
    clear = verbs.add_parser("clear", help="empty the cache (every area but uploads, unless --uploads); "
                                           "corpora are never touched")
    clear.add_argument("--uploads", action="store_true",
                       help="also delete uploaded pair files and system outputs (links to them stop working)")
    clear.add_argument("--only", nargs="+", metavar="AREA", help="clear only these areas (see `cache info`)")
    clear.set_defaults(func=run_clear)


def run_info(args) -> int:
    """Print the cache folder and each area: name, size, what it holds."""
    from stviz.cache import default_cache, format_bytes

    cache = default_cache()
    areas = cache.areas()
    print(f"cache folder: {cache.root}  ({format_bytes(sum(a.bytes for a in areas))})")
    for area in areas:
        note = " [cleared only with --uploads]" if area.confirm else "" if area.clearable else " [never cleared]"
        print(f"{area.name:12s} {format_bytes(area.bytes):>10s}  {area.description}{note}")
    return 0


def run_clear(args) -> int:
    """Clear the areas asked for and print what was cleared and kept; exit 1 when some could not be cleared."""
    from stviz.cache import default_cache

    cache = default_cache()
    if args.only:
        names = list(args.only) + (["uploads"] if args.uploads and "uploads" not in args.only else [])
    else:
        names = [a.name for a in cache.areas() if a.clearable and (args.uploads or not a.confirm)]
    report = cache.clear(names)  # ValueError for an unknown area: one error line, exit 2
    print(report.message())
    return 1 if report.failed else 0

