"""``should_stop`` returning ``True`` after a turn with only tool calls ends a Pydantic AI run
with ``finish_reason="stopped"``, as on our runtime (the answer has no text)."""

from __future__ import annotations

from typing import Any

from pydantic_ai_script import PROMPT, Script, file_agent

from agenthooks import HookBus

TERMINALS = {"on_chat_done", "on_chat_error", "on_chat_abort", "on_chat_paused", "on_chat_end"}


async def test_should_stop_after_a_tool_only_turn_ends_the_run_stopped() -> None:
    bus = HookBus()
    seen: list[tuple[str, Any]] = []
    for name in ("should_stop", "on_chat_done", "on_chat_error", "on_chat_end"):
        bus.on(name, lambda ctx, name=name: seen.append((name, ctx)))
    bus.on("should_stop", lambda ctx: len(ctx.tool_messages) == 2)
    script = Script(
        [
            ("delete_file", {"path": "/tmp/a.txt"}, "call_1"),
            ("read_file", {"path": "/tmp/b.txt"}, "call_2"),
        ],
        "never asked",
    )
    agent, ran = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert script.calls == 1
    assert ran == ["delete_file /tmp/a.txt", "read_file /tmp/b.txt"]
    assert [name for name, _ in seen] == ["should_stop", "on_chat_done", "on_chat_end"]
    stop = seen[0][1]
    assert stop.message.content is None
    assert [c.id for c in stop.message.tool_calls] == ["call_1", "call_2"]
    done = seen[1][1].response
    assert (done.content, done.finish_reason, done.iterations) == (None, "stopped", 1)
    assert seen[2][1].error is None
    # the caller gets the run's output as Pydantic AI gives a text answer: the empty text
    assert result.output == ""
