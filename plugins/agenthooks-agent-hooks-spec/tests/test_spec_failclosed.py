"""Fail closed: zero interceptors, raising interceptors, contexts that cannot be built and
transforms that cannot be written back all deny; evaluate_only records and goes on."""

from __future__ import annotations

import datetime
from typing import Any

from agent_hooks import InterceptionRecord
from agenthooks_agent_hooks_spec import AgentHooksSpec
from spec_helpers import Policy, deny, transform

from agenthooks import Agent, ChatMessage, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext


def _agent(calls: list[str], *, fail: bool = False) -> tuple[Agent, ScriptedProvider]:
    @tool
    async def lookup(q: str, when: datetime.datetime | None = None) -> str:
        """Look something up."""
        calls.append(q)
        if fail:
            raise LookupError("index offline: token=abc123")
        return f"found {q}"

    provider = ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="c1", name="lookup", arguments={"q": "x"})]),
            "done",
        ]
    )
    return Agent("a", provider=provider, tools=[lookup]), provider


def _wire(records: list[InterceptionRecord]) -> list[dict[str, Any]]:
    return [r.to_wire() for r in records]


async def test_zero_interceptors_in_enforce_mode_deny_every_run() -> None:
    agent, provider = _agent([])
    records: list[InterceptionRecord] = []
    agent.bus.use(AgentHooksSpec([], record_sink=records.append))
    response = await agent.chat("hi")
    assert (response.finish_reason, response.content) == ("denied", "host_error:no_interceptor")
    assert provider.requests == []
    assert [(r["interception_point"], r["verdict"]["reason"]) for r in _wire(records)] == [
        ("agent_startup", "host_error:no_interceptor"),
        ("agent_shutdown", "host_error:no_interceptor"),
    ]


async def test_evaluate_only_records_denies_and_lets_the_run_go_on() -> None:
    calls: list[str] = []
    agent, provider = _agent(calls)
    records: list[InterceptionRecord] = []
    policy = Policy(
        pre_tool_call=lambda c: deny("policy:would-block"),
        post_tool_call=lambda c: transform("$target", "rewritten"),
    )
    agent.bus.use(AgentHooksSpec([policy], mode="evaluate_only", record_sink=records.append))
    response = await agent.chat("hi")
    assert (response.finish_reason, response.content) == ("stop", "done")
    assert calls == ["x"]
    assert provider.requests[1].messages[-1].content == "found x"  # the transform is not applied
    by_point = {r["interception_point"]: r for r in _wire(records)}
    assert by_point["pre_tool_call"]["mode"] == "evaluate_only"
    assert by_point["pre_tool_call"]["verdict"] == {
        "decision": "deny",
        "reason": "policy:would-block",
    }
    assert by_point["post_tool_call"]["verdict"]["decision"] == "transform"
    assert all(r.proceeds for r in records)


async def test_a_raising_interceptor_denies_the_step_it_guards() -> None:
    calls: list[str] = []
    agent, provider = _agent(calls)

    def explode(context: dict[str, Any]) -> Any:
        raise RuntimeError("policy bug")

    agent.bus.use(AgentHooksSpec([Policy(pre_tool_call=explode)]))
    response = await agent.chat("hi")
    assert calls == [] and response.content == "done"
    assert provider.requests[1].messages[-1] == ChatMessage(
        role="tool",
        content="host_error:interceptor_failed: RuntimeError",
        tool_call_id="c1",
        name="lookup",
        is_error=True,
    )


