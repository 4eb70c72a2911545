"""The stores themselves, against SQLite and the real PostgreSQL: the versioned schema, a
session's history across Session objects, claims, URLs, and the PostgreSQL skip rule."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from store_support import HERE

from agenthooks import Agent, Approve, ScriptedProvider, Session
from agenthooks.errors import (
    NotPausedError,
    SessionBusyError,
    StoreError,
    UnknownSessionError,
)
from agenthooks.stores import SCHEMA_VERSION, SQLiteStore, open_store
from agenthooks.stores.migrations import MIGRATIONS


async def test_the_schema_is_versioned_and_migrated_once(store_url: str) -> None:
    store = open_store(store_url)
    try:
        assert await store.migrate() == SCHEMA_VERSION == 2
        assert await store.migrate() == 2  # idempotent
        async with store.transaction() as tx:
            rows = await tx.fetch(
                f"SELECT version, description FROM {store.table('schema')} ORDER BY version"
            )
        assert [tuple(r) for r in rows] == [(v, d) for v, d, _ in MIGRATIONS]
        async with store.transaction() as tx:
            await tx.execute(
                f"INSERT INTO {store.table('schema')} (version, description, applied_at) "
                "VALUES (?, ?, ?)",
                (3, "from the future", time.time()),
            )
        newer = open_store(store_url)
        with pytest.raises(StoreError) as info:
            await newer.get("x")
        assert str(info.value) == (
            "the store's schema is at version 3, newer than this agenthooks knows (2): "
            "upgrade agenthooks to use it"
        )
        await newer.aclose()
    finally:
        await store.aclose()


async def test_a_session_continues_in_a_new_session_object(store_url: str) -> None:
    store = open_store(store_url)
    model = ScriptedProvider(["one", "two"])
    agent = Agent("talker", provider=model)
    starts: list[str] = []
    agent.on("on_session_start", lambda ctx: starts.append(ctx.session_id or ""))
    await Session(agent, store=store, session_id="s").chat("first")
    second = Session(agent, store=store, session_id="s")
    await second.chat("second")
    assert [m.content for m in second.history] == ["first", "one", "second", "two"]
    assert [m.content for m in model.requests[1].messages] == ["first", "one", "second"]
    assert starts == ["s"]  # the session started once, whichever process chats next
    row = await store.get("s")
    assert row is not None
    assert (row.status, row.messages, row.started, row.owner) == ("idle", 4, True, None)
    with pytest.raises(NotPausedError) as info:
        await second.resume({"x": Approve()})
    assert str(info.value) == "session 's' has no paused run to resume"
    with pytest.raises(UnknownSessionError) as unknown:
        await Session(agent, store=store, session_id="nobody").resume({})
    assert str(unknown.value) == f"no session 'nobody' in {store!r}"
    await store.aclose()


async def test_a_live_claim_keeps_other_processes_out(store_url: str) -> None:
    store = open_store(store_url)
    assert await store.claim("busy", "talker", None, "pid1-other", time.time() + 60)
    agent = Agent("talker", provider=ScriptedProvider(["never"]))
    with pytest.raises(SessionBusyError) as info:
        await Session(agent, store=store, session_id="busy").chat("hi")
    assert str(info.value) == "session 'busy' is running in another process (pid1-other)"
    assert agent.provider.requests == []  # type: ignore[union-attr]
    await store.aclose()


def test_store_urls(tmp_path: Path) -> None:
    assert repr(open_store(str(tmp_path / "a.db"))) == f"SQLiteStore({str(tmp_path / 'a.db')!r})"
    assert open_store(f"sqlite:///{tmp_path}/b.db").path == tmp_path / "b.db"  # type: ignore[attr-defined]
    pg = open_store("postgresql://u:secret@h:5432/db?agenthooks_schema=s1&agenthooks_prefix=p_")
    assert repr(pg) == "PostgresStore('postgresql://u:***@h:5432/db', schema='s1')"
    assert pg.table("sessions") == '"s1".p_sessions'
    with pytest.raises(StoreError) as info:
        open_store("mysql://h/db")
    assert str(info.value) == "'mysql://h/db': unknown store scheme 'mysql' (postgresql, sqlite)"
    with pytest.raises(StoreError) as bad:
        SQLiteStore(tmp_path / "c.db", prefix="x; DROP")
    assert str(bad.value) == (
        "prefix 'x; DROP' is not a valid name: use letters, digits and _ (at most 41)"
    )
    env = {k: v for k, v in os.environ.items() if k != "AGENTHOOKS_STORE"}
    os_env = os.environ.copy()
    try:
        os.environ.clear()
        os.environ.update(env)
        with pytest.raises(StoreError) as none:
            open_store()
        assert str(none.value).startswith("no store given: pass a URL or path")
    finally:
        os.environ.clear()
        os.environ.update(os_env)


@pytest.mark.subprocess
@pytest.mark.parametrize(("ci", "outcome"), [("", "skipped"), ("true", "error")])
def test_without_postgresql_its_tests_skip_with_the_reason_and_fail_under_ci(
    ci: str, outcome: str
) -> None:
    env = {
        **os.environ,
        "AGENTHOOKS_TEST_POSTGRES": "postgresql://postgres@127.0.0.1:9/none",
        "CI": ci,
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            str(HERE / "test_stores_schema.py"),
            "-k",
            "test_a_live_claim_keeps_other_processes_out and postgres",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert f"1 {outcome}" in result.stdout, result.stdout
    assert result.returncode == (0 if outcome == "skipped" else 1)
    assert "PostgreSQL at postgresql://postgres@127.0.0.1:9/none is not reachable" in result.stdout
