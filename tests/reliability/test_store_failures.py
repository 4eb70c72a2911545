"""A store that fails at every step of a durable run (``rel_store.py``'s conversation):

- the real PostgreSQL on 127.0.0.1:5432, the connection of the running transaction
  terminated by ``pg_terminate_backend`` before each statement and before each commit of the
  chat and of the resume, and every connection of the store terminated before each
  transaction (what a server restart does to a pool);
- a real SQLite file whose write lock another connection holds when each writing
  transaction of the chat and of the resume starts (``SQLiteStore(timeout=0.2)``): the wait
  honours the timeout and the failure is a ``StoreError`` naming the file;
- stored rows that do not parse: every column and message of a paused session replaced by
  text that is not JSON and by JSON of the wrong shape: a ``ResumeError`` naming the session
  and what is wrong.

Each cut ends the run with its normal outcome (the store retried safely) or a ``StoreError``;
then the conversation is finished and checked (``rel_store.finish``).
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from rel_drive import scale
from rel_store import ASKED, Ledger, agent, check_failure, finish, step
from rel_tally import Tally

from agenthooks import Approve, Session
from agenthooks.errors import ResumeError
from agenthooks.stores import SQLiteStore
from agenthooks.stores.sql import Tx

_STORES = str(Path(__file__).resolve().parents[1] / "stores")
if _STORES not in sys.path:
    sys.path.insert(0, _STORES)

from store_support import POSTGRES, need_postgres  # noqa: E402

TIMEOUT = 0.2  # SQLiteStore(timeout=...) of the lock cases
SLACK = 0.5  # seconds a failed SQLite operation may take beyond its timeout


# PostgreSQL ---------------------------------------------------------------------------------

OUTAGE_TIMEOUT = 0.5  # PostgresStore.timeout while the server refuses the store (outage cases)


class _Counted:
    """A transaction whose statements count as steps of the store (``Cutting``)."""

    def __init__(self, tx: Tx, store: Any) -> None:
        self._tx = tx
        self._store = store

    async def execute(self, sql: str, params: Any = ()) -> int:
        await self._store.tick(self._tx, "statement")
        return await self._tx.execute(sql, params)

    async def fetch(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        await self._store.tick(self._tx, "statement")
        return await self._tx.fetch(sql, params)


def _cutting_postgres() -> type:
    from agenthooks.stores import PostgresStore

    class Cutting(PostgresStore):  # type: ignore[misc,valid-type]
        """A PostgresStore (logged in as a role of its own) whose connections the server
        terminates at step ``cut``: ``own`` (the running transaction's, before the statement
        or the commit), ``all`` (every connection of the store, before a transaction starts,
        as a server restart does) or ``outage`` (every connection, and new ones refused until
        the store operation under way has failed)."""

        def __init__(self, dsn: str, role: str, **options: Any) -> None:
            super().__init__(dsn, **options)
            self.role = role
            self.steps = 0
            self.kinds: list[str] = []  # what each step was: start, statement, commit
            self.cut: tuple[int, str] | None = None
            self.counting = False
            self.down = False

        @asynccontextmanager
        async def transaction(self, write: bool = True) -> AsyncIterator[Tx]:
            if self.counting:
                self.steps += 1
                self.kinds.append("start")
                if self.cut == (self.steps, "all"):
                    await _admin(
                        f"SELECT pg_terminate_backend(pid, 5000) FROM {_OF_ROLE}", self.role
                    )
                elif self.cut == (self.steps, "outage"):
                    self.down = True
                    await _admin(f'ALTER ROLE "{self.role}" NOLOGIN')
                    await _admin(
                        f"SELECT pg_terminate_backend(pid, 5000) FROM {_OF_ROLE}", self.role
                    )
            async with super().transaction(write) as tx:
                yield _Counted(tx, self)
                await self.tick(tx, "commit")

        async def atomic(self, *args: Any, **kwargs: Any) -> Any:
            # an operation that may meet the outage gives up after OUTAGE_TIMEOUT; the ones
            # after it (the recovery) wait as long as a store does
            coming = self.counting and self.cut is not None and self.cut[1] == "outage"
            self.timeout = OUTAGE_TIMEOUT if coming and self.steps < self.cut[0] else 30.0
            try:
                return await super().atomic(*args, **kwargs)
            finally:
                if self.down:  # the outage lasts for the operation it began in
                    self.down = False
                    await _admin(f'ALTER ROLE "{self.role}" LOGIN')

        async def tick(self, tx: Tx, what: str) -> None:
            if not self.counting:
                return
            self.steps += 1
            self.kinds.append(what)
            if self.cut == (self.steps, "own"):
                pid = (await tx.fetch("SELECT pg_backend_pid()"))[0][0]
                await _admin("SELECT pg_terminate_backend(%s, 5000)", pid)

    return Cutting


_OF_ROLE = "pg_stat_activity WHERE usename = %s"


async def _admin(sql: str, *params: Any) -> None:
    """One statement as the superuser, on a connection of its own."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(POSTGRES, autocommit=True) as admin:
        await admin.execute(sql, params or None)


