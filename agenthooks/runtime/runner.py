"""One run from start to its single terminal event.

on_session_start → on_chat_start → on_user_message → user message (on_message) → pre_agent →
turns → post_agent → final message (on_message) → exactly one of on_chat_done / on_chat_paused
/ on_chat_abort / on_chat_error → on_chat_end → on_session_end. A paused run skips
``post_agent`` (the agent has not finished): it fires once its resumed part ends. The end
events are ``teardown.py``'s: they always complete, and the run's own outcome (its response,
its error, or the cancellation) reaches the caller.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine
from functools import partial
from typing import Any

from ..decisions import Deny
from ..errors import RunAborted
from ..events.catalog import GROUPS
from ..events.contexts import (
    ChatStartContext,
    PostAgentContext,
    PreAgentContext,
    UserMessageContext,
)
from ..messages import AgentResponse, ChatMessage
from .loop import Ended, run_turns
from .reach import check_matchers
from .run import Run, new_message
from .streaming import FinalResponse, StreamEvent, TextDelta
from .teardown import end_aborted, end_done, end_failed, end_paused

_AFTER_ANSWER = GROUPS["after_answer"]


def execute_run(run: Run, message: str) -> Coroutine[Any, Any, AgentResponse]:
    """Run ``run`` on the user ``message``; ends with exactly one terminal event (the
    coroutine of ``execute``: one frame fewer held while the run waits)."""
    return execute(run, partial(_body, run, message))


Body = Callable[[], Coroutine[Any, Any, AgentResponse]]


async def execute(run: Run, body: Body) -> AgentResponse:
    """Run ``body`` (a run from its start, or a paused run's continuation) as ``run``; ends
    with exactly one terminal event: done, paused, abort or error."""
    agent = run.agent
    if agent._connect_on_run:  # MCP servers start before the run's first event
        await agent.connect_mcp()
    if run.parent is None and agent.matchers_checked != run.bus.version:
        check_matchers(run)  # what hooks match, against what this run can reach
        agent.matchers_checked = run.bus.version
    started = time.perf_counter()
    try:
        if run.signal is None:
            response = await body()
        else:
            response = await _race_signal(run, body)
    except asyncio.CancelledError as exc:
        await end_aborted(run, exc, run.abort_reason or "cancelled", started)
        raise
    except RunAborted as exc:
        await end_aborted(run, exc, exc.reason, started)
        raise
    except Exception as exc:
        await end_failed(run, exc, started)
        raise
    if response.finish_reason == "paused":
        await end_paused(run, response, started)
    elif not _AFTER_ANSWER.isdisjoint(run.bus.listened):
        await end_done(run, response, started)
    return response


async def _body(run: Run, message: str) -> AgentResponse:
    session = run.session
    if session is not None and run.parent is None:
        reason = await session.gate(run)
        if reason is not None:
            return await _denied(run, reason)
    if "on_chat_start" in run.bus.listened:  # the tool names are listed only for a listener
        got = await run.fire(
            "on_chat_start", ChatStartContext, message=message, tools=run.agent.scopes.names()
        )
        if isinstance(got, Deny):
            return await _denied(run, got.text())
    user = await run.fire("on_user_message", UserMessageContext, message=message)
    if isinstance(user, Deny):
        return await _denied(run, user.text())
    if user is not None:
        message = user.message
    run.input = message
    await run.commit(new_message("user", message))
    # the agent: pre_agent → turns → post_agent → the final message committed once allowed
    pre = await run.fire(
        "pre_agent", PreAgentContext, input=message, response=None, short_circuit=None
    )
    if isinstance(pre, Deny):
        return await _denied(run, pre.text())
    if pre is not None and pre.short_circuit == "response" and pre.response is not None:
        response = pre.response
        held = new_message("assistant", response.content)
        return await _finish_agent(
            run,
            message,
            response.content,
            response.finish_reason,
            held,
            streamed=False,
            output=response.output,
        )
    return await conclude(run, message, await run_turns(run))


def conclude(run: Run, task: str, ended: Ended) -> Awaitable[AgentResponse]:
    """The response once the turns ended (await it): denied, paused (``post_agent`` waits
    for the end of the resumed run), or ``post_agent`` → the final message committed once
    allowed."""
    if ended.deny is not None:
        return _denied(run, ended.deny.text())
    if ended.finish_reason == "paused":
        return _ready(completed(run, ended.content, "paused"))
    return _finish_agent(
        run, task, ended.content, ended.finish_reason, ended.held, output=ended.output
    )


async def _ready(response: AgentResponse) -> AgentResponse:
    return response


async def _finish_agent(
    run: Run,
    task: str,
    content: str | None,
    finish_reason: str,
    held: ChatMessage | None,
    *,
    streamed: bool = True,
    output: Any = None,
) -> AgentResponse:
    if "post_agent" in run.bus.listened:
        got = await run.fire(
            "post_agent",
            PostAgentContext,
            input=task,
            response=completed(run, content, finish_reason, output),
        )
        if isinstance(got, Deny):
            return await _denied(run, got.text())
        final = got.response  # type: ignore[union-attr]
        content, finish_reason, output = final.content, final.finish_reason, final.output
    if held is not None:
        if held.content != content:
            held = held.model_copy(update={"content": content})
        await run.commit(held)
    # a gated stream releases the allowed answer now; a pre_agent short-circuit never
    # streamed its answer, so it goes out as one chunk like a cached response
    if (run.gated or not streamed) and run.sink is not None and content:
        await run.send(TextDelta(content))
    return completed(run, content, finish_reason, output)


def completed(
    run: Run, content: str | None, finish_reason: str, output: Any = None
) -> AgentResponse:
    """The response of ``run``: ``content``, ``finish_reason`` and the validated ``output``
    with the run's messages, usage, turn count and answering agent."""
    messages = list(run.new_messages)
    return AgentResponse(
        content=content,
        finish_reason=finish_reason,
        messages=messages,
        usage=run.usage,
        iterations=run.turns,
        agent=run.agent.name,
        output=output,
        pending=list(run.pending),
    )


async def _denied(run: Run, reason: str) -> AgentResponse:
    await run.announce(run.close_open_calls(reason))  # open calls get their messages first
    return completed(run, reason, "denied")


async def _race_signal(run: Run, make: Body) -> AgentResponse:
    """The body, cancelled when the abort ``signal`` is set first (then ``RunAborted``)."""
    signal = run.signal
    assert signal is not None
    if signal.is_set():
        raise RunAborted(getattr(signal, "reason", None) or "aborted")
    body = asyncio.ensure_future(make())
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({body, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        waiter.cancel()
        body.cancel()
        await asyncio.gather(body, return_exceptions=True)
        raise
    waiter.cancel()
    if body.done():
        return body.result()
    body.cancel()
    await asyncio.gather(body, return_exceptions=True)
    raise RunAborted(getattr(signal, "reason", None) or "aborted")


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


def stream_run(run: Run, message: str) -> AsyncGenerator[StreamEvent, None]:
    """Drive ``run`` for a ``chat_stream()`` consumer, at most one item ahead; closing the
    iterator early aborts the run (reason ``"stream closed"``). The run's outcome reaches the
    consumer exactly as ``chat()`` would return or raise it."""
    return stream(run, partial(execute_run, run, message))


async def stream(
    run: Run, execute_body: Callable[[], Coroutine[Any, Any, AgentResponse]]
) -> AsyncGenerator[StreamEvent, None]:
    """``stream_run`` for any way of executing ``run`` (a start, or a resumption)."""
    queue: asyncio.Queue[StreamEvent | _Failure] = asyncio.Queue(maxsize=1)
    run.sink = queue.put
    closing = False

    async def produce() -> None:
        try:
            response = await execute_body()
        except BaseException as exc:
            if closing:  # the consumer left: nobody reads the queue any more
                raise
            await queue.put(_Failure(exc))
            return
        await queue.put(FinalResponse(response))

    task = asyncio.ensure_future(produce())
    try:
        while True:
            item = await queue.get()
            if isinstance(item, _Failure):
                raise item.error
            yield item
            if isinstance(item, FinalResponse):
                return
    finally:
        if not task.done():
            closing = True
            run.abort_reason = "stream closed"
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


__all__ = [
    "Body",
    "completed",
    "conclude",
    "execute",
    "execute_run",
    "stream",
    "stream_run",
]
