"""The end of a run: exactly one terminal event, then ``on_chat_end`` and
``on_session_end``, whatever the handlers raise and whenever a cancellation lands.

Each step of a teardown runs to its end whatever the step before it did: a handler's
exception is logged (the terminal handlers never change the outcome) and a cancellation is
held back until every step ran, then re-raised. A run that ends done or paused raises the
first ``on_chat_done`` / ``on_chat_paused`` handler error (``errors="raise"``) after the end
events; an error or an abort keeps the run's own outcome.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import structlog

from ..errors import StopRun
from ..events.catalog import GROUPS
from ..events.contexts import (
    ChatAbortContext,
    ChatDoneContext,
    ChatEndContext,
    ChatErrorContext,
    ChatPausedContext,
    MessageContext,
    SessionEndContext,
)
from ..messages import AgentResponse, ChatMessage
from .loop import stop
from .run import Run

log = structlog.get_logger("agenthooks")
_ENDS = GROUPS["after_answer"] - {"on_chat_done"}
"""What follows ``on_chat_done``: ``on_chat_end`` and ``on_session_end``."""

CUT_SHORT = "the tool call did not complete: the run ended before its result"
"""The tool message of a call a run-ending error cut short (the error stays out of the
model's view)."""


def end_done(run: Run, response: AgentResponse, started: float) -> Awaitable[object]:
    """The end of an answered run that anyone hears: ``on_chat_done`` alone when nobody
    hears the end events after it (its failure or cancellation is then the run's own), else
    the three steps."""
    if _ENDS.isdisjoint(run.bus.listened):
        return run.fire("on_chat_done", ChatDoneContext, response=response)
    return _end_done(run, response, started)


async def _end_done(run: Run, response: AgentResponse, started: float) -> None:
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
            await run.fire("on_chat_paused", ChatPausedContext, response=response)
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


__all__ = ["CUT_SHORT", "end_aborted", "end_done", "end_failed", "end_paused", "shielded"]
