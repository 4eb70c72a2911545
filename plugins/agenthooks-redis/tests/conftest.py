"""Real Redis on 127.0.0.1:6379 for every test, each under its own key prefix.

A session that finds no Redis says so in every test's skip reason, and fails instead of
skipping under ``CI=true``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from redis_support import URL, need, redis_problem


@pytest.fixture
def url() -> str:
    """The shared Redis's URL (skips, or fails under CI=true, when it is not there)."""
    need("no Redis at 127.0.0.1:6379, which the agenthooks-redis tests need", redis_problem())
    return URL


@pytest.fixture
def prefix(url: str) -> Iterator[str]:
    """A key prefix no other test uses; every key under it is deleted afterwards."""
    value = f"agenthooks-test:{uuid.uuid4().hex}:"
    yield value
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=value + "*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


@pytest.fixture
def server(url: str) -> Iterator[redis.Redis]:
    """A synchronous client of the shared Redis, decoding replies."""
    client = redis.Redis.from_url(url, decode_responses=True)
    yield client
    client.close()
