"""What a handler returns changes what a LangChain agent runs: denies, rewrites,
short-circuits and recoveries, checked on what the model and the tools really got."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_scripted import Recorder, agent, ask, calls, conversation_model, ran, script

from agenthooks import (
    AgentResponse,
    ChatStartContext,
    Deny,
    HookBus,
    PostAgentContext,
    PreRequestContext,
    PreToolCallContext,
    ProviderResponse,
    ToolCall,
    ToolCallErrorContext,
    ToolCallResultContext,
)
from agenthooks.errors import UnsupportedReturnError


def _tool_messages(out: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {
        m.tool_call_id: (m.content, m.status) for m in out["messages"] if isinstance(m, ToolMessage)
    }


async def test_a_denied_tool_never_runs_and_the_model_reads_the_reason() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Deny("no deletes"), match="delete_file")
    model = conversation_model()
    out = await agent(model, bus).ainvoke(ask())
    assert ran == [("read_file", {"path": "/tmp/b.txt"})]
    assert _tool_messages(out) == {
        "call_1": ("no deletes", "error"),
        "call_2": ("contents of /tmp/b.txt", "success"),
    }
    # what the model read on its second call
    second = model.sent[1]
    assert [(type(m).__name__, m.content) for m in second if isinstance(m, ToolMessage)] == [
        ("ToolMessage", "no deletes"),
        ("ToolMessage", "contents of /tmp/b.txt"),
    ]


async def test_an_argument_rewrite_reaches_the_tool_body() -> None:
    bus = HookBus()

    def elsewhere(ctx: PreToolCallContext) -> dict[str, Any] | None:
        if ctx.call.name == "read_file":
            return {"call": ctx.call.model_copy(update={"arguments": {"path": "/tmp/c.txt"}})}
        return None

    bus.on("pre_tool_call", elsewhere)
    out = await agent(conversation_model(), bus).ainvoke(ask())
    assert ("read_file", {"path": "/tmp/c.txt"}) in ran
    assert _tool_messages(out)["call_2"] == ("contents of /tmp/c.txt", "success")


async def test_guards_judge_the_arguments_as_the_tools_schema_coerces_them() -> None:
    bus = HookBus()
    judged: list[dict[str, Any]] = []

    def judge(ctx: PreToolCallContext) -> Deny | None:
        judged.append(dict(ctx.call.arguments))
        return Deny("flags stay off") if ctx.call.arguments["on"] is True else None

    bus.on("pre_tool_call", judge, guard=True)
    model = script(calls(("c1", "set_flag", {"name": "beta", "on": "true"})), "ok")
    out = await agent(model, bus).ainvoke(ask("turn beta on"))
    assert judged == [{"name": "beta", "on": True}]
    assert ran == []
    assert _tool_messages(out) == {"c1": ("flags stay off", "error")}


async def test_ctx_tool_describes_the_langchain_tool() -> None:
    bus = HookBus()
    seen: list[Any] = []
    bus.on("pre_tool_call", lambda ctx: seen.append(ctx.tool))
    await agent(script(calls(("c1", "set_flag", {"name": "a", "on": False})), "ok"), bus).ainvoke(
        ask()
    )
    (tool,) = seen
    assert tool.name == "set_flag"
    assert tool.description == "Set a feature flag."
    assert tool.parameters["properties"] == {
        "name": {"type": "string"},
        "on": {"type": "boolean"},
    }
    assert tool.original.name == "set_flag"


async def test_a_result_rewrite_is_what_the_model_reads() -> None:
    bus = HookBus()
    bus.on(
        "on_tool_call_result",
        lambda ctx: {"result": ctx.result.upper()},
        match="read_file",
    )
    model = conversation_model()
    out = await agent(model, bus).ainvoke(ask())
    assert _tool_messages(out)["call_2"] == ("CONTENTS OF /TMP/B.TXT", "success")
    assert any(
        isinstance(m, ToolMessage) and m.content == "CONTENTS OF /TMP/B.TXT" for m in model.sent[1]
    )


async def test_a_short_circuited_tool_call_skips_the_body() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: {"result": "cached"}, match="read_file")
    out = await agent(conversation_model(), bus).ainvoke(ask())
    assert ran == [("delete_file", {"path": "/tmp/a.txt"})]
    assert _tool_messages(out)["call_2"] == ("cached", "success")


async def test_a_model_short_circuit_never_calls_the_model() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="from the cache")})
    model = conversation_model()
    out = await agent(model, bus).ainvoke(ask())
    assert model.sent == []
    assert out["messages"][-1].content == "from the cache"
    assert ran == []


async def test_a_request_rewrite_is_what_the_model_gets() -> None:
    bus = HookBus()

    def rewrite(ctx: PreRequestContext) -> dict[str, Any]:
        first = ctx.request.messages[0].model_copy(update={"content": "Read /tmp/b.txt only"})
        request = ctx.request.model_copy(
            update={"system": "Be brief.", "messages": [first, *ctx.request.messages[1:]]}
        )
        return {"request": request}

    bus.on("pre_request", rewrite)
    model = script("ok")
    out = await agent(model, bus, system_prompt="Be helpful.").ainvoke(ask())
    (sent,) = model.sent
    assert [(type(m).__name__, m.content) for m in sent] == [
        ("SystemMessage", "Be brief."),
        ("HumanMessage", "Read /tmp/b.txt only"),
    ]
    # the history keeps what the user wrote: the rewrite was for this request only
    assert out["messages"][0].content == "Delete /tmp/a.txt and read /tmp/b.txt"


async def test_a_request_may_offer_fewer_tools_but_not_a_changed_model() -> None:
    bus = HookBus()
    offered: list[list[str]] = []

    class Seeing(type(script())):  # type: ignore[misc]
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            offered.append([t.name for t in tools])
            return self

    def fewer(ctx: PreRequestContext) -> dict[str, Any]:
        tools = [t for t in ctx.request.tools if t["function"]["name"] == "read_file"]
        return {"request": ctx.request.model_copy(update={"tools": tools})}

    bus.on("pre_request", fewer)
    await agent(Seeing(messages=iter(()), answers=["ok"]), bus).ainvoke(ask())
    assert offered == [["read_file"]]

    other = HookBus()
    other.on(
        "pre_request",
        lambda ctx: {"request": ctx.request.model_copy(update={"model": "gpt-5"})},
    )
    with pytest.raises(UnsupportedReturnError) as caught:
        await agent(script("ok"), other).ainvoke(ask())
    assert (caught.value.event, caught.value.key, caught.value.framework) == (
        "pre_request",
        "request",
        "LangChain",
    )
    assert "model" in str(caught.value)


async def test_a_response_rewrite_changes_the_text_and_the_tool_calls_acted_on() -> None:
    bus = HookBus()

    def only_reads(ctx: Any) -> dict[str, Any] | None:
        if ctx.response.tool_calls:
            kept = [c for c in ctx.response.tool_calls if c.name == "read_file"]
            return {"response": ctx.response.model_copy(update={"tool_calls": kept})}
        return {"response": ctx.response.model_copy(update={"content": "all done"})}

    bus.on("on_response", only_reads)
    out = await agent(conversation_model(), bus).ainvoke(ask())
    assert ran == [("read_file", {"path": "/tmp/b.txt"})]
    assert [c["id"] for c in out["messages"][1].tool_calls] == ["call_2"]
    assert out["messages"][-1].content == "all done"


async def test_a_model_error_is_recovered_and_the_run_goes_on() -> None:
    bus = HookBus()
    errors: list[BaseException] = []

    def recover(ctx: Any) -> dict[str, Any]:
        errors.append(ctx.error)
        return {"response": ProviderResponse(content="the model is down; try later")}

    bus.on("on_model_error", recover)
    recorder = Recorder(bus)
    out = await agent(script(ConnectionError("model down")), bus).ainvoke(ask())
    assert [type(e) for e in errors] == [ConnectionError]
    assert out["messages"][-1].content == "the model is down; try later"
    assert recorder.events[-2:] == ["on_chat_done", "on_chat_end"]


async def test_a_tool_error_is_seen_with_its_type_and_recovered() -> None:
    bus = HookBus()
    seen: list[tuple[type[BaseException], str]] = []

    def recover(ctx: ToolCallErrorContext) -> dict[str, Any]:
        assert isinstance(ctx.error, BaseException)
        seen.append((type(ctx.error), ctx.source))
        return {"result": f"no such file: {ctx.call.arguments['path']}"}

    bus.on("on_tool_call_error", recover)
    model = script(calls(("c1", "fail", {"path": "/nope"})), "sorry")
    out = await agent(model, bus).ainvoke(ask())
    assert seen == [(FileNotFoundError, "handler")]
    assert _tool_messages(out) == {"c1": ("no such file: /nope", "success")}


async def test_an_unrecovered_tool_error_fails_the_run_as_without_the_bridge() -> None:
    with pytest.raises(FileNotFoundError):
        await agent(script(calls(("c1", "fail", {"path": "/nope"})), "x"), None).ainvoke(ask())
    bus = HookBus()
    recorder = Recorder(bus)
    errors: list[BaseException] = []
    bus.on("on_chat_error", lambda ctx: errors.append(ctx.error))
    with pytest.raises(FileNotFoundError) as caught:
        await agent(script(calls(("c1", "fail", {"path": "/nope"})), "x"), bus).ainvoke(ask())
    assert recorder.events[-4:] == [
        "on_tool_call_error",
        "on_loop_end",
        "on_chat_error",
        "on_chat_end",
    ]
    assert errors == [caught.value]


async def test_a_denied_start_ends_with_the_reason_as_the_final_answer() -> None:
    bus = HookBus()

    def refuse(ctx: ChatStartContext) -> Deny:
        return Deny("this agent is closed today")

    bus.on("on_chat_start", refuse)
    recorder = Recorder(bus)
    model = conversation_model()
    out = await agent(model, bus).ainvoke(ask())
    assert model.sent == []
    assert isinstance(out["messages"][-1], AIMessage)
    assert out["messages"][-1].content == "this agent is closed today"
    assert recorder.events == ["on_chat_start", "on_chat_done", "on_chat_end"]
    done = recorder.of("on_chat_done")[0].output
    assert (done.content, done.finish_reason) == ("this agent is closed today", "denied")


async def test_a_rewritten_user_message_is_what_the_history_and_model_get() -> None:
    bus = HookBus()
    bus.on("on_user_message", lambda ctx: {"message": ctx.message.replace("Delete", "Keep")})
    model = script("ok")
    out = await agent(model, bus).ainvoke(ask())
    assert isinstance(out["messages"][0], HumanMessage)
    assert out["messages"][0].content == "Keep /tmp/a.txt and read /tmp/b.txt"
    assert model.sent[0][0].content == "Keep /tmp/a.txt and read /tmp/b.txt"
    assert len(out["messages"]) == 2  # replaced in place, not added


async def test_post_agent_rewrites_or_withholds_the_final_answer() -> None:
    bus = HookBus()

    def redact(ctx: PostAgentContext) -> dict[str, AgentResponse]:
        return {"response": ctx.response.model_copy(update={"content": "[redacted]"})}

    bus.on("post_agent", redact)
    out = await agent(conversation_model(), bus).ainvoke(ask())
    assert out["messages"][-1].content == "[redacted]"
    assert len(out["messages"]) == 5

    denying = HookBus()
    denying.on("post_agent", lambda ctx: Deny("withheld"))
    recorder = Recorder(denying)
    out = await agent(conversation_model(), denying).ainvoke(ask())
    assert out["messages"][-1].content == "withheld"
    assert "done" not in [m.content for m in out["messages"]]
    done = recorder.of("on_chat_done")[0].output
    assert (done.content, done.finish_reason) == ("withheld", "denied")
    # the withheld answer never reached on_message
    assert [r.output.content for r in recorder.of("on_message")][-1] == "contents of /tmp/b.txt"


async def test_a_denied_request_ends_the_run_denied() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: Deny("over budget"))
    recorder = Recorder(bus)
    model = conversation_model()
    out = await agent(model, bus).ainvoke(ask())
    assert model.sent == []
    assert out["messages"][-1].content == "over budget"
    done = recorder.of("on_chat_done")[0].output
    assert (done.content, done.finish_reason) == ("over budget", "denied")
    assert "post_agent" not in recorder.events


async def test_the_system_prompt_reaches_hooks_as_the_request_system() -> None:
    bus = HookBus()
    systems: list[str | None] = []
    bus.on("pre_request", lambda ctx: systems.append(ctx.request.system))
    model = script("ok")
    await agent(model, bus, system_prompt="Be helpful.").ainvoke(ask())
    assert systems == ["Be helpful."]
    assert isinstance(model.sent[0][0], SystemMessage)


async def test_a_result_hook_sees_the_call_with_the_framework_call_id() -> None:
    bus = HookBus()
    got: list[ToolCall] = []

    def keep(ctx: ToolCallResultContext) -> None:
        got.append(ctx.call)

    bus.on("on_tool_call_result", keep)
    await agent(conversation_model(), bus).ainvoke(ask())
    assert sorted(c.id for c in got) == ["call_1", "call_2"]


async def test_should_stop_ends_the_run_gracefully_between_turns() -> None:
    bus = HookBus()
    bus.on("should_stop", lambda ctx: True)
    recorder = Recorder(bus)
    model = conversation_model()
    out = await agent(model, bus).ainvoke(ask())
    assert len(model.sent) == 1  # the second turn never asked the model
    assert sorted(ran) == [
        ("delete_file", {"path": "/tmp/a.txt"}),
        ("read_file", {"path": "/tmp/b.txt"}),
    ]
    assert isinstance(out["messages"][-1], ToolMessage)
    done = recorder.of("on_chat_done")[0].output
    assert done.finish_reason == "stopped"
    assert recorder.events[-2:] == ["on_chat_done", "on_chat_end"]


async def test_a_denied_response_ends_the_run_denied_without_acting_on_it() -> None:
    bus = HookBus()
    bus.on("on_response", lambda ctx: Deny("unsafe answer"))
    recorder = Recorder(bus)
    out = await agent(conversation_model(), bus).ainvoke(ask())
    assert ran == []  # the tool calls of the denied response never ran
    assert out["messages"][-1].content == "unsafe answer"
    done = recorder.of("on_chat_done")[0].output
    assert (done.content, done.finish_reason) == ("unsafe answer", "denied")


async def test_a_rewrite_that_does_not_validate_never_runs_and_the_model_reads_why() -> None:
    bus = HookBus()

    def bad(ctx: PreToolCallContext) -> dict[str, Any]:
        return {"call": ctx.call.model_copy(update={"arguments": {"name": "beta"}})}

    bus.on("pre_tool_call", bad)
    sources: list[str] = []
    bus.on("on_tool_call_error", lambda ctx: sources.append(ctx.source))
    model = script(calls(("c1", "set_flag", {"name": "beta", "on": False})), "ok")
    out = await agent(model, bus).ainvoke(ask())
    assert ran == []
    content, status = _tool_messages(out)["c1"]
    assert status == "error"
    assert "set_flag" in content and "on" in content and "Field required" in content
    assert sources == ["validation"]
