"""The bridge conformance kit: one set of scripted conversations, run through a bridge and
through our runtime, and every difference a failure.

A bridge's tests give an adapter (``BridgeAdapter``: build an agent with the framework's
scripted model and these tools, run it, resume it) and subclass ``BridgeKit``; see
``docs/bridges-kit.md``.
"""

from .adapter import BridgeAdapter, Outcome
from .kit import BridgeKit, Contact, KitFault, Result, caused, classify
from .record import TERMINAL, EventLog
from .runtime import RuntimeAdapter, response_of
from .script import CONTACT_JSON, CONVERSATION, MESSAGE, Call, Step, Tools, calls, say, usage_of

__all__ = [
    "CONTACT_JSON",
    "CONVERSATION",
    "MESSAGE",
    "TERMINAL",
    "BridgeAdapter",
    "BridgeKit",
    "Call",
    "Contact",
    "EventLog",
    "KitFault",
    "Outcome",
    "Result",
    "RuntimeAdapter",
    "Step",
    "Tools",
    "calls",
    "caused",
    "classify",
    "response_of",
    "say",
    "usage_of",
]
