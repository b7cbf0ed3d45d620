"""A local terminal channel: the whole bot with no tokens, driven by lines such as `/quiz answer B`.

It plays the same part as a chat platform: typed `/quiz ...` lines go through the shared grammar and runner
(bot.text.commands, bot.text.runner), and the cards that come back are printed as text. `/quiz as NAME`
switches the simulated person.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import select
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO, assert_never
from zoneinfo import ZoneInfo

from adapters.console.render import (
    REPORT_HINT,
    config_text,
    leaderboard_text,
    question_text,
    reveal_text,
    stats_text,
)
from bot.daily.cards import StatsCard
from bot.features import Features
from bot.kernel.cards import AnswerOutcome, LeaderboardCard, QuestionCard, RevealCard
from bot.kernel.echo import echo
from bot.kernel.errors import AlreadyPosted, BadSetting, NothingOpen, PackError, QuizError, UnknownRound
from bot.kernel.files import write_new
from bot.kernel.outage import STORE_DOWN
from bot.kernel.parsing import parse_choice
from bot.kernel.values import Actor, ChannelRef, CommandNames
from bot.live.cards import LiveBoardCard, LiveCloseCard, LiveFinalCard, board_text, close_text, final_text
from bot.mydata.export import MissesExport
from bot.mydata.forget import TEXT_HINT, ForgetDone, ForgetPrompt
from bot.packs.catalog import PackFile, PacksCard
from bot.packs.files import format_of, pack_name_of, problem_text, read_upload_file
from bot.packs.question_stats import QuestionStatsCard
from bot.practice.cards import ReviewEmpty
from bot.practice.progress_cards import ProgressCard
from bot.recap.values import RecapCard
from bot.reminders.values import RemindCard
from bot.reports.service import ReportsCard
from bot.seasons.values import SeasonCard
from bot.settings import ConfigChange
from bot.suggestions.service import SuggestionsCard
from bot.teams.cards import TeamBoardCard
from bot.text.commands import HELP, as_quiz_line, parse_quiz
from bot.text.runner import (
    HelpReply,
    ImportAsked,
    NoteReply,
    PostedReply,
    RevealedReply,
    SettingsReply,
    SuggestFormReply,
    TopicsReply,
    run_command,
)

log = logging.getLogger(__name__)

FAILED = "Something went wrong on our side; please try again in a minute."

CONSOLE_REF = ChannelRef("console", "local", "terminal")
OWNER = "you"
AS_USAGE = "Usage: /quiz as NAME [admin]\nAct as another person here (with admin, one who may change the settings)."
CONSOLE_HELP = (
    HELP
    + """
