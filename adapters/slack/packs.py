"""Question packs on Slack: `/quiz admin import` opens a form with a file input; its submission is fetched
with the bot token (files.info, then the file's url_private_download, refused past 1 MiB before the body is
read) and handed to the core's import, which checks everything (admins only, all or nothing); the result
goes to the admin's direct messages. `/quiz admin export` uploads the pack there with the external-upload
methods. The adapter only moves bytes."""

from __future__ import annotations

import json
import logging
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.blocks import input_block, metadata, modal, submitted
from adapters.slack.deps import SlackDeps
from adapters.slack.ids import PLATFORM, payload_id, team_of
from adapters.slack.limits import fit_text, fit_view
from adapters.slack.mrkdwn import escape
from adapters.slack.outage import failed
from bot.kernel.errors import PackError, QuizError
from bot.kernel.parsing import PACK_NAME
from bot.kernel.values import ChannelRef
from bot.packs.catalog import PackFile
from bot.packs.files import MAX_UPLOAD_BYTES, format_of, problem_text, read_capped, too_large
from bot.text.runner import ImportAsked

log = logging.getLogger(__name__)

IMPORT_VIEW = "studybot.pack_import"
FILETYPES = ["csv", "yaml", "yml"]
PROBLEM_CHARS = 12_000  # every problem of a bad file, in one direct message
DOWNLOAD_SECONDS = 30
CHUNK = 64 * 1024  # a download is read this much at a time
FAILED = "Something went wrong on our side, and nothing was imported; please try again in a minute."


def import_view(asked: ImportAsked, channel: str) -> dict[str, Any]:
    """The form: the pack's name, the file (file_input: .csv, .yaml, .yml, one file) and "replace"."""
    name: dict[str, Any] = {
        "type": "plain_text_input",
        "action_id": "name",
        "max_length": 40,
        "placeholder": {"type": "plain_text", "text": "lower-case letters, digits and -"},
    }
    if asked.pack:
        name["initial_value"] = asked.pack
    option = {"text": {"type": "plain_text", "text": "Replace the pack if this workspace has it"}, "value": "replace"}
    replace: dict[str, Any] = {"type": "checkboxes", "action_id": "replace", "options": [option]}
    if asked.replace:
        replace["initial_options"] = [option]
    return modal(
        IMPORT_VIEW,
        "Import a question pack",
        [
            input_block("pack", "Pack name", name),
            input_block(
                "file",
                "YAML or CSV file (at most 1 MiB)",
                {"type": "file_input", "action_id": "file", "filetypes": FILETYPES, "max_files": 1},
            ),
            input_block("replace", "Replace", replace, optional=True),
            {
                "type": "context",
                "elements": [
                    {
                        "type": "mrkdwn",
                        "text": "Columns of a CSV: id, topic, difficulty, prompt, code, choice_a..choice_d, answer, "
                        "explanation, reference. Nothing is imported unless every question is right.",
                    }
                ],
            },
        ],
        submit="Import",
        private_metadata=json.dumps({"channel": channel}),
    )


async def open_import_form(client: AsyncWebClient, trigger_id: str | None, asked: ImportAsked, channel: str) -> str:
    """Open the import form (the core has checked the admin right and the name); the reply to the command."""
    if asked.path is not None:
        return "On Slack, pick the file in the form: `/quiz admin import [pack] [--replace]` (no path)."
    if not trigger_id:
        return "Slack sent no trigger for a form; run `/quiz admin import` again."
    await client.views_open(trigger_id=trigger_id, view=fit_view(import_view(asked, channel)))
    return "Choose the YAML or CSV file in the form; the result comes in our direct messages."


def read_submission(view: dict[str, Any]) -> tuple[str, str | None, bool, str | None, dict[str, str]]:
    """(pack, file id, replace, channel, errors by block) from the form as Slack submits it."""
    typed = submitted(view, "pack", "name").get("value")
    pack = typed.strip().lower() if isinstance(typed, str) else ""
    files = submitted(view, "file", "file").get("files")
    first = files[0] if isinstance(files, list) and files else None
    file_id = first.get("id") if isinstance(first, dict) else None
    chosen = submitted(view, "replace", "replace").get("selected_options")
    replace = isinstance(chosen, list) and any(isinstance(o, dict) and o.get("value") == "replace" for o in chosen)
    channel = payload_id(metadata(view).get("channel"))
    errors: dict[str, str] = {}
    if not PACK_NAME.fullmatch(pack):
        errors["pack"] = "Use 1-40 lower-case letters, digits and - (no / or spaces)."
    if not isinstance(file_id, str):
        errors["file"] = "Choose one .yaml, .yml or .csv file."
    return pack, file_id if isinstance(file_id, str) else None, replace, channel, errors


