"""The limits ``RedisStore`` where the redis package cannot be imported: the option error
names the extra to install (redis is made unimportable for the test: ``None`` in
``sys.modules``)."""

from __future__ import annotations

import sys

import pytest
from agenthooks_limits import LimitsConfigError, RedisStore


def test_a_redis_store_without_redis_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("redis", "redis.asyncio", "redis.connection"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(LimitsConfigError) as info:
        RedisStore("redis://127.0.0.1:6379/0")
    assert info.value.key == "store"
    assert "the redis package is not installed: pip install 'agenthooks-limits[redis]'" in str(
        info.value
    )
