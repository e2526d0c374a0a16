"""``study create | list | status | rater | judge | links | export | close``: a blind human rating study of system outputs,
run from the command line as from the Rating study page (the same database, the same links)."""

from __future__ import annotations

import sys

from stviz.studies.links import DEFAULT_BASE_URL, owner_link, rater_link
from stviz.studies.protocol import ASPECTS, KINDS, SCALES


def register(sub) -> None:
    """Add the ``study`` command group."""
    from stviz.cli.common import _DatasetPart, add_reading_arguments
    from stviz.cli.llm_flags import add_llm_arguments

    study = sub.add_parser("study", help="collect human ratings: a blind rating study shared by link")
    study.add_argument("--db", metavar="URL", help="the studies database: sqlite:///PATH or postgresql://USER@HOST/NAME "
                                                   "(default: STVIZ_STUDIES_DB, else $STVIZ_HOME/studies.sqlite3)")
    verbs = study.add_subparsers(dest="verb", metavar="VERB", required=True)
    create = verbs.add_parser("create", help="sample outputs of a dataset and print the rater links")
    create.add_argument("--dataset", required=True, action=_DatasetPart,
                        help="a dataset name (python -m stviz data list) or a pair file (with --columns and the reading "
                             "flags of the other commands)")
    add_reading_arguments(create, _DatasetPart)
    create.add_argument("--language", action=_DatasetPart, metavar="CODE",
                        help="the texts' language (ISO 639-1), shown to raters ('natural English text'); default: "
                             "the file's language column, else detected")
    create.add_argument("--systems", nargs="+", metavar="NAME", help="the systems to rate (default: all of them)")
    create.add_argument("--inputs", type=int, default=20, help="inputs to rate, split evenly over the transfer "
                                                               "directions, each with every system's output (20)")
    create.add_argument("--kind", choices=KINDS, default="absolute",
                        help="absolute ratings per aspect (default) or pairwise: which of two outputs is better")
    create.add_argument("--aspects", nargs="+", choices=ASPECTS, default=list(ASPECTS), help="what raters judge")
    create.add_argument("--scale", choices=list(SCALES), default="1-5",
                        help="1-5 (default) or 0-0.5-1 (the detoxification studies' labels); absolute studies")
    create.add_argument("--raters", type=int, default=3, help="rater links to make now (more: study rater ID)")
    create.add_argument("--repeats", type=int, default=2, help="items each rater sees twice, for their consistency")
    create.add_argument("--seed", type=int, default=0, help="the sample's seed (the same seed draws the same items)")
    create.add_argument("--title", default="", help="the study's title, shown to raters (name no system: the study is blind)")
    create.add_argument("--base-url", default=DEFAULT_BASE_URL, help="the dashboard's address, for the links")
    create.set_defaults(func=run_create)
    verbs.add_parser("list", help="every study in the database").set_defaults(func=run_list)
    status = verbs.add_parser("status", help="progress per rater, Krippendorff's alpha per aspect, each rater's "
                                             "agreement with the others")
    status.add_argument("study", help="the study's id")
    status.set_defaults(func=run_status)
    rater = verbs.add_parser("rater", help="add a rater and print their link")
    rater.add_argument("study", help="the study's id")
    rater.add_argument("--name", default="", help="a name for the owner's tables (raters never see it)")
    rater.add_argument("--base-url", default=DEFAULT_BASE_URL, help="the dashboard's address, for the link")
    rater.set_defaults(func=run_rater)
    judge = verbs.add_parser("judge", help="add an LLM judge as a machine rater: it answers every item (resumes "
                                           "where it stopped), compared with the people, a measure in meta-eval")
    judge.add_argument("study", help="the study's id")
    judge.add_argument("--judge", required=True, metavar="SPEC",
                       help="llm:MODEL answers every aspect of the study, llm:MODEL:ASPECT that one (a server judge, "
                            "or llm:smollm2 run here; docs/llm-judges.md)")
    add_llm_arguments(judge)
    judge.set_defaults(func=run_judge)
    links = verbs.add_parser("links", help="print the owner link and every rater link again")
    links.add_argument("study", help="the study's id")
    links.add_argument("--base-url", default=DEFAULT_BASE_URL, help="the dashboard's address, for the links")
    links.set_defaults(func=run_links)
    export = verbs.add_parser("export", help="the ratings as a pair file stviz reads (one column per rater)")
    export.add_argument("study", help="the study's id")
    export.add_argument("-o", "--output", required=True, help="the file to write: .csv, .tsv or .parquet")
    export.set_defaults(func=run_export)
    close = verbs.add_parser("close", help="stop collecting answers (those given stay)")
    close.add_argument("study", help="the study's id")
    close.set_defaults(func=run_close)


def run_create(args) -> int:
    """Sample the items, store the study, make the rater links and print them."""
    from stviz.cli.common import load_dataset_arg
    from stviz.studies import open_store
    from stviz.studies.sampling import create_study, merged_outputs

    if args.raters < 0:
        raise ValueError("--raters cannot be negative")
    store = open_store(args.db)  # first: a database it cannot use is said before the dataset is read
    dataset = load_dataset_arg(args.dataset)
    study, items, systems = create_study(store, dataset, systems=args.systems, inputs=args.inputs, kind=args.kind,
                                         aspects=tuple(args.aspects), scale=args.scale, repeats=args.repeats,
                                         seed=args.seed, title=args.title, raters=args.raters)
    merged = merged_outputs(items)
    same = (f"; {merged} output{'s' if merged != 1 else ''} the same text as another system's, rated once for both"
            if merged else "")
    print(f"study {study.id}: {len(items)} items ({args.inputs} inputs x {len(systems)} systems"
          f"{', pairwise' if args.kind == 'pairwise' else ''}{same}), {args.raters} raters, in {store.kind}",
          file=sys.stderr)
    _print_links(store, study, args.base_url)
    return 0


