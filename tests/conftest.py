"""Shared fixtures. Every test runs with the network closed except loopback: a forgotten patch of a
platform's base URL fails loudly instead of reaching (or hanging on) the internet."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from tests.support.pgserver import OwnServer

_own_postgres = OwnServer()
_own_postgres_key = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    url = _own_postgres.start_if_needed()
    if url is not None:
        config.stash[_own_postgres_key] = url


def pytest_unconfigure(config: pytest.Config) -> None:
    _own_postgres.stop()


def pytest_report_header(config: pytest.Config) -> str | None:
    url = config.stash.get(_own_postgres_key, None)
    return f"PostgreSQL: no server on 127.0.0.1:5432, started a throwaway one at {url}" if url else None


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo

LOCAL_NAMES = {"localhost", "127.0.0.1", "::1", "", None}


def _is_loopback(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if host in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: object) -> None:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):  # type: ignore[index]
        raise ConnectionRefusedError(f"test network guard: refusing a connection to {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):  # type: ignore[index]
        raise ConnectionRefusedError(f"test network guard: refusing a connection to {address!r}")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    if not _is_loopback(host):
        raise OSError(f"test network guard: refusing to resolve {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
