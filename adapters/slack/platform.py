"""ChatPlatform for Slack: the core's outbound pushes as Web API calls.

The Web API client retries `ratelimited` answers (HTTP 429) after their Retry-After, so a burst of posts
loses nothing.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from adapters.slack import live
from adapters.slack.blocks import (
    MAX_NAMED,
    question_blocks,
    question_text,
    reveal_blocks,
    reveal_text,
    revealed_question_blocks,
    section,
)
from adapters.slack.ids import PLATFORM, message_id, parse_message_id
from adapters.slack.limits import fit_blocks, fit_text
from adapters.slack.mrkdwn import escape
from adapters.slack.permissions import AdminPolicy
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.errors import DirectMessageBlocked
from bot.kernel.platform import CannotLook, SendKind
from bot.kernel.values import ChannelRef, CommandNames
from bot.live.cards import LiveCloseCard, LiveFinalCard
from bot.recap.cards import recap_alt_text, recap_text
from bot.recap.values import RecapCard
from bot.seasons.service import season_text
from bot.seasons.values import SeasonCard

log = logging.getLogger(__name__)

RATE_LIMIT_RETRIES = 3
# what conversations.open / chat.postMessage answer when a member cannot get a DM from the bot
DM_BLOCKED = frozenset({"cannot_dm_bot", "user_not_found", "user_not_visible", "user_disabled", "not_in_channel"})
GROUP_ID = re.compile(r"S[A-Z0-9]{2,23}")  # a user group's id (the ping_group setting)
DISCUSSION = "Talk about this question here: what tripped you up, and what would you ask next?"
# message metadata on every daily question and reveal: which round and kind it is (read back by find_sent)
EVENT_TYPE = "studybot_round"
HISTORY_PAGE = 200  # conversations.history page size when asking whether a daily send went out ...
HISTORY_PAGES = 5  # ... and pages read at most
CLOCK_SKEW = dt.timedelta(minutes=5)  # read back from this much before the send's first intent
# conversations.history errors that mean the bot cannot read this channel back (the history scopes are
# missing: an install from before they were asked for, or the bot is not in the channel)
CANNOT_READ = frozenset({"missing_scope", "not_in_channel", "not_allowed_token_type", "no_permission"})


def send_metadata(round_id: int, kind: SendKind) -> dict[str, Any]:
    """The message metadata of a round's question or reveal."""
    return {"event_type": EVENT_TYPE, "event_payload": {"round_id": round_id, "kind": kind}}


def make_client(token: str | None, base_url: str | None = None) -> AsyncWebClient:
    """A Web API client that retries connection errors and `ratelimited` answers."""
    handlers = [AsyncConnectionErrorRetryHandler(), AsyncRateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES)]
    if base_url is None:
        return AsyncWebClient(token=token, retry_handlers=handlers)
    return AsyncWebClient(token=token, base_url=base_url, retry_handlers=handlers)


async def share_files(
    client: AsyncWebClient, channel: str, uploads: Sequence[dict[str, Any]], comment: str, auth: dict[str, Any]
) -> None:
    """Upload files with the external-upload methods (files.getUploadURLExternal per file, the upload itself,
    one files.completeUploadExternal; files.upload is retired) and share them in `channel` with `comment`.
    Each upload: content, filename, title (and alt_txt for an image)."""
    await client.files_upload_v2(channel=channel, file_uploads=list(uploads), initial_comment=comment, **auth)


TokenSource = Callable[[str], Awaitable[str | None]]  # workspace id -> its bot token (None: not installed)


class NotInstalled(RuntimeError):
    """A push to a workspace that has no installation (it uninstalled the bot)."""


