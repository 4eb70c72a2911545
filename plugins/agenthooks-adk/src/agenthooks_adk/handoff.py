"""A hook-layer call whose framework call happens between two ADK callbacks.

ADK calls the model (or a tool) itself, between ``before_model_callback`` and
``after_model_callback`` / ``on_model_error_callback`` (``before_tool_callback`` and
``after_tool_callback`` / ``on_tool_error_callback`` for tools). The bus's hook layer and
middleware must wrap that call, so the bridge runs ``BridgeRun.model_call`` (or
``tool_call``) as a task whose framework call is a ``Handoff``: the first callback waits
until the hook layer either answers by itself (a short-circuit, a denial) or reaches the
framework call, whose request (or arguments) ADK then goes on with; the second callback hands
the framework's answer (or exception) back and waits for the hook layer's outcome.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Generic, TypeVar

Q = TypeVar("Q")
A = TypeVar("A")
T = TypeVar("T")


_ANSWERED: Any = object()
"""What ``asked`` holds when the hook layer answered without calling the framework."""


class Handoff(Generic[Q, A]):
    """The framework's call as the hook layer sees it, answered by ADK.

    Args:
        again: Calls the framework directly, for a second call of the same hook layer (a
            retry middleware calling again after ADK's own call failed).
    """

    __slots__ = ("again", "asked", "answer", "calls")

    def __init__(self, again: Callable[[Q], Awaitable[A]]) -> None:
        loop = asyncio.get_running_loop()
        self.again = again
        self.asked: asyncio.Future[Q] = loop.create_future()
        """The request (arguments) the hook layer calls the framework with."""
        self.answer: asyncio.Future[A] = loop.create_future()
        """What the framework answered (or raised), set by the second callback."""
        self.calls = 0

    async def __call__(self, request: Q) -> A:
        """The hook layer's call of the framework: hand ``request`` over and wait for the answer.

        A second call (a retry) goes straight to ``again``.
        """
        self.calls += 1
        if self.calls > 1 or self.asked.done():
            return await self.again(request)
        self.asked.set_result(request)
        return await self.answer

    def give(self, value: A) -> None:
        """The framework answered ``value``."""
        if not self.answer.done():
            self.answer.set_result(value)

    def fail(self, exc: BaseException) -> None:
        """The framework raised ``exc``."""
        if not self.answer.done():
            self.answer.set_exception(exc)

    def drop(self) -> None:
        """The framework's call will never answer (its task ended)."""
        if not self.answer.done():
            self.answer.cancel()


class Pending(Generic[Q, A, T]):
    """One hook-layer call in flight: its task and the handoff it waits on."""

    __slots__ = ("handoff", "task")

    def __init__(self, handoff: Handoff[Q, A], task: asyncio.Task[T]) -> None:
        self.handoff = handoff
        self.task = task


async def start(
    handoff: Handoff[Q, A], layer: Coroutine[Any, Any, T]
) -> tuple[Pending[Q, A, T], bool]:
    """Run the hook layer ``layer`` until it answers or reaches the framework call.

    Returns the call in flight and whether the hook layer reached the framework call (else
    ``task`` holds its answer)."""
    task = asyncio.get_running_loop().create_task(layer)
    pending = Pending(handoff, task)
    asked = handoff.asked

    # one future to wait on (cheaper than asyncio.wait): the request, or the layer's end
    def answered(_: object) -> None:
        if not asked.done():
            asked.set_result(_ANSWERED)

    task.add_done_callback(answered)
    try:
        reached = await asked is not _ANSWERED
    except BaseException:
        task.cancel()
        raise
    return pending, reached


async def finish(pending: Pending[Q, A, T]) -> T:
    """The hook layer's answer once the framework's answer is handed over (a cancellation of
    the caller cancels the hook layer's task too)."""
    return await pending.task


__all__ = ["Handoff", "Pending", "finish", "start"]
