"""A loopback file download that counts what the client really took: the fakes of Discord's CDN and of Slack's
url_private_download serve files through it, so a test can tell a download refused as it streamed (about
1 MiB sent) from one read whole."""

from __future__ import annotations

import socket

from aiohttp import web

CHUNK = 64 * 1024
SEND_BUFFER = 16 * 1024  # the kernel keeps little unsent: what was sent is close to what the client read


async def serve_counted(request: web.Request, data: bytes, *, chunked: bool = False) -> tuple[web.StreamResponse, int]:
    """Stream `data` in 64 KiB chunks until the client stops reading; (the response, the bytes sent).
    `chunked`: no Content-Length (chunked transfer), so only reading tells how big the file is."""
    resp = web.StreamResponse(headers={"Content-Type": "application/octet-stream"})
    if chunked:
        resp.enable_chunked_encoding()
    else:
        resp.content_length = len(data)
    sock = request.transport.get_extra_info("socket") if request.transport is not None else None
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
    await resp.prepare(request)
    sent = 0
    try:
        for start in range(0, len(data), CHUNK):
            piece = data[start : start + CHUNK]
            await resp.write(piece)
            sent += len(piece)
    except (ConnectionError, RuntimeError):
        pass  # the client stopped reading (a refused download)
    return resp, sent
