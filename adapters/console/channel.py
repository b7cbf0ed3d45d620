"""A local terminal channel: the whole bot with no tokens, driven by lines such as `/quiz answer B`.

It plays the same part as a chat platform: typed `/quiz ...` lines go through the shared grammar and runner
(bot.textcommands, bot.textrunner), and the cards that come back are printed as text. `/quiz as NAME`
switches the simulated person.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from typing import TextIO
from zoneinfo import ZoneInfo

from adapters.console.render import config_text, leaderboard_text, question_text, reveal_text, stats_text
from bot.errors import AlreadyPosted, NothingOpen, QuizError, UnknownRound
from bot.model import Actor, AnswerOutcome, ChannelRef, LeaderboardCard, QuestionCard, RevealCard, StatsCard
from bot.packs import PacksCard
from bot.parsing import parse_choice
from bot.question_stats import QuestionStatsCard
from bot.quiz import QuizService
from bot.settings import ConfigChange
from bot.textcommands import HELP, parse_quiz
from bot.textrunner import HelpReply, PostedReply, RevealedReply, SettingsReply, run_command

log = logging.getLogger(__name__)

CONSOLE_REF = ChannelRef("console", "local", "terminal")
OWNER = "you"
CONSOLE_HELP = HELP + """
console:
/quiz as NAME [admin]          act as another person (admins may change settings)
A, B, C or D                   answer your open practice question
/help, /quit"""


class ConsolePlatform:
    """ChatPlatform for the terminal: every push is printed."""

    name = "console"

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write
        self.shown: set[int] = set()  # question cards printed in this session

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


class ConsoleChannel:
    def __init__(self, service: QuizService, *, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 timezone: str = "UTC") -> None:
        self.service = service
        self._in = stdin or sys.stdin
        self._out = stdout or sys.stdout
        self.timezone = timezone
        self.user = OWNER
        self.admins = {OWNER}
        self.practice: dict[str, int] = {}  # user -> open practice round
        self.platform = ConsolePlatform(self.say)
        service.add_platform(self.platform)

    def say(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    @property
    def actor_now(self) -> Actor:
        return Actor(self.user, self.user in self.admins)

    async def start(self) -> None:
        """Make sure the terminal channel has a schedule, and post today's question if none is open, unless
        the channel is paused or today is not one of its days. A card is printed once per session."""
        owner = Actor(OWNER, True)
        if not await self.service.is_configured(CONSOLE_REF):
            await self.service.configure(owner, CONSOLE_REF, ConfigChange.parse([("tz", self.timezone)]))
        try:
            card = await self.service.open_question_card(CONSOLE_REF)
            if card.round_id not in self.platform.shown:  # the start-up catch-up may have printed it
                self.say(question_text(card))
        except NothingOpen:
            shown = await self.service.show_config(CONSOLE_REF)
            cfg = shown.config
            today = self.service.clock.now().astimezone(ZoneInfo(cfg.timezone))
            if cfg.paused:
                self.say("The daily question is paused here; an admin turns it on with /quiz config resume.")
            elif today.weekday() not in cfg.weekdays:
                when = f"{shown.next_post:%a %d %b %H:%M} ({cfg.timezone})" if shown.next_post else "later"
                self.say(f"No daily question today; the next one comes {when}.")
            else:
                try:
                    await self.service.post_now(owner, CONSOLE_REF)
                except AlreadyPosted:
                    self.say("Today's question was already posted and revealed here; "
                             "/quiz gives a practice question.")
        except UnknownRound:
            pass  # the open question is no longer in the bank: nothing to show again
        self.say(f"You are '{self.user}'. Type /help for commands, /quit to leave.")

    async def run(self) -> None:
        await self.start()
        while True:
            line = await asyncio.to_thread(self._in.readline)
            if not line:
                break
            if not await self.handle(line.strip()):
                break

    async def handle(self, line: str) -> bool:
        """Run one typed line; False when the user asked to quit."""
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
            if lowered.startswith(("/quiz as ", "/as ")):
                self._switch_user(line.split()[2:] if lowered.startswith("/quiz") else line.split()[1:])
            elif len(line) == 1 and line.upper() in "ABCD":
                await self._answer_practice(line)
            elif lowered.split()[0] in {"/quiz", "quiz"}:
                await self._quiz(line)
            else:
                self.say(f"Not a command: {line!r}. Type /help for the list, /quit to leave.")
        except QuizError as exc:
            self.say(f"(private to {self.user}) {exc.message}")
        return True

    def _switch_user(self, words: list[str]) -> None:
        if not words or not words[0].isprintable():
            self.say("Use /quiz as NAME (add 'admin' to let them change settings).")
            return
        self.user = words[0][:32]
        if len(words) > 1 and words[1].lower() == "admin":
            self.admins.add(self.user)
        self.say(f"You are now '{self.user}'{' (admin)' if self.user in self.admins else ''}.")

    async def _answer_practice(self, letter: str) -> None:
        round_id = self.practice.pop(self.user, None)
        if round_id is None:
            self.say("You have no open practice question: /quiz gives you one (daily answers: /quiz answer B).")
            return
        outcome = await self.service.submit_answer(round_id, self.user, parse_choice(letter))
        self.say(f"(private to {self.user}) {outcome.text}")

    # ---- the TextSource the shared runner asks ----------------------------------------------------

    @property
    def ref(self) -> ChannelRef:
        return CONSOLE_REF

    @property
    def user_id(self) -> str:
        return self.user

    def person(self, raw: str | None) -> str:
        return (raw or self.user).lstrip("@")

    def channel(self, raw: str) -> ChannelRef:
        return CONSOLE_REF  # the terminal has one channel

    async def actor(self, target: ChannelRef) -> Actor:
        return self.actor_now

    async def _quiz(self, line: str) -> None:
        result = await run_command(self.service, self, parse_quiz(line))
        private = f"(private to {self.user})"
        match result:
            case QuestionCard():
                self.practice[self.user] = result.round_id
                self.say(f"{private}\n{question_text(result)}")
            case AnswerOutcome():
                self.say(f"{private} {result.text}")
            case LeaderboardCard():
                self.say(leaderboard_text(result))
            case StatsCard():
                self.say(stats_text(result))
            case HelpReply(did_you_mean=str() as short):
                self.say(short)
            case HelpReply(reason=reason):
                self.say((f"{reason}.\n" if reason else "") + CONSOLE_HELP)
            case SettingsReply(card=card):
                self.say(config_text(card))
            case PacksCard() | QuestionStatsCard():
                self.say(result.text)
            case PostedReply() | RevealedReply():
                pass  # the console platform has printed the question or the reveal
