"""The hook layer around Pydantic AI's tool calls: what a guard judges, rewrites,
short-circuits, denials, error recovery, the bus's tool middleware, and parallel calls whose
handlers never overlap."""

from __future__ import annotations

import asyncio
from typing import Any

from agenthooks_pydantic_ai import AgentHooksCapability
from pydantic_ai import Agent, ModelRetry
from pydantic_ai_script import Script, tool_returns

from agenthooks import Deny, HookBus, Middleware, ToolCall
from agenthooks.testing import HookRecorder


def counter_agent(script: Script, bus: HookBus) -> tuple[Agent[None, str], list[Any]]:
    ran: list[Any] = []
    agent: Agent[None, str] = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    @agent.tool_plain
    def configure(enabled: bool, count: int) -> str:
        """Configure the counter."""
        ran.append((enabled, count))
        return f"enabled={enabled} count={count}"

    return agent, ran


def configure_script(arguments: dict[str, Any]) -> Script:
    return Script([("configure", arguments, "call_1")], "ok")


async def test_a_guard_judges_the_arguments_the_tool_will_get() -> None:
    bus = HookBus()
    recorder = HookRecorder()
    recorder.attach(bus)
    agent, ran = counter_agent(configure_script({"enabled": "true", "count": "3"}), bus)

    await agent.run("configure it")

    ctx = recorder.of("pre_tool_call")[0]
    assert ctx.call == ToolCall(
        id="call_1", name="configure", arguments={"enabled": True, "count": 3}
    )
    assert ctx.tool.parameters["properties"]["enabled"] == {"type": "boolean"}
    assert ran == [(True, 3)]


async def test_rewritten_arguments_are_validated_again_and_run() -> None:
    bus = HookBus()
    bus.on(
        "pre_tool_call",
        lambda ctx: {
            "call": ctx.call.model_copy(update={"arguments": {**ctx.call.arguments, "count": "7"}})
        },
    )
    script = configure_script({"enabled": True, "count": 3})
    agent, ran = counter_agent(script, bus)

    result = await agent.run("configure it")

    assert ran == [(True, 7)]
    assert tool_returns(result.all_messages()) == [("call_1", "enabled=True count=7", "success")]


async def test_invalid_rewritten_arguments_never_run_and_the_model_reads_why() -> None:
    bus = HookBus()
    bus.on(
        "pre_tool_call",
        lambda ctx: {
            "call": ctx.call.model_copy(update={"arguments": {"enabled": True, "count": "many"}})
        },
    )
    script = configure_script({"enabled": True, "count": 3})
    agent, ran = counter_agent(script, bus)

    result = await agent.run("configure it")

    assert ran == []
    [(call_id, content, outcome)] = tool_returns(result.all_messages())
    assert (call_id, outcome) == ("call_1", "failed")
    assert "count" in content and "invalid arguments for tool 'configure'" in content


async def test_a_result_short_circuit_skips_the_tool() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: {"result": "from the cache"})
    agent, ran = counter_agent(configure_script({"enabled": True, "count": 1}), bus)

    result = await agent.run("configure it")

    assert ran == []
    assert tool_returns(result.all_messages()) == [("call_1", "from the cache", "success")]


async def test_deny_skips_the_tool_and_the_model_reads_the_reason() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Deny("Counters are read-only."))
    recorder = HookRecorder()
    recorder.attach(bus)
    script = configure_script({"enabled": True, "count": 1})
    agent, ran = counter_agent(script, bus)

    result = await agent.run("configure it")

    assert ran == []
    assert tool_returns(result.all_messages()) == [("call_1", "Counters are read-only.", "denied")]
    assert tool_returns(script.requests[1]) == [("call_1", "Counters are read-only.", "denied")]
    assert [ctx.message.content for ctx in recorder.of("on_message")][2] == (
        "Counters are read-only."
    )


async def test_an_error_return_is_what_the_model_reads_as_a_failed_call() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: {"error": "the counter service is down"})
    agent, ran = counter_agent(configure_script({"enabled": True, "count": 1}), bus)

    result = await agent.run("configure it")

    assert ran == []
    assert tool_returns(result.all_messages()) == [
        ("call_1", "the counter service is down", "failed")
    ]


async def test_a_rewritten_result_is_what_the_model_reads() -> None:
    bus = HookBus()
    bus.on("on_tool_call_result", lambda ctx: {"result": ctx.result.replace("count=1", "count=*")})
    script = configure_script({"enabled": True, "count": 1})
    agent, ran = counter_agent(script, bus)

    await agent.run("configure it")

    assert ran == [(True, 1)]
    assert tool_returns(script.requests[1]) == [("call_1", "enabled=True count=*", "success")]