@pytest.fixture
def postgres_role() -> Iterator[tuple[str, str]]:
    """A login role of its own (so its outage touches no one else) and a schema for it."""
    need_postgres()
    import psycopg

    name = f"rel_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{name}" LOGIN')
        database = conn.info.dbname
        conn.execute(f'GRANT CREATE ON DATABASE "{database}" TO "{name}"')
    yield name, name
    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        conn.execute(f'REVOKE CREATE ON DATABASE "{database}" FROM "{name}"')
        conn.execute(f'DROP ROLE IF EXISTS "{name}"')


async def _conversation(store: Any, session_id: str, cut: Any, ledger: Ledger) -> list[Any]:
    """The chat then the resume, with ``cut`` armed on both; then the finish."""
    problems: list[Any] = []
    store.cut, store.counting = cut, True
    try:
        response, error, ends = await step(
            ledger, lambda a: Session(a, store=store, session_id=session_id).chat("Refund 7")
        )
        problems += [("terminal", e) for e in ends]
        if error is None:
            assert response.finish_reason == "paused", response
            assert [p.reason for p in response.pending] == [ASKED]
            response, error, ends = await step(
                ledger,
                lambda a: Session(a, store=store, session_id=session_id).resume({"c2": Approve()}),
            )
            problems += [("terminal", e) for e in ends]
            phase = "resume"
        else:
            phase = "chat"
    finally:
        store.counting = False
    if error is not None:
        store.failures += 1
        problems += await check_failure(ledger, store, session_id, error, phase)
    problems += await finish(ledger, store, session_id)
    return problems


# the cases make test runs: every statement and commit (own); every transaction start of the
# resume for the restart and the outage (make soak: of the chat as well)
EVERY_START = scale(False, True)


async def test_postgres_connections_terminated_at_every_step(
    postgres_role: tuple[str, str],
) -> None:
    role, schema = postgres_role
    dsn = POSTGRES.replace("postgres@", f"{role}@", 1)
    store = _cutting_postgres()(dsn, role, schema=schema)
    store.failures = 0
    try:
        assert await _conversation(store, "reference", None, Ledger()) == []
        kinds, resume_at = await _count_steps(store)
        tallies = {
            kind: Tally(f"PostgreSQL: {label}")
            for kind, label in (
                ("own", "the transaction's connection terminated before each statement/commit"),
                ("all", "every connection terminated before a transaction (a restart)"),
                ("outage", "every connection terminated and logins refused for one operation"),
            )
        }
        counts = dict.fromkeys(tallies, 0)
        for number, what in enumerate(kinds, 1):
            cuts = ["own"] if what != "start" else ["all", "outage"]
            if what == "start" and number < resume_at and not EVERY_START:
                continue
            for kind in cuts:
                store.steps, store.kinds, store.failures = 0, [], 0
                problems = await _conversation(
                    store, f"cut-{kind}-{number}", (number, kind), Ledger()
                )
                counts[kind] += store.failures
                tallies[kind].case(f"{kind} at step {number} ({what})", problems, group=what)
        for kind, tally in tallies.items():
            print(f"[{tally.name}] runs ended with a StoreError: {counts[kind]}")
        for tally in tallies.values():
            tally.assert_held()
    finally:
        await store.aclose()


async def _count_steps(store: Any) -> tuple[list[str], int]:
    """What each step of a whole conversation is (start, statement, commit), and the number
    of the resume's first step."""
    store.steps, store.kinds, store.cut, store.counting = 0, [], None, True
    ledger = Ledger()
    try:
        await step(ledger, lambda a: Session(a, store=store, session_id="count").chat("Refund 7"))
        resume_at = store.steps + 1
        await step(
            ledger,
            lambda a: Session(a, store=store, session_id="count").resume({"c2": Approve()}),
        )
    finally:
        store.counting = False
    return list(store.kinds), resume_at


# SQLite -------------------------------------------------------------------------------------


