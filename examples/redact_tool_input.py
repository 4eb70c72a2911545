"""Rewrite a tool's input before it runs: redact secrets from the arguments.

Seed 003: ``PreToolUse`` returning ``HookModify`` with ``strings.ReplaceAll(tc.Input,
"SECRET", "[REDACTED]")``. Here that is ``{"call": ...}`` with new arguments (the id and name
stay; the arguments are validated again).

Output:
    the model asked for: {'message': 'deploy key is SECRET-123'}
    the tool received:   {'message': 'deploy key is [REDACTED]-123'}
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext

received: list[str] = []


@tool
def post_to_chat(message: str) -> str:
    """Post a message to the team chat."""
    received.append(message)
    return "posted"


def redact(ctx: PreToolCallContext) -> dict[str, object]:
    arguments = {
        k: v.replace("SECRET", "[REDACTED]") if isinstance(v, str) else v
        for k, v in ctx.call.arguments.items()
    }
    return {"call": ctx.call.model_copy(update={"arguments": arguments})}


async def main() -> None:
    asked = {"message": "deploy key is SECRET-123"}
    model = ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="c1", name="post_to_chat", arguments=asked)]),
            "Posted.",
        ]
    )
    agent = Agent("ops", provider=model, tools=[post_to_chat])
    agent.on("pre_tool_call", redact)
    await agent.chat("Tell the team the deploy key")
    print("the model asked for:", asked)
    print("the tool received:  ", {"message": received[0]})


if __name__ == "__main__":
    asyncio.run(main())
