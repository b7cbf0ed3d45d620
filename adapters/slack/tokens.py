"""Bot and refresh tokens sealed with one Fernet key (STUDYBOT_SECRET_KEY) before they reach the store."""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken


class TokenBox:
    """Seal and open bot and refresh tokens with one Fernet key."""

    def __init__(self, key: bytes) -> None:
        self._fernet = Fernet(key)

    def seal(self, token: str) -> str:
        return self._fernet.encrypt(token.encode()).decode("ascii")

    def open(self, secret: str) -> str | None:
        try:
            return self._fernet.decrypt(secret.encode("ascii")).decode()
        except (InvalidToken, ValueError):
            return None
