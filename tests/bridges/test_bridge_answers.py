"""A bridged run's answer is built only for a handler that hears it: ``post_agent``, ``done``
and ``paused`` take a function that builds the answer, and the run calls it once, when one of
the events that carry the answer (``post_agent``, the terminal event, ``on_chat_end``) has a
listener."""

from __future__ import annotations

from typing import Any

from agenthooks import HookBus
from agenthooks.bridges import BridgeRun, Capabilities
from agenthooks.events.contexts import (
    ChatDoneContext,
    ChatEndContext,
    ChatPausedContext,
    PostAgentContext,
)
from agenthooks.messages import AgentResponse, PendingCall

LOOP = Capabilities(
    framework="Loop",
    distribution="agenthooks-loop",
    setup="loop(bus)",
    fires=frozenset(
        {"on_loop_start", "post_agent", "on_chat_done", "on_chat_paused", "on_chat_end"}
    ),
    honours={"post_agent": frozenset({"response", "deny"})},
)


class Builds:
    """A function that builds the run's answer and counts its calls."""

    def __init__(self, run: BridgeRun, content: str, reason: str = "stop") -> None:
        self.run = run
        self.content = content
        self.reason = reason
        self.calls = 0

    def __call__(self) -> AgentResponse:
        self.calls += 1
        return self.run.answer(self.content, self.reason)  # type: ignore[arg-type]


async def test_nobody_listening_builds_no_answer() -> None:
    bus = HookBus()
    bus.on("on_loop_start", lambda ctx: None)  # a listener, but not of an answer's event
    async with BridgeRun(bus, LOOP, agent="a") as run:
        answer = Builds(run, "hello")
        assert await run.post_agent(answer, input="hi") is answer
        await run.done(answer)
    assert answer.calls == 0
    assert run.ended == "on_chat_done"

    async with BridgeRun(bus, LOOP, agent="a") as run:
        paused = Builds(run, "", "paused")
        await run.paused(paused)
    assert paused.calls == 0
    assert run.ended == "on_chat_paused"


async def test_on_chat_end_alone_gets_the_answer_built_once_as_the_run_ends() -> None:
    bus = HookBus()
    ends: list[ChatEndContext] = []
    bus.on("on_chat_end", ends.append)
    async with BridgeRun(bus, LOOP, agent="a") as run:
        run.iteration = 1
        answer = Builds(run, "hello")
        assert await run.post_agent(answer, input="hi") is answer
        assert answer.calls == 0
        await run.done(answer)
    assert answer.calls == 1
    assert len(ends) == 1
    response = ends[0].response
    assert response is not None
    assert (response.content, response.finish_reason, response.iterations, response.agent) == (
        "hello",
        "stop",
        2,
        "a",
    )


async def test_post_agent_and_the_end_report_the_one_answer_a_handler_changed_in_place() -> None:
    bus = HookBus()
    seen: list[Any] = []

    def note(ctx: PostAgentContext) -> None:
        ctx.response.content = "hello, edited"  # in place: the same answer goes on
        seen.append(ctx.response)

    bus.on("post_agent", note)
    bus.on("on_chat_done", lambda ctx: seen.append(ctx.response))
    bus.on("on_chat_end", lambda ctx: seen.append(ctx.response))
    async with BridgeRun(bus, LOOP, agent="a") as run:
        answer = Builds(run, "hello")
        got = await run.post_agent(answer, input="hi")
        assert got is answer  # no handler gave another answer: the function comes back
        await run.done(got)
    assert answer.calls == 1
    assert len(seen) == 3
    assert seen[0] is seen[1] is seen[2]
    assert seen[2].content == "hello, edited"


async def test_a_rewritten_answer_comes_back_built_and_is_what_the_end_reports() -> None:
    bus = HookBus()
    done: list[ChatDoneContext] = []
    bus.on("post_agent", lambda ctx: {"response": AgentResponse(content="[redacted]")})
    bus.on("on_chat_done", done.append)
    async with BridgeRun(bus, LOOP, agent="a") as run:
        answer = Builds(run, "mail me at a@b.c")
        got = await run.post_agent(answer, input="hi")
        assert isinstance(got, AgentResponse)
        assert got.content == "[redacted]"
        await run.done(got)
    assert answer.calls == 1
    assert [ctx.response.content for ctx in done if ctx.response is not None] == ["[redacted]"]


async def test_a_paused_runs_answer_is_built_for_on_chat_paused() -> None:
    bus = HookBus()
    paused: list[ChatPausedContext] = []
    bus.on("on_chat_paused", paused.append)
    pending = [PendingCall(call_id="c1", tool="rm", arguments={"path": "/"}, reason="check")]
    async with BridgeRun(bus, LOOP, agent="a") as run:
        await run.paused(lambda: run.answer(None, "paused", pending=pending))
    assert len(paused) == 1
    response = paused[0].response
    assert response is not None
    assert (response.finish_reason, response.pending) == ("paused", pending)


async def test_an_answer_that_is_already_built_is_reported_as_it_is() -> None:
    bus = HookBus()
    done: list[ChatDoneContext] = []
    bus.on("on_chat_done", done.append)
    built = AgentResponse(content="ready")
    async with BridgeRun(bus, LOOP, agent="a") as run:
        assert await run.post_agent(built) is built
        await run.done(built)
    assert [ctx.response for ctx in done] == [built]
    assert done[0].response is built
