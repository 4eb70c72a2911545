"""The plugin's options, declared once: in code (``RedisEventPublisher(url, stream=...)``) and
from the ``AGENTHOOKS_REDIS_*`` variables (the ``redis`` entry point, the approvals source and
``approver.ask``) alike."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import SettingsConfigDict

from agenthooks.plugins import PluginOptionError, PluginSettings

DEFAULT_URL = "redis://127.0.0.1:6379/0"
DEFAULT_STREAM = "agenthooks:events"
DEFAULT_APPROVALS = "agenthooks:approvals"
DEFAULT_MAXLEN = 100_000
DEFAULT_BUFFER = 10_000
DEFAULT_BATCH = 500
DEFAULT_TIMEOUT = 5.0
DEFAULT_FLUSH_TIMEOUT = 5.0
DEFAULT_MAX_RUNS = 100_000


class RedisConfigError(PluginOptionError):
    """An option is unknown or bad: ``redis plugin: RedisEventPublisher: buffer: 0: Input should
    be greater than or equal to 1``.

    ``source`` is where the value came from (the class given the argument, or
    ``environment``), ``key`` the option or variable, ``problem`` what is wrong with it.
    """


def parse_redis_url(url: str) -> str:
    """``url`` if redis-py can parse it (``redis://``, ``rediss://``, ``unix://``).

    Raises:
        ValueError: Saying why it cannot.
    """
    from redis.connection import parse_url

    if not url:
        raise ValueError("'' is not a Redis URL")
    try:
        parse_url(url)  # type: ignore[no-untyped-call]
    except (TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from None
    return url


class RedisSettings(PluginSettings):
    """One field per option; the variable of each is ``AGENTHOOKS_REDIS_`` + its name in
    capitals. ``approvals`` is the key prefix of the approval requests; the others configure
    the publisher."""

    plugin: ClassVar[str] = "redis"
    error: ClassVar[type[PluginOptionError]] = RedisConfigError
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_REDIS_")

    url: str = DEFAULT_URL
    stream: str = Field(DEFAULT_STREAM, min_length=1)
    maxlen: int = Field(DEFAULT_MAXLEN, ge=1)
    buffer: int = Field(DEFAULT_BUFFER, ge=1)
    batch: int = Field(DEFAULT_BATCH, ge=1)
    timeout: float = Field(DEFAULT_TIMEOUT, gt=0)
    flush_timeout: float = Field(DEFAULT_FLUSH_TIMEOUT, gt=0)
    max_runs: int = Field(DEFAULT_MAX_RUNS, ge=1)
    approvals: str = Field(DEFAULT_APPROVALS, min_length=1)

    @field_validator("url")
    @classmethod
    def _a_redis_url(cls, url: str) -> str:
        return parse_redis_url(url)

    @field_validator("batch")
    @classmethod
    def _within_the_buffer(cls, batch: int, info: ValidationInfo) -> int:
        buffer = info.data.get("buffer")
        if buffer is not None and batch > buffer:
            raise ValueError(f"{batch} is larger than the buffer ({buffer})")
        return batch


__all__ = [
    "DEFAULT_APPROVALS",
    "DEFAULT_BATCH",
    "DEFAULT_BUFFER",
    "DEFAULT_FLUSH_TIMEOUT",
    "DEFAULT_MAXLEN",
    "DEFAULT_MAX_RUNS",
    "DEFAULT_STREAM",
    "DEFAULT_TIMEOUT",
    "DEFAULT_URL",
    "RedisConfigError",
    "RedisSettings",
    "parse_redis_url",
]
