"""agenthooks-cache: provider responses and tool results served from a cache.

``bus.use(CachePlugin(ttl=3600))`` short-circuits repeated provider calls (``pre_request``
→ ``{"response"}``) and tool calls (``pre_tool_call`` → ``{"result"}``); entries live in an
in-memory LRU or any backend with ``get`` / ``set`` (``RedisBackend`` with the ``[redis]``
extra). ``CachePlugin.from_env()`` (the ``cache`` entry point) reads the
``AGENTHOOKS_CACHE_*`` variables.
"""

from .backends import CacheBackend, MemoryBackend
from .keys import response_key, tool_key
from .plugin import CachePlugin, CacheStats
from .redis_backend import RedisBackend
from .settings import CacheConfigError, CacheSettings

__version__ = "0.1.0"

__all__ = [
    "CacheBackend",
    "CacheConfigError",
    "CachePlugin",
    "CacheSettings",
    "CacheStats",
    "MemoryBackend",
    "RedisBackend",
    "response_key",
    "tool_key",
]
