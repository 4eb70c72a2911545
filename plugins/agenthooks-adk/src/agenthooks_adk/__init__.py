"""agenthooks on Google ADK agents: ``App(..., plugins=[AgentHooksPlugin(bus)])`` reports
every run to a ``HookBus`` (its hooks, guards, middleware and plugins) and carries out what
its handlers return."""

from .capabilities import CAPABILITIES
from .plugin import AgentHooksPlugin

__all__ = ["CAPABILITIES", "AgentHooksPlugin"]
