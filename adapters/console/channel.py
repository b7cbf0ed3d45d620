"""A local terminal channel: the whole bot with no tokens, driven by lines such as `/quiz answer B`.

It plays the same part as a chat platform: it renders the core's cards as text and turns each typed
line into one service call. `/quiz as NAME` switches the simulated person.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from typing import TextIO

from adapters.console.render import config_text, leaderboard_text, question_text, reveal_text, stats_text
from bot.errors import AlreadyPosted, QuizError
from bot.model import Actor, ChannelRef, QuestionCard, RevealCard
from bot.parsing import parse_choice
from bot.quiz import QuizService
from bot.textcommands import (
    HELP,
    AnswerDaily,
    Configure,
    Practice,
    ShowHelp,
    ShowLeaderboard,
    ShowStats,
    parse_quiz,
)

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

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        self._write(question_text(card))
        return f"console-{card.round_id}"

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        self._write(reveal_text(card))
        return None

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        self._write(f"(private to {user_id}) {text}")


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
    def actor(self) -> Actor:
        return Actor(self.user, self.user in self.admins)

    async def start(self) -> None:
        """Make sure the terminal channel has a schedule, and post today's question if none is open."""
        if await self.service.store.get_channel(CONSOLE_REF) is None:
            await self.service.configure(Actor(OWNER, True), CONSOLE_REF, timezone=self.timezone)
        if not await self.service.store.open_daily_rounds(CONSOLE_REF):
            try:
                await self.service.start_daily_round(CONSOLE_REF, actor=Actor(OWNER, True))
            except AlreadyPosted:
                self.say("Today's question was already posted and revealed here; /quiz gives a practice question.")
        else:
            round_ = await self.service.open_round_in(CONSOLE_REF)
            question = self.service.bank.get(round_.question_id)
            if question is not None:
                cfg = await self.service.channel_config(CONSOLE_REF)
                self.say(question_text(self.service.question_card(round_, question, cfg)))
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

    async def _quiz(self, line: str) -> None:
        svc, ref = self.service, CONSOLE_REF
        command = parse_quiz(line)
        match command:
            case Practice(topic=topic):
                card = await svc.start_practice(ref, self.user, topic)
                self.practice[self.user] = card.round_id
                self.say(f"(private to {self.user})\n{question_text(card)}")
            case AnswerDaily(choice=choice):
                outcome = await svc.answer_in_channel(ref, self.user, choice)
                self.say(f"(private to {self.user}) {outcome.text}")
            case ShowLeaderboard(period=period):
                self.say(leaderboard_text(await svc.leaderboard(ref.platform, ref.space_id, period, self.user)))
            case ShowStats(user=user):
                self.say(stats_text(await svc.stats(ref.platform, ref.space_id, (user or self.user).lstrip("@"))))
            case ShowHelp(reason=reason):
                self.say((f"{reason}.\n" if reason else "") + CONSOLE_HELP)
            case Configure(action="show"):
                self.say(config_text(await svc.show_config(ref)))
            case Configure(action="reveal"):
                await svc.reveal_now(self.actor, ref)
            case Configure(action="post-now"):
                await svc.start_daily_round(ref, actor=self.actor)
            case Configure(action="pause" | "resume" as action):
                self.say(config_text(await svc.configure(self.actor, ref, paused=action == "pause")))
            case Configure(action="set", changes=changes):
                self.say(config_text(await svc.configure(self.actor, ref, **changes)))
