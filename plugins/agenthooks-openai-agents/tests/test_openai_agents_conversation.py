"""The scripted conversation every bridge runs: the same hooks see the same values."""

from __future__ import annotations

from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent, RunConfig, RunHooks
from agents.testing import ScriptedModel, assistant_message
from openai_agents_helpers import USER, Recorder, scripted_agent, tool_outputs

from agenthooks import HookBus
from agenthooks.messages import ChatMessage, ToolCall

BEFORE_BATCH = [
    "on_chat_start",
    "on_user_message",
    "on_message",
    "pre_agent",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_response",
    "on_message",
]
# within the parallel batch the order follows the SDK's scheduling (sync tools run in worker
# threads): each call's own events keep their order
PER_CALL = ["pre_tool_call", "on_tool_call_result", "on_message"]
AFTER_BATCH = [
    "on_loop_end",
    "prepare_next_turn",
    "should_stop",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_response",
    "on_loop_end",  # the answer's turn ends before post_agent, as on our runtime
    "post_agent",
    "on_message",
    "on_chat_done",
    "on_chat_end",
]


async def test_the_conversation_fires_the_events_in_order(bus: HookBus, recorder: Recorder) -> None:
    agent, model = scripted_agent()

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert result.final_output == "done"
    names = recorder.names
    batch = len(BEFORE_BATCH), len(BEFORE_BATCH) + 2 * len(PER_CALL)
    assert names[: batch[0]] == BEFORE_BATCH
    assert names[batch[1] :] == AFTER_BATCH
    for call_id in ("call_1", "call_2"):
        mine = [name for name, ctx in recorder.seen[batch[0] : batch[1]] if _of_call(ctx, call_id)]
        assert mine == PER_CALL
    run_ids = {ctx.run_id for _, ctx in recorder.seen}
    assert len(run_ids) == 1
    assert {ctx.agent for _, ctx in recorder.seen} == {"assistant"}
    assert tool_outputs(model, 1) == {
        "call_1": "deleted /tmp/a.txt",
        "call_2": "contents of /tmp/b.txt",
    }


def _of_call(ctx: object, call_id: str) -> bool:
    call = getattr(ctx, "call", None)
    if call is not None:
        return bool(call.id == call_id)
    message = getattr(ctx, "message", None)
    return getattr(message, "tool_call_id", None) == call_id


async def test_the_hooks_see_the_conversation_values(bus: HookBus, recorder: Recorder) -> None:
    agent, _ = scripted_agent()

    await AgentHooksRunner(bus).run(agent, USER)

    start = recorder.of("on_chat_start")[0]
    assert start.message == USER
    assert start.tools == ["delete_file", "read_file"]
    first = recorder.of("pre_request")[0].request
    assert first.system == "Be brief."
    assert first.messages == [ChatMessage(role="user", content=USER)]
    assert [t["function"]["name"] for t in first.tools] == ["delete_file", "read_file"]
    response = recorder.of("on_response")[0].response
    assert response.tool_calls == [
        ToolCall(id="call_1", name="delete_file", arguments={"path": "/tmp/a.txt"}),
        ToolCall(id="call_2", name="read_file", arguments={"path": "/tmp/b.txt"}),
    ]
    calls = {ctx.call.id: ctx for ctx in recorder.of("pre_tool_call")}
    assert calls["call_1"].call == response.tool_calls[0]
    assert calls["call_1"].tool.name == "delete_file"
    assert calls["call_1"].tool.parameters["properties"]["path"]["type"] == "string"
    assert calls["call_1"].tool_call_id == "call_1"
    results = {ctx.call.id: ctx.result for ctx in recorder.of("on_tool_call_result")}
    assert results == {"call_1": "deleted /tmp/a.txt", "call_2": "contents of /tmp/b.txt"}
    second = recorder.of("pre_request")[1].request
    assert second.messages == [
        ChatMessage(role="user", content=USER),
        ChatMessage(role="assistant", tool_calls=response.tool_calls),
        ChatMessage(role="tool", content="deleted /tmp/a.txt", tool_call_id="call_1"),
        ChatMessage(role="tool", content="contents of /tmp/b.txt", tool_call_id="call_2"),
    ]
    messages = [ctx.message for ctx in recorder.of("on_message")]
    tool_messages = sorted(messages[2:4], key=lambda m: m.tool_call_id or "")
    assert [*messages[:2], *tool_messages, messages[4]] == [
        ChatMessage(role="user", content=USER),
        ChatMessage(role="assistant", tool_calls=response.tool_calls),
        ChatMessage(role="tool", content="deleted /tmp/a.txt", tool_call_id="call_1"),
        ChatMessage(role="tool", content="contents of /tmp/b.txt", tool_call_id="call_2"),
        ChatMessage(role="assistant", content="done"),
    ]
    post = recorder.of("post_agent")[0]
    assert (post.input, post.response.content) == (USER, "done")
    done = recorder.of("on_chat_done")[0].response
    assert (done.content, done.finish_reason, done.iterations, done.agent) == (
        "done",
        "stop",
        2,
        "assistant",
    )
    assert [ctx.iteration for ctx in recorder.of("on_loop_start")] == [0, 1]
    end = recorder.of("on_chat_end")[0]
    assert end.error is None and end.response == done


async def test_the_users_agent_is_not_changed(bus: HookBus, recorder: Recorder) -> None:
    agent, model = scripted_agent()
    tools = list(agent.tools)

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert agent.model is model
    assert agent.tools == tools and all(a is b for a, b in zip(agent.tools, tools))
    assert result.last_agent is not agent and result.last_agent.name == agent.name


async def test_a_run_config_model_and_the_sdks_own_hooks_keep_working(
    bus: HookBus, recorder: Recorder
) -> None:
    model = ScriptedModel([[assistant_message("from the run's model")]])
    agent = Agent(name="assistant", model="never-resolved")
    started: list[str] = []

    class Hooks(RunHooks[Any]):
        async def on_agent_start(self, context: Any, agent: Any) -> None:
            started.append(agent.name)

    result = await AgentHooksRunner(bus).run(
        agent, "hi", run_config=RunConfig(model=model), hooks=Hooks()
    )

    assert result.final_output == "from the run's model"
    assert started == ["assistant"]
    assert recorder.of("on_response")[0].response.content == "from the run's model"
    assert len(model.calls) == 1
