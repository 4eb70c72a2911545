"""Watch tool scopes come and go (outside any chat).

Seed 000: ``onScopeRegister`` and ``onScopeUnregister`` logging the scope's name.

Output:
    scope active: admin ['reset_password']
    tools offered: ['search', 'reset_password']
    scope removed: admin
    tools offered: ['search']
"""

import asyncio

from agenthooks import Agent, Scope, ScriptedProvider, tool
from agenthooks.events import ScopeContext


@tool
def search(query: str) -> str:
    """Search the docs."""
    return "..."


@tool
def reset_password(user: str) -> str:
    """Reset a user's password."""
    return "done"


def registered(ctx: ScopeContext) -> None:
    assert ctx.scope is not None
    print("scope active:", ctx.scope.name, list(ctx.scope.tools))


def unregistered(ctx: ScopeContext) -> None:
    assert ctx.scope is not None
    print("scope removed:", ctx.scope.name)


async def main() -> None:
    agent = Agent("helpdesk", provider=ScriptedProvider([]), tools=[search])
    agent.on("on_scope_register", registered)
    agent.on("on_scope_unregister", unregistered)

    await agent.scopes.register(Scope("admin", [reset_password]))
    print("tools offered:", agent.scopes.names())
    await agent.scopes.unregister("admin")
    print("tools offered:", agent.scopes.names())


if __name__ == "__main__":
    asyncio.run(main())
