"""The deployment files: docker-compose.yml wiring, the Dockerfile and .env.example against the settings
the code actually reads. (No Docker engine is needed: the files are parsed, not run.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ENV_NAME = re.compile(r"^(STUDYBOT|DISCORD|SLACK)_[A-Z0-9_]+$")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


SETTING = re.compile(r"^#?\s*([A-Z][A-Z0-9_]*)=")


def env_example() -> dict[str, bool]:
    """NAME -> whether a prose comment explains it (in its paragraph: the lines between blank lines). A
    setting may be set or commented out (`# NAME=value` keeps its default)."""
    names: dict[str, bool] = {}
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    for paragraph in text.split("\n\n"):
        lines = paragraph.splitlines()
        explained = any(line.startswith("# ") and not SETTING.match(line) for line in lines)
        for line in lines:
            m = SETTING.match(line)
            if m:
                names[m.group(1)] = explained
    return names


def settings_read_by_the_code() -> set[str]:
    """Every STUDYBOT_/DISCORD_/SLACK_ name the code reads from the environment: string constants that are
    exactly such a name, in the Python files of bot/ and adapters/ (env.get("X"), os.environ["X"], ...)."""
    found: set[str] = set()
    for folder in ("bot", "adapters"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and ENV_NAME.match(node.value):
                    found.add(node.value)
    return found


BOTS = ("bot", "bot-2", "delivery")  # the cluster: two interactive processes and one delivery process


def test_the_services_are_wired(compose):
    services = compose["services"]
    assert set(services) >= {*BOTS, "postgres"}
    pg = services["postgres"]
    for name in BOTS:
        bot = services[name]
        assert bot["build"] in (".", {"context": "."}) or bot["build"].get("context") == "."
        assert bot["restart"] == "unless-stopped"
        env_files = bot["env_file"] if isinstance(bot["env_file"], list) else [bot["env_file"]]
        assert ".env" in [f if isinstance(f, str) else f["path"] for f in env_files]
        assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert re.match(r"^postgres:1[5-9]", pg["image"])


def resolved(environment: dict[str, str]) -> dict[str, str]:
    """A service's environment as compose hands it over with nothing set in .env: ${X:-default} is the
    default; ${X:?message} (a required value) is a placeholder."""
    out = {}
    for name, value in environment.items():
        value = re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", str(value))
        out[name] = re.sub(r"\$\{[A-Z0-9_]+:\?[^}]*\}", "placeholder", value)
    return out


def test_two_interactive_processes_and_one_delivery_process_share_postgresql(compose):
    """Issue 34: the settings each bot service starts with are accepted as they are, on PostgreSQL; the
    interactive processes split Discord's shards between them and the delivery process posts for all."""
    from bot.app.config import Settings

    services = compose["services"]
    settings = {name: Settings.from_env(resolved(services[name]["environment"])) for name in BOTS}
    assert {name: s.role for name, s in settings.items()} == {
        "bot": "interactive",
        "bot-2": "interactive",
        "delivery": "delivery",
    }
    assert all(s.database_url.startswith("postgresql://") for s in settings.values())
    count = settings["bot"].shard_count
    assert count == 2 and {s.shard_count for s in settings.values()} == {count}
    assert sorted(settings["bot"].shard_ids + settings["bot-2"].shard_ids) == list(range(count))
    assert settings["delivery"].shard_ids == ()  # every shard's guilds
    # the delivery process listens for no platform (no Slack events port, not behind the proxy's name), but
    # answers its health check like the others
    delivery = services["delivery"]
    assert not delivery.get("expose") and "ports" not in delivery and "networks" not in delivery
    for name in BOTS:
        assert "/healthz" in " ".join(services[name]["healthcheck"]["test"])
        assert settings[name].metrics_port


def test_the_bot_reaches_the_postgres_service(compose):
    bot, pg = compose["services"]["bot"], compose["services"]["postgres"]
    url = bot["environment"]["STUDYBOT_DATABASE_URL"]
    m = re.match(r"^postgresql://(\w+):(\$\{POSTGRES_PASSWORD[^}]*\})@postgres:5432/(\w+)$", url)
    assert m, url
    assert m.group(1) == pg["environment"]["POSTGRES_USER"]
    assert m.group(3) == pg["environment"]["POSTGRES_DB"]
    assert pg["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD")


