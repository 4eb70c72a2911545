"""What a handler returns is what the SDK runs: arguments, results, requests, responses,
the user message and the answer."""

from __future__ import annotations

from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agents import function_tool
from agents.testing import assistant_message, function_call
from openai_agents_helpers import USER, Recorder, model_saw, read_file, scripted_agent, tool_outputs

from agenthooks import HookBus, ProviderResponse, ToolCall
from agenthooks.messages import ChatMessage


async def test_an_argument_rewrite_is_what_the_tool_body_gets(
    bus: HookBus, recorder: Recorder
) -> None:
    got: list[str] = []

    @function_tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        got.append(path)
        return f"deleted {path}"

    def sandbox(ctx: Any) -> dict[str, Any]:
        return {"call": ctx.call.model_copy(update={"arguments": {"path": "/sandbox/a.txt"}})}

    bus.on("pre_tool_call", sandbox, match="delete_file")
    agent, model = scripted_agent(tools=[delete_file, read_file])

    await AgentHooksRunner(bus).run(agent, USER)

    assert got == ["/sandbox/a.txt"]
    assert tool_outputs(model, 1)["call_1"] == "deleted /sandbox/a.txt"
    result = next(c for c in recorder.of("on_tool_call_result") if c.call.id == "call_1")
    assert result.call.arguments == {"path": "/sandbox/a.txt"}


async def test_arguments_are_validated_with_the_tools_own_schema(
    bus: HookBus, recorder: Recorder
) -> None:
    @function_tool
    def archive(path: str, compress: bool) -> str:
        """Archive a file."""
        return f"{path} {compress!r}"

    agent, model = scripted_agent(
        [
            [function_call("archive", {"path": "/a", "compress": "true"}, call_id="c1")],
            [assistant_message("ok")],
        ],
        tools=[archive],
    )

    await AgentHooksRunner(bus).run(agent, "archive /a")

    assert recorder.of("pre_tool_call")[0].call.arguments == {"path": "/a", "compress": True}
    assert tool_outputs(model, 1) == {"c1": "/a True"}


async def test_a_result_short_circuit_skips_the_body(bus: HookBus) -> None:
    ran: list[str] = []

    @function_tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        ran.append(path)
        return "deleted"

    bus.on("pre_tool_call", lambda ctx: {"result": "pretend deleted"}, match="delete_file")
    agent, model = scripted_agent(tools=[delete_file, read_file])

    await AgentHooksRunner(bus).run(agent, USER)

    assert ran == []
    assert tool_outputs(model, 1)["call_1"] == "pretend deleted"


async def test_a_result_rewrite_is_what_the_model_reads(bus: HookBus) -> None:
    bus.on("on_tool_call_result", lambda ctx: {"result": ctx.result.upper()}, match="read_file")
    agent, model = scripted_agent()

    await AgentHooksRunner(bus).run(agent, USER)

    assert tool_outputs(model, 1) == {
        "call_1": "deleted /tmp/a.txt",
        "call_2": "CONTENTS OF /TMP/B.TXT",
    }


async def test_a_request_rewrite_is_what_the_model_gets(bus: HookBus) -> None:
    def rewrite(ctx: Any) -> dict[str, Any]:
        request = ctx.request
        messages = [
            m.model_copy(update={"content": "[redacted]"}) if m.role == "user" else m
            for m in request.messages
        ]
        return {"request": request.model_copy(update={"system": "Be kind.", "messages": messages})}

    bus.on("pre_request", rewrite)
    agent, model = scripted_agent()

    await AgentHooksRunner(bus).run(agent, USER)

    assert [c.system_instructions for c in model.calls] == ["Be kind.", "Be kind."]
    assert model_saw(model, 0) == [{"role": "user", "content": "[redacted]"}]
    second = model_saw(model, 1)
    assert second[0] == {"role": "user", "content": "[redacted]"}
    assert [item["type"] for item in second[1:]] == [
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]


