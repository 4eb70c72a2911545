"""Refuse a tool the recoverable way (a returned error) rather than by raising.

Seed 000: a ``preToolCall`` permission check returning ``{ error }`` lands a tool message and
the loop continues; the same check throwing terminates the chat, fires ``onChatError`` and
reaches the caller.

Output:
    returned {"error": ...}: the model read 'Not permitted' and answered: Sorry, I may not do that.
    raised PermissionError: the chat ended; on_chat_error saw PermissionError; the caller caught: Not permitted
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import ChatErrorContext, PreToolCallContext

ALLOWED: set[str] = {"read_report"}


@tool
def drop_table(name: str) -> str:
    """Drop a database table."""
    return f"dropped {name}"


def script() -> ScriptedProvider:
    return ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="drop_table", arguments={"name": "users"})]
            ),
            "Sorry, I may not do that.",
        ]
    )


def check_by_returning(ctx: PreToolCallContext) -> dict[str, object] | None:
    if ctx.call.name not in ALLOWED:
        return {"error": PermissionError("Not permitted")}  # the model reads it; the run goes on
    return None


def check_by_raising(ctx: PreToolCallContext) -> None:
    if ctx.call.name not in ALLOWED:
        raise PermissionError("Not permitted")  # ends the chat: for unrecoverable conditions


async def main() -> None:
    model = script()
    polite = Agent("polite", provider=model, tools=[drop_table])
    polite.on("pre_tool_call", check_by_returning)
    response = await polite.chat("Drop the users table")
    seen = model.requests[1].messages[-1].content
    print(f'returned {{"error": ...}}: the model read {seen!r} and answered: {response.content}')

    strict = Agent("strict", provider=script(), tools=[drop_table])
    strict.on("pre_tool_call", check_by_raising)
    errors: list[str] = []

    def on_error(ctx: ChatErrorContext) -> None:
        errors.append(type(ctx.error).__name__)

    strict.on("on_chat_error", on_error)
    try:
        await strict.chat("Drop the users table")
    except PermissionError as exc:
        print(
            f"raised PermissionError: the chat ended; on_chat_error saw {errors[0]}; "
            f"the caller caught: {exc}"
        )


if __name__ == "__main__":
    asyncio.run(main())
