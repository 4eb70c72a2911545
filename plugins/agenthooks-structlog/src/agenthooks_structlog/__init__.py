"""agenthooks-structlog: every agenthooks event as one structlog line.

``bus.use(StructlogPlugin(renderer="json"))``, or install the distribution and load the
``structlog`` entry point (``HookBus(plugins=["structlog"])``): ``StructlogPlugin.from_env()``,
configured by the ``AGENTHOOKS_STRUCTLOG_*`` environment variables.
"""

from .plugin import CONTEXT_FIELDS, StructlogPlugin
from .settings import DEFAULT_LEVELS, LEVELS, RENDERERS, StructlogConfigError, StructlogSettings

__version__ = "0.1.0"

__all__ = [
    "CONTEXT_FIELDS",
    "DEFAULT_LEVELS",
    "LEVELS",
    "RENDERERS",
    "StructlogConfigError",
    "StructlogPlugin",
    "StructlogSettings",
]
