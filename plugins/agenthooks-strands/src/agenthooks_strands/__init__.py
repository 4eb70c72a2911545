"""agenthooks bridge for Strands Agents: one HookBus, its hooks and its plugins, enforced on a
Strands agent (``Agent(model=..., tools=..., plugins=[AgentHooksPlugin(bus)])``)."""

from .capabilities import CAPABILITIES
from .plugin import APPROVAL, AgentHooksPlugin

__all__ = ["APPROVAL", "CAPABILITIES", "AgentHooksPlugin"]
