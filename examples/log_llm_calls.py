"""Log every LLM call and response: messages sent, tool calls planned, tokens used.

Seed 001: ``LlmCall`` before each request, ``LlmResponse`` with the input/output tokens,
``ThinkEnd`` with the reasoning and the tool calls planned. Seed 004: ``onLlmStart`` with the
number of messages and ``onLlmEnd`` with the number of tool calls. All of them are aliases of
``pre_request`` and ``on_response``.

Output:
    LLM call for researcher with 1 messages (tools offered: lookup)
    LLM responded: 1 tool calls
    Input tokens: 40
    Output tokens: 8
    Reasoning: I should look this up first.
    Tool calls planned: 1
    LLM call for researcher with 3 messages (tools offered: lookup)
    LLM responded: 0 tool calls
    Input tokens: 60
    Output tokens: 12
    Reasoning: Hooks are lifecycle callbacks.
    Tool calls planned: 0
"""

import asyncio

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, Usage, tool
from agenthooks.events import PreRequestContext, ResponseContext

bus = HookBus()


@tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


@bus.on("onLlmStart")  # seed 004; LlmCall (001) is the same event
def llm_start(ctx: PreRequestContext) -> None:
    offered = ", ".join(t["function"]["name"] for t in ctx.request.tools)
    print(
        f"LLM call for {ctx.agent} with {len(ctx.request.messages)} messages "
        f"(tools offered: {offered})"
    )


@bus.on("onLlmEnd")  # seed 004
def llm_end(ctx: ResponseContext) -> None:
    print(f"LLM responded: {len(ctx.response.tool_calls)} tool calls")


@bus.on("LlmResponse")  # seed 001
def llm_response(ctx: ResponseContext) -> None:
    print(f"Input tokens: {ctx.response.usage.input_tokens}")
    print(f"Output tokens: {ctx.response.usage.output_tokens}")


@bus.on("ThinkEnd")  # seed 001
def think_end(ctx: ResponseContext) -> None:
    print(f"Reasoning: {ctx.response.content}")
    print(f"Tool calls planned: {len(ctx.response.tool_calls)}")


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                content="I should look this up first.",
                tool_calls=[ToolCall(id="c1", name="lookup", arguments={"topic": "hooks"})],
                usage=Usage(input_tokens=40, output_tokens=8, total_tokens=48),
            ),
            ProviderResponse(
                content="Hooks are lifecycle callbacks.",
                usage=Usage(input_tokens=60, output_tokens=12, total_tokens=72),
            ),
        ]
    )
    agent = Agent("researcher", provider=model, tools=[lookup], bus=bus)
    await agent.chat("What are hooks?")


if __name__ == "__main__":
    asyncio.run(main())
