"""The bus: registrations (who handles what, in which order), one dispatch loop, and the
blinker signals beside it. It knows nothing of agents, providers or tools."""

from .hookbus import HookBus
from .registry import Disposer, ErrorPolicy, Handler, Matcher, compile_matcher, handler_label
from .signals import event_record

__all__ = [
    "Disposer",
    "ErrorPolicy",
    "Handler",
    "HookBus",
    "Matcher",
    "compile_matcher",
    "event_record",
    "handler_label",
]
