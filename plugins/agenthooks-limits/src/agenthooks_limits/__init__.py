"""agenthooks-limits: caps on an agent run, with graded actions.

Caps on turns, tool calls (per run and per tool), tokens and cost per run, and rate limits
per tool; each acts by its ladder: ``warn`` (a structlog warning), ``downgrade`` (a cheaper
model for the next turn), ``deny`` (the tool call is refused with a reason the model reads) or
``stop`` (``StopRun``: ``on_stop(reason)`` then ``on_chat_error``). A pricing table fills
``usage.cost`` when the provider does not.

``bus.use(Limits(max_turns=10, max_cost=Cap(0.50, ladder={0.8: "warn", 1.0: "stop"})))``, or
install the distribution and set ``AGENTHOOKS_LIMITS_CONFIG`` to a TOML file
(``Limits.from_env()``, what the ``limits`` entry point loads).
"""

from .caps import ACTIONS, Action, Cap, Price, RateLimit, Step
from .config import limits_from_env, load_limits, parse_limits
from .plugin import DEFAULT_DENY_MESSAGE, Limits
from .redis_store import RedisStore
from .settings import LIMITS_ENV, LimitsConfigError, LimitsSettings
from .state import Breach
from .store import Check, LimitsStore, MemoryStore

__version__ = "0.1.0"

__all__ = [
    "ACTIONS",
    "DEFAULT_DENY_MESSAGE",
    "LIMITS_ENV",
    "Action",
    "Breach",
    "Cap",
    "Check",
    "Limits",
    "LimitsConfigError",
    "LimitsSettings",
    "LimitsStore",
    "MemoryStore",
    "Price",
    "RateLimit",
    "RedisStore",
    "Step",
    "limits_from_env",
    "load_limits",
    "parse_limits",
]
