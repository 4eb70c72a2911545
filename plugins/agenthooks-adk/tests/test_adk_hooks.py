"""What handlers return, carried out by ADK: denials, rewrites, short-circuits and
recoveries, on a real Runner with a scripted model."""

from __future__ import annotations

from typing import Any

import adk_scripted as s
import pytest

from agenthooks import Deny, HookBus, ProviderResponse

MESSAGE = "Delete /tmp/a.txt and read /tmp/b.txt"


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


async def test_a_deny_at_the_start_ends_the_run_with_the_reason_as_its_answer() -> None:
    bus = HookBus()
    seen = s.recorder(bus)
    bus.on("on_chat_start", lambda ctx: Deny("no runs today"))
    done: list[Any] = []
    bus.on("on_chat_done", lambda ctx: done.append(ctx.response))
    model = s.ScriptedLlm(script=s.conversation())
    events = await s.run(s.runner(bus, model), MESSAGE)
    assert s.final_text(events) == "no runs today"
    assert model.requests == [] and s.RAN == []
    assert seen == ["on_chat_start", "on_chat_done", "on_chat_end"]
    assert (done[0].content, done[0].finish_reason) == ("no runs today", "denied")


async def test_a_user_message_rewrite_is_what_adk_stores_and_the_model_reads() -> None:
    bus = HookBus()
    bus.on("on_user_message", lambda ctx: {"message": ctx.message.replace("/tmp/a.txt", "[path]")})
    model = s.ScriptedLlm(script=[s.model_turn("ok")])
    await s.run(s.runner(bus, model), MESSAGE)
    first = model.requests[0].contents[0]
    assert [p.text for p in first.parts or ()] == ["Delete [path] and read /tmp/b.txt"]


async def test_a_denied_tool_never_runs_and_the_model_reads_the_reason() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Deny("Deleting files is not allowed."), match="delete_file")
    model = s.ScriptedLlm(script=s.conversation())
    await s.run(s.runner(bus, model), MESSAGE)
    assert s.RAN == [("read_file", {"path": "/tmp/b.txt", "verbose": False})]
    assert s.tool_messages(model.requests[1]) == [
        ("call_1", {"error": "Deleting files is not allowed."}),
        ("call_2", {"result": "contents of /tmp/b.txt"}),
    ]


async def test_an_argument_rewrite_is_what_the_tool_body_receives() -> None:
    bus = HookBus()

    def elsewhere(ctx: Any) -> dict[str, Any]:
        return {"call": ctx.call.model_copy(update={"arguments": {"path": "/tmp/c.txt"}})}

    bus.on("pre_tool_call", elsewhere, match="read_file")
    model = s.ScriptedLlm(script=s.conversation())
    await s.run(s.runner(bus, model), MESSAGE)
    assert ("read_file", {"path": "/tmp/c.txt", "verbose": False}) in s.RAN
    assert ("call_2", {"result": "contents of /tmp/c.txt"}) in s.tool_messages(model.requests[1])


async def test_arguments_are_judged_as_the_tools_signature_coerces_them() -> None:
    bus = HookBus()
    judged: list[dict[str, Any]] = []
    bus.on("pre_tool_call", lambda ctx: judged.append(ctx.call.arguments), guard=True)
    model = s.ScriptedLlm(
        script=[
            s.model_turn(s.call("read_file", "c", path="/tmp/b.txt", verbose="true")),
            s.model_turn("ok"),
        ]
    )
    await s.run(s.runner(bus, model), "read it")
    assert judged == [{"path": "/tmp/b.txt", "verbose": True}]
    assert s.RAN == [("read_file", {"path": "/tmp/b.txt", "verbose": True})]


async def test_arguments_the_signature_rejects_reach_the_model_as_the_error_naming_them() -> None:
    bus = HookBus()
    judged: list[Any] = []
    bus.on("pre_tool_call", lambda ctx: judged.append(ctx.call))
    model = s.ScriptedLlm(
        script=[s.model_turn(s.call("read_file", "c", verbose="sometimes")), s.model_turn("ok")]
    )
    await s.run(s.runner(bus, model), "read it")
    assert judged == [] and s.RAN == []
    assert s.tool_messages(model.requests[1]) == [
        ("c", {"error": "invalid arguments for tool 'read_file': missing path"})
    ]


async def test_a_rewrite_of_the_result_is_what_the_model_reads() -> None:
    bus = HookBus()
    bus.on("on_tool_call_result", lambda ctx: {"result": ctx.result.upper()})
    model = s.ScriptedLlm(script=s.conversation())
    await s.run(s.runner(bus, model), MESSAGE)
    assert s.tool_messages(model.requests[1]) == [
        ("call_1", {"result": "DELETED /TMP/A.TXT"}),
        ("call_2", {"result": "CONTENTS OF /TMP/B.TXT"}),
    ]


