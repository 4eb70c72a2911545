"""The events: each declared once, as its typed context class with an ``@event`` declaration
(``contexts.py``); the catalog (``catalog.py``) and ``typed.py`` (generated) are derived from
those classes."""

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
