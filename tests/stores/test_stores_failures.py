"""A store that cannot be used says so, typed, naming what: a SQLite file locked by another
writer (its ``timeout`` bounds each operation's whole wait, however many wait in this
process), a file that cannot be opened, and a resume that lost to another process (naming the
run and the claim that won)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from agenthooks import (
    Agent,
    Approve,
    Ask,
    ProviderResponse,
    ResumeConflictError,
    ScriptedProvider,
    Session,
    StoreError,
    ToolCall,
    tool,
)
from agenthooks.messages import ProviderRequest
from agenthooks.stores import SQLiteStore, open_store
from agenthooks.stores.sql import Tx

SLACK = 0.6  # seconds an operation may take beyond its timeout on a loaded machine


def _hold(path: Path, held: threading.Event, release: threading.Event) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    held.set()
    release.wait()
    conn.execute("ROLLBACK")
    conn.close()


async def test_a_locked_sqlite_file_fails_each_operation_within_its_timeout(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    store = SQLiteStore(path, timeout=0.5)
    await store.migrate()
    held, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold, args=(path, held, release))
    holder.start()
    held.wait()

    async def claim(number: int) -> tuple[float, BaseException | None]:
        started = time.monotonic()
        try:
            await store.claim(f"s{number}", "a", None, "me", time.time() + 60)
        except BaseException as exc:
            return time.monotonic() - started, exc
        return time.monotonic() - started, None

    try:
        # eight operations of this process queue behind one another and the other writer:
        # each still gives up after its own timeout, not after the ones before it
        results = await asyncio.gather(*(claim(n) for n in range(8)))
    finally:
        release.set()
        holder.join()
    for waited, error in results:
        assert isinstance(error, StoreError)
        assert waited < 0.5 + SLACK
        assert str(error) == (
            f"SQLiteStore({str(path)!r}): session {error.session_id!r}: claiming failed: the "
            f"file {str(path)!r} is locked by another writer (waited 0.5 s; "
            "SQLiteStore(timeout=...) sets the wait)"
        )
        assert error.store == repr(store)
    # reads wait for no writer, and once the lock is gone the store works
    assert await store.get("s0") is None
    assert await store.claim("s0", "a", None, "me", time.time() + 60)
    await store.aclose()


async def test_a_sqlite_file_that_cannot_be_opened_is_a_store_error_naming_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "missing" / "dir" / "sessions.db"
    store = open_store(str(path))
    with pytest.raises(StoreError) as info:
        await store.get("s")
    assert str(path) in str(info.value) and "cannot be opened" in str(info.value)
    assert info.value.store == repr(store)
    await store.aclose()


async def test_a_resume_that_lost_names_the_run_and_the_claim_that_won(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "sessions.db")
    entered, leave = asyncio.Event(), asyncio.Event()

    @tool
    async def refund(order: int) -> str:
        """Refund an order."""
        entered.set()
        await leave.wait()
        return "refunded"

    def agent() -> Agent:
        model = ScriptedProvider(
            lambda request: (
                ProviderResponse(
                    tool_calls=[ToolCall(id="c1", name="refund", arguments={"order": 7})]
                )
                if request.messages[-1].role == "user"
                else "Refunded."
            )
        )
        built = Agent("support", provider=model, tools=[refund])
        built.on("pre_tool_call", lambda ctx: Ask("a manager decides"))
        return built

    paused = await Session(agent(), store=store, session_id="t").chat("Refund 7")
    assert paused.finish_reason == "paused"
    first = asyncio.create_task(
        Session(agent(), store=store, session_id="t").resume({"c1": Approve()})
    )
    await entered.wait()
    row = await store.get("t")
    assert row is not None and row.owner is not None
    with pytest.raises(ResumeConflictError) as info:
        await Session(agent(), store=store, session_id="t").resume({"c1": Approve()})
    error = info.value
    assert (error.session_id, error.winner) == ("t", row.owner)
    assert error.run_id == row.paused.run_id  # type: ignore[union-attr]
    assert repr(error.run_id) in str(error) and repr(row.owner) in str(error)
    leave.set()
    assert (await first).content == "Refunded."
    await store.aclose()


@pytest.mark.server
async def test_a_postgres_server_that_does_not_answer_fails_at_once_naming_the_store() -> None:
    from agenthooks.stores import PostgresStore  # psycopg: the test extra installs it

    store = PostgresStore("postgresql://postgres@127.0.0.1:1/test")  # nothing listens there
    started = time.monotonic()
    with pytest.raises(StoreError) as info:
        await store.get("s")
    assert time.monotonic() - started < 10  # not the timeout (30 s) of a server gone away
    assert str(info.value).startswith(
        "PostgresStore('postgresql://postgres@127.0.0.1:1/test'): cannot connect: "
        "OperationalError: connection failed:"
    )
    assert info.value.store == repr(store)
    await store.aclose()


class _LockedAt(SQLiteStore):
    """A SQLiteStore whose file another writer holds when its ``cut``-th write starts."""

    cut = 0
    writes = 0

    @asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[Tx]:
        if write:
            self.writes += 1
        if not write or self.writes != self.cut:
            async with super().transaction(write) as tx:
                yield tx
            return
        held, release = threading.Event(), threading.Event()
        holder = threading.Thread(target=_hold, args=(self.path, held, release))
        holder.start()
        held.wait()
        try:
            async with super().transaction(write) as tx:
                yield tx
        finally:
            release.set()
            holder.join()


async def test_a_store_failure_before_an_approved_call_leaves_it_pending_and_approved(
    tmp_path: Path,
) -> None:
    store = _LockedAt(tmp_path / "sessions.db", timeout=0.2)
    ran: list[int] = []
    requests: list[list[str]] = []

    @tool
    def refund(order: int) -> str:
        """Refund an order."""
        ran.append(order)
        return "refunded"

    def answer(request: ProviderRequest) -> ProviderResponse | str:
        requests.append([m.content or "" for m in request.messages if m.role == "tool"])
        if request.messages[-1].role == "user":
            return ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="refund", arguments={"order": 7})]
            )
        return "Refunded."

    def agent() -> Agent:
        built = Agent("support", provider=ScriptedProvider(answer), tools=[refund])
        built.on("pre_tool_call", lambda ctx: Ask("a manager decides"))
        return built

    assert (await Session(agent(), store=store, session_id="t").chat("Refund 7")).pending
    store.writes, store.cut = 0, 3  # the resume's claim, its answers, then the call's start
    session = Session(agent(), store=store, session_id="t")
    ends: list[str] = []
    session.agent.on("on_chat_error", lambda ctx: ends.append(type(ctx.error).__name__))
    with pytest.raises(StoreError) as info:
        await session.resume({"c1": Approve()})
    assert "before call 'c1' (refund) ran: it did not run" in str(info.value)
    assert ends == ["StoreError"] and ran == []
    assert [p.call_id for p in session.pending] == ["c1"]
    assert session.history == await store.history("t")  # what the store holds, no more
    row = await store.get("t")
    assert row is not None and row.status == "paused" and row.paused is not None
    assert row.paused.answers["c1"].approved
    done = await Session(agent(), store=store, session_id="t").resume()  # the approval stands
    assert (done.content, ran) == ("Refunded.", [7])
    assert all("StoreError" not in t and "locked" not in t for r in requests for t in r)
    await store.aclose()
