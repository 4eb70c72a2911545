"""Redact a tool's result before the model sees it (and before it is stored in history).

Seed 000: ``onToolCallResult`` replacing the result of ``list_users`` with
``redactEmails(ctx.result)``.

Output:
    the model read: [{"name": "Ada", "email": "a***@example.com"}, {"name": "Linus", "email": "l***@example.org"}]
"""

import asyncio
import re
from typing import Any

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import ToolResultContext


@tool
def list_users() -> list[dict[str, str]]:
    """Every user with their email address."""
    return [
        {"name": "Ada", "email": "ada@example.com"},
        {"name": "Linus", "email": "linus@example.org"},
    ]


def redact_emails(value: Any) -> Any:
    if isinstance(value, str):
        return re.sub(r"\b(\w)[\w.+-]*@", r"\1***@", value)
    if isinstance(value, list):
        return [redact_emails(item) for item in value]
    if isinstance(value, dict):
        return {k: redact_emails(v) for k, v in value.items()}
    return value


def redact(ctx: ToolResultContext) -> dict[str, object]:
    return {"result": redact_emails(ctx.result)}


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="c1", name="list_users")]),
            "Two users.",
        ]
    )
    agent = Agent("admin", provider=model, tools=[list_users])
    agent.on("on_tool_call_result", redact, match="list_users")
    await agent.chat("Who are the users?")
    print("the model read:", model.requests[1].messages[-1].content)


if __name__ == "__main__":
    asyncio.run(main())
