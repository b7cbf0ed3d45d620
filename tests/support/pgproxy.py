"""A TCP proxy on 127.0.0.1 between the bot and PostgreSQL that a test can cut and restore: cut, every connection
through it is dropped and new ones are refused, as when the server stops; restored, it listens again on the same
port. The machine's shared server keeps running for everyone else (never stop it in a test)."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

CHUNK = 64 * 1024


class PgProxy:
    """Forwards 127.0.0.1:`port` to the server of `url` (TCP, or the Unix socket of a `host=/dir` URL)."""

    def __init__(self, url: str) -> None:
        self._target = urlsplit(url)
        query = dict(parse_qsl(self._target.query))
        self._socket_dir = query.pop("host", None) if str(query.get("host", "")).startswith("/") else None
        self._query = urlencode(query)
        self.port = 0
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.connections = 0  # accepted since the start

    @property
    def url(self) -> str:
        """The URL of the same database through the proxy."""
        t = self._target
        user = t.username or ""
        auth = f"{user}:{t.password}@" if t.password else (f"{user}@" if user else "")
        return urlunsplit(t._replace(netloc=f"{auth}127.0.0.1:{self.port}", query=self._query))

    @property
    def is_cut(self) -> bool:
        return self._server is None

    async def start(self) -> PgProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def cut(self) -> None:
        """Stop listening and drop every connection at once (the bot sees its server gone)."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for writer in list(self._pipes):
            writer.transport.abort()
        self._pipes.clear()
        if server is not None:
            await server.wait_closed()

    async def restore(self) -> None:
        """Listen again on the same port."""
        if self._server is None:
            await self.start()

    async def close(self) -> None:
        await self.cut()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5)

    async def _open_target(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._socket_dir is not None:
            return await asyncio.open_unix_connection(f"{self._socket_dir}/.s.PGSQL.{self._target.port or 5432}")
        return await asyncio.open_connection(self._target.hostname or "127.0.0.1", self._target.port or 5432)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await self._open_target()
        except OSError:
            writer.transport.abort()
            return
        self._pipes.update((writer, up_writer))
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.get_running_loop().create_task(self._pump(source, sink, writer, up_writer))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, *ends: asyncio.StreamWriter
    ) -> None:
        try:
            while data := await source.read(CHUNK):
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            for end in ends:
                self._pipes.discard(end)
                with contextlib.suppress(Exception):
                    end.transport.abort()
