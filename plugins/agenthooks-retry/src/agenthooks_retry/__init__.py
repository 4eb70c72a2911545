"""agenthooks-retry: retries with backoff and provider fallback, as middleware.

``bus.use(RetryMiddleware())`` retries transient provider errors (tenacity, exponential
backoff with jitter); ``FallbackMiddleware([backup])`` moves a failed call to the next
provider; ``RetryPlugin`` installs both; ``RetryPlugin.from_env()`` (the ``retry``
entry point) reads the ``AGENTHOOKS_RETRY_*`` variables.
"""

from .fallback import Fallback, FallbackMiddleware
from .plugin import RetryPlugin
from .policy import RETRY_AFTER_LIMIT, is_transient, retry_after
from .retry import RetryAttempt, RetryMiddleware
from .settings import RetryConfigError, RetryOptions, RetrySettings

__version__ = "0.1.0"

__all__ = [
    "RETRY_AFTER_LIMIT",
    "Fallback",
    "FallbackMiddleware",
    "RetryAttempt",
    "RetryConfigError",
    "RetryMiddleware",
    "RetryOptions",
    "RetryPlugin",
    "RetrySettings",
    "is_transient",
    "retry_after",
]
