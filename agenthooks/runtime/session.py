"""Session: one conversation with its own history, firing the session events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing
from types import TracebackType
from typing import TYPE_CHECKING

from .._construct import build
from ..decisions import Deny
from ..events.contexts import SessionCloseContext, SessionStartContext
from ..messages import AgentResponse, ChatMessage
from .run import Run, new_id
from .runner import execute_run, stream_run
from .streaming import StreamEvent

if TYPE_CHECKING:
    from .agent import Agent


class Session:
    """A conversation with ``agent`` that owns its history.

    Many Sessions share one Agent concurrently; one Session's chats are serialized.
    ``on_session_start`` fires on the first chat (a ``Deny`` there denies every later chat with
    the same reason), ``on_session_end`` after every chat, ``on_session_close`` once on
    ``close()`` or when an ``async with`` block exits.
    """

    def __init__(
        self,
        agent: Agent,
        *,
        session_id: str | None = None,
        history: list[ChatMessage] | None = None,
    ) -> None:
        self.agent = agent
        self.id = session_id or new_id()
        self._history: list[ChatMessage] = list(history or [])
        self._started = False
        self.denied: str | None = None
        self.closed = False
        self._lock = asyncio.Lock()

    @property
    def history(self) -> list[ChatMessage]:
        """This conversation's stored transcript (a copy)."""
        return list(self._history)

    async def gate(self, run: Run) -> str | None:
        """``on_session_start`` on the first chat; the deny reason that ends this chat, if any."""
        if not self._started:
            self._started = True
            if "on_session_start" in run.bus.listened:  # tool names only for a listener
                got = await run.fire(
                    "on_session_start", SessionStartContext, tools=run.agent.scopes.names()
                )
                if isinstance(got, Deny):
                    self.denied = got.text()
        return self.denied

    def _run(self, signal: asyncio.Event | None, gated: bool = False) -> Run:
        if self.closed:
            raise RuntimeError(f"session {self.id} is closed")
        return Run(
            self.agent, self.agent.bus, self._history, session=self, signal=signal, gated=gated
        )

    async def chat(self, message: str, signal: asyncio.Event | None = None) -> AgentResponse:
        """Run the agent on ``message`` in this conversation."""
        async with self._lock:
            return await execute_run(self._run(signal), message)

    async def chat_stream(
        self, message: str, *, gated: bool = False, signal: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        """``Agent.chat_stream`` in this conversation."""
        async with self._lock:
            run = self._run(signal, self.agent._gated(gated))
            # closing this iterator must close the run's stream at once (abort), not
            # whenever the inner generator is garbage-collected
            async with aclosing(stream_run(run, message)) as items:
                async for item in items:
                    yield item

    async def close(self) -> None:
        """Close the session: ``on_session_close`` fires once (idempotent)."""
        if self.closed:
            return
        self.closed = True
        bus = self.agent.bus
        if "on_session_close" in bus.listened:
            await bus.emit(
                "on_session_close",
                build(
                    SessionCloseContext,
                    session_id=self.id,
                    agent=self.agent.name,
                    branch=self.agent.name,
                ),
            )

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


__all__ = ["Session"]
