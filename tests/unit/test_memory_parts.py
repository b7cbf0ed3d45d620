"""Each part of the in-memory fake passes its feature's contract suite on its own.

tests/unit/test_memory_store.py runs every suite on the whole `InMemoryStore`; here each feature's suite runs
on a fake composed of that feature's part (tests/support/memory/<feature>.py) over the shared tables, plus
only the parts its tests also call (e.g. the rounds a reveal needs). A part that starts to lean on another
part's method, or on something only the whole store has, fails here.
"""

from __future__ import annotations

import pytest

from tests.integration.access_contract import AccessContract
from tests.integration.board_contract import BoardContract
from tests.integration.channel_contract import ChannelContract
from tests.integration.delivery_contract import DeliveryContract
from tests.integration.install_contract import InstallationContract
from tests.integration.learner_data_contract import LearnerDataContract
from tests.integration.once_contract import SeenOnceContract
from tests.integration.pack_contract import PackContract
from tests.integration.practice_contract import LearnerCardContract
from tests.integration.recap_contract import RecapContract
from tests.integration.reminder_contract import ReminderContract
from tests.integration.report_contract import ReportContract
from tests.integration.role_contract import RoleContract
from tests.integration.round_contract import RoundContract
from tests.integration.season_contract import SeasonContract
from tests.integration.suggestion_contract import SuggestionContract
from tests.integration.team_contract import TeamContract
from tests.support.memory.access import MemoryAccess
from tests.support.memory.boards import MemoryBoards
from tests.support.memory.channels import MemoryChannels
from tests.support.memory.delivery import MemoryDelivery
from tests.support.memory.installs import MemoryInstalls
from tests.support.memory.mydata import MemoryMyData
from tests.support.memory.once import MemoryOnce
from tests.support.memory.packs import MemoryPacks
from tests.support.memory.practice import MemoryPractice
from tests.support.memory.recap import MemoryRecap
from tests.support.memory.reminders import MemoryReminders
from tests.support.memory.reports import MemoryReports
from tests.support.memory.rounds import MemoryRounds
from tests.support.memory.seasons import MemorySeasons
from tests.support.memory.suggestions import MemorySuggestions
from tests.support.memory.tables import MemoryTables
from tests.support.memory.teams import MemoryTeams


def _store(part: type, *also: type) -> object:
    """A `store` fixture: an opened fake of `part` and the parts in `also`, nothing else."""
    composed = type(f"Only{part.__name__}", (part, *also, MemoryTables), {})

    @pytest.fixture
    async def store(self):
        fake = composed()
        await fake.open()
        yield fake
        await fake.close()

    return store


class TestChannels(ChannelContract):
    store = _store(MemoryChannels)


class TestRounds(RoundContract):
    store = _store(MemoryRounds, MemoryPractice, MemoryDelivery, MemoryChannels)  # reactions read channels


class TestBoards(BoardContract):
    store = _store(MemoryBoards, MemoryRounds, MemoryPractice)


class TestDelivery(DeliveryContract):
    store = _store(MemoryDelivery, MemoryChannels, MemoryRounds, MemoryRecap, MemoryPractice, MemoryBoards)


class TestSeenOnce(SeenOnceContract):
    store = _store(MemoryOnce)


class TestAccess(AccessContract):
    store = _store(MemoryAccess, MemoryChannels)


class TestInstalls(InstallationContract):
    store = _store(MemoryInstalls)


class TestPractice(LearnerCardContract):
    store = _store(MemoryPractice, MemoryBoards, MemoryRounds, MemoryMyData)


class TestPacks(PackContract):
    store = _store(MemoryPacks, MemoryRounds, MemoryChannels, MemoryPractice)


class TestReports(ReportContract):
    store = _store(MemoryReports, MemoryRounds, MemoryMyData, MemoryPractice)


class TestSuggestions(SuggestionContract):
    store = _store(MemorySuggestions, MemoryPacks, MemoryMyData)


class TestReminders(ReminderContract):
    store = _store(MemoryReminders, MemoryMyData)


class TestSeasons(SeasonContract):
    store = _store(MemorySeasons, MemoryChannels, MemoryBoards, MemoryRounds, MemoryMyData)


class TestRecap(RecapContract):
    store = _store(MemoryRecap, MemoryChannels, MemoryRounds, MemoryPractice, MemoryBoards)


class TestMyData(LearnerDataContract):
    store = _store(MemoryMyData, MemoryRounds, MemoryPractice, MemoryBoards)


class TestTeams(TeamContract):
    store = _store(MemoryTeams, MemoryChannels, MemoryRounds, MemoryPractice, MemoryMyData)


class TestRoles(RoleContract):
    store = _store(MemoryChannels)
