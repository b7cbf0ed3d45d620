"""A dashboard session stays a cookie browsers keep (4,096 bytes with its name): someone in 50 servers with
long names keeps their session and as many spaces as fit, admin ones first; a notice too long goes first."""

from __future__ import annotations

from dataclasses import replace

from cryptography.fernet import Fernet

from bot.web.sessions import (
    COOKIE_BUDGET,
    NAME_MAX,
    SESSION_COOKIE,
    Membership,
    Sealer,
    Session,
    sealed_session,
    session_from,
    session_value,
)


def test_fifty_long_named_servers_fit_a_cookie_with_the_admin_ones_kept() -> None:
    sealer = Sealer(Fernet.generate_key())
    spaces = [Membership("discord", str(10**17 + i), f"{i:02d} " + "x" * 97, i < 5) for i in range(50)]
    session = Session().signed("123456789012345678", "discord", "A" * 80, spaces, 3600)
    assert len(sealer.seal(session_value(session))) > COOKIE_BUDGET  # as it was: the browser would drop it
    sealed = sealed_session(sealer, session)
    assert len(f"__Host-{SESSION_COOKIE}={sealed}") <= 4096
    kept = session_from(sealer.open(sealed, ttl=3600))
    assert kept is not None and kept.user_id == "123456789012345678" and kept.csrf == session.csrf
    assert 20 <= len(kept.spaces) < 50 and kept.spaces == session.spaces[: len(kept.spaces)]
    assert all(m.is_admin for m in kept.spaces[:5]) and len(kept.spaces[0].name) == NAME_MAX


def test_a_notice_is_dropped_before_any_space() -> None:
    sealer = Sealer(Fernet.generate_key())
    spaces: list[Membership] = []
    while len(sealer.seal(session_value(Session().signed("U1", "slack", "Ann", spaces, 3600)))) < COOKIE_BUDGET - 200:
        spaces.append(Membership("slack", f"T{len(spaces):08d}", "w" * 40, False))
    session = Session().signed("U1", "slack", "Ann", spaces, 3600)  # fits, but not with 400 more characters
    loud = replace(session, notice="n" * 400, notice_path="/s/slack/T00000000/queues")
    kept = session_from(sealer.open(sealed_session(sealer, loud), ttl=3600))
    assert kept is not None and kept.spaces == session.spaces and kept.notice == ""
    short = replace(session, notice="Saved.", notice_path="/s/slack/T00000000/queues")
    told = session_from(sealer.open(sealed_session(sealer, short), ttl=3600))
    assert told is not None and told.notice == "Saved." and told.spaces == session.spaces
