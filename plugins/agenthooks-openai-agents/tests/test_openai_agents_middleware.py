"""The bus's middleware wraps the SDK's model and tool calls, inside the hook layer."""

from __future__ import annotations

from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agenthooks_retry import RetryMiddleware
from agents import function_tool
from agents.testing import assistant_message, function_call
from openai_agents_helpers import USER, Recorder, read_file, scripted_agent, tool_outputs

from agenthooks import HookBus, Middleware
from agenthooks.events import PreToolCallContext


async def no_wait(_: float) -> None:
    return None


async def test_retry_middleware_retries_the_sdks_model_inside_the_hook_layer(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.use(RetryMiddleware(attempts=3, sleep=no_wait))
    agent, model = scripted_agent([ConnectionError("blip"), [assistant_message("ok")]])

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert result.final_output == "ok"
    assert len(model.calls) == 2  # the SDK's model, called twice
    assert len(recorder.of("pre_request")) == 1  # one turn for the hooks
    assert recorder.of("on_model_error") == []


async def test_tool_middleware_wraps_the_tool_body_with_the_hooks_outside(bus: HookBus) -> None:
    order: list[str] = []

    class Around(Middleware):
        stacks = ("tool",)

        async def wrap(self, ctx: PreToolCallContext, call_next: Any) -> Any:
            order.append(f"before {ctx.call.name}")
            result = await call_next(ctx)
            order.append(f"after {ctx.call.name}")
            return f"[{result}]"

    @function_tool
    def stamp(path: str) -> str:
        """Stamp a file."""
        order.append("body")
        return f"stamped {path}"

    bus.use(Around())
    bus.on("pre_tool_call", lambda ctx: order.append("pre_tool_call"))
    bus.on("on_tool_call_result", lambda ctx: order.append(f"result {ctx.result}"))
    agent, model = scripted_agent(
        [[function_call("stamp", {"path": "/a"}, call_id="c1")], [assistant_message("ok")]],
        tools=[stamp, read_file],
    )

    await AgentHooksRunner(bus).run(agent, "stamp /a")

    assert order == [
        "pre_tool_call",
        "before stamp",
        "body",
        "after stamp",
        "result [stamped /a]",
    ]
    assert tool_outputs(model, 1) == {"c1": "[stamped /a]"}
