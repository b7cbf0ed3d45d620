"""The `studybot` command and the composition root: the one place that builds store, service, scheduler
and the enabled adapters (each imported inside the function that starts it, as its extra may be absent)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from bot.app import retry_logs
from bot.app.bootstrap import bootstrap
from bot.app.config import Settings, redact_url
from bot.app.roles import (
    adapters_of,
    batching_of,
    check_start,
    connection_name,
    round_cache_of,
    runs_tick,
    web_settings,
    yield_cpu,
)
from bot.app.runtime import tune_gc
from bot.app.scheduler import DailyScheduler
from bot.bank.load import DEFAULT_BANK_DIR, Bank, BankError, load_bank, validate
from bot.features import Features
from bot.kernel.clock import Clock, DatabaseClock, SystemClock, TimeSource
from bot.kernel.errors import StartupError
from bot.kernel.metrics import Metrics
from bot.kernel.topics import TOPICS
from bot.kernel.values import ChannelRef
from bot.store.ports import Store
from bot.store.urls import store_for_url

log = logging.getLogger(__name__)
T = TypeVar("T")


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level, logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    retry_logs.install()  # one line per connection retry, not the libraries' several


NO_TOKEN_NO_INPUT = (
    "No platform token is set and standard input is closed, so there is nothing to run: set DISCORD_TOKEN "
    "(Discord) or SLACK_BOT_TOKEN with SLACK_APP_TOKEN or SLACK_SIGNING_SECRET (Slack), or run studybot in a "
    "terminal for the local console."
)
Starter = Callable[[Features, Settings], Awaitable["asyncio.Task[None]"]]


def _starters(settings: Settings) -> dict[str, Starter]:
    """The start function of every enabled platform (with its listeners, or over REST only in a delivery
    process), imported now: a missing extra stops the start at once."""
    starters: dict[str, Starter] = {}
    for platform in settings.platforms:
        variable, module, function, extra = adapters_of(settings)[platform]
        try:
            starters[platform] = getattr(importlib.import_module(module), function)
        except ImportError as exc:
            raise StartupError(
                f"{variable} is set but the {platform} adapter cannot be imported ({exc}): "
                f"pip install 'studybot[{extra}]'"
            ) from None
    return starters


def _owner(settings: Settings) -> Callable[[ChannelRef], bool]:
    """Which channels this process schedules: the Discord adapter's shard rule when Discord runs sharded."""
    if "discord" not in settings.platforms or not settings.shard_count:
        return lambda ref: True
    from adapters.discord.sharding import channel_owner  # stdlib only; validates the shard settings

    return channel_owner(settings.shard_count, settings.shard_ids)


async def clock_for(store: Store) -> Clock:
    """The clock of every due decision in this process: on PostgreSQL the database's (read once per tick and
    carried forward by this machine's elapsed-time clock), so processes on hosts whose clocks differ post
    and reveal at the same instants; elsewhere (SQLite: one machine) this machine's."""
    if isinstance(store, TimeSource):  # PostgresStore
        try:
            return await DatabaseClock.start(store)
        except Exception as exc:  # noqa: BLE001 - the store opened a moment ago; say what failed in one line
            raise StartupError(f"STUDYBOT_DATABASE_URL: cannot read the database's time: {_first_line(exc)}") from None
    return SystemClock()


async def open_store(url: str, *, migrate: bool = True, name: str | None = None) -> Store:
    """The store for `url`, opened (`name`: its PostgreSQL connections' application_name); any failure is one
    StartupError line (the store closes what it opened)."""
    store = store_for_url(url, application_name=name)
    try:
        await store.open(migrate=migrate)
    except StartupError:
        raise
    except ConnectionError as exc:  # the store's own message names the (redacted) URL
        raise StartupError(f"STUDYBOT_DATABASE_URL: {_first_line(exc)}") from None
    except Exception as exc:  # noqa: BLE001 - corrupt file, read-only disk, bad login, failed migration ...
        raise StartupError(
            f"STUDYBOT_DATABASE_URL={redact_url(url)}: cannot open the database: {_first_line(exc)}"
        ) from None
    return store


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