async def test_a_result_short_circuit_skips_the_tool_body() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: {"result": {"cached": True}}, match="read_file")
    model = s.ScriptedLlm(script=s.conversation())
    await s.run(s.runner(bus, model), MESSAGE)
    assert s.RAN == [("delete_file", {"path": "/tmp/a.txt"})]
    assert ("call_2", {"cached": True}) in s.tool_messages(model.requests[1])


async def test_a_model_short_circuit_means_adks_model_is_never_called() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="from the cache")})
    model = s.ScriptedLlm(script=s.conversation())
    events = await s.run(s.runner(bus, model), MESSAGE)
    assert model.requests == []
    assert s.final_text(events) == "from the cache"


async def test_a_request_rewrite_is_what_the_model_gets() -> None:
    bus = HookBus()

    def rewrite(ctx: Any) -> dict[str, Any]:
        messages = [
            m.model_copy(update={"content": m.content.replace("/tmp/a.txt", "[path]")})
            if m.role == "user"
            else m
            for m in ctx.request.messages
        ]
        return {
            "request": ctx.request.model_copy(update={"system": "Be terse.", "messages": messages})
        }

    bus.on("pre_request", rewrite)
    model = s.ScriptedLlm(script=[s.model_turn("ok")])
    await s.run(s.runner(bus, model), MESSAGE)
    request = model.requests[0]
    assert request.config.system_instruction == "Be terse."
    assert [p.text for p in request.contents[0].parts or ()] == [
        "Delete [path] and read /tmp/b.txt"
    ]


async def test_a_response_rewrite_is_what_adk_acts_on() -> None:
    bus = HookBus()

    def no_deletes(ctx: Any) -> dict[str, Any] | None:
        calls = [c for c in ctx.response.tool_calls if c.name != "delete_file"]
        if calls == ctx.response.tool_calls:
            return None
        return {"response": ctx.response.model_copy(update={"tool_calls": calls})}

    bus.on("on_response", no_deletes)
    model = s.ScriptedLlm(script=s.conversation())
    events = await s.run(s.runner(bus, model), MESSAGE)
    assert s.RAN == [("read_file", {"path": "/tmp/b.txt", "verbose": False})]
    assert s.tool_messages(model.requests[1]) == [("call_2", {"result": "contents of /tmp/b.txt"})]
    calls = [fc.id for e in events for fc in e.get_function_calls()]
    assert calls == ["call_2"]  # the session keeps what the handler left


async def test_a_final_answer_rewrite_is_what_the_caller_and_the_session_get() -> None:
    bus = HookBus()
    bus.on(
        "on_response",
        lambda ctx: (
            {"response": ctx.response.model_copy(update={"content": "DONE"})}
            if ctx.response.content
            else None
        ),
    )
    bus.on(
        "post_agent",
        lambda ctx: {
            "response": ctx.response.model_copy(update={"content": ctx.response.content + "!"})
        },
    )
    model = s.ScriptedLlm(script=s.conversation())
    runner = s.runner(bus, model)
    events = await s.run(runner, MESSAGE)
    assert s.final_text(events) == "DONE!"
    session = await runner.session_service.get_session(app_name="app", user_id="u", session_id="s")
    assert session is not None and s.final_text(session.events) == "DONE!"


async def test_a_deny_of_the_request_ends_the_run_denied() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: Deny("over budget"))
    done: list[Any] = []
    bus.on("on_chat_done", lambda ctx: done.append(ctx.response))
    model = s.ScriptedLlm(script=s.conversation())
    events = await s.run(s.runner(bus, model), MESSAGE)
    assert model.requests == []
    assert s.final_text(events) == "over budget"
    assert (done[0].content, done[0].finish_reason) == ("over budget", "denied")


async def test_a_model_error_is_recovered_and_the_run_goes_on() -> None:
    bus = HookBus()
    seen: list[type[BaseException]] = []

    def recover(ctx: Any) -> dict[str, Any]:
        seen.append(type(ctx.error))
        return {"response": ProviderResponse(content="the model is down, sorry")}

    bus.on("on_model_error", recover)
    model = s.ScriptedLlm(script=[ConnectionError("model down")])
    events = await s.run(s.runner(bus, model), MESSAGE)
    assert seen == [ConnectionError]
    assert s.final_text(events) == "the model is down, sorry"