async def test_a_context_that_cannot_be_built_denies_with_a_host_failure_record() -> None:
    calls: list[str] = []
    agent, provider = _agent(calls)
    records: list[InterceptionRecord] = []
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy], record_sink=records.append))

    def schedule(ctx: PreToolCallContext) -> dict[str, Any]:  # an ordinary handler, before us
        when = datetime.datetime(2030, 1, 1, tzinfo=datetime.timezone.utc)
        return {"call": ctx.call.model_copy(update={"arguments": {"q": "x", "when": when}})}

    agent.bus.on("pre_tool_call", schedule)
    await agent.chat("hi")
    assert calls == []
    text = "host_error:context_invalid: $target.when: datetime is not JSON"
    assert provider.requests[1].messages[-1].content == text
    assert "pre_tool_call" not in policy.points()  # no interceptor saw the broken context
    failure = _wire(records)[4]
    assert failure["interception_point"] == "pre_tool_call"
    assert failure["verdict"] == {
        "decision": "deny",
        "reason": "host_error:context_invalid",
        "message": "$target.when: datetime is not JSON",
    }
    assert failure["sequence"] == 4 and failure["session_id"] == policy.seen[0]["session"]["id"]
    assert [r["sequence"] for r in _wire(records)] == list(range(len(records)))


async def test_a_transform_that_cannot_be_written_back_denies() -> None:
    agent, provider = _agent([])
    records: list[InterceptionRecord] = []
    policy = Policy(input=lambda c: transform("$target.content", {"text": "hi"}))
    agent.bus.use(AgentHooksSpec([policy], record_sink=records.append))
    response = await agent.chat("hi")
    assert response.finish_reason == "denied"
    assert response.content == (
        "host_error:context_invalid: write-back: $target.content: expected a string, got dict"
    )
    assert provider.requests == []
    assert [(r["interception_point"], r["verdict"]["decision"]) for r in _wire(records)] == [
        ("agent_startup", "allow"),
        ("input", "transform"),
        ("input", "deny"),
        ("agent_shutdown", "allow"),
    ]


async def test_a_tool_error_is_post_tool_call_with_is_error_and_its_text() -> None:
    calls: list[str] = []
    agent, provider = _agent(calls, fail=True)
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy]))
    await agent.chat("hi")
    (post,) = policy.at("post_tool_call")
    assert post["tool_result"]["is_error"] is True
    assert post["tool_result"]["value"] == "index offline: token=abc123"
    assert provider.requests[1].messages[-1].content == "LookupError: index offline: token=abc123"


async def test_a_post_tool_call_deny_on_an_error_replaces_the_error_text() -> None:
    agent, provider = _agent([], fail=True)
    agent.bus.use(AgentHooksSpec([Policy(post_tool_call=lambda c: deny("policy:redacted"))]))
    await agent.chat("hi")
    message = provider.requests[1].messages[-1]
    assert (message.content, message.is_error) == ("policy:redacted", True)


async def test_a_post_tool_call_transform_on_an_error_rewrites_its_text() -> None:
    agent, provider = _agent([], fail=True)
    policy = Policy(post_tool_call=lambda c: transform("$target", {"error": "lookup failed"}))
    agent.bus.use(AgentHooksSpec([policy]))
    await agent.chat("hi")
    message = provider.requests[1].messages[-1]
    assert (message.content, message.is_error) == ('{"error": "lookup failed"}', True)


async def test_a_recovered_error_is_reported_once_as_the_recovered_result() -> None:
    agent, provider = _agent([], fail=True)
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy]))
    agent.bus.on("on_tool_call_error", lambda ctx: {"result": "cached answer"})
    await agent.chat("hi")
    (post,) = policy.at("post_tool_call")
    assert post["tool_result"] == {
        "value": "cached answer",
        "is_error": False,
        "duration_ms": post["tool_result"]["duration_ms"],
    }
    assert provider.requests[1].messages[-1].content == "cached answer"


async def test_a_call_that_never_reached_pre_tool_call_has_no_post_tool_call() -> None:
    provider = ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="c1", name="missing", arguments={})]),
            "sorry",
        ]
    )
    agent = Agent("a", provider=provider)
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy]))
    await agent.chat("hi")
    assert "pre_tool_call" not in policy.points() and "post_tool_call" not in policy.points()
    assert (
        provider.requests[1].messages[-1].content == 'unknown tool "missing"; the tools are: none'
    )