class Locking(SQLiteStore):
    """A SQLiteStore whose file another connection (another thread: another lock holder, as
    another process would be) holds locked when writing transaction ``cut`` starts."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, timeout=TIMEOUT)
        self.writes = 0
        self.cut: int | None = None
        self.waits: list[float] = []

    @asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[Tx]:
        if not write:
            async with super().transaction(write) as tx:
                yield tx
            return
        self.writes += 1
        if self.writes != self.cut:
            async with super().transaction(write) as tx:
                yield tx
            return
        held, release = threading.Event(), threading.Event()
        holder = threading.Thread(target=_hold, args=(self.path, held, release))
        holder.start()
        held.wait()
        started = time.monotonic()
        try:
            async with super().transaction(write) as tx:
                yield tx
        finally:
            self.waits.append(time.monotonic() - started)
            release.set()
            await asyncio.to_thread(holder.join)


def _hold(path: Path, held: threading.Event, release: threading.Event) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        release.wait()
        conn.execute("ROLLBACK")
    finally:
        conn.close()


async def _sqlite_conversation(store: Locking, session_id: str, cut: int | None) -> list[Any]:
    problems: list[Any] = []
    ledger = Ledger()
    store.writes, store.cut, store.waits = 0, cut, []
    response, error, ends = await step(
        ledger, lambda a: Session(a, store=store, session_id=session_id).chat("Refund 7")
    )
    problems += [("terminal", e) for e in ends]
    phase = "chat"
    if error is None:
        assert response.finish_reason == "paused", response
        _, error, ends = await step(
            ledger,
            lambda a: Session(a, store=store, session_id=session_id).resume({"c2": Approve()}),
        )
        problems += [("terminal", e) for e in ends]
        phase = "resume"
    cut_writes = store.writes
    store.cut = None
    if cut is not None:
        if error is None:
            problems.append(("a locked file fails the operation", f"write {cut} went through"))
        else:
            if str(store.path) not in str(error) or "locked" not in str(error):
                problems.append(("the StoreError names the file", str(error)))
            slow = [w for w in store.waits if w > TIMEOUT + SLACK]
            if slow:
                problems.append(("the timeout is honoured", f"waited {slow[0]:.2f} s"))
            problems += await check_failure(ledger, store, session_id, error, phase)
    problems += await finish(ledger, store, session_id)
    store.writes = cut_writes
    return problems


async def test_sqlite_file_locked_at_every_write(tmp_path: Path) -> None:
    store = Locking(tmp_path / "sessions.db")
    try:
        assert await _sqlite_conversation(store, "reference", None) == []
        await _sqlite_conversation(store, "count", None)
        writes = store.writes
        tally = Tally("a SQLite file locked at every write")
        for cut in range(1, writes + 1):
            problems = await _sqlite_conversation(store, f"locked-{cut}", cut)
            tally.case(f"locked at write {cut}", problems)
        tally.assert_held()
    finally:
        await store.aclose()


# rows that do not parse ---------------------------------------------------------------------

GARBAGE = {
    "text that is not JSON": "{not json",
    "JSON of the wrong shape": '{"run_id": 7, "pending": "none"}',
}


async def test_stored_rows_that_do_not_parse_are_resume_errors(tmp_path: Path) -> None:
    tally = Tally("stored rows that do not parse")
    path = tmp_path / "sessions.db"
    store = SQLiteStore(path)
    ledger = Ledger()
    response, error, _ = await step(
        ledger, lambda a: Session(a, store=store, session_id="good").chat("Refund 7")
    )
    assert error is None and response.finish_reason == "paused"
    await store.aclose()
    messages = (await store.get("good")).messages  # type: ignore[union-attr]
    await store.aclose()
    targets = [("paused run", "paused", None), ("journal", "journal", None)]
    targets += [(f"message {i}", "body", i) for i in range(messages)]
    for (what, column, position), (kind, text) in (
        (t, g) for t in targets for g in GARBAGE.items()
    ):
        session_id = f"bad-{column}-{position}-{len(text)}"
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute(
            "INSERT INTO agenthooks_sessions SELECT ?, agent, status, version, owner, "
            "lease_until, started, denied, paused, journal, created_at, updated_at "
            "FROM agenthooks_sessions WHERE id = 'good'",
            (session_id,),
        )
        conn.execute(
            "INSERT INTO agenthooks_messages SELECT ?, position, body FROM agenthooks_messages "
            "WHERE session_id = 'good'",
            (session_id,),
        )
        if position is None:
            conn.execute(
                f"UPDATE agenthooks_sessions SET {column} = ? WHERE id = ?", (text, session_id)
            )
        else:
            conn.execute(
                "UPDATE agenthooks_messages SET body = ? WHERE session_id = ? AND position = ?",
                (text, session_id, position),
            )
        conn.close()
        problems: list[tuple[str, str]] = []
        try:
            await Session(agent(Ledger()), store=store, session_id=session_id).resume(
                {"c2": Approve()}
            )
            problems.append(("a ResumeError", "the resume went on"))
        except ResumeError as exc:
            if exc.session_id != session_id or repr(session_id) not in str(exc):
                problems.append(("names the session", str(exc)))
            if what not in str(exc):
                problems.append(("names what does not parse", str(exc)))
        except Exception as exc:
            problems.append(("a ResumeError", f"{type(exc).__name__}: {exc}"))
        tally.case(f"{what}: {kind}", problems)
    await store.aclose()
    tally.assert_held()