def test_health_checks(compose):
    bot, pg = compose["services"]["bot"], compose["services"]["postgres"]
    assert "pg_isready" in " ".join(pg["healthcheck"]["test"])
    probe = " ".join(bot["healthcheck"]["test"])
    assert "urllib" in probe and "/healthz" in probe and "STUDYBOT_METRICS_PORT" in probe
    assert bot["environment"]["STUDYBOT_METRICS_PORT"]  # the endpoint the probe asks is switched on
    for service in (bot, pg):
        assert {"interval", "timeout", "retries"} <= set(service["healthcheck"])


def test_the_bot_has_time_to_stop_gracefully(compose):
    """The bot stops within 10 s of SIGTERM (tests/e2e/test_startup.py); Docker waits longer before SIGKILL."""
    grace = str(compose["services"]["bot"]["stop_grace_period"])
    m = re.fullmatch(r"(\d+)s", grace)
    assert m and int(m.group(1)) > 10, grace


def test_postgres_has_room_for_the_busiest_minutes_wal_between_checkpoints(compose):
    """The 09:00 minute wrote 378 MB of WAL at 10,000 channels (bench.daily_minute); at PostgreSQL's default
    max_wal_size (1 GB) a checkpoint starts about every 540 MB, so most such minutes would hold one."""
    command = compose["services"]["postgres"]["command"]
    assert command[0] == "postgres" and command[1::2] == ["-c"] * (len(command) // 2)
    settings = dict(arg.split("=", 1) for arg in command[2::2])
    assert set(settings) == {"max_wal_size", "checkpoint_timeout"}
    size = re.fullmatch(r"(\d+)GB", settings["max_wal_size"])
    assert size and int(size.group(1)) >= 4, settings
    timeout = re.fullmatch(r"(\d+)min", settings["checkpoint_timeout"])
    assert timeout and 5 <= int(timeout.group(1)) <= 60, settings


def test_postgres_keeps_its_data_in_a_named_volume(compose):
    volumes = compose["services"]["postgres"]["volumes"]
    named = [v.split(":", 1)[0] for v in volumes if v.split(":", 1)[1] == "/var/lib/postgresql/data"]
    assert named and named[0] in (compose.get("volumes") or {})


def test_every_setting_the_code_reads_is_documented_in_env_example():
    read = settings_read_by_the_code()
    assert {"STUDYBOT_DATABASE_URL", "DISCORD_TOKEN", "SLACK_BOT_TOKEN", "STUDYBOT_HTTP_PORT"} <= read  # the scan works
    documented = env_example()
    missing = sorted(read - set(documented))
    assert not missing, f".env.example does not document {missing}"
    unexplained = sorted(name for name, explained in documented.items() if not explained)
    assert not unexplained, f".env.example lists {unexplained} without a comment"


def test_env_example_covers_compose_and_sharding():
    documented = env_example()
    wanted = {"POSTGRES_PASSWORD", "STUDYBOT_SHARD_COUNT", "STUDYBOT_SHARD_IDS", "STUDYBOT_METRICS_PORT"}
    assert wanted <= set(documented)
    compose_text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    for name in re.findall(r"\$\{([A-Z0-9_]+)", compose_text):
        assert name in documented, f"docker-compose.yml interpolates {name}, which .env.example does not list"


def test_the_dockerfile_is_slim_non_root_and_healthchecked():
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.11-slim", text, re.M)
    users = re.findall(r"^USER\s+(\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0"), "the image must run as a non-root user"
    assert re.search(r'pip install "\.\[[^\]]*discord[^\]]*slack[^\]]*postgres[^\]]*\]"', text)
    assert re.search(r"^HEALTHCHECK .*", text, re.M) and "/healthz" in text and "urllib" in text
    assert re.search(r'^CMD \["studybot"\]', text, re.M)
    assert "STUDYBOT_METRICS_PORT=" in text and "STUDYBOT_BANK_DIR=/app/data/questions" in text


def caddy_directives(text: str) -> list[list[str]]:
    """The Caddyfile's lines as words, comments and blank lines left out."""
    lines = (line.split("#", 1)[0].split() for line in text.splitlines())
    return [words for words in lines if words]


def test_several_bot_processes_share_one_port_in_slack_http_mode(compose):
    """`--scale bot=2` with the bot's port 3000 published cannot start a second process (the host's port is
    taken): the bot publishes nothing, and a proxy service publishes one port for every replica."""
    from bot.app.config import DEFAULT_HTTP_PORT

    services = compose["services"]
    proxy = services["proxy"]
    for name in ("bot", "bot-2"):  # both interactive processes, under the one name the proxy looks up
        bot = services[name]
        assert "ports" not in bot, "a published bot port pins one process to the host's port"
        assert [str(p) for p in bot["expose"]] == [str(DEFAULT_HTTP_PORT)]
    assert services["bot-2"]["networks"]["default"]["aliases"] == ["bot"]
    assert proxy["profiles"] == ["slack-http"]  # Discord and Socket Mode need no public port
    assert proxy["depends_on"] == ["bot", "bot-2"] and proxy["restart"] == "unless-stopped"
    [published] = proxy["ports"]
    host_port, container_port = str(published).split(":")
    assert host_port == str(DEFAULT_HTTP_PORT)
    [mount] = proxy["volumes"]
    source, target, mode = mount.split(":")
    assert target == "/etc/caddy/Caddyfile" and mode == "ro"
    caddyfile = ROOT / source
    assert caddyfile.is_file() and source.startswith("./")
    directives = caddy_directives(caddyfile.read_text(encoding="utf-8"))
    assert ["http://:" + container_port, "{"] in directives  # plain HTTP on the published port (TLS in front)
    # every replica of the service, by its compose DNS name, on the port the bot listens on; looked up often
    assert ["dynamic", "a", "bot", str(DEFAULT_HTTP_PORT), "{"] in directives
    [refresh] = [w for w in directives if w[0] == "refresh"]
    assert re.fullmatch(r"\d+s", refresh[1]) and int(refresh[1][:-1]) <= 10
    # a replica that is restarting refuses: the request goes to another within Slack's 3 s
    [try_for] = [w for w in directives if w[0] == "lb_try_duration"]
    assert re.fullmatch(r"\d+s", try_for[1]) and 0 < int(try_for[1][:-1]) < 3
    header = (ROOT / "docker-compose.yml").read_text(encoding="utf-8").split("\nname:", 1)[0]
    assert "docker compose --profile slack-http up -d" in header
    assert "docs/operations.md" in header


SCOPE_LIST = re.compile(r"\b([a-z_]+(?::[a-z_]+)?(?:,[a-z_]+(?::[a-z_]+)?){2,})")  # three or more, comma separated


def test_env_example_asks_for_the_manifest_s_slack_scopes():
    """The scopes `.env.example` names as SLACK_SCOPES' default are the manifest's bot scopes (and the code's
    default, and docs/slack.md's): an app created from the manifest and installed with Add to Slack agree."""
    from bot.app.config import DEFAULT_SLACK_SCOPES

    manifest = yaml.safe_load((ROOT / "slack" / "manifest.yml").read_text(encoding="utf-8"))
    wanted = manifest["oauth_config"]["scopes"]["bot"]
    paragraphs = (ROOT / ".env.example").read_text(encoding="utf-8").split("\n\n")
    paragraph = next(p for p in paragraphs if "SLACK_SCOPES=" in p)
    lines = paragraph.splitlines()
    at = next(i for i, line in enumerate(lines) if "SLACK_SCOPES=" in line)
    listed = [m.split(",") for line in lines[:at] if line.startswith("#") for m in SCOPE_LIST.findall(line)]
    assert listed == [wanted], (listed, wanted)
    assert list(DEFAULT_SLACK_SCOPES) == wanted
    docs = (ROOT / "docs" / "slack.md").read_text(encoding="utf-8")
    [row] = [line for line in docs.splitlines() if line.startswith("| `SLACK_SCOPES`")]
    assert re.search(r"default `([^`]+)`", row).group(1).split(",") == wanted
