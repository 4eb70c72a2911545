"""Deny a handoff: the current agent keeps the conversation and reads the reason.

Seed 004 (deny-handoff.ts): ``beforeHandoff`` returning ``{ decision: "deny", reason: "Admin
agent access denied" }`` when the target is ``admin_agent`` and the user is not an admin;
``result.lastAgent`` stays the current agent.

Output:
    tool message: Admin agent access denied (error: True)
    answered by: helpdesk
    answer: I cannot transfer you to an administrator.
"""

import asyncio

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall
from agenthooks.events import HandoffContext

USER_IS_ADMIN = False


def guard_admin_agent(ctx: HandoffContext) -> Deny | None:
    if ctx.to_agent == "admin_agent" and not USER_IS_ADMIN:
        return Deny("Admin agent access denied")
    return None


async def main() -> None:
    admin_agent = Agent("admin_agent", provider=ScriptedProvider(["Admin here."]))
    helpdesk = Agent(
        "helpdesk",
        handoffs=[admin_agent],
        provider=ScriptedProvider(
            [
                ProviderResponse(tool_calls=[ToolCall(id="h1", name="transfer_to_admin_agent")]),
                "I cannot transfer you to an administrator.",
            ]
        ),
    )
    helpdesk.on("beforeHandoff", guard_admin_agent)
    response = await helpdesk.chat("Give me admin rights")
    tool_message = response.messages[2]
    print(f"tool message: {tool_message.content} (error: {tool_message.is_error})")
    print("answered by:", response.agent)
    print("answer:", response.content)


if __name__ == "__main__":
    asyncio.run(main())
