"""The plugin contract and entry-point loading.

A plugin is either

- an object (or a class: an entry point's class is built by its ``from_env()`` classmethod
  when it has one, else instantiated without arguments) whose methods are named after events
  (``def pre_tool_call(self, ctx)``; aliases work too), with options per method through
  ``@hook(match=..., priority=..., guard=..., errors=...)`` or per plugin through the class
  attributes ``priority`` / ``guard`` / ``errors``; it may contribute ``middleware`` (a list)
  and may define ``setup(bus)`` for anything else; or
- a plain ``setup(bus)`` function (or a module that has one).

``bus.use(plugin)`` installs one and returns a disposer that removes everything it added.
Installed packages advertise plugins in the ``agenthooks.plugins`` entry-point group.

Mistakes fail loudly: a public method named like an event that does not exist
(``on_tool_result``) is an error naming the closest event; a second plugin of one name on a
bus is an error; a setup that raises leaves nothing behind (handlers, middleware, blinker
receivers, nested plugins); two installed distributions that claim one entry-point name are
an error naming both, and neither is loaded.

The helpers a plugin distribution builds on are public here too, so that no plugin reaches
into the core's private modules: ``PluginSettings`` (its options), ``LoopClients`` (one
asyncio client per running event loop), ``ExportRedaction`` (what an exporter of events
redacts) and ``serialize_result`` (the text a tool message carries for a tool's result); an
approval source (the ``agenthooks.approvals`` entry points) answers with ``Approval`` and
fails with ``ApprovalError``; ``Decision`` (``Approve | Deny``) is an answer to a paused call.
"""

from ..approvals import Approval, ApprovalError
from ..decisions import Decision
from ..loop_clients import LoopClients
from ..redaction import ExportRedaction
from ..tools import serialize_result
from .installing import PluginInfo, install
from .loader import (
    DISABLE_ENV,
    ENTRY_POINT_GROUP,
    PluginConflictError,
    PluginError,
    disabled_names,
    entry_points,
    load_entry_point_plugins,
)
from .methods import hook, looks_like_event, plugin_name
from .needs import MissingEventError, Need, needs_of
from .settings import CommaList, PluginOptionError, PluginSettings

__all__ = [
    "DISABLE_ENV",
    "ENTRY_POINT_GROUP",
    "Approval",
    "ApprovalError",
    "CommaList",
    "Decision",
    "ExportRedaction",
    "LoopClients",
    "MissingEventError",
    "Need",
    "PluginConflictError",
    "PluginError",
    "PluginInfo",
    "PluginOptionError",
    "PluginSettings",
    "disabled_names",
    "entry_points",
    "hook",
    "install",
    "load_entry_point_plugins",
    "looks_like_event",
    "needs_of",
    "plugin_name",
    "serialize_result",
]
