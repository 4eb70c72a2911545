"""Allow or deny a tool call from the caller's context: only admins may delete users.

Seed 004 (deny-tool.ts): ``beforeToolCall`` returning ``{ decision: "deny", reason: "Admin
access required" }`` for ``delete_user`` unless ``context.isAdmin``; without a reason the
default text is ``Tool call "delete_user" was denied``; ``{ decision: "allow" }`` is the same
as returning nothing. The caller's context travels in a ``contextvars.ContextVar``: hooks run
in the task that called ``chat()``, so they see what the caller set.

Output:
    guest: Admin access required (error: True)
    guest, no reason given: Tool call "delete_user" was denied (error: True)
    admin: deleted user 42 (error: False)
"""

import asyncio
from contextvars import ContextVar

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext

is_admin: ContextVar[bool] = ContextVar("is_admin", default=False)
give_reason: ContextVar[bool] = ContextVar("give_reason", default=True)


@tool
def delete_user(user_id: int) -> str:
    """Delete a user."""
    return f"deleted user {user_id}"


def admins_only(ctx: PreToolCallContext) -> Deny | None:
    if ctx.call.name == "delete_user" and not is_admin.get():
        return Deny("Admin access required") if give_reason.get() else Deny()
    return None  # "allow"


async def ask(admin: bool, reason: bool = True) -> str:
    is_admin.set(admin)
    give_reason.set(reason)
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="delete_user", arguments={"user_id": 42})]
            ),
            "Done.",
        ]
    )
    agent = Agent("admin-console", provider=model, tools=[delete_user])
    agent.on("beforeToolCall", admins_only)
    response = await agent.chat("Delete user 42")
    message = response.messages[2]
    return f"{message.content} (error: {message.is_error})"


async def main() -> None:
    print("guest:", await ask(admin=False))
    print("guest, no reason given:", await ask(admin=False, reason=False))
    print("admin:", await ask(admin=True))


if __name__ == "__main__":
    asyncio.run(main())
