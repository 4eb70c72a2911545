"""What a handler returns is what the Strands agent runs: denies, rewrites, short-circuits and
recoveries, read back from what the scripted model was sent and what the tool bodies got."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_strands.testing import ScriptedModel, text, tool_calls
from strands import Agent
from strands_helpers import RAN, USER, explode, flag, read_file, sent, tool_results

from agenthooks import Deny, HookBus, ProviderResponse
from agenthooks.testing import HookRecorder


async def test_pre_tool_call_deny_the_body_never_runs_the_model_reads_the_reason(
    make, bus: HookBus
) -> None:
    bus.on("pre_tool_call", lambda ctx: Deny("Deleting files is not allowed."), match="delete_file")
    agent, model = make()

    await agent.invoke_async(USER)

    assert RAN == [("read_file", "/tmp/b.txt")]
    assert tool_results(model) == {
        "call_1": ("error", "Deleting files is not allowed."),
        "call_2": ("success", "contents of /tmp/b.txt"),
    }


async def test_pre_tool_call_sees_arguments_validated_and_coerced_by_the_tool_schema(
    make, bus: HookBus
) -> None:
    seen: list[Any] = []
    bus.on("pre_tool_call", lambda ctx: seen.append(ctx.call.arguments))
    agent, _model = make(
        [tool_calls(("c1", "flag", {"on": "true", "times": "3"})), "ok"], tools=[flag]
    )

    await agent.invoke_async("set it")

    assert seen == [{"on": True, "times": 3}]
    assert RAN == [("flag", (True, 3))]


async def test_a_call_rewrite_reaches_the_tool_body(make, bus: HookBus) -> None:
    def sandbox(ctx: Any) -> dict[str, Any]:
        return {"call": ctx.call.model_copy(update={"arguments": {"path": "/sandbox/b.txt"}})}

    bus.on("pre_tool_call", sandbox, match="read_file")
    agent, model = make()

    await agent.invoke_async(USER)

    assert ("read_file", "/sandbox/b.txt") in RAN
    assert tool_results(model)["call_2"] == ("success", "contents of /sandbox/b.txt")


async def test_a_result_short_circuit_skips_the_body(make, bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: {"result": "cached b"}, match="read_file")
    agent, model = make()

    await agent.invoke_async(USER)

    assert RAN == [("delete_file", "/tmp/a.txt")]
    assert tool_results(model)["call_2"] == ("success", "cached b")


async def test_a_result_rewrite_is_what_the_model_reads(make, bus: HookBus) -> None:
    bus.on("on_tool_call_result", lambda ctx: {"result": ctx.result.upper()}, match="read_file")
    agent, model = make()

    await agent.invoke_async(USER)

    assert tool_results(model)["call_2"] == ("success", "CONTENTS OF /TMP/B.TXT")
    assert tool_results(model)["call_1"] == ("success", "deleted /tmp/a.txt")


async def test_tool_error_hooks_see_the_exception_with_its_type_and_recover(
    make, bus: HookBus
) -> None:
    errors: list[Any] = []

    def recover(ctx: Any) -> dict[str, Any]:
        errors.append((type(ctx.error), str(ctx.error), ctx.source))
        return {"result": "no such file, carry on"}

    bus.on("on_tool_call_error", recover)
    agent, model = make([tool_calls(("c1", "explode", {"path": "/nope"})), "ok"], tools=[explode])

    await agent.invoke_async("go")

    assert errors == [(FileNotFoundError, "/nope", "handler")]
    assert tool_results(model) == {"c1": ("success", "no such file, carry on")}


async def test_an_unrecovered_tool_error_reads_as_strands_writes_it(make, bus: HookBus) -> None:
    errors: list[Any] = []
    bus.on("on_tool_call_error", lambda ctx: errors.append(type(ctx.error)))
    agent, model = make([tool_calls(("c1", "explode", {"path": "/nope"})), "ok"], tools=[explode])

    await agent.invoke_async("go")

    assert errors == [FileNotFoundError]
    assert tool_results(model) == {"c1": ("error", "Error: FileNotFoundError - /nope")}


async def test_invalid_arguments_fire_on_tool_call_error_as_validation(make, bus: HookBus) -> None:
    errors: list[Any] = []
    bus.on("on_tool_call_error", lambda ctx: errors.append((ctx.source, str(ctx.error))))
    agent, model = make([tool_calls(("c1", "flag", {"on": "maybe"})), "ok"], tools=[flag])

    await agent.invoke_async("go")

    assert RAN == []
    assert len(errors) == 1 and errors[0][0] == "validation"
    assert "on: Input should be a valid boolean" in errors[0][1]
    status, message = tool_results(model)["c1"]
    assert status == "error" and "Validation failed for input parameters" in message


async def test_pre_request_short_circuit_the_model_is_not_called(make, bus: HookBus) -> None:
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="from the cache")})
    agent, model = make([])

    result = await agent.invoke_async("hi")

    assert model.requests == []
    assert str(result).strip() == "from the cache"
    assert agent.messages[-1]["content"] == [{"text": "from the cache"}]


async def test_pre_request_rewrites_what_the_model_gets(make, bus: HookBus) -> None:
    def rewrite(ctx: Any) -> dict[str, Any]:
        request = ctx.request
        messages = [*request.messages]
        messages[-1] = messages[-1].model_copy(update={"content": "[redacted]"})
        return {"request": request.model_copy(update={"system": "Be brief.", "messages": messages})}

    bus.on("pre_request", rewrite)
    agent, model = make(["ok"], system_prompt="Be verbose.")

    await agent.invoke_async("my card is 4111")

    assert model.requests[0]["system_prompt"] == "Be brief."
    assert sent(model) == [{"role": "user", "content": [{"text": "[redacted]"}]}]
    # the stored history is the user's own message
    assert agent.messages[0]["content"] == [{"text": "my card is 4111"}]


async def test_pre_request_deny_ends_the_run_with_the_reason(make, bus: HookBus) -> None:
    recorder = HookRecorder()
    recorder.attach(bus)
    bus.on("pre_request", lambda ctx: Deny("over budget"))
    agent, model = make([])

    result = await agent.invoke_async("hi")

    assert model.requests == []
    assert str(result).strip() == "over budget"
    done = recorder.of("on_chat_done")[0].response
    assert (done.finish_reason, done.content) == ("denied", "over budget")
    assert recorder.of("post_agent") == []


async def test_on_response_rewrites_the_text_and_the_tool_calls(make, bus: HookBus) -> None:
    def rewrite(ctx: Any) -> dict[str, Any] | None:
        if ctx.response.tool_calls:
            only = [c for c in ctx.response.tool_calls if c.name == "read_file"]
            return {"response": ctx.response.model_copy(update={"tool_calls": only})}
        return {"response": ctx.response.model_copy(update={"content": "DONE"})}

    bus.on("on_response", rewrite)
    agent, model = make()

    result = await agent.invoke_async(USER)

    assert RAN == [("read_file", "/tmp/b.txt")]
    assert str(result).strip() == "DONE"
    assert sent(model, 1)[1] == tool_calls(("call_2", "read_file", {"path": "/tmp/b.txt"}))
    assert agent.messages[-1]["content"] == [{"text": "DONE"}]


async def test_on_model_error_recovers_and_the_run_goes_on(make, bus: HookBus) -> None:
    seen: list[Any] = []

    def recover(ctx: Any) -> dict[str, Any]:
        seen.append(type(ctx.error))
        return {"response": ProviderResponse(content="fallback answer")}

    bus.on("on_model_error", recover)
    agent, _model = make([ConnectionError("model down")])

    result = await agent.invoke_async("hi")

    assert seen == [ConnectionError]
    assert str(result).strip() == "fallback answer"


async def test_on_chat_start_deny_the_caller_gets_the_reason_as_the_answer(
    make, bus: HookBus
) -> None:
    recorder = HookRecorder()
    recorder.attach(bus)
    bus.on("on_chat_start", lambda ctx: Deny("closed for maintenance"))
    agent, model = make([])

    result = await agent.invoke_async("hi")

    assert model.requests == []
    assert result.stop_reason == "end_turn"
    assert str(result).strip() == "closed for maintenance"
    assert agent.messages == []  # the denied run never touched the conversation
    assert recorder.names() == ["on_chat_start", "on_chat_done", "on_chat_end"]
    assert recorder.of("on_chat_done")[0].response.finish_reason == "denied"


async def test_on_user_message_rewrite_and_deny(make, bus: HookBus) -> None:
    bus.on("on_user_message", lambda ctx: {"message": ctx.message.replace("4111", "****")})
    agent, model = make(["ok"])

    await agent.invoke_async("card 4111")

    assert sent(model) == [{"role": "user", "content": [{"text": "card ****"}]}]
    assert agent.messages[0]["content"] == [{"text": "card ****"}]


async def test_post_agent_rewrites_and_denies_the_final_answer(make, bus: HookBus) -> None:
    recorder = HookRecorder()
    recorder.attach(bus)
    bus.on(
        "post_agent",
        lambda ctx: {"response": ctx.response.model_copy(update={"content": "[redacted]"})},
    )
    agent, _ = make(["my email is ada@example.com"])

    result = await agent.invoke_async("hi")

    assert str(result).strip() == "[redacted]"
    assert agent.messages[-1]["content"] == [{"text": "[redacted]"}]
    assert recorder.of("on_chat_done")[0].response.content == "[redacted]"

    bus.on("post_agent", lambda ctx: Deny("withheld"))
    agent, _ = make(["secret"])
    result = await agent.invoke_async("hi")
    assert str(result).strip() == "withheld"
    assert all(b.get("text") != "secret" for m in agent.messages for b in m["content"])


async def test_terminate_ends_the_run_after_the_batch(make, bus: HookBus) -> None:
    recorder = HookRecorder()
    recorder.attach(bus)
    bus.on("on_tool_call_result", lambda ctx: {"terminate": True})
    agent, model = make([tool_calls(("c1", "read_file", {"path": "/x"}), say="Reading."), "never"])

    result = await agent.invoke_async("read")

    assert len(model.requests) == 1
    assert str(result).strip() == "Reading."
    done = recorder.of("on_chat_done")[0].response
    assert (done.finish_reason, done.content) == ("terminated", "Reading.")


async def test_what_the_bridge_cannot_do_raises_a_typed_error(make, bus: HookBus) -> None:
    from agenthooks.bridges import UnsupportedReturnError

    bus.on(
        "pre_request", lambda ctx: {"request": ctx.request.model_copy(update={"model": "other"})}
    )
    errors: list[Any] = []
    bus.on("on_chat_error", lambda ctx: errors.append(ctx.error))
    model_errors: list[Any] = []  # a hook's return, never the model's failure
    bus.on("on_model_error", lambda ctx: model_errors.append(ctx.error))
    agent, model = make(["ok"])

    with pytest.raises(UnsupportedReturnError) as caught:
        await agent.invoke_async("hi")
    assert model_errors == []

    assert (caught.value.event, caught.value.key, caught.value.framework) == (
        "pre_request",
        "request.model",
        "Strands",
    )
    assert errors == [caught.value]
    assert model.requests == []


async def test_observers_leave_the_conversation_as_strands_keeps_it(make, bus: HookBus) -> None:
    answer = text("plain")
    for event in (
        "pre_request",
        "on_response",
        "pre_tool_call",
        "on_tool_call_result",
        "on_message",
    ):
        bus.on(event, lambda ctx: None)
    agent, _model = make(
        [tool_calls(("c1", "read_file", {"path": "/x"})), answer], tools=[read_file]
    )
    await agent.invoke_async("go")
    plain_agent_messages = [{"role": m["role"], "content": m["content"]} for m in agent.messages]

    bare = Agent(
        model=ScriptedModel([tool_calls(("c1", "read_file", {"path": "/x"})), answer]),
        tools=[read_file],
        callback_handler=None,
    )
    await bare.invoke_async("go")
    assert plain_agent_messages == [
        {"role": m["role"], "content": m["content"]} for m in bare.messages
    ]


async def test_should_stop_ends_the_run_before_the_next_request(make, bus: HookBus) -> None:
    recorder = HookRecorder()
    recorder.attach(bus)
    bus.on("should_stop", lambda ctx: True)
    agent, model = make([tool_calls(("c1", "read_file", {"path": "/x"}), say="Reading."), "never"])

    result = await agent.invoke_async("read")

    assert len(model.requests) == 1
    assert str(result).strip() == "Reading."
    done = recorder.of("on_chat_done")[0].response
    assert (done.finish_reason, done.content) == ("stopped", "Reading.")
    assert recorder.names()[-7:] == [
        "on_loop_end",
        "prepare_next_turn",
        "should_stop",
        "post_agent",
        "on_message",  # the answer Strands commits
        "on_chat_done",
        "on_chat_end",
    ]


async def test_a_next_turn_cannot_change_the_model(make, bus: HookBus) -> None:
    from agenthooks.bridges import UnsupportedReturnError

    bus.on("prepare_next_turn", lambda ctx: {"model": "cheaper"})
    agent, model = make()

    with pytest.raises(UnsupportedReturnError) as caught:
        await agent.invoke_async(USER)

    assert (caught.value.event, caught.value.key) == ("prepare_next_turn", "model")
    assert len(model.requests) == 1


@pytest.mark.parametrize("hooked", [False, True])
async def test_stream_observers_hear_each_chunk(make, bus: HookBus, hooked: bool) -> None:
    recorder = HookRecorder()
    recorder.attach(bus)
    if hooked:  # a model-call hook: the call goes through the hook layer
        bus.on("on_response", lambda ctx: None)
    agent, _ = make(["It is sunny."])

    await agent.invoke_async("weather?")

    names = [n for n in recorder.names() if n.startswith("on_stream") or n == "on_response"]
    assert names == [
        "on_stream_start",
        "on_stream_chunk",
        "on_stream_chunk",
        "on_stream_chunk",
        "on_stream_end",
        "on_response",
    ]
    chunks = recorder.of("on_stream_chunk")
    assert [(c.delta, c.accumulated) for c in chunks] == [
        ("It ", "It "),
        ("is ", "It is "),
        ("sunny.", "It is sunny."),
    ]
    assert recorder.of("on_stream_end")[0].response.content == "It is sunny."
    assert recorder.of("on_stream_start")[0].request.messages[0].content == "weather?"


async def test_a_call_strands_refuses_can_be_recovered(make, bus: HookBus) -> None:
    seen: list[Any] = []

    def recover(ctx: Any) -> dict[str, Any]:
        seen.append((ctx.source, type(ctx.error).__name__, ctx.tool.name if ctx.tool else None))
        return {"result": f"handled {ctx.call.name}"}

    bus.on("on_tool_call_error", recover)
    agent, model = make(
        [tool_calls(("a", "flag", {"on": "maybe"}), ("b", "no_such_tool", {"x": 1})), "ok"],
        tools=[flag],
    )

    await agent.invoke_async("go")

    assert sorted(seen) == [
        ("unknown_tool", "UnknownToolError", None),
        ("validation", "ToolValidationError", "flag"),
    ]
    assert tool_results(model) == {
        "a": ("success", "handled flag"),
        "b": ("success", "handled no_such_tool"),
    }
    assert RAN == []


async def test_an_unknown_tool_reads_as_strands_writes_it(make, bus: HookBus) -> None:
    errors: list[Any] = []
    bus.on("on_tool_call_error", lambda ctx: errors.append(ctx.source))
    agent, model = make([tool_calls(("b", "no_such_tool", {})), "ok"])

    await agent.invoke_async("go")

    assert errors == ["unknown_tool"]
    assert tool_results(model) == {"b": ("error", "Unknown tool: no_such_tool")}
