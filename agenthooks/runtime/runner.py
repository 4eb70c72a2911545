"""One run from start to its single terminal event.

on_session_start → on_chat_start → on_user_message → user message (on_message) → pre_agent →
turns → post_agent → final message (on_message) → exactly one of on_chat_done / on_chat_abort /
on_chat_error → on_chat_end → on_session_end.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable, Coroutine
from typing import Any

import structlog

from .._construct import agent_response, chat_message, context
from ..errors import RunAborted, StopRun
from ..events.contexts import (
    ChatAbortContext,
    ChatDoneContext,
    ChatEndContext,
    ChatErrorContext,
    ChatStartContext,
    PostAgentContext,
    PreAgentContext,
    SessionContext,
    StopContext,
    UserMessageContext,
)
from ..messages import AgentResponse, ChatMessage
from .loop import run_turns
from .run import Run
from .streaming import FinalResponse, StreamEvent, TextDelta

log = structlog.get_logger("agenthooks")

# a done run has work after its answer only when one of these is listened to
_DONE_EVENTS = frozenset({"on_chat_done", "on_chat_end", "on_session_end"})


async def execute_run(run: Run, message: str) -> AgentResponse:
    """Run ``run`` on the user ``message``; ends with exactly one terminal event."""
    if run.agent._connect_on_run:  # MCP servers start before the run's first event
        await run.agent.connect()
    started = time.perf_counter()
    try:
        if run.signal is None:
            response = await _body(run, message)
        else:
            response = await _race_signal(run, message)
    except asyncio.CancelledError as exc:
        await _end_aborted(run, exc, run.abort_reason or "cancelled", started)
        raise
    except RunAborted as exc:
        await _end_aborted(run, exc, exc.reason, started)
        raise
    except Exception as exc:
        await _end_failed(run, exc, started)
        raise
    if not _DONE_EVENTS.isdisjoint(run.bus.listened):
        await _end_done(run, response, started)
    return response


async def _body(run: Run, message: str) -> AgentResponse:
    bus = run.bus
    session = run.session
    if session is not None and run.parent is None:
        reason = await session.gate(run)
        if reason is not None:
            return await _denied(run, reason)
    if "on_chat_start" in bus.listened:
        deny = await bus.run(
            "on_chat_start",
            context(ChatStartContext, run.base(), message=message, tools=run.agent.scopes.names()),
        )
        if deny is not None:
            return await _denied(run, deny.text())
    if "on_user_message" in bus.listened:
        uctx = context(UserMessageContext, run.base(), message=message)
        deny = await bus.run("on_user_message", uctx)
        if deny is not None:
            return await _denied(run, deny.text())
        message = uctx.message
    run.input = message
    user = chat_message("user", message, [])
    run.append(user)
    if "on_message" in bus.listened:
        await run.message_event(user)
    return await run_agent(run, message)


async def run_agent(run: Run, task: str) -> AgentResponse:
    """``pre_agent`` → turns → ``post_agent`` → the final message committed once allowed."""
    bus = run.bus
    held: ChatMessage | None = None
    if "pre_agent" in bus.listened:
        pctx = context(PreAgentContext, run.base(), input=task, response=None, short_circuit=None)
        deny = await bus.run("pre_agent", pctx)
        if deny is not None:
            return await _denied(run, deny.text())
        if pctx.short_circuit == "response" and pctx.response is not None:
            response = pctx.response
            held = chat_message("assistant", response.content, [])
            return await _finish_agent(
                run, task, response.content, response.finish_reason, held, streamed=False
            )
    ended = await run_turns(run)
    if ended.deny is not None:
        return await _denied(run, ended.deny.text())
    return await _finish_agent(run, task, ended.content, ended.finish_reason, ended.held)


async def _finish_agent(
    run: Run,
    task: str,
    content: str | None,
    finish_reason: str,
    held: ChatMessage | None,
    *,
    streamed: bool = True,
) -> AgentResponse:
    bus = run.bus
    if "post_agent" in bus.listened:
        actx = context(
            PostAgentContext,
            run.base(),
            input=task,
            response=_completed(run, content, finish_reason),
        )
        deny = await bus.run("post_agent", actx)
        if deny is not None:
            return await _denied(run, deny.text())
        content, finish_reason = actx.response.content, actx.response.finish_reason
    if held is not None:
        if held.content != content:
            held = held.model_copy(update={"content": content})
        run.append(held)
        if "on_message" in bus.listened:
            await run.message_event(held)
    # a gated stream releases the allowed answer now; a pre_agent short-circuit never
    # streamed its answer, so it goes out as one chunk like a cached response
    if (run.gated or not streamed) and run.sink is not None and content:
        await run.send(TextDelta(content))
    return _completed(run, content, finish_reason)


def _completed(run: Run, content: str | None, finish_reason: str) -> AgentResponse:
    """The response of ``run``: ``content`` and ``finish_reason`` with the run's messages,
    usage, turn count and answering agent."""
    return agent_response(
        content, finish_reason, list(run.new_messages), run.usage, run.turns, run.agent.name
    )


async def _denied(run: Run, reason: str) -> AgentResponse:
    await run.announce(run.close_open_calls(reason))  # open calls get their messages first
    return _completed(run, reason, "denied")


async def _race_signal(run: Run, message: str) -> AgentResponse:
    """The body, cancelled when the abort ``signal`` is set first (then ``RunAborted``)."""
    signal = run.signal
    assert signal is not None
    if signal.is_set():
        raise RunAborted(getattr(signal, "reason", None) or "aborted")
    body = asyncio.ensure_future(_body(run, message))
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


async def _end_done(run: Run, response: AgentResponse, started: float) -> None:
    bus = run.bus
    failure: Exception | None = None
    try:
        if "on_chat_done" in bus.listened:
            await bus.emit("on_chat_done", context(ChatDoneContext, run.base(), response=response))
    except Exception as exc:  # a terminal handler never changes the outcome
        failure = exc
    await _chat_end(run, response, None, started)
    await _session_end(run)
    if failure is not None:
        raise failure


async def _end_failed(run: Run, exc: Exception, started: float) -> None:
    bus = run.bus
    await run.announce(run.close_open_calls(str(exc) or type(exc).__name__))
    if isinstance(exc, StopRun) and "on_stop" in bus.listened:
        try:
            await bus.emit("on_stop", context(StopContext, run.base(), reason=exc.reason))
        except Exception as stop_error:  # the run is failing already: keep its error
            log.warning("on_stop_handler_failed", error=repr(stop_error))
    if "on_chat_error" in bus.listened:
        await bus.emit("on_chat_error", context(ChatErrorContext, run.base(), error=exc))
    await _chat_end(run, None, exc, started)
    await _session_end(run)


async def _end_aborted(run: Run, exc: BaseException, reason: Any, started: float) -> None:
    closed = run.close_open_calls("cancelled")  # before the first await of the teardown
    bus = run.bus

    async def abort() -> None:
        await run.announce(closed)
        if "on_chat_abort" in bus.listened:
            await bus.emit("on_chat_abort", context(ChatAbortContext, run.base(), reason=reason))

    async def end() -> None:
        await _chat_end(run, None, exc, started)

    async def session_end() -> None:
        await _session_end(run)

    # each step has its own bound, so a stuck on_chat_abort handler never costs on_chat_end;
    # a second cancellation is re-raised once every step ran
    cancelled = False
    for step in (abort, end, session_end):
        try:
            await shielded(step, run.agent.abort_timeout)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


async def shielded(make: Callable[[], Coroutine[Any, Any, None]], timeout: float) -> None:
    """Run teardown handlers shielded from a second cancellation, bounded by ``timeout``; a
    second cancellation is re-raised once the teardown is done."""
    task = asyncio.ensure_future(make())
    cancelled = False
    deadline = time.monotonic() + timeout
    while not task.done():
        try:
            await asyncio.wait_for(asyncio.shield(task), max(0.0, deadline - time.monotonic()))
        except asyncio.CancelledError:
            cancelled = True
        except (asyncio.TimeoutError, TimeoutError):
            task.cancel()
            log.warning("teardown_timeout", timeout=timeout)
            break
    if cancelled:
        raise asyncio.CancelledError


async def _chat_end(
    run: Run, response: AgentResponse | None, error: BaseException | None, started: float
) -> None:
    if "on_chat_end" in run.bus.listened:
        await run.bus.emit(
            "on_chat_end",
            context(
                ChatEndContext,
                run.base(),
                response=response,
                error=error,
                duration=time.perf_counter() - started,
            ),
        )


async def _session_end(run: Run) -> None:
    if run.session is not None and run.parent is None and "on_session_end" in run.bus.listened:
        await run.bus.emit("on_session_end", context(SessionContext, run.base()))


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


async def stream_run(run: Run, message: str) -> AsyncGenerator[StreamEvent, None]:
    """Drive ``run`` for a ``chat_stream()`` consumer, at most one item ahead; closing the
    iterator early aborts the run (reason ``"stream closed"``)."""
    queue: asyncio.Queue[StreamEvent | _Failure] = asyncio.Queue(maxsize=1)
    run.sink = queue.put

    async def produce() -> None:
        try:
            response = await execute_run(run, message)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
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
            run.abort_reason = "stream closed"
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


__all__ = ["execute_run", "run_agent", "shielded", "stream_run"]
