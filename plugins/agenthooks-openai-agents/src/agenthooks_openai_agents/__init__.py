"""agenthooks on the OpenAI Agents SDK: ``AgentHooksRunner(bus)`` runs Agents SDK agents with
a ``HookBus``'s hooks, guards, middleware and plugins.

```python
runner = AgentHooksRunner(bus)
result = await runner.run(agent, "hello")
```
"""

from .capabilities import CAPABILITIES
from .runner import AgentHooksRunner

__all__ = ["CAPABILITIES", "AgentHooksRunner"]
