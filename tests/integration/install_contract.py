"""Workspace installations and the install page's OAuth states (bot.installs.store.InstallStore).

Mixed into the store test classes (SQLite, PostgreSQL, the in-memory fake), which give the `store` fixture.
"""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.installs.values import WorkspaceInstall
from tests.integration.contract_values import T0


def install(workspace: str, secret: str = "sealed-1", platform: str = "slack", **kw) -> WorkspaceInstall:
    return WorkspaceInstall(platform, workspace, f"U{workspace}", secret, T0, **kw)


class InstallationContract:
    """Installations by workspace ("Add to Slack") and the install page's one-use OAuth states."""

    async def test_an_installation_is_saved_found_replaced_and_deleted_by_workspace(self, store):
        assert await store.find_install("slack", "T1") is None
        first = install("T1", bot_id="B1", scopes="chat:write,commands", installed_by="U0ANN", enterprise_id="E1")
        await store.save_install(first)
        await store.save_install(install("T2", "sealed-2"))
        assert await store.find_install("slack", "T1") == first
        assert await store.find_install("other", "T1") is None  # platforms are apart
        again = WorkspaceInstall("slack", "T1", "U0NEW", "sealed-3", T0 + dt.timedelta(days=1))
        await store.save_install(again)  # a reinstall replaces the row
        found = await store.find_install("slack", "T1")
        assert found == again and found.bot_id is None and found.scopes == ""
        assert await store.delete_install("slack", "T1") is True
        assert await store.delete_install("slack", "T1") is False
        assert await store.find_install("slack", "T1") is None
        assert (await store.find_install("slack", "T2")).token_secret == "sealed-2"

    async def test_an_installation_keeps_its_refresh_secret_and_expiry_until_a_reinstall(self, store):
        expires = T0 + dt.timedelta(hours=12)
        rotating = install("T1", refresh_secret="sealed-refresh-1", token_expires_at=expires)
        await store.save_install(rotating)
        found = await store.find_install("slack", "T1")
        assert found == rotating and found.refresh_secret == "sealed-refresh-1" and found.token_expires_at == expires
        await store.save_install(install("T1", "sealed-2"))  # reinstalled without rotation
        found = await store.find_install("slack", "T1")
        assert found.refresh_secret is None and found.token_expires_at is None

    async def test_one_caller_claims_a_token_refresh_and_its_compare_and_set_saves_the_new_token(self, store):
        expires = T0 + dt.timedelta(hours=1)
        await store.save_install(install("T1", "sealed-1", refresh_secret="refresh-1", token_expires_at=expires))
        until = T0 + dt.timedelta(minutes=1)
        claims = await asyncio.gather(
            *(store.claim_token_refresh("slack", "T1", "sealed-1", T0, until) for _ in range(10))
        )
        assert claims.count(True) == 1
        assert await store.claim_token_refresh("slack", "T1", "sealed-1", T0 + dt.timedelta(seconds=59), until) is False
        assert await store.claim_token_refresh("slack", "T1", "stale", T0 + dt.timedelta(minutes=2), until) is False
        assert await store.claim_token_refresh("slack", "T9", "sealed-1", T0, until) is False  # not installed
        later = T0 + dt.timedelta(hours=12)
        saves = await asyncio.gather(
            store.save_refreshed_token("slack", "T1", "sealed-1", "sealed-2", "refresh-2", later),
            store.save_refreshed_token("slack", "T1", "sealed-1", "sealed-x", "refresh-x", later),
        )
        assert sorted(saves) == [False, True]  # the same old token is replaced once
        found = await store.find_install("slack", "T1")
        newer = "sealed-2" if saves[0] else "sealed-x"
        assert found.token_secret == newer and found.token_expires_at == later
        assert found.refresh_secret == ("refresh-2" if saves[0] else "refresh-x")
        # an older token never overwrites the newer one
        assert await store.save_refreshed_token("slack", "T1", "sealed-1", "sealed-0", "refresh-0", T0) is False
        assert (await store.find_install("slack", "T1")).token_secret == newer
        # the save ended the claim: the new token can be claimed at once; its claim lapses at `until`
        assert await store.claim_token_refresh("slack", "T1", newer, T0, until) is True
        assert await store.claim_token_refresh("slack", "T1", newer, until, until + dt.timedelta(minutes=1)) is True
        # a reinstall replaces the token and ends any claim
        await store.save_install(install("T1", "sealed-new", refresh_secret="r", token_expires_at=later))
        assert await store.claim_token_refresh("slack", "T1", "sealed-new", T0, until) is True
        assert await store.save_refreshed_token("slack", "T1", newer, "sealed-old", "r-old", later) is False
        assert (await store.find_install("slack", "T1")).token_secret == "sealed-new"

    async def test_an_oauth_state_is_consumed_once_before_it_expires(self, store):
        await store.save_oauth_state("s1", T0 + dt.timedelta(minutes=10))
        await store.save_oauth_state("s2", T0 + dt.timedelta(minutes=10))
        assert await store.consume_oauth_state("nope", T0) is False
        assert await store.consume_oauth_state("s1", T0 + dt.timedelta(minutes=9)) is True
        assert await store.consume_oauth_state("s1", T0 + dt.timedelta(minutes=9)) is False
        assert await store.consume_oauth_state("s2", T0 + dt.timedelta(minutes=10)) is False  # expired

    async def test_concurrent_consumes_of_one_state_have_one_winner(self, store):
        await store.save_oauth_state("s9", T0 + dt.timedelta(minutes=10))
        results = await asyncio.gather(*(store.consume_oauth_state("s9", T0) for _ in range(10)))
        assert results.count(True) == 1
