"""The pytest plugin shipped in the core distribution (entry point ``pytest11``), tested with
pytest's own ``pytester``: the fixtures are there in any test suite, the recorder's diff is
readable, ``-p no:agenthooks`` switches it off."""

from __future__ import annotations

from importlib import metadata

import pytest

from agenthooks import Agent, Deny, HookBus, ProviderResponse, ToolCall, tool
from agenthooks.testing import HookRecorder, call, make_agent

pytest_plugins = ["pytester"]

INI = """
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
"""

TOOLS = '''
from agenthooks import Deny, tool
from agenthooks.testing import call


@tool
def search(query: str) -> str:
    """Search."""
    return f"hits for {query}"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"
'''


def test_the_plugin_is_registered_through_the_pytest11_entry_point() -> None:
    eps = [ep for ep in metadata.entry_points(group="pytest11") if ep.name == "agenthooks"]
    assert [(ep.value, ep.dist.name if ep.dist else None) for ep in eps] == [
        ("agenthooks.testing", "agenthooks")
    ]


@pytest.mark.subprocess
def test_fixtures_reach_an_unrelated_test_suite(pytester: pytest.Pytester) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(
        test_policy=TOOLS
        + """

async def test_deny_reaches_the_model(scripted_agent, hook_recorder):
    agent = scripted_agent([call("delete_file", path="/etc"), "I could not delete it."],
                           tools=[search, delete_file])
    agent.on("pre_tool_call", lambda ctx: Deny("no deletes"), match="delete_file")
    hook_recorder.attach(agent)
    response = await agent.chat("delete /etc")
    assert response.content == "I could not delete it."
    hook_recorder.assert_sequence(
        ["on_chat_start", "pre_tool_call", "on_tool_call_error", "on_chat_done"])
    assert hook_recorder.of("PreToolUse")[0].call.arguments == {"path": "/etc"}
    assert hook_recorder.of("on_tool_call_error")[0].source == "denied"
    assert agent.provider.requests[1].messages[-1].content == "no deletes"


async def test_parallel_calls_by_tool_name(scripted_agent, hook_recorder):
    agent = scripted_agent([[("search", {"query": "a"}), ("delete_file", {"path": "/"})], "ok"],
                           tools=[search, delete_file], parallel_tool_calls=True)
    hook_recorder.attach(agent)
    await agent.chat("go")
    hook_recorder.assert_sequence([
        "pre_tool_call:search", "pre_tool_call:delete_file",
        "on_tool_call_result:search", "on_tool_call_result:delete_file"])
    assert [c.call.arguments for c in hook_recorder.of("pre_tool_call:delete_file")] == [
        {"path": "/"}]
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_assert_sequence_fails_with_a_readable_diff(pytester: pytest.Pytester) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(
        test_wrong=TOOLS
        + """

async def test_expects_a_result_but_the_call_was_denied(scripted_agent, hook_recorder):
    agent = scripted_agent([call("delete_file", path="/etc"), "done"], tools=[delete_file])
    agent.on("pre_tool_call", lambda ctx: Deny("no deletes"))
    hook_recorder.attach(agent)
    await agent.chat("delete /etc")
    hook_recorder.assert_sequence(
        ["pre_tool_call", "on_tool_call_result", "on_message", "on_chat_done"])
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "E       AssertionError: event sequence differs (the recorded events of on_chat_done, "
                "on_message, on_tool_call_result, pre_tool_call); - expected, + recorded:"
            ),
            "E       + on_message",
            "E       + on_message",
            "E         pre_tool_call",
            "E       - on_tool_call_result",
            "E       + on_message",
            "E         on_message",
            "E         on_chat_done",
        ],
        consecutive=True,
    )
    result.stdout.no_fnmatch_line("*agenthooks/testing.py*")  # the helper's frames are hidden


