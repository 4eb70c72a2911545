"""A run's limits go on across a pause: what the run used before ``Ask`` → ``resume()`` still
counts after it, in memory and when the paused run is stored (SQLite, the real PostgreSQL)
and resumed by a fresh agent with a fresh ``Limits`` (as another process would)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis
from agenthooks_limits import Cap, Limits, RedisStore

from agenthooks import (
    Agent,
    Approve,
    Ask,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    Usage,
    tool,
)
from agenthooks.stores import Store, open_store
from agenthooks.testing import require

POSTGRES = os.environ.get("AGENTHOOKS_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")

ran: list[str] = []


@tool
def note(text: str) -> str:
    """Take a note."""
    ran.append(f"note {text}")
    return "noted"


@tool
def pay(amount: int) -> str:
    """Pay."""
    ran.append(f"pay {amount}")
    return f"paid {amount}"


def call(call_id: str, name: str, arguments: dict[str, Any], tokens: int = 0) -> ProviderResponse:
    usage = Usage(input_tokens=tokens, output_tokens=0, total_tokens=tokens)
    return ProviderResponse(
        tool_calls=[ToolCall(id=call_id, name=name, arguments=arguments)], usage=usage
    )


SCRIPT = [
    call("n1", "note", {"text": "a"}),
    call("p1", "pay", {"amount": 50}),
    call("n2", "note", {"text": "b"}),
    call("n3", "note", {"text": "c"}),
    ProviderResponse(content="done"),
]
DENIED = 'Tool call "note" was denied (tool call limit: 3 of 3 tool calls used)'


def build(limits: Limits, script: list[Any]) -> Agent:
    agent = Agent("payer", provider=ScriptedProvider(list(script)), tools=[note, pay])
    agent.use(limits)
    agent.on("pre_tool_call", lambda ctx: Ask("pay 50?"), match="pay")
    return agent


def tool_messages(history: list[Any]) -> list[tuple[str, str]]:
    return [(m.tool_call_id, m.content) for m in history if m.role == "tool"]


@pytest.fixture(autouse=True)
def _clean() -> None:
    ran.clear()


async def test_the_tool_call_cap_counts_what_the_run_used_before_its_pause() -> None:
    limits = Limits(max_tool_calls=3)
    agent = build(limits, SCRIPT)
    assert (await agent.chat("go")).finish_reason == "paused"
    assert limits.active_runs() == []  # the paused run ended: its state is in the pause
    done = await agent.resume({"p1": Approve()})
    assert (done.finish_reason, done.content) == ("stop", "done")
    # the note before the pause, the approved payment and one more note: three calls
    assert tool_messages(agent.history) == [
        ("n1", "noted"),
        ("p1", "paid 50"),
        ("n2", "noted"),
        ("n3", DENIED),
    ]
    assert ran == ["note a", "pay 50", "note b"]
    assert limits.active_runs() == []


async def test_a_deny_in_force_and_the_warnings_already_given_survive_the_pause(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the token cap's deny step fires between turns before the pause; after the resume every
    # tool call of the run is still denied, and its warning step is not given again
    limits = Limits(max_tokens=Cap(100, ladder={0.5: "warn", 1.0: "deny"}))
    script = [
        call("n1", "note", {"text": "a"}, tokens=60),
        call("n2", "note", {"text": "b"}, tokens=50),
        call("p1", "pay", {"amount": 50}),
        call("n3", "note", {"text": "c"}),
        ProviderResponse(content="done"),
    ]
    agent = Agent("payer", provider=ScriptedProvider(script), tools=[note, pay])
    agent.use(limits)
    agent.on("pre_tool_call", lambda ctx: Ask("pay 50?"), match="pay")
    assert (await agent.chat("go")).finish_reason == "paused"
    done = await agent.resume({"p1": Approve()})
    assert done.content == "done"
    reason = "(token limit: 110 of 100 tokens used)"
    assert tool_messages(agent.history) == [
        ("n1", "noted"),
        ("n2", "noted"),  # asked for in the turn that crossed the cap
        # a human's approval answers the Ask; the limit still denies, as before the pause
        ("p1", f'Tool call "pay" was denied {reason}'),
        ("n3", f'Tool call "note" was denied {reason}'),
    ]
    assert ran == ["note a", "note b"]
    warned = capsys.readouterr().out.count("action=warn")
    assert warned == 1


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A store URL: a SQLite file, or a schema of its own in the real PostgreSQL."""
    if request.param == "sqlite":
        yield str(tmp_path / "sessions.db")
        return
    try:
        import psycopg
    except ImportError:
        require("psycopg is not installed (pip install 'agenthooks[postgres]')")
    try:
        with psycopg.connect(POSTGRES, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        require(f"PostgreSQL at {POSTGRES} is not reachable: {exc}")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    yield f"{POSTGRES}?agenthooks_schema={schema}"
    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


async def test_a_stored_pause_resumed_by_a_fresh_agent_and_limits_keeps_the_count(
    store: str,
) -> None:
    opened: Store = open_store(store)
    try:
        session = Session(build(Limits(max_tool_calls=3), SCRIPT), store=opened, session_id="s")
        assert (await session.chat("go")).finish_reason == "paused"
    finally:
        await opened.aclose()
    # another process: a new store object, agent, bus and Limits (an empty MemoryStore)
    opened = open_store(store)
    try:
        fresh = Limits(max_tool_calls=3)
        session = Session(build(fresh, SCRIPT[2:]), store=opened, session_id="s")
        done = await session.resume({"p1": Approve()})
        assert (done.finish_reason, done.content) == ("stop", "done")
        assert tool_messages(session.history) == [
            ("n1", "noted"),
            ("p1", "paid 50"),
            ("n2", "noted"),
            ("n3", DENIED),
        ]
        assert fresh.active_runs() == []
    finally:
        await opened.aclose()
    assert ran == ["note a", "pay 50", "note b"]


def _process(mode: str, url: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("pause_worker.py")), mode, url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_a_run_paused_in_one_process_and_resumed_in_another_keeps_its_count(
    store: str,
) -> None:
    paused = _process("chat", store)
    assert paused == {"finish": "paused", "ran": ["note a"], "tools": [["n1", "noted"]]}
    resumed = _process("resume", store)
    # the note before the pause, the approved payment and one more note: three calls
    assert resumed == {
        "finish": "stop",
        "ran": ["pay 50", "note b"],
        "tools": [
            ["n1", "noted"],
            ["p1", "paid 50"],
            ["n2", "noted"],
            ["n3", 'Tool call "note" was denied (tool call limit: 3 of 3 tool calls used)'],
        ],
    }


async def test_with_a_shared_redis_store_the_resumed_run_counts_on(
    redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    sessions = open_store(str(tmp_path / "sessions.db"))
    first = RedisStore(redis_url, prefix=redis_prefix)
    try:
        session = Session(
            build(Limits(max_tool_calls=3, store=first), SCRIPT), store=sessions, session_id="s"
        )
        assert (await session.chat("go")).finish_reason == "paused"
    finally:
        await first.aclose()
    # the run's counters left Redis with the run's end: the pause holds them
    client = redis.Redis.from_url(redis_url)
    try:
        assert list(client.scan_iter(match=redis_prefix + "run:*")) == []
    finally:
        client.close()
    second = RedisStore(redis_url, prefix=redis_prefix)
    try:
        session = Session(
            build(Limits(max_tool_calls=3, store=second), SCRIPT[2:]),
            store=sessions,
            session_id="s",
        )
        done = await session.resume({"p1": Approve()})
    finally:
        await second.aclose()
        await sessions.aclose()
    assert done.content == "done"
    assert tool_messages(session.history)[-1] == ("n3", DENIED)
    assert ran == ["note a", "pay 50", "note b"]
