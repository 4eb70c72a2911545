"""agenthooks-redis: hook events, approvals and observers across worker processes, on Redis.

``bus.use(RedisEventPublisher(url))`` sends every ``on_event`` record to a Redis stream (one
entry each: ``run_id``, ``seq``, ``type``, ``record``); ``RedisEventConsumer(url, group=...,
consumer=...)`` runs ``.on(event, handler)`` observers in other processes, at least once and
in ``seq`` order per run; ``RedisApprover`` lets the guard's ``ask`` wait for an answer given
in another process (``agenthooks approvals``). The ``redis`` entry point reads
``AGENTHOOKS_REDIS_*`` variables.
"""

from .approvals import RedisApprovals
from .approver import RedisApprover
from .config import DEFAULT_STREAM, DEFAULT_URL
from .consumer import ConsumerStats, RedisEventConsumer
from .entry import FIELDS, SCHEMA, Entry, EntryError, StreamRecord
from .errors import RedisConfigError
from .publisher import EnvRedisEventPublisher, PublisherStats, RedisEventPublisher

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_STREAM",
    "DEFAULT_URL",
    "FIELDS",
    "SCHEMA",
    "ConsumerStats",
    "Entry",
    "EntryError",
    "EnvRedisEventPublisher",
    "PublisherStats",
    "RedisApprovals",
    "RedisApprover",
    "RedisConfigError",
    "RedisEventConsumer",
    "RedisEventPublisher",
    "StreamRecord",
]
