"""One run from start to its single terminal event.

on_session_start → on_chat_start → on_user_message → user message (on_message) → pre_agent →
turns → post_agent → final message (on_message) → exactly one of on_chat_done / on_chat_paused
/ on_chat_abort / on_chat_error → on_chat_end → on_session_end. A paused run skips
``post_agent`` (the agent has not finished): it fires once its resumed part ends. The end
events are the teardown's below: they always complete, and the run's own outcome (its response,
its error, or the cancellation) reaches the caller.

The end of a run: exactly one terminal event, then ``on_chat_end`` and
``on_session_end``, whatever the handlers raise and whenever a cancellation lands.

Each step of a teardown runs to its end whatever the step before it did: a handler's
exception is logged (the terminal handlers never change the outcome) and a cancellation is
held back until every step ran, then re-raised. A run that ends done or paused raises the
first ``on_chat_done`` / ``on_chat_paused`` handler error (``errors="raise"``) after the end
events; an error or an abort keeps the run's own outcome.

A top-level run first checks what hooks ask to match against what it can reach
(``reach.check_matchers``), once per change of the bus's registrations.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable, Coroutine
from functools import partial
from typing import Any

import structlog

from ..decisions import Deny
from ..errors import RunAborted, StopRun
from ..events.catalog import GROUPS
from ..events.contexts import (
    ChatAbortContext,
    ChatDoneContext,
    ChatEndContext,
    ChatErrorContext,
    ChatPausedContext,
    ChatStartContext,
    MessageContext,
    PostAgentContext,
    PreAgentContext,
    SessionEndContext,
    UserMessageContext,
)
from ..messages import AgentResponse, ChatMessage
from .reach import check_matchers
from .run_state import Run, new_message
from .streaming import FinalResponse, StreamEvent, TextDelta
from .turn_loop import Ended, run_turns, stop

_AFTER_ANSWER = GROUPS["after_answer"]


async def execute_run(run: Run, message: str) -> AgentResponse:
    """Run ``run`` on the user ``message``; ends with exactly one terminal event."""
    return await execute(run, partial(_body, run, message))


Body = Callable[[], Coroutine[Any, Any, AgentResponse]]


async def execute(run: Run, body: Body) -> AgentResponse:
    """Run ``body`` (a run from its start, or a paused run's continuation) as ``run``; ends
    with exactly one terminal event: done, paused, abort or error."""
    agent = run.agent
    if agent.mcp_on_run:  # MCP servers start before the run's first event
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


async def conclude(run: Run, task: str, ended: Ended) -> AgentResponse:
    """The response once the turns ended: denied, paused (``post_agent`` waits for the end
    of the resumed run), or ``post_agent`` → the final message committed once allowed."""
    if ended.deny is not None:
        return await _denied(run, ended.deny.text())
    if ended.finish_reason == "paused":
        return completed(run, ended.content, "paused")
    return await _finish_agent(
        run, task, ended.content, ended.finish_reason, ended.held, output=ended.output
    )


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


# --- the end of a run: exactly one terminal event, then on_chat_end and on_session_end ---

log = structlog.get_logger("agenthooks")
_ENDS = GROUPS["after_answer"] - {"on_chat_done"}
"""What follows ``on_chat_done``: ``on_chat_end`` and ``on_session_end``."""

CUT_SHORT = "the tool call did not complete: the run ended before its result"
"""The tool message of a call a run-ending error cut short (the error stays out of the
model's view)."""


async def end_done(run: Run, response: AgentResponse, started: float) -> None:
    """The end of an answered run that anyone hears: ``on_chat_done`` alone when nobody
    hears the end events after it (its failure or cancellation is then the run's own), else
    the three steps."""
    if _ENDS.isdisjoint(run.bus.listened):
        await run.fire("on_chat_done", ChatDoneContext, response=response)
        return
    failure: Exception | None = None
    cancelled = False
    try:
        await run.fire("on_chat_done", ChatDoneContext, response=response)
    except asyncio.CancelledError:
        cancelled = True
    except Exception as exc:  # reaches the caller after the end events (errors="raise")
        failure = exc
    rest = await _steps(run, _chat_end(run, response, None, started), _session_end(run))
    if cancelled or rest:
        raise asyncio.CancelledError
    if failure is not None:
        raise failure


async def end_paused(run: Run, response: AgentResponse, started: float) -> None:
    """The end of a run that waits for a human: ``on_chat_paused``, then the end events."""
    # the asked calls stay open (no tool message): resume() answers them
    failure: list[BaseException] = []
    if run.journal is not None:  # stored before anyone hears of the pause
        try:
            await run.journal.pausing(run, response)
        except Exception as exc:  # not stored: the run ends with that error, not paused
            await end_failed(run, exc, started)
            raise

    async def paused() -> None:
        try:
            ctx = await run.fire(
                "on_chat_paused", ChatPausedContext, response=response, state=run.carried
            )
            if isinstance(ctx, ChatPausedContext):  # what the plugins keep for the resume
                run.carried = ctx.state
        except Exception as exc:  # as on_chat_done: reaches the caller after the end events
            failure.append(exc)

    cancelled = await _steps(
        run, paused, _chat_end(run, response, None, started), _session_end(run)
    )
    if cancelled:
        raise asyncio.CancelledError
    if failure:
        raise failure[0]


async def end_failed(run: Run, exc: Exception, started: float) -> None:
    """The end of a run ``exc`` ended: its open calls closed, ``on_chat_error``, then the end
    events."""
    # a StopRun's reason is meant to be read; any other error stays out of the model's view
    closed = run.close_open_calls(exc.reason if isinstance(exc, StopRun) else CUT_SHORT)

    async def failed() -> None:
        if isinstance(exc, StopRun):
            await _quietly(stop(run, exc.reason), "on_stop")
        await run.fire("on_chat_error", ChatErrorContext, error=exc)

    cancelled = await _steps(
        run, _announce(run, closed), failed, _chat_end(run, None, exc, started), _session_end(run)
    )
    if cancelled:
        raise asyncio.CancelledError


async def end_aborted(run: Run, exc: BaseException, reason: Any, started: float) -> None:
    """The end of a cancelled or aborted run: its open calls closed, ``on_chat_abort``, then
    the end events."""
    closed = run.close_open_calls("cancelled")  # before the first await of the teardown

    async def abort() -> None:
        await _announce(run, closed)()
        await run.fire("on_chat_abort", ChatAbortContext, reason=reason)

    # each step has its own bound, so a stuck on_chat_abort handler never costs on_chat_end;
    # a second cancellation is re-raised once every step ran
    cancelled = False
    for step in (abort, _chat_end(run, None, exc, started), _session_end(run)):
        try:
            await shielded(step, run.agent.abort_timeout)
        except asyncio.CancelledError:
            cancelled = True
        except Exception as error:
            log.warning("teardown_handler_failed", error=repr(error))
    if cancelled:
        raise asyncio.CancelledError


Step = Callable[[], Coroutine[Any, Any, None]]


async def _steps(run: Run, *steps: Step) -> bool:
    """Run every step, whatever the one before it did; True when a cancellation came."""
    cancelled = False
    for step in steps:
        try:
            await step()
        except asyncio.CancelledError:
            cancelled = True
        except Exception as exc:
            log.warning("teardown_handler_failed", run_id=run.run_id, error=repr(exc))
    return cancelled


def _announce(run: Run, closed: list[ChatMessage]) -> Step:
    """``on_message`` for the messages of the calls the end closed: each one is announced,
    whatever the handlers did for the one before it (a cancellation is re-raised after the
    last)."""

    async def announce() -> None:
        cancelled = False
        for message in closed:
            try:
                await run.fire("on_message", MessageContext, message=message)
            except asyncio.CancelledError:
                cancelled = True
            except Exception as exc:  # the run is ending already: keep its own outcome
                log.warning("teardown_handler_failed", hook_event="on_message", error=repr(exc))
        if cancelled:
            raise asyncio.CancelledError

    return announce


async def _quietly(pending: Coroutine[Any, Any, Any], what: str) -> None:
    try:
        await pending
    except Exception as exc:  # the run is ending already: keep its own outcome
        log.warning("teardown_handler_failed", hook_event=what, error=repr(exc))


def _chat_end(
    run: Run, response: AgentResponse | None, error: BaseException | None, started: float
) -> Step:
    async def chat_end() -> None:
        await run.fire(
            "on_chat_end",
            ChatEndContext,
            response=response,
            error=error,
            duration=time.perf_counter() - started,
        )

    return chat_end


def _session_end(run: Run) -> Step:
    async def session_end() -> None:
        if run.session is not None and run.parent is None:
            await run.fire("on_session_end", SessionEndContext)

    return session_end


async def shielded(make: Step, timeout: float) -> None:
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


__all__ = [
    "CUT_SHORT",
    "Body",
    "completed",
    "conclude",
    "end_aborted",
    "end_done",
    "end_failed",
    "end_paused",
    "execute",
    "execute_run",
    "shielded",
    "stream",
    "stream_run",
]
