"""``RedisBackend`` where the redis package cannot be imported: the option error names the
extra to install (redis is made unimportable for the test: ``None`` in ``sys.modules``)."""

from __future__ import annotations

import sys

import pytest
from agenthooks_cache import CacheConfigError, RedisBackend


def test_a_redis_backend_without_redis_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    monkeypatch.setitem(sys.modules, "redis.asyncio", None)
    with pytest.raises(CacheConfigError) as info:
        RedisBackend("redis://127.0.0.1:6379/0")
    assert info.value.key == "redis"
    assert "the redis package is not installed: pip install 'agenthooks-cache[redis]'" in str(
        info.value
    )
