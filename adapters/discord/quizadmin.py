"""/quizadmin: question packs for server managers (import a YAML or CSV attachment, export a pack as a file).

The adapter only moves bytes: the core checks the admin flag, the size, the file and the pack name. An
attachment is downloaded in chunks and refused as soon as it passes 1 MiB, whatever size Discord declared."""

from __future__ import annotations

import io
import logging

import aiohttp
import discord
from discord import app_commands

from adapters.discord.markdown import escape, plain
from adapters.discord.replies import Reply, actor_of, bot_of, ref_of, respond
from adapters.discord.suggestions import suggestions_reply
from bot.kernel.errors import PackError
from bot.packs.files import MAX_UPLOAD_BYTES, format_of, problem_text, read_capped, too_large

log = logging.getLogger(__name__)

DOWNLOAD_SECONDS = 30
CHUNK = 64 * 1024  # an attachment is read this much at a time
NOT_DOWNLOADED = "{label}: the file could not be downloaded from Discord; nothing was imported. Attach it again."

FORMATS = [app_commands.Choice(name="YAML", value="yaml"), app_commands.Choice(name="CSV", value="csv")]
RESOLUTIONS = [
    app_commands.Choice(name="keep: the question is fine, ask it again", value="keep"),
    app_commands.Choice(name="hold: do not ask it here until kept", value="hold"),
    app_commands.Choice(name="edit: hold it while you fix your own pack", value="edit"),
]
RESOLVE_HINT = "/quizadmin resolve report:ID action:keep|hold|edit"


async def download(attachment: discord.Attachment) -> bytes:
    """The attachment's bytes from Discord's CDN, read as they stream in and refused past 1 MiB (the declared
    length first, then as it arrives): a file larger than it claimed is never read whole."""
    label = attachment.filename
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=DOWNLOAD_SECONDS)) as session,
            session.get(attachment.url) as resp,
        ):
            if resp.status != 200:
                raise PackError(f"{label}: Discord would not hand over the file (HTTP {resp.status}); attach it again.")
            if resp.content_length is not None and resp.content_length > MAX_UPLOAD_BYTES:
                raise too_large(label)
            return await read_capped(resp.content.iter_chunked(CHUNK), label)
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.warning("pack import: the download of an attachment failed: %s", type(exc).__name__)
        raise PackError(NOT_DOWNLOADED.format(label=label)) from None


class QuizAdmin(app_commands.Group):
    """A server's own question packs."""

    def __init__(self) -> None:
        super().__init__(
            name="quizadmin",
            description="Question packs of this server (Manage Server)",
            guild_only=True,
            default_permissions=discord.Permissions(manage_guild=True),
        )

    @app_commands.command(name="import", description="Import a question pack from a YAML or CSV file")
    @app_commands.describe(
        pack="The pack's name (letters, digits, -)",
        file="The .yaml or .csv file",
        replace="Replace the pack if this server has it already",
    )
    async def import_(
        self,
        interaction: discord.Interaction,
        pack: app_commands.Range[str, 1, 40],
        file: discord.Attachment,
        replace: bool = False,
    ) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            service = bot_of(interaction).service
            try:
                result = await service.packs.import_pack(
                    await actor_of(interaction),
                    ref,
                    pack.strip().lower(),
                    lambda: download(file),
                    format_of(file.filename),
                    replace=replace,
                    label=file.filename,
                    size=file.size,
                )
            except PackError as exc:
                return Reply(escape(problem_text(exc)))
            return Reply(escape(f"{result.text} Use /quizconfig filters packs:{result.pack} to post from it."))

        await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)

    @app_commands.command(name="export", description="Download one of this server's question packs")
    @app_commands.describe(pack="The pack's name", format="YAML (the bank's format) or CSV")
    @app_commands.choices(format=FORMATS)
    async def export(
        self,
        interaction: discord.Interaction,
        pack: app_commands.Range[str, 1, 40],
        format: str = "yaml",  # noqa: A002
    ) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            service = bot_of(interaction).service
            exported = await service.packs.export_pack(
                await actor_of(interaction), ref, pack.strip().lower(), "csv" if format == "csv" else "yaml"
            )
            return Reply(
                escape(f"Pack {exported.pack} ({exported.format})."),
                file=discord.File(io.BytesIO(exported.data), exported.filename),
            )

        await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)

    @app_commands.command(name="question-stats", description="The hardest questions here and the ones to check")
    @app_commands.describe(pack="Only this pack (default: every pack)")
    async def question_stats(
        self, interaction: discord.Interaction, pack: app_commands.Range[str, 1, 40] | None = None
    ) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            service = bot_of(interaction).service
            card = await service.packs.question_stats(
                await actor_of(interaction), ref.platform, ref.space_id, pack.strip().lower() if pack else None
            )
            return Reply(escape(card.text)[:2000])

        await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)

    @app_commands.command(name="reports", description="Open reports of problems with questions, oldest first")
    async def reports(self, interaction: discord.Interaction) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            service = bot_of(interaction).service
            card = await service.reports.queue(await actor_of(interaction), ref.platform, ref.space_id, RESOLVE_HINT)
            # the reporter is named (nobody is notified: replies allow no mentions); their words are plain text
            return Reply(card.render(plain, who=lambda user: f"<@{user}>", limit=2000))

        await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)

    @app_commands.command(name="resolve", description="Resolve a report: keep, hold or edit the question")
    @app_commands.describe(report="The report's number in /quizadmin reports", action="What to do with the question")
    @app_commands.choices(action=RESOLUTIONS)
    async def resolve(
        self,
        interaction: discord.Interaction,
        report: app_commands.Range[int, 1, 2**53],  # Discord takes integers up to 2^53
        action: str,
    ) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            service = bot_of(interaction).service
            text = await service.reports.resolve(
                await actor_of(interaction), ref.platform, ref.space_id, report, action
            )
            return Reply(escape(text))

        await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)

    @app_commands.command(name="suggestions", description="Members' suggested questions waiting for review")
    async def suggestions(self, interaction: discord.Interaction) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            card = await bot_of(interaction).service.suggestions.pending(
                await actor_of(interaction), ref.platform, ref.space_id
            )
            return suggestions_reply(card)

        await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)
