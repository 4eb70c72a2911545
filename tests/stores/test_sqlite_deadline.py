"""A SQLite store's ``timeout`` is one deadline for the whole operation a caller waits on: a
file another writer keeps locked fails a chat or a resume within that timeout, wherever the
lock is met (before the claim, the journal around a model call or a tool's effect, the pause,
the end of the run) and whatever follows the failure (the recovery, giving a claim back)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from agenthooks import (
    Agent,
    Approve,
    Ask,
    ProviderResponse,
    ScriptedProvider,
    Session,
    StoreError,
    ToolCall,
    tool,
)
from agenthooks.messages import ProviderRequest
from agenthooks.stores import SQLiteStore
from agenthooks.stores.sql import Tx, deadline, time_left

pytestmark = pytest.mark.slow

TIMEOUT = 1.0
LIMIT = 2.0  # the promise: a 1 s timeout gives up within 2 s, whatever the machine's load


class Holder:
    """Another connection to the file (another lock holder, as another process would be)
    that takes its write lock and keeps it until ``release``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.since: float | None = None
        self._held, self._release = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._hold)

    def _hold(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            self._held.set()
            self._release.wait()
            conn.execute("ROLLBACK")
        finally:
            conn.close()

    def hold(self) -> None:
        self._thread.start()
        self._held.wait()
        self.since = time.monotonic()

    def release(self) -> None:
        if self.since is not None:
            self._release.set()
            self._thread.join()


class LockedFrom(SQLiteStore):
    """A SQLiteStore whose file another writer locks as its write number ``at`` starts."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, timeout=TIMEOUT)
        self.at = 0
        self.writes = 0
        self.holder = Holder(path)

    @asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[Tx]:
        if write:
            self.writes += 1
            if self.writes == self.at:
                self.holder.hold()
        async with super().transaction(write) as tx:
            yield tx


def agent() -> Agent:
    """Asks for one refund (a person approves it), then answers: a claim, the pause, the
    resume's claim and answers, the journal before and after the tool, the end."""

    @tool
    def refund(order: int) -> str:
        """Refund an order."""
        return "refunded"

    def answer(request: ProviderRequest) -> ProviderResponse | str:
        if request.messages[-1].role == "user":
            return ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="refund", arguments={"order": 7})]
            )
        return "Refunded."

    built = Agent("support", provider=ScriptedProvider(answer), tools=[refund])
    built.on("pre_tool_call", lambda ctx: Ask("a manager decides"))
    return built


async def conversation(store: SQLiteStore, session_id: str) -> list[Callable[[], Any]]:
    """The conversation's two calls, for ``timed``."""

    def chat() -> Coroutine[Any, Any, Any]:
        return Session(agent(), store=store, session_id=session_id).chat("Refund 7")

    def resume() -> Coroutine[Any, Any, Any]:
        return Session(agent(), store=store, session_id=session_id).resume({"c1": Approve()})

    return [chat, resume]


async def test_the_conversation_writes_at_every_point_the_lock_is_tried(tmp_path: Path) -> None:
    store = LockedFrom(tmp_path / "sessions.db")
    await store.migrate()
    store.writes = 0
    chat, resume = await conversation(store, "reference")
    assert (await chat()).finish_reason == "paused"
    assert (await resume()).content == "Refunded."
    # claim, pause, end; claim, answers, journal before the call, after it, end
    assert store.writes == 8
    await store.aclose()


async def test_a_locked_file_fails_every_call_within_its_timeout(tmp_path: Path) -> None:
    waited: dict[int, float] = {}
    for at in range(1, 9):
        store = LockedFrom(tmp_path / f"locked-{at}.db")
        await store.migrate()
        store.writes, store.at = 0, at
        error: BaseException | None = None
        try:
            for call in await conversation(store, "s"):
                try:
                    await call()
                except StoreError as exc:
                    error = exc
                if store.holder.since is not None:
                    waited[at] = time.monotonic() - store.holder.since
                    break
        finally:
            store.holder.release()
            await store.aclose()
        assert isinstance(error, StoreError), (at, error)
        assert "is locked by another writer (waited 1 s;" in str(error), (at, str(error))
    assert sorted(waited) == list(range(1, 9))
    slow = {at: round(seconds, 2) for at, seconds in waited.items() if seconds >= LIMIT}
    assert slow == {}, f"gave up after the limit at these writes (seconds): {slow}"


async def test_nested_deadlines_keep_the_earliest_and_a_store_with_no_time_left_tries_once(
    tmp_path: Path,
) -> None:
    now = time.monotonic()
    assert time_left(30.0) == 30.0
    with deadline(now + 5):
        with deadline(now + 50):
            assert 4 < time_left(30.0) <= 5
        assert time_left(1.0) == 1.0
    store = SQLiteStore(tmp_path / "s.db", timeout=TIMEOUT)
    with deadline(time.monotonic() - 1):  # no time left, nothing in the way: it still works
        assert time_left(TIMEOUT) == 0.0
        assert await store.claim("s", "a", None, "me", time.time() + 60)
    holder = Holder(store.path)
    holder.hold()
    try:
        started = time.monotonic()
        with deadline(started):  # no time left and a lock in the way: it fails at once
            try:
                await store.renew("s", "me", time.time() + 60)
            except StoreError as exc:
                assert "is locked by another writer" in str(exc)
            else:
                raise AssertionError("the renewal went through a locked file")
        assert time.monotonic() - started < 0.5
    finally:
        holder.release()
        await store.aclose()
