"""The ``redis://`` event source of ``agenthooks trace`` and ``agenthooks tail``.

``redis://HOST:PORT/DB?stream=NAME`` (``rediss://`` too): the stream defaults to
``AGENTHOOKS_REDIS_STREAM`` or ``agenthooks:events``. Entries become recording lines
(``entry.to_trace_line``); entries that are not event entries are skipped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis.asyncio as redis_asyncio
from redis.exceptions import RedisError

from agenthooks.record import RecordingError

from .entry import EntryError, decode, to_trace_line
from .settings import RedisSettings

CHUNK = 1000


def split_url(url: str) -> tuple[str, str]:
    """``(connection URL, stream)``: the ``stream`` query parameter taken out of ``url``."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    streams = [value for key, value in query if key == "stream"]
    rest = [(key, value) for key, value in query if key != "stream"]
    stream = streams[-1] if streams and streams[-1] else RedisSettings.from_env().stream
    return urlunsplit(parts._replace(query=urlencode(rest))), stream


class RedisEventSource:
    """Reads an event stream: all of it (``read``), or what arrives (``follow``)."""

    def _client(self, url: str) -> Any:
        try:
            return redis_asyncio.Redis.from_url(url, decode_responses=True)
        except (TypeError, ValueError) as exc:
            raise RecordingError(f"{url}: not a Redis URL: {exc}") from None

    async def read(self, url: str) -> list[dict[str, Any]]:
        """Every event entry of the stream, oldest first."""
        connect, stream = split_url(url)
        client = self._client(connect)
        lines: list[dict[str, Any]] = []
        try:
            start = "-"
            while True:
                rows = await client.xrange(stream, min=start, max="+", count=CHUNK)
                for entry_id, fields in rows:
                    try:
                        lines.append(to_trace_line(decode(entry_id, fields), len(lines) + 1))
                    except EntryError:
                        continue
                if len(rows) < CHUNK:
                    break
                start = "(" + rows[-1][0]
        except RedisError as exc:
            raise RecordingError(f"{url}: {type(exc).__name__}: {exc}") from None
        finally:
            await client.aclose()
        if not lines:
            raise RecordingError(f"{url}: the stream {stream!r} has no event entries")
        return lines

    async def follow(
        self, url: str, *, ready: Callable[[], None] | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Entries added from now on, as they arrive (``XREAD BLOCK``)."""
        connect, stream = split_url(url)
        client = self._client(connect)
        line = 0
        try:
            try:
                last = await client.xrevrange(stream, count=1)
            except RedisError as exc:
                raise RecordingError(f"{url}: {type(exc).__name__}: {exc}") from None
            position = last[0][0] if last else "0-0"
            if ready is not None:
                ready()
            while True:
                try:
                    response = await client.xread({stream: position}, count=CHUNK, block=1000)
                except RedisError as exc:
                    raise RecordingError(f"{url}: {type(exc).__name__}: {exc}") from None
                for _stream, rows in response or []:
                    for entry_id, fields in rows:
                        position = entry_id
                        try:
                            entry = decode(entry_id, fields)
                        except EntryError:
                            continue
                        line += 1
                        yield to_trace_line(entry, line)
        finally:
            await client.aclose()


__all__ = ["RedisEventSource", "split_url"]
