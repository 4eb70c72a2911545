"""agenthooks on Pydantic AI: one HookBus, its hooks and its plugins, enforced on
``Agent(model, capabilities=[AgentHooksCapability(bus)])``."""

from .capabilities import CAPABILITIES
from .capability import ASK_REASON, AgentHooksCapability, resume_results

__all__ = ["ASK_REASON", "CAPABILITIES", "AgentHooksCapability", "resume_results"]
