"""The hook layer around Pydantic AI's model requests: rewrite the request, short-circuit,
deny, rewrite the response, recover an error, and the bus's provider middleware inside."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_cache import CachePlugin
from agenthooks_pydantic_ai import AgentHooksCapability
from agenthooks_retry import RetryMiddleware
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelRequest, SystemPromptPart, UserPromptPart
from pydantic_ai_script import PROMPT, Script, conversation_script, file_agent, tool_returns

from agenthooks import (
    ChatMessage,
    Deny,
    HookBus,
    Middleware,
    ProviderHTTPError,
    ProviderResponse,
    ToolCall,
)
from agenthooks.bridges import UnsupportedReturnError
from agenthooks.testing import HookRecorder


def user_texts(script: Script, index: int) -> list[Any]:
    return [
        part.content
        for message in script.requests[index]
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart)
    ]


async def test_a_rewritten_request_is_what_the_model_gets() -> None:
    bus = HookBus()

    def rewrite(ctx: Any) -> dict[str, Any]:
        request = ctx.request
        messages = [
            ChatMessage(role="system", content="Answer in French."),
            *request.messages[:-1],
            request.messages[-1].model_copy(update={"content": "Say hello"}),
        ]
        return {"request": request.model_copy(update={"messages": messages, "system": "Be brief."})}

    bus.on("pre_request", rewrite)
    script = Script("bonjour")
    agent = Agent(
        script.model, instructions="Be verbose.", capabilities=[AgentHooksCapability(bus)]
    )

    result = await agent.run("Say goodbye")

    assert result.output == "bonjour"
    sent = script.requests[0]
    assert len(sent) == 1 and isinstance(sent[0], ModelRequest)
    assert [type(p).__name__ for p in sent[0].parts] == ["SystemPromptPart", "UserPromptPart"]
    system, user = sent[0].parts
    assert isinstance(system, SystemPromptPart) and system.content == "Answer in French."
    assert isinstance(user, UserPromptPart) and user.content == "Say hello"
    assert script.infos[0].instructions == "Be brief."


async def test_an_untouched_request_reaches_the_model_as_pydantic_ai_built_it() -> None:
    plain_script, hooked_script = Script("hi"), Script("hi")
    plain = Agent(plain_script.model, instructions="Be brief.")
    bus = HookBus()
    seen: list[Any] = []
    bus.on("pre_request", lambda ctx: seen.append(ctx.request))
    hooked = Agent(
        hooked_script.model, instructions="Be brief.", capabilities=[AgentHooksCapability(bus)]
    )

    await plain.run("hello")
    await hooked.run("hello")

    assert seen[0].system == "Be brief."
    assert seen[0].messages == [ChatMessage(role="user", content="hello")]
    assert [type(m) for m in hooked_script.requests[0]] == [ModelRequest]
    assert hooked_script.infos[0].instructions == plain_script.infos[0].instructions
    assert user_texts(hooked_script, 0) == user_texts(plain_script, 0) == ["hello"]


async def test_a_short_circuit_answers_without_calling_the_model() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="from the cache")})
    script = Script()
    agent, _ = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert result.output == "from the cache"
    assert script.calls == 0


async def test_a_short_circuit_with_tool_calls_runs_the_tools() -> None:
    bus = HookBus()
    answers = iter(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c9", name="read_file", arguments={"path": "/x"})]
            ),
            ProviderResponse(content="read it"),
        ]
    )
    bus.on("pre_request", lambda ctx: {"response": next(answers)})
    script = Script()
    agent, ran = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert (result.output, ran, script.calls) == ("read it", ["read_file /x"], 0)
    assert tool_returns(result.all_messages()) == [("c9", "contents of /x", "success")]


@pytest.mark.parametrize("event", ["pre_request", "on_response"])
async def test_deny_ends_the_run_with_the_reason(event: str) -> None:
    bus = HookBus()
    bus.on(event, lambda ctx: Deny("over budget"))
    recorder = HookRecorder()
    recorder.attach(bus)
    script = conversation_script()
    agent, ran = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert result.output == "over budget"
    assert ran == []
    assert script.calls == (0 if event == "pre_request" else 1)
    done = recorder.of("on_chat_done")[0].response
    assert (done.content, done.finish_reason) == ("over budget", "denied")
    assert recorder.names()[-2:] == ["on_chat_done", "on_chat_end"]


async def test_a_rewritten_response_is_what_pydantic_ai_acts_on() -> None:
    bus = HookBus()

    def rewrite(ctx: Any) -> dict[str, Any] | None:
        response = ctx.response
        if response.tool_calls:
            call = response.tool_calls[0]
            moved = call.model_copy(update={"arguments": {"path": "/tmp/safe.txt"}})
            return {"response": response.model_copy(update={"tool_calls": [moved]})}
        return {"response": response.model_copy(update={"content": "all done"})}

    bus.on("on_response", rewrite)
    script = conversation_script()
    agent, ran = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert ran == ["delete_file /tmp/safe.txt"]
    assert result.output == "all done"
    # the history holds what the framework acted on
    assert tool_returns(result.all_messages()) == [("call_1", "deleted /tmp/safe.txt", "success")]


async def test_on_model_error_recovers_and_sees_agenthooks_provider_errors() -> None:
    bus = HookBus()
    seen: list[BaseException] = []

    def recover(ctx: Any) -> dict[str, Any]:
        seen.append(ctx.error)
        return {"response": ProviderResponse(content="fallback answer")}

    bus.on("on_model_error", recover)
    failure = ModelHTTPError(status_code=503, model_name="function", body="down")
    agent, _ = file_agent(Script(failure), bus)

    result = await agent.run(PROMPT)

    assert result.output == "fallback answer"
    assert len(seen) == 1 and isinstance(seen[0], ProviderHTTPError)
    assert (seen[0].status, seen[0].retryable, seen[0].raw) == (503, True, failure)


async def test_an_unrecovered_provider_error_reaches_the_caller_as_pydantic_ai_raised_it() -> None:
    bus = HookBus()
    seen: list[BaseException] = []
    bus.on("on_model_error", lambda ctx: seen.append(ctx.error))
    recorder = HookRecorder()
    recorder.attach(bus)
    failure = ModelHTTPError(status_code=400, model_name="function", body="bad request")
    agent, _ = file_agent(Script(failure), bus)

    with pytest.raises(ModelHTTPError) as raised:
        await agent.run(PROMPT)

    assert raised.value is failure
    assert isinstance(seen[0], ProviderHTTPError) and seen[0].status == 400
    assert recorder.of("on_chat_error")[0].error is failure


async def test_the_bus_middleware_runs_inside_the_hook_layer() -> None:
    order: list[str] = []

    class Trace(Middleware):
        stacks = ("provider",)

        async def wrap(self, ctx: Any, call_next: Any) -> Any:
            order.append("middleware before")
            response = await call_next(ctx)
            order.append("middleware after")
            return response

    bus = HookBus()
    bus.use(Trace())
    bus.on("pre_request", lambda ctx: order.append("pre_request"))
    bus.on("on_response", lambda ctx: order.append("on_response"))
    script = Script(
        lambda messages: order.append("model") or __import__("pydantic_ai_script").answer("hi")
    )
    agent, _ = file_agent(script, bus)

    await agent.run(PROMPT)

    assert order == ["pre_request", "middleware before", "model", "middleware after", "on_response"]


async def test_the_retry_middleware_retries_a_rate_limited_request() -> None:
    bus = HookBus()
    waits: list[float] = []

    async def no_sleep(seconds: float) -> None:
        waits.append(seconds)

    bus.use(RetryMiddleware(attempts=3, initial=0.25, jitter=0, sleep=no_sleep))
    errors: list[BaseException] = []
    bus.on("on_model_error", lambda ctx: errors.append(ctx.error))
    limited = ModelHTTPError(status_code=429, model_name="function", body="slow down")
    script = Script(limited, "after the retry")
    agent, _ = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert result.output == "after the retry"
    assert script.calls == 2 and waits == [0.25]
    assert errors == []  # the retry recovered before on_model_error
    assert user_texts(script, 1) == [PROMPT]


async def test_the_cache_plugin_answers_a_repeated_request_from_the_cache() -> None:
    bus = HookBus()
    bus.use(CachePlugin())
    script = Script("the first answer")
    agent, _ = file_agent(script, bus)

    first = await agent.run("same question")
    second = await agent.run("same question")

    assert (first.output, second.output) == ("the first answer", "the first answer")
    assert script.calls == 1


async def test_a_request_without_a_tool_hides_it_from_the_model() -> None:
    bus = HookBus()

    def only_reading(ctx: Any) -> dict[str, Any]:
        tools = [t for t in ctx.request.tools if t["function"]["name"] != "delete_file"]
        reworded = [
            {**t, "function": {**t["function"], "description": "Read one file."}} for t in tools
        ]
        return {"request": ctx.request.model_copy(update={"tools": reworded})}

    bus.on("pre_request", only_reading)
    script = Script("ok")
    agent, _ = file_agent(script, bus)

    await agent.run(PROMPT)

    offered = script.infos[0].function_tools
    assert [(t.name, t.description) for t in offered] == [("read_file", "Read one file.")]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"model": "another-model"}, "a request's model is the agent's to choose"),
        (
            {"tools": [{"type": "function", "function": {"name": "format_disk"}}]},
            "offers a tool 'format_disk' the agent does not have",
        ),
    ],
)
async def test_a_request_change_pydantic_ai_cannot_make_is_a_typed_error(
    change: dict[str, Any], why: str
) -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: {"request": ctx.request.model_copy(update=change)})
    script = Script("never")
    agent, _ = file_agent(script, bus)

    with pytest.raises(UnsupportedReturnError) as raised:
        await agent.run(PROMPT)

    assert (raised.value.event, raised.value.key) == ("pre_request", "request")
    assert why in str(raised.value)
    assert script.calls == 0
