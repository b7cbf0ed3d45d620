"""`studybot bank import`, `export`, `question-stats` and `reports`: a space's question packs and the reports
of problems with its questions, from the command line.

Whoever runs the command holds the database, so acts as an admin of every space in it."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from bot.app.bootstrap import bootstrap
from bot.app.config import Settings
from bot.bank.load import Bank, load_bank
from bot.kernel.clock import SystemClock
from bot.kernel.errors import PackError, QuizError
from bot.kernel.files import write_private
from bot.kernel.values import Actor
from bot.packs.catalog import PackCatalog
from bot.packs.files import format_of, read_upload_file
from bot.packs.question_stats import question_stats
from bot.store.urls import store_for_url

OPERATOR = Actor("cli", is_admin=True)


def _space(text: str) -> tuple[str, str]:
    platform, sep, space_id = text.partition(":")
    if not sep or not platform or not space_id:
        raise argparse.ArgumentTypeError("use PLATFORM:SPACE_ID, for example discord:123456789012345678")
    return platform.lower(), space_id


def add_pack_cli(bank_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The import and export subcommands of `studybot bank`."""
    imp = bank_sub.add_parser("import", help="import a question pack (YAML or CSV) into a space, all or nothing")
    imp.add_argument("file", type=Path)
    imp.add_argument("--space", type=_space, required=True, metavar="PLATFORM:SPACE_ID")
    imp.add_argument("--pack", required=True, metavar="NAME")
    imp.add_argument("--format", choices=("yaml", "csv"), default=None, help="default: from the file name")
    imp.add_argument("--replace", action="store_true", help="replace the pack if the space has it already")
    exp = bank_sub.add_parser("export", help="write a space's question pack as YAML or CSV")
    exp.add_argument("--space", type=_space, required=True, metavar="PLATFORM:SPACE_ID")
    exp.add_argument("--pack", required=True, metavar="NAME")
    exp.add_argument("--format", choices=("yaml", "csv"), required=True)
    exp.add_argument(
        "-o", "--output", type=Path, default=None, help="a new file (0600; never overwritten); default: standard output"
    )
    st = bank_sub.add_parser("question-stats", help="a space's hardest and flagged questions")
    st.add_argument("--space", type=_space, required=True, metavar="PLATFORM:SPACE_ID")
    st.add_argument("--pack", default=None, metavar="NAME", help="default: every pack")
    rp = bank_sub.add_parser("reports", help="a space's open reports of problems with questions; resolve one")
    rp.add_argument("--space", type=_space, required=True, metavar="PLATFORM:SPACE_ID")
    rp.add_argument("--resolve", type=int, default=None, metavar="ID", help="the report to resolve")
    rp.add_argument(
        "--action",
        choices=("keep", "hold", "edit"),
        default=None,
        help="with --resolve: keep (it is fine), hold (not asked until kept), edit (a space's own pack)",
    )


async def _reports(args: argparse.Namespace, store: Any, bank: Bank) -> int:
    """`studybot bank reports`: the queue (with the reported questions' prompts), or resolve one report (the
    service's own rules, as an admin)."""
    if (args.resolve is None) != (args.action is None):
        print("give --resolve ID and --action keep|hold|edit together", file=sys.stderr)
        return 2
    service = bootstrap(store, bank, SystemClock())
    platform, space_id = args.space
    try:
        if args.resolve is not None:
            print(await service.reports.resolve(OPERATOR, platform, space_id, args.resolve, args.action))
        else:
            hint = f"studybot bank reports --space {platform}:{space_id} --resolve ID --action keep|hold|edit"
            print((await service.reports.queue(OPERATOR, platform, space_id, hint)).text)
        return 0
    finally:
        await service.close()


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    store = store_for_url(settings.database_url)
    await store.open()
    try:
        reads_bank = args.bank_command in ("question-stats", "reports")  # not for a space's packs alone
        bank = load_bank(settings.bank_dir, strict=False) if reads_bank else Bank(())
        catalog = PackCatalog(store, bank)
        platform, space_id = args.space
        if args.bank_command == "reports":
            return await _reports(args, store, bank)
        if args.bank_command == "question-stats":
            card = await question_stats(catalog, OPERATOR, platform, space_id, args.pack)
            print(card.text)
            return 0
        if args.bank_command == "import":
            fmt = format_of(str(args.file), args.format)
            data = read_upload_file(args.file)
            result = await catalog.import_pack(
                OPERATOR,
                platform,
                space_id,
                args.pack,
                data,
                fmt,
                replace=args.replace,
                now=SystemClock().now(),
                label=args.file.name,
            )
            verb = "replaced" if result.replaced else "created"
            print(
                f"{verb} pack {result.pack} in {platform}:{space_id}: {result.questions} question(s) "
                f"(version {result.version})"
            )
            return 0
        data = await catalog.export_pack(OPERATOR, platform, space_id, args.pack, args.format)
        if args.output is None:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        else:
            try:
                write_private(args.output, data)  # a new file, 0600: an export never overwrites one
            except FileExistsError:
                print(
                    f"{args.output} exists already; give a new file name (an export never overwrites a file)",
                    file=sys.stderr,
                )
                return 1
            except OSError as exc:
                print(f"{args.output}: cannot write: {exc.strerror or exc}", file=sys.stderr)
                return 1
            print(f"wrote pack {args.pack} ({args.format}) to {args.output}", file=sys.stderr)
        return 0
    except PackError as exc:
        for problem in exc.problems or [exc.message]:
            print(problem, file=sys.stderr)
        if exc.problems and exc.message not in exc.problems:
            print(exc.message, file=sys.stderr)
        return 1
    except QuizError as exc:
        print(exc.message, file=sys.stderr)
        return 1
    finally:
        await store.close()


def run_pack_command(args: argparse.Namespace, settings: Settings) -> int:
    return asyncio.run(_run(args, settings))