async def test_a_tool_error_is_seen_with_its_type_and_recovered() -> None:
    bus = HookBus()
    seen: list[tuple[str, str | None]] = []

    def recover(ctx: Any) -> dict[str, Any]:
        seen.append((type(ctx.error).__name__, str(ctx.error)))
        return {"result": "no such file, carry on"}

    bus.on("on_tool_call_error", recover)
    model = s.ScriptedLlm(
        script=[s.model_turn(s.call("read_file", "c", path="/missing")), s.model_turn("ok")]
    )
    events = await s.run(s.runner(bus, model), "read it")
    assert seen == [("FileNotFoundError", "/missing")]
    assert s.tool_messages(model.requests[1]) == [("c", {"result": "no such file, carry on"})]
    assert s.final_text(events) == "ok"


async def test_streamed_chunks_pass_through_and_the_complete_response_is_rewritten() -> None:
    bus = HookBus()
    responses: list[str | None] = []
    stream: list[tuple[str, Any]] = []
    bus.on(
        "on_stream_start", lambda ctx: stream.append(("start", ctx.request.messages[-1].content))
    )
    bus.on("on_stream_chunk", lambda ctx: stream.append(("chunk", (ctx.delta, ctx.accumulated))))
    bus.on("on_stream_end", lambda ctx: stream.append(("end", ctx.response.content)))

    def shout(ctx: Any) -> dict[str, Any]:
        responses.append(ctx.response.content)
        return {"response": ctx.response.model_copy(update={"content": "HELLO"})}

    bus.on("on_response", shout)
    events = await s.run(s.runner(bus, s.Streaming(script=[["Hel", "lo"]])), "hi", run_config=s.SSE)
    partial = [
        e.content.parts[0].text for e in events if e.partial and e.content and e.content.parts
    ]
    assert partial == ["Hel", "lo"]
    assert responses == ["Hello"]
    assert s.final_text(events) == "HELLO"
    assert stream == [
        ("start", "hi"),
        ("chunk", ("Hel", "Hel")),
        ("chunk", ("lo", "Hello")),
        ("end", "Hello"),
    ]


async def test_a_stream_that_fails_fires_on_stream_error() -> None:
    bus = HookBus()
    errors: list[tuple[str, str]] = []
    bus.on(
        "on_stream_error", lambda ctx: errors.append((type(ctx.error).__name__, ctx.accumulated))
    )
    model = s.Streaming(script=[["Hel", ConnectionError("dropped")]])
    with pytest.raises(ConnectionError):
        await s.run(s.runner(bus, model), "hi", run_config=s.SSE)
    assert errors == [("ConnectionError", "Hel")]


async def test_a_tool_that_declares_a_json_schema_is_validated_with_it() -> None:
    from google.adk.tools.base_tool import BaseTool
    from google.genai import types

    class Lookup(BaseTool):
        def __init__(self) -> None:
            super().__init__(name="lookup", description="Find a contact.")

        def _get_declaration(self) -> types.FunctionDeclaration:
            return types.FunctionDeclaration(
                name="lookup",
                description="Find a contact.",
                parameters_json_schema={
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
            )

        async def run_async(self, *, args: dict[str, Any], tool_context: Any) -> Any:
            return f"{args['name']}: found"

    bus = HookBus()
    seen: list[Any] = []
    bus.on("pre_tool_call", lambda ctx: seen.append((ctx.call.arguments, ctx.tool.parameters)))
    model = s.ScriptedLlm(
        script=[
            s.model_turn(s.call("lookup", "ok", name="Ada"), s.call("lookup", "bad", name=7)),
            s.model_turn("done"),
        ]
    )
    await s.run(s.runner(bus, model, [Lookup()]), "find Ada")
    assert [arguments for arguments, _ in seen] == [{"name": "Ada"}]
    assert seen[0][1]["required"] == ["name"]
    assert s.tool_messages(model.requests[1]) == [
        ("ok", {"result": "Ada: found"}),
        ("bad", {"error": "invalid arguments for tool 'lookup': name: 7 is not of type 'string'"}),
    ]


async def test_an_answer_from_the_agents_own_model_callback_ends_the_hook_layers_call() -> None:
    import asyncio

    def cached(callback_context: Any, llm_request: Any) -> Any:
        return s.model_turn("from the agent's callback")

    bus = HookBus()
    seen = s.recorder(bus)
    bus.on(
        "on_response",
        lambda ctx: {
            "response": ctx.response.model_copy(update={"content": ctx.response.content.upper()})
        },
    )
    model = s.ScriptedLlm(script=s.conversation())
    runner = s.runner(bus, model, before_model_callback=cached)
    events = await asyncio.wait_for(s.run(runner, MESSAGE), 10)
    assert model.requests == []
    assert s.final_text(events) == "FROM THE AGENT'S CALLBACK"
    assert seen[-4:] == ["post_agent", "on_message", "on_chat_done", "on_chat_end"]
