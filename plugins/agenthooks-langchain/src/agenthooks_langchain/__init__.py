"""agenthooks for LangChain: one ``HookBus``, its hooks and plugins, enforced on agents built
with ``langchain.agents.create_agent`` through a LangChain v1 middleware.

```python
agent = create_agent(model, tools, middleware=[AgentHooksMiddleware(bus)])
```
"""

from .approval import resume_command
from .capabilities import CAPABILITIES
from .middleware import AgentHooksMiddleware, AgentHooksState

__all__ = ["CAPABILITIES", "AgentHooksMiddleware", "AgentHooksState", "resume_command"]