@contextlib.contextmanager
def stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set `stop` (also as PID 1, where signals without a handler are ignored); a second
    signal while stopping ends the process at once."""
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []

    def on_signal(sig: signal.Signals) -> None:
        if stop.is_set():
            os._exit(128 + sig.value)
        log.info("%s: stopping", sig.name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, on_signal, sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
            continue
        installed.append(sig)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def _until_stopped(main: asyncio.Future[Any], stop: asyncio.Event) -> None:
    """Wait for `main` to end or for a stop signal."""
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({main, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if main.done():
        main.result()  # raises what ended it


async def _unless_stopped(starting: Awaitable[T], stop: asyncio.Event) -> T | None:
    """What `starting` returns, or None when a stop signal comes first: then it is cancelled (an adapter's login
    that retries without a network closes what it opened and ends)."""
    start = asyncio.ensure_future(starting)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({start, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        if not start.done():
            start.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await start
    return start.result() if not start.cancelled() else None


async def _cancel(*futures: asyncio.Future[Any]) -> None:
    for future in futures:
        future.cancel()
    results = await asyncio.gather(*futures, return_exceptions=True)
    for result in results:
        if isinstance(result, Exception) and not isinstance(result, StartupError):
            log.warning("an adapter ended with %s while stopping", _first_line(result))


async def run_bot(settings: Settings) -> int:
    """Start everything the settings ask for and run until the console quits, an adapter ends or a signal
    comes; whatever was opened is closed again in reverse order (input first, the store last)."""
    check_start(settings)
    starters = _starters(settings)
    retry_logs.install()
    if not settings.platforms:
        from adapters.console.channel import stdin_at_eof

        if stdin_at_eof(sys.stdin):
            raise StartupError(NO_TOKEN_NO_INPUT)
    stop = asyncio.Event()
    with stop_on_signals(stop):
        resolved = await _unless_stopped(resolve_shards(settings), stop)  # STUDYBOT_SHARD_COUNT=auto asks Discord
        if resolved is None:
            return 0
        settings = resolved
        owns = _owner(settings)
        async with contextlib.AsyncExitStack() as stack:
            # what can fail fast (the store, the port) is opened before the bank's longer load
            store = await open_store(settings.database_url, name=connection_name(settings))
            stack.push_async_callback(store.close)
            metrics = Metrics()
            schedulers: list[DailyScheduler] = []
            health = health_check(store, schedulers, runs_tick(settings))
            web = await _serve_web(web_settings(settings), metrics, health)
            if web is not None:
                stack.push_async_callback(web[0].close)  # closed after the adapters, before the store
            bank = await asyncio.to_thread(load_bank, settings.bank_dir, strict=False)
            if not len(bank):
                print(
                    f"No questions could be loaded from {settings.bank_dir}; run `studybot bank validate`.",
                    file=sys.stderr,
                )
                return 1
            clock = await clock_for(store)
            service = bootstrap(
                store,
                bank,
                clock,
                metrics=metrics,
                send_lease=settings.send_lease,
                batching=batching_of(settings),
                round_cache=round_cache_of(settings),
            )
            stack.push_async_callback(service.close)  # commits the answers still in flight
            if web is not None:
                from bot.web.app import features_ready

                features_ready(web[0].app, service)
            service.access.dashboard = _dashboard_link(settings, web is not None and web[1])
            scheduler = DailyScheduler(
                service, clock, misfire_grace=settings.misfire_grace, owns=owns, tick=settings.tick
            )
            schedulers.append(scheduler)
            tune_gc()
            main: asyncio.Future[Any]
            if not settings.platforms:
                from adapters.console.channel import ConsoleChannel

                print(
                    "No DISCORD_TOKEN or SLACK_BOT_TOKEN set: starting the local console channel "
                    f"({redact_url(settings.database_url)}).",
                    flush=True,
                )
                dashboard = None
                if web is not None and web[1]:
                    from bot.app.web_cli import console_link

                    dashboard = await console_link(service, settings)
                console = ConsoleChannel(service, timezone=settings.console_timezone, dashboard=dashboard)
                stack.push_async_callback(scheduler.stop)  # a tick in flight ends first: before the adapters and store
                await _unless_stopped(scheduler.start(), stop)  # a stop during the catch-up tick ends it
                if stop.is_set():
                    return 0
                main = asyncio.ensure_future(console.run())
            else:
                tasks: list[asyncio.Task[None]] = []
                for start in starters.values():
                    started = await _unless_stopped(start(service, settings), stop)
                    if started is None:  # stopped while the adapter was still starting (a login retrying)
                        return 0
                    task = started
                    tasks.append(task)
                    stack.push_async_callback(_cancel, task)  # stops the gateway or socket first
                stack.push_async_callback(scheduler.stop)  # a tick in flight ends first: before adapters, store
                if runs_tick(settings):
                    await _unless_stopped(scheduler.start(), stop)  # a stop during the catch-up tick ends it
                else:  # an interactive process: the delivery processes tick; live games start at once here
                    scheduler.serve_commands()
                if stop.is_set():
                    return 0
                log.info("running as STUDYBOT_ROLE=%s", settings.role)
                main = asyncio.ensure_future(asyncio.gather(*tasks))
            stack.push_async_callback(_cancel, main)
            await _until_stopped(main, stop)
            return 0


async def resolve_shards(settings: Settings) -> Settings:
    """STUDYBOT_SHARD_COUNT=auto: the settings with Discord's recommended count (GET /gateway/bot), and
    STUDYBOT_SHARD_IDS checked against it (a StartupError naming both). Other settings pass unchanged."""
    if not settings.shard_auto or "discord" not in settings.platforms or not settings.discord_token:
        return settings
    from adapters.discord.delivery import recommended_shards

    count = await recommended_shards(settings.discord_token)
    bad = sorted(i for i in settings.shard_ids if i >= count)
    if bad:
        ids = ",".join(map(str, settings.shard_ids))
        raise StartupError(
            f"STUDYBOT_SHARD_IDS={ids} is not accepted: shard {bad[0]} is outside 0..{count - 1} "
            f"(STUDYBOT_SHARD_COUNT=auto, and Discord recommends {count}); use shard numbers from 0 to "
            f"{count - 1}, or set STUDYBOT_SHARD_COUNT to the number of shards the processes split."
        )
    log.info("STUDYBOT_SHARD_COUNT=auto: %d shard(s), as Discord recommends", count)
    return settings.model_copy(update={"shard_count": count})


def health_check(store: Store, schedulers: list[DailyScheduler], tick: bool = True) -> Callable[[], Awaitable[bool]]:
    """/healthz: the store answers and the scheduler runs (`tick` False, an interactive process: the process
    is set up; its scheduler does not run). While the store is out, unhealthy without a log line per probe of
    the endpoint (the process's StoreOutage says once that it is down)."""

    async def healthy() -> bool:
        try:
            await store.schema_version()
        except Exception as exc:
            if schedulers and schedulers[0].service.context.outage.failed(exc):
                return False
            raise  # logged by the endpoint
        return bool(schedulers) and (not tick or schedulers[0].scheduler.running)

    return healthy


async def _serve_web(
    settings: Settings, metrics: Metrics, health: Callable[[], Awaitable[bool]]
) -> tuple[Any, bool] | None:
    """The web server: the dashboard, /healthz and /metrics (`health`: see health_check); None when neither
    the dashboard nor the metrics address is on."""
    from bot.app.web_cli import start_web

    return await start_web(settings, metrics, health)


def bank_validate(path: Path, run_verify: bool) -> int:
    entries, problems = validate(path)
    if run_verify and not problems:
        from bot.bank.verify import run_verify as verify_one

        problems = [p for e in entries if (p := verify_one(e)) is not None]
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        print(f"{len(problems)} problem(s); nothing was loaded from the files named above.", file=sys.stderr)
        return 1
    verified = sum(1 for e in entries if e.verify is not None)
    print(
        f"OK: {len(entries)} questions in {len({e.path for e in entries})} file(s), {verified} with verify blocks"
        + (" (all verified)" if run_verify else "")
    )
    return 0


STATS_COLUMNS = (
    ("easy", 5),
    ("medium", 7),
    ("hard", 5),
    ("total", 6),
    ("verified", 9),
    ("checked_by", 11),
    ("why_wrong", 10),
)


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
    """studybot db migrate: apply the pending migrations, each all or nothing; a failure is one line naming
    the version the database stays at (exit code 2)."""
    store = await open_store(settings.database_url, migrate=False)
    try:
        try:
            applied = await store.migrate()
        except Exception as exc:  # noqa: BLE001 - a migration the database refuses (the store rolled it back)
            at = await store.schema_version()
            raise StartupError(
                f"STUDYBOT_DATABASE_URL={redact_url(settings.database_url)}: a migration failed "
                f"({_first_line(exc)}); the database stays at schema version {at}."
            ) from None
        version = await store.schema_version()
    finally:
        await store.close()
    print(f"schema at version {version}" + (f"; applied {', '.join(map(str, applied))}" if applied else "; up to date"))
    return 0


async def db_copy(src_url: str, dst_url: str) -> int:
    """studybot db copy --from URL --to URL"""
    from bot.kernel.errors import CopyError
    from bot.store.copy import copy_database

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
    from bot.app.packs_cli import add_pack_cli

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
    from bot.app.recap_cli import add_recap_cli

    add_recap_cli(sub)
    from bot.app.web_cli import add_web_cli

    add_web_cli(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """The `studybot` command: a StartupError anywhere below is one line on stderr and exit code 2."""
    args = build_parser().parse_args(argv)
    # until run_bot installs its handlers, SIGTERM stops like Ctrl-C (and is not ignored as PID 1)
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return _command(args)
    except StartupError as exc:
        print(f"studybot: {exc}", file=sys.stderr, flush=True)
        return 2
    except KeyboardInterrupt:
        return 0


def _command(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    if args.command in (None, "run"):
        _setup_logging(settings.effective_log_level())
        yield_cpu(settings)  # a delivery process: before asyncio.run starts any thread
        return asyncio.run(run_bot(settings))
    _setup_logging(settings.log_level or "INFO")
    if args.command == "bank" and args.bank_command in ("import", "export", "question-stats", "reports"):
        from bot.app.packs_cli import run_pack_command

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
        return int(args.discord_handler(args, settings))
    if args.command == "recap":
        from bot.app.recap_cli import recap_main

        return recap_main(args, settings)
    if args.command == "web":
        from bot.app.web_cli import web_link

        return asyncio.run(web_link(settings, open_store))
    return 2


if __name__ == "__main__":
    raise SystemExit(main())


def _dashboard_link(settings: Settings, listening: bool) -> Any:
    """Where `/quiz dashboard` sends members (bot.app.web_cli.dashboard_link), or None."""
    from bot.app.web_cli import dashboard_link

    return dashboard_link(settings, listening)
