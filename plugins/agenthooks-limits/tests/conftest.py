"""The shared-store tests use the real Redis on 127.0.0.1:6379, each under its own key
prefix; a session without it says so and fails under ``CI=true`` (skips otherwise)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis

from agenthooks.testing import require

REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture
def redis_url() -> str:
    """The shared Redis's URL (skips, or fails under CI=true, when it is not there)."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        require(f"no Redis at 127.0.0.1:6379, which the shared-store tests need: {exc}")
    finally:
        client.close()
    return REDIS_URL


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A key prefix no other test uses; every key under it is deleted afterwards."""
    value = f"agenthooks-test:{uuid.uuid4().hex}:"
    yield value
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=value + "*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