console:
/quiz as NAME [admin]          act as another person (admins may change settings)
A, B, C or D [?]               answer the live, practice or review question (? : not sure)
/stats, /leaderboard, /review ...   as on Discord: the same as /quiz stats, /quiz leaderboard ...
/help, /quit"""
)


def _practice_answer(line: str) -> tuple[str, bool] | None:
    """`B`, `B ?` or `B?` (not sure) -> (letter, sure); None for anything else."""
    text = line.strip()
    sure = not text.endswith("?")
    letter = text.rstrip("?").strip()
    return (letter, sure) if len(letter) == 1 and letter.upper() in "ABCD" else None


class ConsolePlatform:
    """ChatPlatform for the terminal: every push is printed."""

    name = "console"

    def __init__(self, write: Callable[[str], None], recap_dir: Path | None = None) -> None:
        self._write = write
        self.shown: set[int] = set()  # question cards printed in this session
        self.recap_dir = recap_dir  # where weekly recap charts are written (default: the current directory)

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        self._write(question_text(card))
        self.shown.add(card.round_id)
        return f"console-{card.round_id}"

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        self._write(reveal_text(card))
        return None

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        self._write(f"(private to {user_id}) {text}")

    async def post_notice(self, ref: ChannelRef, text: str) -> None:
        self._write(text)

    async def send_direct(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A direct message (a reminder, a decided suggestion): printed as one."""
        self._write(f"(direct message to {user_id}) {text}")

    async def post_recap(self, ref: ChannelRef, card: RecapCard, png: bytes | None) -> str | None:
        """The weekly recap: the chart written to a file, its path printed with the recap's text."""
        from bot.recap.cards import recap_text

        if png is None:
            self._write(recap_text(card))
            return None
        path = await self.write_file(f"studybot-recap-{card.end:%Y-%m-%d}.png", png)
        self._write(f"{recap_text(card)}\nChart: {path}")
        return str(path)

    async def write_file(self, name: str, data: bytes) -> Path:
        """Write a file the bot hands out (a recap chart, an export) into `recap_dir` (default: here): a new
        file, 0600, numbered (NAME-2.EXT, ...) when the name is taken; the path written."""
        folder = self.recap_dir or Path.cwd()
        folder.mkdir(parents=True, exist_ok=True)
        return await asyncio.to_thread(write_new, folder, name, data)

    async def post_season(self, ref: ChannelRef, card: SeasonCard) -> str | None:
        """The monthly season card, printed."""
        from bot.seasons.service import season_text

        self._write(season_text(card, CommandNames().season_board))
        return None

    async def display_names(self, ref: ChannelRef, user_ids: Sequence[str]) -> dict[str, str]:
        return {uid: uid for uid in user_ids}

    async def close_live_question(self, ref: ChannelRef, card: LiveCloseCard) -> None:
        """A live question closed: its close, printed."""
        self._write(close_text(card))

    async def post_live_final(self, ref: ChannelRef, card: LiveFinalCard) -> str | None:
        """A live game's podium and full table, printed."""
        self._write(final_text(card))
        return None


