"""agenthooks on Pydantic AI: one HookBus, its hooks and its plugins, enforced on
``Agent(model, capabilities=[AgentHooksCapability(bus)])``."""

from .approvals import ASK_REASON, resume_results
from .capabilities import CAPABILITIES
from .capability import AgentHooksCapability

__all__ = ["ASK_REASON", "CAPABILITIES", "AgentHooksCapability", "resume_results"]
