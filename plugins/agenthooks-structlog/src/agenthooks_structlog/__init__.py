"""agenthooks-structlog: every agenthooks event as one structlog line.

``bus.use(StructlogPlugin(renderer="json"))``, or install the distribution and load the
``structlog`` entry point (``HookBus(plugins=["structlog"])``), configured by
``AGENTHOOKS_STRUCTLOG_*`` environment variables.
"""

from .errors import StructlogConfigError
from .options import DEFAULT_LEVELS, LEVELS, RENDERERS
from .plugin import CONTEXT_FIELDS, EnvStructlogPlugin, StructlogPlugin

__version__ = "0.1.0"

__all__ = [
    "CONTEXT_FIELDS",
    "DEFAULT_LEVELS",
    "LEVELS",
    "RENDERERS",
    "EnvStructlogPlugin",
    "StructlogConfigError",
    "StructlogPlugin",
]