def test_the_recorder_detaches_when_the_test_ends(pytester: pytest.Pytester) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(
        test_detach="""
from agenthooks import HookBus

BUS = HookBus()


def test_first(hook_recorder):
    hook_recorder.attach(BUS)
    assert len(BUS.handlers("on_message")) == 1


def test_second():
    assert BUS.handlers("on_message") == []
    assert BUS.listened == frozenset()
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


@pytest.mark.subprocess
def test_no_agenthooks_switches_the_plugin_off(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_off="""
def test_uses_it(scripted_agent):
    pass
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:agenthooks", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'scripted_agent' not found*"])


# the same helpers, used directly ---------------------------------------------------------


@tool
def lookup(topic: str) -> str:
    """Look up a topic."""
    return f"notes on {topic}"


async def test_scripted_agent_steps(scripted_agent) -> None:  # type: ignore[no-untyped-def]
    agent: Agent = scripted_agent(
        [
            call("lookup", topic="a"),
            ("lookup", {"topic": "b"}),
            ToolCall(id="mine", name="lookup", arguments={"topic": "c"}),
            [("lookup", {"topic": "d"}), call("lookup", topic="e")],
            ProviderResponse(content="done", finish_reason="length"),
        ],
        tools=[lookup],
        name="helper",
        instructions="Be brief.",
        max_turns=5,
    )
    response = await agent.chat("go")
    assert (agent.name, agent.instructions, response.content, response.finish_reason) == (
        "helper",
        "Be brief.",
        "done",
        "length",
    )
    tool_messages = [m for m in response.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.content) for m in tool_messages] == [
        ("call_1", "notes on a"),
        ("call_2", "notes on b"),
        ("mine", "notes on c"),
        ("call_3", "notes on d"),
        ("call_4", "notes on e"),
    ]
    assert len(agent.provider.requests) == 5  # type: ignore[union-attr]


def test_scripted_agent_rejects_a_bare_step() -> None:
    with pytest.raises(TypeError, match="wrap a single step in a list"):
        make_agent("hello")
    with pytest.raises(
        TypeError,
        match=r"a scripted tool call is a ToolCall or a \(name, "
        r"arguments\) tuple, not 42",
    ):
        make_agent([[42]])


async def test_hook_recorder_records_contexts_in_firing_order(hook_recorder: HookRecorder) -> None:
    agent = make_agent([call("lookup", topic="x"), "answer"], tools=[lookup])
    agent.on(
        "pre_tool_call",
        lambda ctx: {"call": ctx.call.model_copy(update={"arguments": {"topic": "changed"}})},
    )
    hook_recorder.attach(agent)
    await agent.chat("hi")
    names = hook_recorder.names()
    assert names[:4] == ["on_chat_start", "on_user_message", "on_message", "pre_agent"]
    assert names[-3:] == ["on_message", "on_chat_done", "on_chat_end"]
    assert "on_event" not in names
    # contexts are kept by reference: they show what the whole chain left
    assert hook_recorder.of("pre_tool_call")[0].call.arguments == {"topic": "changed"}
    assert hook_recorder.of("on_tool_call_result")[0].result == "notes on changed"
    assert len(hook_recorder) == len(names)
    hook_recorder.clear()
    assert hook_recorder.names() == []


async def test_hook_recorder_sees_emissions_a_short_circuit_hides(
    hook_recorder: HookRecorder,
) -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Deny("stop"), priority=100)
    agent = make_agent([call("lookup", topic="x"), "ok"], tools=[lookup], bus=bus)
    hook_recorder.attach(agent)
    await agent.chat("hi")
    hook_recorder.assert_sequence(["pre_tool_call", "on_tool_call_error"])
    with pytest.raises(AssertionError) as info:
        hook_recorder.assert_sequence(["on_chat_start", "on_chat_done"], exact=True)
    assert str(info.value).startswith(
        "event sequence differs (all recorded events); - expected, + recorded:\n"
        "  on_chat_start\n+ on_user_message\n"
    )


def test_assert_sequence_rejects_unknown_event_names(hook_recorder: HookRecorder) -> None:
    with pytest.raises(KeyError, match="unknown event 'pre_tool_cal'"):
        hook_recorder.assert_sequence(["pre_tool_cal"])
