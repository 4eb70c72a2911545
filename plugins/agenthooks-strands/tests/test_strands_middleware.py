"""The bus's middleware stacks wrap Strands' model and tool calls, inside the hook layer: a
retry around the model, a cache before it, a tool middleware around the tool body."""

from __future__ import annotations

from typing import Any

from strands_helpers import RAN, USER, build, tool_results

from agenthooks import HookBus, Middleware, ProviderResponse


class Retry(Middleware):
    stacks = ("provider",)

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def wrap(self, ctx: Any, call_next: Any) -> Any:
        for attempt in range(3):
            try:
                return await call_next(ctx)
            except ConnectionError:
                self.log.append(f"retry {attempt}")
        raise ConnectionError("gave up")


async def test_a_retry_middleware_wraps_the_strands_model(make, bus: HookBus) -> None:
    log: list[str] = []
    bus.use(Retry(log))
    errors: list[Any] = []
    bus.on("on_model_error", lambda ctx: errors.append(ctx.error))
    bus.on("pre_request", lambda ctx: log.append("pre_request"))
    bus.on("on_response", lambda ctx: log.append("on_response"))
    agent, model = make([ConnectionError("blip"), "recovered"])

    result = await agent.invoke_async("hi")

    assert str(result).strip() == "recovered"
    assert len(model.requests) == 2  # Strands' model was called again, inside the hook layer
    assert log == ["pre_request", "retry 0", "on_response"]
    assert errors == []  # on_model_error hears only what the retry gave up on


class Cache(Middleware):
    stacks = ("provider", "tool")

    def before(self, ctx: Any) -> Any:
        if hasattr(ctx, "request"):
            return ProviderResponse(content="cached answer")
        return "cached result" if ctx.call.name == "read_file" else None


async def test_a_cache_middleware_short_circuits_model_and_tool(make, bus: HookBus) -> None:
    seen: list[Any] = []
    bus.use(Cache())
    bus.on("on_response", lambda ctx: seen.append(ctx.response.content))
    agent, model = make([])

    result = await agent.invoke_async("hi")

    assert model.requests == [] and str(result).strip() == "cached answer"
    assert seen == ["cached answer"]  # the hook layer sits outside the middleware

    class ToolsOnly(Cache):
        stacks = ("tool",)

    tools_bus = HookBus()
    tools_bus.use(ToolsOnly())
    agent, model = build(tools_bus)
    await agent.invoke_async(USER)
    assert RAN == [("delete_file", "/tmp/a.txt")]
    assert tool_results(model)["call_2"] == ("success", "cached result")