async def download(url: str, token: str, label: str) -> bytes:
    """The file's bytes with the bot token; refused past 1 MiB (the declared length first, then as it
    streams), so a huge file is never read whole."""
    timeout = aiohttp.ClientTimeout(total=DOWNLOAD_SECONDS)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(url, headers={"Authorization": f"Bearer {token}"}, allow_redirects=True) as resp,
    ):
        if resp.status != 200:
            raise PackError(f"{label}: Slack would not hand over the file (HTTP {resp.status}); share it again.")
        if resp.content_length is not None and resp.content_length > MAX_UPLOAD_BYTES:
            raise too_large(label)
        return await read_capped(resp.content.iter_chunked(CHUNK), label)  # the rest of a big one is never read


async def import_submission(
    deps: SlackDeps, client: AsyncWebClient, team: str, user: str, pack: str, file_id: str, replace: bool, channel: str
) -> str:
    """Fetch the submitted file and import it through the core; the text for the admin."""
    try:
        actor = await deps.admins.actor(client, team, user)
        deps.service.packs.check_import(actor, pack)  # a member never makes us fetch anything
        info = (await client.files_info(file=file_id)).get("file") or {}
        name = str(info.get("name") or "file")
        url = info.get("url_private_download") or info.get("url_private")
        size = info.get("size")
        if not isinstance(url, str):
            raise PackError(f"{name}: Slack gave no download link for the file; share it again.")
        token = client.token or ""
        result = await deps.service.packs.import_pack(
            actor,
            ChannelRef(PLATFORM, team, channel),
            pack,
            lambda: download(url, token, name),
            format_of(name),
            replace=replace,
            label=name,
            size=size if isinstance(size, int) else None,
        )
    except PackError as exc:
        return escape(problem_text(exc, PROBLEM_CHARS))
    except QuizError as exc:
        return escape(exc.message)
    except SlackApiError as exc:
        log.warning("pack import: Slack refused %s", exc.response.get("error"))
        return f"Slack refused to hand over the file ({exc.response.get('error')}); nothing was imported."
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.warning("pack import: download failed: %s", type(exc).__name__)
        return "The file could not be downloaded from Slack; nothing was imported. Try again."
    return escape(f"{result.text} Switch a channel to it with /quiz config packs pytorch,{result.pack}.")


async def send_export(deps: SlackDeps, ref: ChannelRef, user: str, file: PackFile) -> str:
    """Upload an exported pack to the admin's direct messages; the reply to the command."""
    await deps.platform.send_file(
        ref, user, file.data, file.filename, f"Question pack {file.pack}", f"Pack {file.pack} ({file.format})."
    )
    return escape(f"Sent pack {file.pack} ({file.format}) to our direct messages.")


def register_pack_views(app: AsyncApp, deps: SlackDeps) -> None:
    @app.view(IMPORT_VIEW)
    async def pack_import(ack: Any, body: dict, view: dict, client: AsyncWebClient, context: Any) -> None:
        pack, file_id, replace, channel, errors = read_submission(view if isinstance(view, dict) else {})
        if errors:
            await ack(response_action="errors", errors=errors)
            return
        await ack()
        user = (body.get("user") or {}).get("id") if isinstance(body.get("user"), dict) else None
        team = team_of(body, context.team_id)
        if not (isinstance(user, str) and team and file_id):
            log.info("ignoring a pack import form without user or team")
            return
        try:
            text = await import_submission(deps, client, team, user, pack, file_id, replace, channel or user)
        except Exception as exc:
            text = failed(deps.service, exc, log, "pack import failed") or FAILED
        try:
            await deps.platform.send_direct_mrkdwn(ChannelRef(PLATFORM, team, channel or user), user, fit_text(text))
        except SlackApiError as exc:
            log.warning("could not tell %s the import result: %s", user, exc.response.get("error"))