class ConsoleChannel:
    def __init__(
        self,
        service: Features,
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        timezone: str = "UTC",
        ref: ChannelRef = CONSOLE_REF,
        dashboard: str | None = None,
    ) -> None:
        self.service = service
        self.dashboard = dashboard  # the dashboard's one-time sign-in link, shown once at start
        self._ref = ref  # one terminal is one channel (tests run several side by side)
        self._in = stdin or sys.stdin
        self._out = stdout or sys.stdout
        self.timezone = timezone
        self.user = OWNER
        self.admins = {OWNER}
        self.practice: dict[str, int] = {}  # user -> open practice round
        self.export_dir: Path | None = None  # where /quiz admin export writes (default: the current directory)
        self.platform = ConsolePlatform(self.say)
        service.context.platforms.add(self.platform)

    def say(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    @property
    def actor_now(self) -> Actor:
        return Actor(self.user, self.user in self.admins)

    async def start(self) -> None:
        """Show where the terminal channel's daily question stands, as the daily loop left it (the scheduler's
        start-up tick runs first): its open question, or why none is open and when the next one comes. The
        console posts by itself only on its first start (a new channel, with no schedule yet, gets today's
        question at once); after that the daily loop alone posts, so a day it skipped (missed by more than
        the grace, and told) stays skipped. A card is printed once per session."""
        owner = Actor(OWNER, True)
        first = not await self.service.channels.is_configured(self._ref)
        if first:
            await self.service.channels.configure(owner, self._ref, ConfigChange.parse([("tz", self.timezone)]))
        try:
            card = await self.service.posting.open_question_card(self._ref)
            if card.round_id not in self.platform.shown:  # the start-up catch-up may have printed it
                self.say(question_text(card))
        except NothingOpen:
            await self._none_open(owner, first=first)
        except UnknownRound:
            pass  # the open question is no longer in the bank: nothing to show again
        self.say(f"You are '{self.user}'. Type /help for commands, /quit to leave.")
        if self.dashboard:
            self.say(self.dashboard)

    async def _none_open(self, owner: Actor, *, first: bool) -> None:
        """No daily question is open at start: post today's on a first start, else say why and when."""
        shown = await self.service.channels.show_config(self._ref)
        cfg = shown.config
        today = self.service.context.clock.now().astimezone(ZoneInfo(cfg.timezone))
        when = f"{shown.next_post:%a %d %b %H:%M} ({cfg.timezone})" if shown.next_post else "later"
        if cfg.paused:
            self.say("The daily question is paused here; an admin turns it on with /quiz config resume.")
        elif today.weekday() not in cfg.weekdays:
            self.say(f"No daily question today; the next one comes {when}.")
        elif first:
            try:
                await self.service.posting.post_now(owner, self._ref)
            except AlreadyPosted:
                self.say("Today's question was already posted and revealed here; /quiz gives a practice question.")
        else:
            latest = await self.service.channels.latest_daily_round(self._ref)
            if latest is not None and latest.local_date == today.date() and not latest.is_open:
                self.say("Today's question was already posted and revealed here; /quiz gives a practice question.")
            else:  # before today's post time, or a day the daily loop skipped (it told the channel above)
                self.say(f"No daily question is open; the next one comes {when}.")

    async def run(self) -> None:
        """Post or show today's question, then run typed lines until /quit or the end of input. Lines are
        read on a daemon thread, so a stop (Ctrl-C, SIGTERM) never waits for Enter."""
        await self.start()
        lines = LineReader(self._in)
        try:
            while (line := await lines.next()) is not None:
                if not await self.handle(line.strip()):
                    break
        finally:
            lines.close()

    async def handle(self, line: str) -> bool:
        """Run one typed line; False when the user asked to quit. A store outage is told to the user ("try
        again in a minute") and logged once per outage by the process's StoreOutage (bot.kernel.outage); any
        other failure is logged. The console keeps running either way and recovers when the store does."""
        try:
            return await self._handle(line)
        except Exception as exc:  # noqa: BLE001 - the store (or its connection) failed under this command
            if self.service.context.outage.failed(exc):
                self.say(f"(private to {self.user}) {STORE_DOWN}")
            else:
                log.exception("the command %s failed", echo(repr(line[:40])))
                self.say(f"(private to {self.user}) {FAILED}")
            return True

    async def _handle(self, line: str) -> bool:
        if not line:
            return True
        lowered = line.lower()
        if lowered in {"/quit", "/exit", "quit", "exit"}:
            self.say("Bye.")
            return False
        if lowered in {"/help", "help", "?"}:
            self.say(CONSOLE_HELP)
            return True
        try:
            if (words := lowered.split())[:2] == ["/quiz", "as"] or words[:1] == ["/as"]:
                self._switch_user(line.split()[2:] if words[0] == "/quiz" else line.split()[1:])
            elif (answer := _practice_answer(line)) is not None:
                await self._answer_practice(*answer)
            elif lowered.split()[0] in {"/quiz", "quiz"}:
                await self._quiz(line)
            elif (quiz_line := as_quiz_line(line)) is not None:  # /stats, /leaderboard ... as on Discord
                await self._quiz(quiz_line)
            else:
                self.say(f"Not a command: {echo(repr(line))}. Type /help for the list, /quit to leave.")
        except QuizError as exc:
            self.say(f"(private to {self.user}) {exc.message}")
        return True

    def _switch_user(self, words: list[str]) -> None:
        if not words or not words[0].isprintable():
            self.say(AS_USAGE)
            return
        self.user = words[0][:32]
        if len(words) > 1 and words[1].lower() == "admin":
            self.admins.add(self.user)
        self.say(f"You are now '{self.user}'{' (admin)' if self.user in self.admins else ''}.")

    async def _answer_practice(self, letter: str, sure: bool = True) -> None:
        live = await self.service.live.open_round(self._ref)
        if live is not None:  # a live game's open question takes A-D from everyone here
            outcome = await self.service.answers.submit_answer(live.id, self.user, parse_choice(letter), sure=sure)
            self._said_outcome(outcome)
            return
        round_id = self.practice.pop(self.user, None)
        if round_id is None and await self.service.live.running(self._ref):  # between two live questions
            self.say(f"(private to {self.user}) That live question is closed: answer the next one when it comes.")
            return
        if round_id is None:
            self.say("You have no open practice question: /quiz gives you one (daily answers: /quiz answer B).")
            return
        outcome = await self.service.answers.submit_answer(round_id, self.user, parse_choice(letter), sure=sure)
        self._said_outcome(outcome)

    def _said_outcome(self, outcome: AnswerOutcome) -> None:
        private = f"(private to {self.user})"
        self.say(f"{private} {outcome.text}")
        if outcome.verdict is not None:
            self.say(f"{private} {REPORT_HINT}")
        if outcome.follow_up is not None:
            self.practice[self.user] = outcome.follow_up.round_id
            self.say(f"{private}\n{question_text(outcome.follow_up)}")

    # ---- the TextSource the shared runner asks ----------------------------------------------------

    @property
    def ref(self) -> ChannelRef:
        return self._ref

    @property
    def user_id(self) -> str:
        return self.user

    def person(self, raw: str | None) -> str:
        name = (raw or self.user).lstrip("@")[:32]
        if not name.isprintable():
            raise BadSetting(f"'{echo(name, 32)}' is not a name: use /quiz stats NAME (letters, digits, no control).")
        return name

    def channel(self, raw: str) -> ChannelRef:
        return self._ref  # the terminal has one channel

    async def actor(self, target: ChannelRef) -> Actor:
        return self.actor_now

    async def space_actor(self) -> Actor:
        return self.actor_now

    async def _import(self, asked: ImportAsked) -> None:
        self.say(f"(private to {self.user}) {await _import_file(self, asked)}")

    async def _quiz(self, line: str) -> None:
        result = await run_command(self.service, self, parse_quiz(line))
        private = f"(private to {self.user})"
        match result:
            case QuestionCard():
                self.practice[self.user] = result.round_id
                self.say(f"{private}\n{question_text(result)}")
            case AnswerOutcome():
                self._said_outcome(result)
            case ReviewEmpty(text=text):
                self.say(f"{private} {text}")
            case TopicsReply(lines=lines):
                self.say("\n".join(["== Topics ==", *lines]))
            case LeaderboardCard():
                self.say(leaderboard_text(result))
            case StatsCard():
                self.say(stats_text(result))
            case HelpReply(did_you_mean=str() as short):
                self.say(short)
            case HelpReply(reason=str() as reason):  # a command not understood: say so, and where the list is
                self.say(f"{reason}. /help lists the commands.")
            case HelpReply():
                self.say(CONSOLE_HELP)
            case SettingsReply(card=card):
                self.say(config_text(card))
            case PacksCard() | QuestionStatsCard() | SuggestionsCard() | ReportsCard() | TeamBoardCard():
                self.say(result.text)
            case RemindCard(text=text):
                self.say(f"{private} {text}")
            case ImportAsked():
                await self._import(result)
            case PackFile():
                folder = self.export_dir or Path.cwd()
                try:
                    path = await asyncio.to_thread(write_new, folder, result.filename, result.data)
                except OSError as exc:
                    self.say(f"{private} Could not write the export into {folder}: {exc.strerror or exc}")
                    return
                kept = (
                    f" ({result.filename} is there already and was left as it was)"
                    if path.name != result.filename
                    else ""
                )
                self.say(f"{private} Exported pack {result.pack} ({result.format}) to {path}{kept}")
            case SuggestFormReply(text=text) | NoteReply(text=text):
                self.say(f"{private} {text}")
            case PostedReply() | RevealedReply():
                pass  # the console platform has printed the question or the reveal
            case MissesExport(text=text, files=files):
                who = re.sub(r"[^A-Za-z0-9_-]", "_", self.user)  # a typed name never makes a path
                try:
                    paths = [await self.platform.write_file(f"{who}-{f.name}", f.data) for f in files]
                except OSError as exc:
                    self.say(f"{private} Could not write your export: {exc.strerror or exc}")
                    return
                self.say(f"{private} {text}\n" + "\n".join(str(p) for p in paths))
            case ForgetPrompt(text=text):
                self.say(f"{private} {text} {TEXT_HINT}")
            case ForgetDone(text=text):
                self.say(f"{private} {text}")
            case LiveBoardCard():
                self.say(board_text(result))
            case ProgressCard():
                await self._progress(result)
            case _:
                assert_never(result)

    async def _progress(self, card: ProgressCard) -> None:
        """The learning report as text, and its chart written to a file whose path is printed."""
        private = f"(private to {self.user})"
        if card.png is None:
            self.say(f"{private}\n{card.text()}")
            return
        who = re.sub(r"[^A-Za-z0-9_-]", "_", self.user)  # a typed name never makes a path
        day = self.service.context.clock.now().astimezone(ZoneInfo(card.timezone)).date()
        try:
            path = await self.platform.write_file(f"{who}-progress-{day:%Y-%m-%d}.png", card.png)
        except OSError as exc:
            self.say(f"{private}\n{card.text()}\nCould not write the chart: {exc.strerror or exc}")
            return
        self.say(f"{private}\n{card.text()}\nChart: {path}")


def _local_file(raw: str) -> tuple[Path, int | None]:
    """The typed path (~ expanded) and its size (None: reading it will say what is wrong)."""
    path = Path(raw).expanduser()
    try:
        return path, path.stat().st_size if path.is_file() else None
    except OSError:
        return path, None


async def _import_file(channel: ConsoleChannel, asked: ImportAsked) -> str:
    """`/quiz admin import PATH [pack]`: the file read from disk (at most 1 MiB + 1 byte), all or nothing."""
    if asked.path is None:
        return "Give the file: /quiz admin import PATH [pack] [--replace] (a .yaml, .yml or .csv file)."
    try:
        fmt = format_of(asked.path)
        pack = asked.pack or pack_name_of(asked.path)
        path, size = await asyncio.to_thread(_local_file, asked.path)  # a huge file is refused by its size
        result = await channel.service.packs.import_pack(
            asked.actor,
            channel.ref,
            pack,
            lambda: asyncio.to_thread(read_upload_file, path),
            fmt,
            replace=asked.replace,
            label=path.name,
            size=size,
        )
    except PackError as exc:
        return problem_text(exc, limit=20_000)
    return f"{result.text} Switch this channel to it with /quiz config packs pytorch,{result.pack}."


class LineReader:
    """Lines of a text stream for the event loop, read on a daemon thread (a blocked read never holds up
    the exit). On a terminal, input() with readline gives line editing and history."""

    def __init__(self, stream: TextIO) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._tty = stream is sys.stdin and _isatty(stream) and _isatty(sys.stdout)
        self._stream = stream
        self._closed = False
        if self._tty:
            _enable_line_editing()
        threading.Thread(target=self._read, name="console-input", daemon=True).start()

    def _read(self) -> None:
        while not self._closed:
            try:
                line: str | None = (input() + "\n") if self._tty else self._stream.readline()
            except EOFError:
                line = None
            except (OSError, ValueError, UnicodeDecodeError):  # closed or unreadable input ends the session
                line = None
            if line == "":
                line = None
            try:
                self._loop.call_soon_threadsafe(self._queue.put_nowait, line)
            except RuntimeError:  # the loop is gone: the bot is stopping
                return
            if line is None:
                return

    async def next(self) -> str | None:
        """The next line, or None at the end of input."""
        return await self._queue.get()

    def close(self) -> None:
        self._closed = True


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _enable_line_editing() -> None:
    """Importing readline makes input() edit lines and keep a history; the terminal's modes are restored
    at exit even when the process stops in the middle of a line."""
    try:
        import readline  # noqa: F401
        import termios
    except ImportError:
        return
    import atexit

    try:
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (OSError, termios.error, ValueError):
        return
    atexit.register(lambda: _restore(fd, saved))


def _restore(fd: int, saved: list) -> None:
    import termios

    try:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    except (OSError, termios.error):
        pass


def stdin_at_eof(stream: TextIO | None) -> bool:
    """True when `stream` is already at its end (/dev/null, an empty pipe that is closed, no stdin at all),
    without taking anything from it; a terminal or input that is still to come is not at its end."""
    if stream is None:
        return True
    try:
        if stream.isatty():
            return False
        fd = stream.fileno()
        ready, _, _ = select.select([fd], [], [], 0.05)
    except (AttributeError, OSError, ValueError):
        return False
    if not ready:
        return False
    buffer = getattr(stream, "buffer", None)
    peek = getattr(buffer, "peek", None)
    if peek is None:
        return os.fstat(fd).st_size == 0 and not os.isatty(fd) and _is_devnull(fd)
    return peek(1) == b""


def _is_devnull(fd: int) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(os.devnull))
    except OSError:
        return False
