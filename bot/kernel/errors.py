"""The core's small error family. Each carries a message meant for the person who caused it."""

from __future__ import annotations


class QuizError(Exception):
    """Base: something the user asked for cannot be done; `message` says what and why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownRound(QuizError):
    pass


class RoundClosed(QuizError):
    pass


class AlreadyAnswered(QuizError):
    def __init__(self, message: str, chosen_letter: str) -> None:
        super().__init__(message)
        self.chosen_letter = chosen_letter


class NotAllowed(QuizError):
    pass


class BadSetting(QuizError):
    pass


class NothingOpen(QuizError):
    """No open daily question in this channel (for a text answer or a reveal)."""


class AlreadyPosted(QuizError):
    """The channel's daily slot for this local date is taken."""


class NotAQuestion(UnknownRound):
    """A reaction on a message that is not a quiz question (adapters ignore it)."""


class ReactionsOff(NotAllowed):
    """A reaction answer in a channel that has reaction answers switched off (adapters ignore it)."""


class Busy(QuizError):
    """Too many answers are waiting to be written: this one was refused at once and not recorded."""


class NoSeason(QuizError):
    """A season (a calendar month) with nothing to show: not started, still running, or no results."""


class StartupError(Exception):
    """The bot cannot start with this setting or resource. Library code raises it with one line for the
    operator (the variable, the value, what is accepted); only the CLI turns it into stderr and exit code 2."""


class PackError(QuizError):
    """A pack could not be imported or used; `problems` lists every problem found (nothing changed)."""

    def __init__(self, message: str, problems: list[str] | tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)


class PackExists(PackError):
    """The pack exists already and the import did not ask to replace it."""


class PackBusy(PackError):
    """Another import into the same space is running right now (that one goes ahead)."""


class StoreUnavailable(QuizError):
    """The database did not take the answer (an outage): nothing was recorded; the batcher logs it once."""


class BadSuggestion(QuizError):
    """A suggested question breaks a rule of the pack schema; `field` names the form field (nothing stored)."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class CopyError(RuntimeError):
    """`studybot db copy` was refused or did not check out (the destination transaction was rolled back)."""


class NothingToExport(QuizError):
    """`/quiz export` with no missed question to put in a file."""


class DirectMessageBlocked(Exception):
    """A platform cannot deliver a direct message to this member (DMs closed, the account gone): raised by a
    platform's `send_direct`; the reminder that tried is switched off."""


class ReportRefused(QuizError):
    """A report was not stored: the member reported this question already, or made today's last report."""