class SlackPlatform:
    """Posts daily questions and reveals, and private notes (ephemeral messages)."""

    name = PLATFORM

    def __init__(self, client: AsyncWebClient, tokens: TokenSource | None = None) -> None:
        self.client = client
        self._tokens = tokens  # many workspaces: each push uses its workspace's token; None = the client's
        self._names: dict[str, str] = {}  # user id -> display name, for reveals that name winners quietly
        self._zones: dict[tuple[str, str], str | None] = {}  # (workspace, user) -> users.info tz
        self._channels: dict[tuple[str, str], str] = {}  # (workspace, channel) -> conversations.info name
        self._unnamed: set[str] = set()  # the errors of conversations.info already logged (once each)
        self.admins = AdminPolicy()  # who is a quiz admin (build_slack_app gives it STUDYBOT_SLACK_ADMINS)

    async def is_space_admin(self, space_id: str, user_id: str) -> bool:
        """The chat's rule for the dashboard: STUDYBOT_SLACK_ADMINS, or a workspace admin or owner (users.info
        with the workspace's own token); False for a workspace without an installation."""
        try:
            auth = await self._auth(ChannelRef(PLATFORM, space_id, ""))
        except NotInstalled:
            return False
        return (await self.admins.actor(self.client, space_id, user_id, auth)).is_admin

    async def _auth(self, ref: ChannelRef) -> dict[str, Any]:
        """The `token=` argument for a call into the ref's workspace (nothing in single-token mode)."""
        if self._tokens is None:
            return {}
        token = await self._tokens(ref.space_id)
        if token is None:
            raise NotInstalled(f"Slack workspace {ref.space_id} has no installation of the bot")
        return {"token": token}

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        """Post the question; if the bot was removed from a public channel, join it again and retry once."""
        try:
            resp = await self._post_question(ref, card)
        except SlackApiError as exc:
            if exc.response.get("error") != "not_in_channel":
                raise
            try:
                await self.client.conversations_join(channel=ref.channel_id, **await self._auth(ref))
            except SlackApiError as join_error:
                log.warning("cannot join %s to post: %s", ref.channel_id, join_error.response.get("error"))
                raise exc from None
            resp = await self._post_question(ref, card)
        return message_id(str(resp["channel"]), str(resp["ts"]))

    async def _post_question(self, ref: ChannelRef, card: QuestionCard) -> AsyncSlackResponse:
        """With the channel's ping_group the message mentions that user group (in its text and its first block)
        and nothing else: every other text is escaped, so no other mention can form."""
        text, blocks = question_text(card), question_blocks(card)
        if card.ping_group is not None and GROUP_ID.fullmatch(card.ping_group):
            mention = f"<!subteam^{card.ping_group}>"
            text, blocks = f"{mention} {text}", [section(mention), *blocks]
        return await self.client.chat_postMessage(
            channel=ref.channel_id,
            text=fit_text(text),
            blocks=fit_blocks(blocks),
            metadata=send_metadata(card.round_id, "question"),
            **await self._auth(ref),
        )

    async def group_problem(self, ref: ChannelRef, group_id: str) -> str | None:
        """Any well-formed user group id is taken: without the usergroups:read scope Slack tells the bot nothing
        more about a group (a group that is gone is simply not notified)."""
        return None if GROUP_ID.fullmatch(group_id) else f"{group_id} is not a Slack user group id (S0123ABCD)."

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        """Remove the buttons from the question (correct choice marked), then post the reveal."""
        auth = await self._auth(ref)
        posted = parse_message_id(card.question_message_id)
        if posted is not None:
            channel, ts = posted
            try:
                await self.client.chat_update(
                    channel=channel,
                    ts=ts,
                    text=fit_text(reveal_text(card)),
                    blocks=fit_blocks(revealed_question_blocks(card)),
                    **auth,
                )
            except SlackApiError as exc:  # deleted message, lost access: the reveal still goes out
                log.warning(
                    "could not update question %s of round %d: %s", ts, card.round_id, exc.response.get("error")
                )
        names = {} if card.ping_winners else await self._display_names(card.correct_users[:MAX_NAMED], auth)
        resp = await self.client.chat_postMessage(
            channel=ref.channel_id,
            text=fit_text(reveal_text(card)),
            blocks=fit_blocks(reveal_blocks(card, names)),
            metadata=send_metadata(card.round_id, "reveal"),
            **auth,
        )
        if card.discussion:  # the channel's threads setting: the talk goes in the reveal's thread
            try:
                await self.client.chat_postMessage(
                    channel=str(resp["channel"]), thread_ts=str(resp["ts"]), text=DISCUSSION, **auth
                )
            except SlackApiError as exc:
                log.warning(
                    "could not open the discussion thread of round %d: %s", card.round_id, exc.response.get("error")
                )
        return message_id(str(resp["channel"]), str(resp["ts"]))

    async def find_sent(self, ref: ChannelRef, round_id: int, kind: SendKind, since: dt.datetime) -> str | None:
        """The bot's question or reveal of the round in the channel (its message metadata), read back with
        conversations.history (include_all_metadata) since `since` less CLOCK_SKEW; None when there is none.
        Without the history scopes (or out of the channel) it cannot look: CannotLook."""
        auth = await self._auth(ref)
        oldest = f"{(since - CLOCK_SKEW).timestamp():.6f}"
        cursor: str | None = None
        for _ in range(HISTORY_PAGES):
            try:
                resp = await self.client.conversations_history(
                    channel=ref.channel_id,
                    oldest=oldest,
                    include_all_metadata=True,
                    limit=HISTORY_PAGE,
                    cursor=cursor,
                    **auth,
                )
            except SlackApiError as exc:
                error = exc.response.get("error")
                if error in CANNOT_READ:
                    raise CannotLook(f"Slack {error} reading {ref.channel_id}") from exc
                raise
            for message in resp.get("messages") or []:
                metadata = message.get("metadata") or {}
                payload = metadata.get("event_payload") or {}
                if (
                    metadata.get("event_type") == EVENT_TYPE
                    and str(payload.get("round_id")) == str(round_id)
                    and payload.get("kind") == kind
                ):
                    return message_id(ref.channel_id, str(message["ts"]))
            cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
            if not resp.get("has_more") or cursor is None:
                return None
        log.warning(
            "round %d: read %d messages of %s back without finding its %s",
            round_id,
            HISTORY_PAGE * HISTORY_PAGES,
            ref.channel_id,
            kind,
        )
        return None

    async def close_live_question(self, ref: ChannelRef, card: LiveCloseCard) -> None:
        """A live question closed: one chat.update turns its message into the close (players named by display
        name, nobody notified)."""
        posted = parse_message_id(card.question_message_id)
        if posted is None:
            return
        channel, ts = posted
        auth = await self._auth(ref)
        names = await self._display_names(tuple(live.close_users(card)), auth)
        await self.client.chat_update(
            channel=channel,
            ts=ts,
            text=fit_text(live.close_text(card)),
            blocks=fit_blocks(live.close_blocks(card, names)),
            **auth,
        )

    async def post_live_final(self, ref: ChannelRef, card: LiveFinalCard) -> str | None:
        """A live game's podium and full table, in one message (display names, nobody notified)."""
        auth = await self._auth(ref)
        names = await self._display_names(tuple(live.final_users(card)[: MAX_NAMED * 5]), auth)
        resp = await self.client.chat_postMessage(
            channel=ref.channel_id,
            text=fit_text(live.final_text(card)),
            blocks=fit_blocks(live.final_blocks(card, names)),
            **auth,
        )
        return message_id(str(resp["channel"]), str(resp["ts"]))

    async def channel_names(self, space_id: str, channel_ids: Sequence[str]) -> dict[str, str]:
        """Channels' names for the dashboard (conversations.info, cached); a channel Slack will not name
        (missing_scope before channels:read and groups:read, channel_not_found) keeps its id, logged once."""
        try:
            auth = await self._auth(ChannelRef(PLATFORM, space_id, ""))
        except NotInstalled:
            return {}
        for cid in channel_ids:
            key = (space_id, cid)
            if key in self._channels or not cid.startswith(("C", "G")):
                continue
            try:
                resp = await self.client.conversations_info(channel=cid, **auth)
            except SlackApiError as exc:
                error = str(exc.response.get("error"))
                if error not in self._unnamed:
                    self._unnamed.add(error)
                    log.info("conversations.info failed (%s): the dashboard shows channel ids", error)
                continue
            name = (resp.get("channel") or {}).get("name")
            if name:
                if len(self._channels) > 10_000:
                    self._channels.clear()
                self._channels[key] = str(name)
        return {cid: self._channels[(space_id, cid)] for cid in channel_ids if (space_id, cid) in self._channels}

    async def _display_names(self, user_ids: tuple[str, ...], auth: dict[str, Any]) -> dict[str, str]:
        """Names to show without notifying (users.info, cached); a failed look-up leaves the id out."""
        for uid in user_ids:
            if uid in self._names:
                continue
            try:
                resp = await self.client.users_info(user=uid, **auth)
            except SlackApiError as exc:
                log.info("users.info failed for %s: %s; showing the member id", uid, exc.response.get("error"))
                continue
            user = resp.get("user") or {}
            profile = user.get("profile") or {}
            name = profile.get("display_name") or profile.get("real_name") or user.get("real_name") or user.get("name")
            if name:
                if len(self._names) > 10_000:
                    self._names.clear()
                self._names[uid] = str(name)
        return {uid: self._names[uid] for uid in user_ids if uid in self._names}

    async def post_recap(self, ref: ChannelRef, card: RecapCard, png: bytes | None) -> str | None:
        """The weekly recap: the chart uploaded with the external-upload methods (files.getUploadURLExternal,
        the upload itself, files.completeUploadExternal; files.upload is retired) with alt text, shared in
        the channel with the recap's text as its comment; or the plain note when the week had no answers."""
        text = escape(recap_text(card))
        auth = await self._auth(ref)
        if png is None:
            resp = await self.client.chat_postMessage(channel=ref.channel_id, text=text, **auth)
            return message_id(str(resp["channel"]), str(resp["ts"]))
        chart = {"content": png, "filename": f"recap-{card.end:%Y-%m-%d}.png", "title": card.title}
        await share_files(self.client, ref.channel_id, [chart | {"alt_txt": recap_alt_text(card)}], text, auth)
        return None

    async def _direct_channel(self, user_id: str, auth: dict[str, Any]) -> str:
        resp = await self.client.conversations_open(users=user_id, **auth)
        return str((resp.get("channel") or {}).get("id") or user_id)

    async def send_file(
        self, ref: ChannelRef, user_id: str, content: bytes, filename: str, title: str, comment: str
    ) -> None:
        """A file for one member only: uploaded to their direct messages with the app."""
        await self.send_files(ref, user_id, [{"content": content, "filename": filename, "title": title}], comment)

    async def send_files(self, ref: ChannelRef, user_id: str, uploads: Sequence[dict[str, Any]], comment: str) -> None:
        """Files for one member only (each: content, filename, title), shared in their direct messages with the
        app with one comment (plain text, escaped here)."""
        auth = await self._auth(ref)
        await share_files(self.client, await self._direct_channel(user_id, auth), uploads, escape(comment), auth)

    async def send_direct_mrkdwn(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A note in the member's direct messages with the app (text already escaped mrkdwn)."""
        auth = await self._auth(ref)
        await self.client.chat_postMessage(
            channel=await self._direct_channel(user_id, auth), text=fit_text(text), **auth
        )

    async def post_season(self, ref: ChannelRef, card: SeasonCard) -> str | None:
        """The monthly season card: last month's top three by display name (users.info), nobody notified."""
        text = fit_text(escape(season_text(card, CommandNames().season_board)))
        resp = await self.client.chat_postMessage(channel=ref.channel_id, text=text, **await self._auth(ref))
        return message_id(str(resp["channel"]), str(resp["ts"]))

    async def display_names(self, ref: ChannelRef, user_ids: Sequence[str]) -> dict[str, str]:
        """Members' display names (users.info, cached), for the recap's top five."""
        return await self._display_names(tuple(user_ids), await self._auth(ref))

    async def post_notice(self, ref: ChannelRef, text: str) -> None:
        """A plain note in the channel (e.g. a day skipped while the bot was offline)."""
        await self.client.chat_postMessage(channel=ref.channel_id, text=escape(text), **await self._auth(ref))

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        await self.client.chat_postEphemeral(
            channel=ref.channel_id, user=user_id, text=fit_text(escape(text)), **await self._auth(ref)
        )

    async def send_direct(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A direct message of plain text (the port's; a reminder): conversations.open with the member, then
        chat.postMessage there. A member Slack will not let the bot message raises DirectMessageBlocked."""
        auth = await self._auth(ref)
        try:
            channel = await self._direct_channel(user_id, auth)
            await self.client.chat_postMessage(channel=channel, text=fit_text(escape(text)), **auth)
        except SlackApiError as exc:
            error = exc.response.get("error")
            if error in DM_BLOCKED:
                raise DirectMessageBlocked(f"Slack {error}") from exc
            raise

    async def user_timezone(self, ref: ChannelRef, user_id: str) -> str | None:
        """The member's own timezone from users.info (`user.tz`), cached per workspace and member."""
        key = (ref.space_id, user_id)
        if key not in self._zones:
            try:
                resp = await self.client.users_info(user=user_id, **await self._auth(ref))
            except SlackApiError as exc:
                log.info(
                    "users.info failed for %s: %s; using the channel's timezone", user_id, exc.response.get("error")
                )
                return None
            tz = (resp.get("user") or {}).get("tz")
            if len(self._zones) > 10_000:
                self._zones.clear()
            self._zones[key] = str(tz) if tz else None
        return self._zones[key]
