"""``run_streamed``: the same hooks as ``run``, plus the stream events, and the same result."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agenthooks_openai_agents import AgentHooksRunner
from agents import Runner, function_tool
from agents.testing import assistant_message, function_call
from openai_agents_helpers import USER, Recorder, scripted_agent, tool_outputs

from agenthooks import AgentResponse, Ask, Deny, HookBus, ProviderResponse
from agenthooks.bridges import RunDenied

STREAM = {"on_stream_start", "on_stream_chunk", "on_stream_end"}


async def consume(result: Any) -> list[Any]:
    return [event async for event in result.stream_events()]


async def test_a_streamed_run_fires_what_run_fires_plus_the_stream_events(bus: HookBus) -> None:
    streamed = Recorder(bus)
    agent, model = scripted_agent()
    result = AgentHooksRunner(bus).run_streamed(agent, USER)
    await consume(result)

    plain_bus = HookBus()
    plain = Recorder(plain_bus)
    await AgentHooksRunner(plain_bus).run(scripted_agent()[0], USER)

    assert result.final_output == "done"
    names = [n for n in streamed.names if n not in STREAM]
    assert sorted(names) == sorted(plain.names)
    assert names[:8] == plain.names[:8] and names[-8:] == plain.names[-8:]
    assert tool_outputs(model, 1) == {
        "call_1": "deleted /tmp/a.txt",
        "call_2": "contents of /tmp/b.txt",
    }
    chunks = streamed.of("on_stream_chunk")
    assert [c.delta for c in chunks] == ["done"]
    assert chunks[-1].accumulated == "done"
    assert streamed.of("on_stream_end")[-1].response.content == "done"
    assert streamed.names[-1] == "on_chat_end"


async def test_the_stream_events_match_the_sdk_without_the_bridge(bus: HookBus) -> None:
    agent, _ = scripted_agent()
    plain_agent, _ = scripted_agent()

    bridged = await consume(AgentHooksRunner(bus).run_streamed(agent, USER))
    unbridged = await consume(Runner.run_streamed(plain_agent, USER))

    assert [e.type for e in bridged] == [e.type for e in unbridged]


async def test_a_streamed_short_circuit_and_answer_rewrite(bus: HookBus) -> None:
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="cached")})
    bus.on(
        "post_agent",
        lambda ctx: {"response": ctx.response.model_copy(update={"content": "CACHED"})},
    )
    agent, model = scripted_agent([[assistant_message("never")]])

    result = AgentHooksRunner(bus).run_streamed(agent, USER)
    await consume(result)

    assert result.final_output == "CACHED"
    assert model.calls == ()


async def test_a_denied_streamed_start_raises_run_denied_from_the_stream(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.on("on_chat_start", lambda ctx: Deny("Closed."))
    agent, model = scripted_agent()

    result = AgentHooksRunner(bus).run_streamed(agent, USER)
    with pytest.raises(RunDenied) as caught:
        await consume(result)

    assert caught.value.reason == "Closed."
    assert model.calls == ()
    assert recorder.names == ["on_chat_start", "on_chat_error", "on_chat_end"]


async def test_a_streamed_user_message_rewrite_reaches_the_model(bus: HookBus) -> None:
    bus.on("on_user_message", lambda ctx: {"message": "Read /tmp/b.txt only"})
    agent, model = scripted_agent()

    await consume(AgentHooksRunner(bus).run_streamed(agent, USER))

    assert list(model.calls[0].input) == [{"role": "user", "content": "Read /tmp/b.txt only"}]


async def test_a_cancelled_streamed_run_ends_with_on_chat_abort(
    bus: HookBus, recorder: Recorder
) -> None:
    started = asyncio.Event()

    @function_tool
    async def slow(path: str) -> str:
        """Wait."""
        started.set()
        await asyncio.sleep(60)
        return "never"

    agent, _ = scripted_agent(
        [[function_call("slow", {"path": "/"}, call_id="c1")], [assistant_message("x")]],
        tools=[slow],
    )
    result = AgentHooksRunner(bus).run_streamed(agent, "wait")
    consumer = asyncio.ensure_future(consume(result))
    await started.wait()

    result.cancel()
    await consumer

    assert recorder.names[-2:] == ["on_chat_abort", "on_chat_end"]
    assert "on_chat_done" not in recorder.names


async def test_a_streamed_pre_agent_answer_skips_the_model(bus: HookBus) -> None:
    bus.on("pre_agent", lambda ctx: {"response": AgentResponse(content="prepared")})
    agent, model = scripted_agent()

    result = AgentHooksRunner(bus).run_streamed(agent, USER)
    await consume(result)

    assert result.final_output == "prepared"
    assert model.calls == ()


async def test_a_streamed_ask_pauses_through_the_sdks_approvals(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.on("pre_tool_call", lambda ctx: Ask("human?"), match="delete_file")
    agent, _ = scripted_agent()

    result = AgentHooksRunner(bus).run_streamed(agent, USER)
    await consume(result)

    assert [item.name for item in result.interruptions] == ["delete_file"]
    assert recorder.names[-2:] == ["on_chat_paused", "on_chat_end"]
    assert recorder.of("on_chat_paused")[0].response.pending[0].reason == "human?"
