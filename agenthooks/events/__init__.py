"""The event catalog, declared once (``catalog.py``), and the typed context of every lifecycle
point (``contexts.py``); ``typed.py`` is generated from the declarations."""

from .catalog import ALIASES, CATALOG, EVENT_NAMES, GROUPS, EventSpec, resolve
from .contexts import *  # noqa: F403
from .contexts import __all__ as _contexts_all
from .typed import EventName

__all__ = [
    "ALIASES",
    "CATALOG",
    "EVENT_NAMES",
    "GROUPS",
    "EventName",
    "EventSpec",
    "resolve",
    *_contexts_all,
]