async def test_on_tool_call_error_sees_the_exception_type_and_recovers() -> None:
    bus = HookBus()
    seen: list[BaseException] = []

    def recover(ctx: Any) -> dict[str, Any]:
        seen.append(ctx.error)
        return {"result": f"recovered from {type(ctx.error).__name__}"}

    bus.on("on_tool_call_error", recover)
    script = Script([("read", {"path": "/nope"}, "call_1")], "ok")
    agent: Agent[None, str] = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    @agent.tool_plain
    def read(path: str) -> str:
        raise FileNotFoundError(path)

    result = await agent.run("read it")

    assert result.output == "ok"
    assert [type(e) for e in seen] == [FileNotFoundError] and str(seen[0]) == "/nope"
    assert tool_returns(script.requests[1]) == [
        ("call_1", "recovered from FileNotFoundError", "success")
    ]


async def test_a_model_retry_is_seen_as_raised_and_reaches_the_model_as_a_retry() -> None:
    bus = HookBus()
    seen: list[BaseException] = []
    bus.on("on_tool_call_error", lambda ctx: seen.append(ctx.error))
    script = Script([("read", {"path": "/x"}, "call_1")], "ok")
    agent: Agent[None, str] = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    @agent.tool_plain(retries=2)
    def read(path: str) -> str:
        raise ModelRetry("use an absolute path under /data")

    await agent.run("read it")

    assert [type(e) for e in seen] == [ModelRetry]
    [(call_id, content, outcome)] = tool_returns(script.requests[1])
    assert (call_id, outcome) == ("call_1", "retried")
    assert "use an absolute path under /data" in str(content)


async def test_the_bus_tool_middleware_runs_inside_the_hook_layer() -> None:
    order: list[str] = []

    class Trace(Middleware):
        stacks = ("tool",)

        async def wrap(self, ctx: Any, call_next: Any) -> Any:
            order.append("middleware before")
            result = await call_next(ctx)
            order.append("middleware after")
            return result

    bus = HookBus()
    bus.use(Trace())
    bus.on("pre_tool_call", lambda ctx: order.append("pre_tool_call"))
    bus.on("on_tool_call_result", lambda ctx: order.append("on_tool_call_result"))
    script = Script([("configure", {"enabled": True, "count": 1}, "call_1")], "ok")
    agent: Agent[None, str] = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    @agent.tool_plain
    def configure(enabled: bool, count: int) -> str:
        order.append("tool")
        return "configured"

    await agent.run("go")

    assert order == [
        "pre_tool_call",
        "middleware before",
        "tool",
        "middleware after",
        "on_tool_call_result",
    ]


async def test_parallel_tool_calls_run_together_while_their_handlers_never_overlap() -> None:
    bus = HookBus()
    active = 0
    most = 0
    bodies_running = 0
    most_bodies = 0

    async def handler(ctx: Any) -> None:
        nonlocal active, most
        active += 1
        most = max(most, active)
        await asyncio.sleep(0.01)  # a handler that yields: another may not start meanwhile
        active -= 1

    for event in ("pre_tool_call", "on_tool_call_result", "on_message"):
        bus.on(event, handler)
    script = Script([("slow", {"n": n}, f"call_{n}") for n in range(4)], "ok")
    agent: Agent[None, str] = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    @agent.tool_plain
    async def slow(n: int) -> str:
        nonlocal bodies_running, most_bodies
        bodies_running += 1
        most_bodies = max(most_bodies, bodies_running)
        await asyncio.sleep(0.05)
        bodies_running -= 1
        return f"slow {n}"

    result = await agent.run("go")

    assert result.output == "ok"
    assert most == 1
    assert most_bodies > 1  # Pydantic AI did run the tool bodies concurrently
    assert sorted(tool_returns(result.all_messages())) == [
        (f"call_{n}", f"slow {n}", "success") for n in range(4)
    ]


async def test_a_call_pydantic_ai_answers_itself_still_gets_its_tool_message() -> None:
    bus = HookBus()
    recorder = HookRecorder()
    recorder.attach(bus)
    script = Script(
        [("configure", {"enabled": True}, "call_1")],  # count is missing: Pydantic AI retries
        [("configure", {"enabled": True, "count": 2}, "call_2")],
        "ok",
    )
    agent, ran = counter_agent(script, bus)

    await agent.run("configure it")

    assert ran == [(True, 2)]
    assert [c.call.id for c in recorder.of("pre_tool_call")] == ["call_2"]
    tool_messages = [c.message for c in recorder.of("on_message") if c.message.role == "tool"]
    assert [(m.tool_call_id, m.is_error) for m in tool_messages] == [
        ("call_1", True),
        ("call_2", False),
    ]
    assert "count" in (tool_messages[0].content or "")
