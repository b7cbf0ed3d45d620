"""An in-memory Store for unit tests (in the style of cosmicpython's FakeRepository).

`InMemoryStore` is the composition of the fake's parts, one per feature's store Protocol, as
bot.store.ports.Store composes the Protocols: each part (tests/support/memory/<feature>.py) is a mixin over
the shared tables, transactions and lifecycle of tests/support/memory/tables.py. It behaves like
SqliteStore(":memory:"), down to its quirks (timestamps come back in UTC, a channel config keeps what a row
keeps, a lost daily claim still uses up a round id, a batch or a reveal that fails changes nothing), and
passes every feature's Store contract (tests/integration/*_contract.py, run by tests/unit/test_memory_store.py).
"""

from __future__ import annotations

from tests.support.memory.access import MemoryAccess
from tests.support.memory.aim import MemoryAim
from tests.support.memory.boards import MemoryBoards
from tests.support.memory.channels import MemoryChannels
from tests.support.memory.delivery import MemoryDelivery
from tests.support.memory.installs import MemoryInstalls
from tests.support.memory.live import MemoryLive
from tests.support.memory.mydata import MemoryMyData
from tests.support.memory.once import MemoryOnce
from tests.support.memory.packs import MemoryPacks
from tests.support.memory.practice import MemoryPractice
from tests.support.memory.progress import MemoryProgress
from tests.support.memory.recap import MemoryRecap
from tests.support.memory.reminders import MemoryReminders
from tests.support.memory.reports import MemoryReports
from tests.support.memory.reviews import MemoryReviews
from tests.support.memory.rounds import MemoryRounds
from tests.support.memory.seasons import MemorySeasons
from tests.support.memory.suggestions import MemorySuggestions
from tests.support.memory.tables import MemoryTables
from tests.support.memory.teams import MemoryTeams
from tests.support.memory.uptime import MemoryUptime


class InMemoryStore(
    MemoryOnce,
    MemoryChannels,
    MemoryRounds,
    MemoryDelivery,
    MemoryBoards,
    MemoryPractice,
    MemoryPacks,
    MemoryReports,
    MemorySuggestions,
    MemoryReminders,
    MemorySeasons,
    MemoryRecap,
    MemoryLive,  # before MemoryMyData: its forget-me adds the live board's rows
    MemoryMyData,
    MemoryInstalls,
    MemoryUptime,
    MemoryAccess,
    MemoryTeams,
    MemoryReviews,
    MemoryAim,
    MemoryProgress,  # after MemoryPractice: its review_events stub gives way
    MemoryTables,
):
    """Store port on plain dicts; behaves like SqliteStore(":memory:"). Answer batches and reveals run
    bot.store.settle over the tables' `Settle`, as the SQL stores do."""
