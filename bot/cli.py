"""The `studybot` command and the composition root: the one place that builds store, service, scheduler
and the enabled adapters (each imported inside the function that starts it, as its extra may be absent)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path

from bot.bank import DEFAULT_BANK_DIR, TOPICS, Bank, BankError, load_bank, validate
from bot.config import Settings
from bot.ports import SystemClock
from bot.quiz import QuizService
from bot.runtime import tune_gc
from bot.schedule import DailyScheduler
from bot.sharding import channel_owner
from bot.store import store_for_url

log = logging.getLogger(__name__)


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level, logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("apscheduler").setLevel(logging.WARNING)


async def run_bot(settings: Settings) -> int:
    bank = load_bank(settings.bank_dir, strict=False)
    if not len(bank):
        print(f"No questions could be loaded from {settings.bank_dir}; run `studybot bank validate`.", file=sys.stderr)
        return 1
    store = store_for_url(settings.database_url)
    await store.open()
    clock = SystemClock()
    service = QuizService(store, bank, clock)
    tasks: list[asyncio.Task[None]] = []
    scheduler = DailyScheduler(
        service, clock, misfire_grace=settings.misfire_grace,
        owns=channel_owner(settings.shard_count, settings.shard_ids),
    )
    service.on_config_change(scheduler.sync_channel)  # a settings change moves the channel's daily job
    service.on_round_opened(scheduler.plan_reveal)  # a round with an answer window is revealed when it ends
    health = None
    if settings.metrics_port is not None:
        from bot.health import serve_health

        async def healthy() -> bool:
            await store.schema_version()
            return scheduler.scheduler.running

        health = await serve_health(settings.metrics_host, settings.metrics_port, service.metrics, healthy)
    tune_gc()
    try:
        platforms = settings.platforms
        if not platforms:
            from adapters.console.channel import ConsoleChannel

            print(
                "No DISCORD_TOKEN or SLACK_BOT_TOKEN set: starting the local console channel "
                f"({settings.database_url}).",
                flush=True,
            )
            console = ConsoleChannel(service, timezone=settings.console_timezone)
            await scheduler.start()
            await console.run()
            return 0
        if "discord" in platforms:
            tasks.append(await _start_discord(service, settings))
        if "slack" in platforms:
            tasks.append(await _start_slack(service, settings))
        await scheduler.start()
        await asyncio.gather(*tasks)
        return 0
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if health is not None:
            health.close()
        scheduler.shutdown()
        await service.close()
        await store.close()


async def _start_discord(service: QuizService, settings: Settings) -> asyncio.Task[None]:
    try:
        from adapters.discord.app import start_discord  # type: ignore[import-not-found]
    except ImportError as exc:
        raise SystemExit(f"DISCORD_TOKEN is set but the Discord adapter is unavailable: {exc}") from None
    return await start_discord(service, settings)


async def _start_slack(service: QuizService, settings: Settings) -> asyncio.Task[None]:
    try:
        from adapters.slack.app import start_slack  # type: ignore[import-not-found]
    except ImportError as exc:
        raise SystemExit(f"SLACK_BOT_TOKEN is set but the Slack adapter is unavailable: {exc}") from None
    return await start_slack(service, settings)


def bank_validate(path: Path, run_verify: bool) -> int:
    entries, problems = validate(path)
    if run_verify and not problems:
        from bot.bank_verify import run_verify as verify_one

        problems = [p for e in entries if (p := verify_one(e)) is not None]
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        print(f"{len(problems)} problem(s); nothing was loaded from the files named above.", file=sys.stderr)
        return 1
    verified = sum(1 for e in entries if e.verify is not None)
    print(f"OK: {len(entries)} questions in {len({e.path for e in entries})} file(s), {verified} with verify blocks"
          + (" (all verified)" if run_verify else ""))
    return 0


STATS_COLUMNS = (("easy", 5), ("medium", 7), ("hard", 5), ("total", 6), ("verified", 9), ("checked_by", 11),
                 ("why_wrong", 10))


def bank_stats_table(bank: Bank) -> str:
    """Per topic: easy, medium, hard, total, with a verify block, with checked_by, with why_wrong; then totals."""

    def row(name: str, cells: tuple[int, ...]) -> str:
        return f"{name:<20}" + "".join(f" {c:>{w}}" for c, (_, w) in zip(cells, STATS_COLUMNS, strict=True))

    header = f"{'topic':<20}" + "".join(f" {name:>{w}}" for name, w in STATS_COLUMNS)
    lines = [header, "-" * len(header)]
    totals = [0] * len(STATS_COLUMNS)
    for stats in bank.stats():
        cells = stats.cells()
        lines.append(row(stats.topic, cells))
        totals = [a + b for a, b in zip(totals, cells, strict=True)]
    lines += ["-" * len(header), row("all", tuple(totals))]
    with_code = sum(1 for q in bank.questions if q.code)
    lines.append(f"{len(bank.topics)} of {len(TOPICS)} topics; {with_code} questions show code")
    return "\n".join(lines)


def bank_stats(path: Path) -> int:
    try:
        bank = load_bank(path)
    except BankError as exc:
        for p in exc.problems:
            print(p, file=sys.stderr)
        return 1
    print(bank_stats_table(bank))
    return 0


async def db_migrate(settings: Settings) -> int:
    store = store_for_url(settings.database_url)
    await store.open(migrate=False)
    applied = await store.migrate()
    version = await store.schema_version()
    await store.close()
    print(f"schema at version {version}" + (f"; applied {', '.join(map(str, applied))}" if applied else "; up to date"))
    return 0


async def db_copy(src_url: str, dst_url: str) -> int:
    """studybot db copy --from URL --to URL"""
    from bot.store.copy import CopyError, copy_database

    try:
        counts = await copy_database(src_url, dst_url)
    except (CopyError, ConnectionError) as exc:
        print(f"copy failed: {exc}", file=sys.stderr)  # never prints the URLs (passwords)
        return 1
    for table, n in counts.items():
        print(f"{table:<14} {n:>10,}")
    print("copied; row counts match")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="studybot", description="A daily PyTorch interview question bot.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="start the bot (the console channel when no platform token is set)")
    bank = sub.add_parser("bank", help="question bank tools")
    bank_sub = bank.add_subparsers(dest="bank_command", required=True)
    v = bank_sub.add_parser("validate", help="validate question files")
    v.add_argument("path", nargs="?", type=Path, default=None)
    v.add_argument("--run-verify", action="store_true", help="also execute verify blocks (needs torch)")
    s = bank_sub.add_parser("stats", help="questions by topic and difficulty")
    s.add_argument("path", nargs="?", type=Path, default=None)
    from bot.packs_cli import add_pack_cli

    add_pack_cli(bank_sub)
    db = sub.add_parser("db", help="database tools")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("migrate", help="apply pending migrations")
    copy = db_sub.add_parser(
        "copy", help="copy all data into an empty database (SQLite <-> PostgreSQL); row counts are checked"
    )
    copy.add_argument("--from", dest="copy_from", required=True, metavar="URL", help="source database URL")
    copy.add_argument("--to", dest="copy_to", required=True, metavar="URL", help="destination database URL (empty)")
    from adapters.discord.invite import add_discord_cli  # stdlib only: works without the discord extra

    add_discord_cli(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = Settings.from_env()
    if args.command in (None, "run"):
        level = os.environ.get("STUDYBOT_LOG_LEVEL") or ("WARNING" if not settings.platforms else "INFO")
        _setup_logging(level.upper())
        with contextlib.suppress(KeyboardInterrupt):
            return asyncio.run(run_bot(settings))
        return 0
    _setup_logging(settings.log_level)
    if args.command == "bank" and args.bank_command in ("import", "export", "question-stats"):
        from bot.packs_cli import run_pack_command

        return run_pack_command(args, settings)
    if args.command == "bank":
        path = args.path or settings.bank_dir or DEFAULT_BANK_DIR
        if args.bank_command == "validate":
            return bank_validate(path, args.run_verify)
        return bank_stats(path)
    if args.command == "db":
        if args.db_command == "copy":
            return asyncio.run(db_copy(args.copy_from, args.copy_to))
        return asyncio.run(db_migrate(settings))
    if args.command == "discord":
        return args.discord_handler(args)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
