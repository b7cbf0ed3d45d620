"""Sessions in signed, encrypted cookies (Fernet under STUDYBOT_SECRET_KEY): who signed in, the spaces they
may see (and where they are admins), and the CSRF token of their forms. Nothing is kept in a process's memory,
so any process of the bot accepts a session another one made."""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from aiohttp import web
from cryptography.fernet import Fernet, InvalidToken

SESSION_COOKIE = "studybot_session"
OAUTH_COOKIE = "studybot_oauth"  # an OAuth sign-in in flight: its state, PKCE verifier and nonce
OAUTH_SECONDS = 600
MAX_SPACES = 50  # the spaces the bot serves that the person is in, at most (and as many as fit COOKIE_BUDGET)
COOKIE_BUDGET = 3_800  # bytes of a sealed session: browsers keep a cookie of at most 4,096 with its name
NAME_MAX = 40  # characters of a space's or person's name kept in the session


@dataclass(frozen=True)
class Membership:
    """A space the session may see, and whether its person is an admin there (as the chat decides)."""

    platform: str
    space_id: str
    name: str
    is_admin: bool


@dataclass(frozen=True)
class Session:
    """One browser's session: anonymous (only a CSRF token) until someone signs in."""

    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    user_id: str | None = None
    platform: str | None = None  # how they signed in: console (a link), discord or slack
    name: str = ""
    spaces: tuple[Membership, ...] = ()
    expires: float = 0.0  # unix time
    notice: str = ""  # what a form just did, for the page it redirected to (bot.web.notices)
    notice_path: str = ""

    @property
    def signed_in(self) -> bool:
        return self.user_id is not None

    def membership(self, platform: str, space_id: str) -> Membership | None:
        return next((m for m in self.spaces if m.platform == platform and m.space_id == space_id), None)

    def signed(self, user_id: str, platform: str, name: str, spaces: list[Membership], lifetime: float) -> Session:
        """This browser signed in: a new CSRF token too (no token seen before sign-in works after it)."""
        return Session(
            user_id=user_id,
            platform=platform,
            name=name[:NAME_MAX],
            spaces=tuple(replace(m, name=m.name[:NAME_MAX]) for m in spaces[:MAX_SPACES]),
            expires=time.time() + lifetime,
        )


class Sealer:
    """Seals values into cookie text (encrypted and signed) and opens them again (None: forged or too old)."""

    def __init__(self, key: bytes) -> None:
        self._fernet = Fernet(key)

    def seal(self, value: dict[str, Any]) -> str:
        return self._fernet.encrypt(json.dumps(value, separators=(",", ":")).encode()).decode("ascii")

    def open(self, text: str | None, ttl: int) -> dict[str, Any] | None:
        if not text:
            return None
        try:
            raw = self._fernet.decrypt(text.encode("ascii"), ttl=ttl)
            value = json.loads(raw)
        except (InvalidToken, ValueError, UnicodeEncodeError):
            return None
        return value if isinstance(value, dict) else None


def session_from(value: dict[str, Any] | None) -> Session | None:
    """A session read back from its cookie; None when it is not one or has expired."""
    if value is None:
        return None
    try:
        spaces = tuple(Membership(str(p), str(s), str(n), bool(a)) for p, s, n, a in value.get("spaces", ()))
        session = Session(
            csrf=str(value["csrf"]),
            user_id=None if value.get("user_id") is None else str(value["user_id"]),
            platform=None if value.get("platform") is None else str(value["platform"]),
            name=str(value.get("name", "")),
            spaces=spaces,
            expires=float(value.get("expires", 0.0)),
            notice=str(value.get("notice", "")),
            notice_path=str(value.get("notice_path", "")),
        )
    except (KeyError, TypeError, ValueError):
        return None
    if session.signed_in and session.expires < time.time():
        return replace(Session(), csrf=session.csrf)  # signed out by time; the form token stays
    return session


def sealed_session(sealer: Sealer, session: Session) -> str:
    """The session as its cookie's value, within COOKIE_BUDGET (a bigger cookie the browser drops, and its person
    is signed out): a notice too long for it goes first, then the spaces at the end of the list (the admin
    ones come first), so the person keeps their session and most of their spaces."""
    sealed = sealer.seal(session_value(session))
    while len(sealed) > COOKIE_BUDGET and (session.notice or session.spaces):
        if session.notice:
            session = replace(session, notice="", notice_path="")
        else:
            session = replace(session, spaces=session.spaces[:-1])
        sealed = sealer.seal(session_value(session))
    return sealed


def session_value(session: Session) -> dict[str, Any]:
    out = asdict(session)
    out["spaces"] = [[m.platform, m.space_id, m.name, m.is_admin] for m in session.spaces]
    return out


def set_cookie(
    response: web.StreamResponse, name: str, value: str, *, secure: bool, max_age: int | None = None
) -> None:
    """HttpOnly, SameSite=Lax, Path=/; Secure behind https."""
    response.set_cookie(name, value, path="/", httponly=True, samesite="Lax", secure=secure, max_age=max_age)


def clear_cookie(response: web.StreamResponse, name: str, *, secure: bool) -> None:
    response.set_cookie(name, "", path="/", httponly=True, samesite="Lax", secure=secure, max_age=0)