def run_list(args) -> int:
    """One line per study: id, state, items, raters, answers, title."""
    from stviz.studies import open_store

    store = open_store(args.db)
    for study in store.studies():
        raters, answers, judges = store.raters(study.id), store.answers(study.id), store.judges(study.id)
        machines = f"  (and {len(judges)} LLM judge{'s' if len(judges) != 1 else ''})" if judges else ""
        print(f"{study.id}  {'open  ' if study.is_open else 'closed'}  {len(study.items):4d} items  "
              f"{len(raters):3d} raters  {len(answers):6d} answers  {study.title}{machines}")
    return 0


def run_status(args) -> int:
    """Progress per rater, alpha per aspect, each rater against the others."""
    from stviz.cli.common import print_table
    from stviz.studies import open_store
    from stviz.studies.results import agreement, agreement_lines, progress, rater_agreement

    store = open_store(args.db)
    study = store.study(args.study)
    raters, answers = store.raters(study.id), store.answers(study.id)
    print(f"# {study.title} ({'open' if study.is_open else 'closed'}; {len(study.items)} items, "
          f"{study.protocol.kind}, {', '.join(study.protocol.aspects)})\n")
    print_table(progress(study, raters, answers).set_index("rater"))
    print("\nKrippendorff's alpha (interval), per aspect:\n")
    print("\n".join(f"- {line}" for line in agreement_lines(agreement(study, raters, answers))))
    print("\nEach rater against the others:\n")
    print_table(rater_agreement(study, raters, answers).set_index("rater"))
    _print_judges(store, study, raters, answers)
    return 0


def _print_judges(store, study, raters, answers) -> None:
    """The LLM judges that answered as machine raters (not counted among the raters above): how far, and their
    agreement with the people."""
    from stviz.cli.common import print_table
    from stviz.studies.judges import judge_agreement, judge_progress
    from stviz.studies.store import MACHINES

    judges = store.judges(study.id)
    if not judges:
        return
    judged = store.answers(study.id, who=MACHINES)
    print("\nLLM judges (machine raters, not counted among the raters above):\n")
    print_table(judge_progress(study, judges, judged).set_index("judge"))
    print("\nEach judge against the people (Spearman's rho with the people's mean; alpha without and with it):\n")
    table = judge_agreement(study, raters, answers, judges, judged)
    print_table(table.drop(columns=["said"] + ([] if table["language"].astype(bool).any() else ["language"]))
                .set_index("judge"))


def run_judge(args) -> int:
    """Add an LLM judge as a machine rater and let it answer every item it has not answered yet."""
    from stviz.cli.common import end_progress_line, print_notes, progress_printer
    from stviz.studies import open_store
    from stviz.studies.judges import plans, run_judge as answer, scale_note

    store = open_store(args.db)
    study = store.study(args.study)
    print_notes(plans(store, study, args.judge) + [scale_note(study, args.judge)])
    run = answer(store, study, args.judge, progress_printer(f"{args.judge} answering the study's items"))
    end_progress_line()
    print_notes(run.notes)
    print(f"{args.judge}: {run.written:,} answers written to study {study.id}; see them with study status "
          f"{study.id}", file=sys.stderr)
    return 0


def run_rater(args) -> int:
    """Add one rater and print their link."""
    from stviz.studies import open_store

    store = open_store(args.db)
    study = store.study(args.study)
    rater = store.add_rater(study, args.name)
    print(f"{rater.name}: {rater_link(args.base_url, rater.token)}")
    return 0


def run_links(args) -> int:
    """The owner link and every rater link."""
    from stviz.studies import open_store

    store = open_store(args.db)
    _print_links(store, store.study(args.study), args.base_url)
    return 0


def run_export(args) -> int:
    """Write the study's ratings as CSV: one row per output, one ASPECT_K column per rater K."""
    from stviz.export import write_table
    from stviz.studies import open_store
    from stviz.studies.results import study_pairs

    store = open_store(args.db)
    study = store.study(args.study)
    frame, _ = study_pairs(store, study)  # each LLM judge a measure column beside the raters'

    write_table(frame, args.output)  # formula cells neutralised, as every export: outputs are user text
    print(f"wrote {len(frame):,} outputs with {len(store.raters(study.id))} raters' answers to {args.output}",
          file=sys.stderr)
    return 0


def run_close(args) -> int:
    """Close the study."""
    from stviz.studies import open_store

    store = open_store(args.db)
    study = store.study(args.study)
    store.close_study(study.id)
    print(f"study {study.id} closed: no more answers are taken", file=sys.stderr)
    return 0


def _print_links(store, study, base_url: str) -> None:
    print(f"owner ({study.id}): {owner_link(base_url, study.owner_token)}")
    for rater in store.raters(study.id):
        print(f"{rater.name}: {rater_link(base_url, rater.token)}")
