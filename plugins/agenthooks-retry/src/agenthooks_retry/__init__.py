"""agenthooks-retry: retries with backoff and provider fallback, as middleware.

``bus.use(RetryMiddleware())`` retries transient provider errors (tenacity, exponential
backoff with jitter); ``FallbackMiddleware([backup])`` moves a failed call to the next
provider; ``RetryPlugin`` installs both; the ``retry`` entry point reads
``AGENTHOOKS_RETRY_*`` variables.
"""

from .errors import RetryConfigError
from .fallback import Fallback, FallbackMiddleware
from .plugin import EnvRetryPlugin, RetryPlugin
from .policy import RETRY_AFTER_LIMIT, is_transient, retry_after
from .retry import RetryAttempt, RetryMiddleware

__version__ = "0.1.0"

__all__ = [
    "RETRY_AFTER_LIMIT",
    "EnvRetryPlugin",
    "Fallback",
    "FallbackMiddleware",
    "RetryAttempt",
    "RetryConfigError",
    "RetryMiddleware",
    "RetryPlugin",
    "is_transient",
    "retry_after",
]
