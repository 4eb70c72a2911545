"""A stored session whose history lost the message that made its pending calls (a row
removed by hand) does not resume: a ``ResumeError`` naming the session, raised before anything
runs, and the session stays paused for a person to repair."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agenthooks import (
    Agent,
    Approve,
    Ask,
    ProviderResponse,
    ResumeError,
    ScriptedProvider,
    Session,
    ToolCall,
    tool,
)
from agenthooks.stores import SQLiteStore


async def test_a_removed_assistant_message_is_a_resume_error_naming_the_session(
    tmp_path: Path,
) -> None:
    ran: list[int] = []
    events: list[str] = []

    @tool
    def refund(order: int) -> str:
        """Refund an order."""
        ran.append(order)
        return "refunded"

    def agent() -> Agent:
        model = ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="c1", name="refund", arguments={"order": 7})]
                )
            ]
        )
        built = Agent("support", provider=model, tools=[refund])
        built.on("pre_tool_call", lambda ctx: Ask("a manager decides"))
        built.on("on_event", lambda record: events.append(record.type))
        return built

    store = SQLiteStore(tmp_path / "sessions.db")
    paused = await Session(agent(), store=store, session_id="refunds-7").chat("Refund 7")
    assert [p.call_id for p in paused.pending] == ["c1"]
    before = await store.get("refunds-7")
    assert before is not None and before.paused is not None
    run_id = before.paused.run_id
    conn = sqlite3.connect(store.path)
    with conn:
        removed = conn.execute(
            "DELETE FROM agenthooks_messages WHERE session_id = ? AND body LIKE ?",
            ("refunds-7", '%"role":"assistant"%'),
        ).rowcount
    conn.close()
    assert removed == 1
    events.clear()
    with pytest.raises(ResumeError) as info:
        await Session(agent(), store=store, session_id="refunds-7").resume({"c1": Approve()})
    error = info.value
    assert error.session_id == "refunds-7"
    assert str(error) == (
        f"session 'refunds-7': the paused run {run_id!r} cannot resume: its history no "
        "longer holds the assistant message that made its pending calls ('c1')"
    )
    assert (ran, events) == ([], [])  # nothing ran, no event fired
    row = await store.get("refunds-7")
    assert row is not None and (row.status, row.owner, row.pending) == ("paused", None, ["c1"])
    await store.aclose()