async def test_a_model_short_circuit_never_calls_the_model(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="from cache")})
    agent, model = scripted_agent()

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert result.final_output == "from cache"
    assert model.calls == ()
    assert recorder.of("on_response")[0].response.content == "from cache"
    assert recorder.of("on_chat_done")[0].response.content == "from cache"


async def test_a_response_rewrite_changes_the_text_and_the_tool_calls(
    bus: HookBus, recorder: Recorder
) -> None:
    def only_reads(ctx: Any) -> dict[str, Any] | None:
        calls = [c for c in ctx.response.tool_calls if c.name != "delete_file"]
        if calls == ctx.response.tool_calls:
            return None
        return {"response": ctx.response.model_copy(update={"tool_calls": calls})}

    bus.on("on_response", only_reads)
    bus.on(
        "on_response",
        lambda ctx: (
            {"response": ctx.response.model_copy(update={"content": "All done."})}
            if ctx.response.content == "done"
            else None
        ),
    )
    agent, model = scripted_agent()

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert result.final_output == "All done."
    assert [c.call.id for c in recorder.of("pre_tool_call")] == ["call_2"]
    second = model_saw(model, 1)
    assert [i.get("call_id") for i in second if i.get("type") == "function_call"] == ["call_2"]
    assert tool_outputs(model, 1) == {"call_2": "contents of /tmp/b.txt"}


async def test_a_response_rewrite_can_add_a_tool_call(bus: HookBus) -> None:
    extra = ToolCall(id="call_9", name="read_file", arguments={"path": "/tmp/c.txt"})
    bus.on(
        "on_response",
        lambda ctx: (
            {
                "response": ctx.response.model_copy(
                    update={"tool_calls": [*ctx.response.tool_calls, extra]}
                )
            }
            if ctx.response.tool_calls
            else None
        ),
    )
    agent, model = scripted_agent()

    await AgentHooksRunner(bus).run(agent, USER)

    assert tool_outputs(model, 1)["call_9"] == "contents of /tmp/c.txt"


async def test_a_user_message_rewrite_is_what_the_run_works_on(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.on("on_user_message", lambda ctx: {"message": ctx.message.replace("Delete", "Keep")})
    agent, model = scripted_agent()

    result = await AgentHooksRunner(bus).run(agent, USER)

    rewritten = "Keep /tmp/a.txt and read /tmp/b.txt"
    assert model_saw(model, 0) == [{"role": "user", "content": rewritten}]
    assert result.input == rewritten
    assert recorder.of("on_message")[0].message == ChatMessage(role="user", content=rewritten)
    assert recorder.of("post_agent")[0].input == rewritten


async def test_an_answer_rewrite_is_what_the_caller_and_the_items_get(bus: HookBus) -> None:
    bus.on(
        "post_agent",
        lambda ctx: {"response": ctx.response.model_copy(update={"content": "DONE"})},
    )
    agent, _ = scripted_agent()

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert result.final_output == "DONE"
    assert result.to_input_list()[-1]["content"][0]["text"] == "DONE"


async def test_transform_context_changes_the_messages_the_model_gets(bus: HookBus) -> None:
    bus.on("transform_context", lambda ctx: {"messages": ctx.messages[:1]})
    agent, model = scripted_agent()

    await AgentHooksRunner(bus).run(agent, USER)

    assert model_saw(model, 1) == [{"role": "user", "content": USER}]


async def test_should_stop_ends_the_run_gracefully_before_the_next_request(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.on("should_stop", lambda ctx: True)
    agent, model = scripted_agent(
        [
            [
                assistant_message("Reading it now."),
                function_call("read_file", {"path": "/a"}, call_id="c1"),
            ],
            [assistant_message("never asked")],
        ]
    )

    result = await AgentHooksRunner(bus).run(agent, "read /a")

    assert result.final_output == "Reading it now."
    assert len(model.calls) == 1
    assert [c.call.id for c in recorder.of("on_tool_call_result")] == ["c1"]
    done = recorder.of("on_chat_done")[0].response
    assert (done.content, done.finish_reason) == ("Reading it now.", "stopped")
    assert recorder.of("post_agent")[0].response.content == "Reading it now."
