"""agenthooks-redis: hook events, approvals and observers across worker processes, on Redis.

``bus.use(RedisEventPublisher(url))`` sends every ``on_event`` record to a Redis stream (one
entry each: ``run_id``, ``seq``, ``type``, ``record``); ``RedisEventConsumer(url, group=...,
consumer=...)`` runs ``.on(event, handler)`` observers in other processes, at least once and
in ``seq`` order per run; ``RedisApprover`` lets the guard's ``ask`` wait for an answer given
in another process (``agenthooks approvals``). ``RedisEventPublisher.from_env()``
(the ``redis`` entry point) reads the ``AGENTHOOKS_REDIS_*`` variables.
"""

from .approvals import RedisApprovals
from .approver import RedisApprover
from .consumer import ConsumerStats, RedisEventConsumer
from .entry import FIELDS, SCHEMA, Entry, EntryError, StreamRecord
from .publisher import PublisherStats, RedisEventPublisher
from .settings import DEFAULT_STREAM, DEFAULT_URL, RedisConfigError, RedisSettings

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_STREAM",
    "DEFAULT_URL",
    "FIELDS",
    "SCHEMA",
    "ConsumerStats",
    "Entry",
    "EntryError",
    "PublisherStats",
    "RedisApprovals",
    "RedisApprover",
    "RedisConfigError",
    "RedisEventConsumer",
    "RedisEventPublisher",
    "RedisSettings",
    "StreamRecord",
]
