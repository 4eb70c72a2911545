"""``RemoteHooks`` on the LangChain bridge: a LangChain agent in this process governed by the
hook server's bus over ``/v1/events``, with the same scripted cases as our runtime's."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from agenthooks_langchain import AgentHooksMiddleware
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_scripted import calls, delete_file, ran, read_file, script

from agenthooks import Deny, HookBus
from agenthooks.remote import RemoteHooks
from agenthooks.server import Tokens, create_app

_SERVER_TESTS = Path(__file__).resolve().parents[3] / "tests" / "server"
if str(_SERVER_TESTS) not in sys.path:
    sys.path.insert(0, str(_SERVER_TESTS))

from server_support import ServerThread, free_port, write_tokens  # noqa: E402

TOKEN = "tok-lc-4"


@pytest.fixture
def server(tmp_path: Path) -> Any:
    ran.clear()
    bus = HookBus()
    records: list[Any] = []
    bus.on("on_event", records.append)

    def policy(ctx: Any) -> Any:
        if ctx.call.name == "delete_file":
            return Deny("Deleting files is not allowed.")
        if ctx.call.arguments.get("path") == "/etc/passwd":
            return {"call": ctx.call.model_copy(update={"arguments": {"path": "/tmp/safe.txt"}})}
        return None

    bus.on("pre_tool_call", policy, guard=True)
    bus.on(
        "on_tool_call_result",
        lambda ctx: {"result": str(ctx.result).replace("/tmp/b.txt", "[REDACTED:path]")},
        match="read_file",
        guard=True,
    )
    tokens = Tokens.from_file(write_tokens(tmp_path / "tokens", lc=TOKEN))
    with ServerThread(create_app(bus, tokens=tokens)) as thread:
        yield thread.url, records


async def run(model: Any, url: str) -> tuple[dict[str, Any], RemoteHooks]:
    bus = HookBus()
    remote = RemoteHooks(url, token=TOKEN, timeout=5)
    bus.use(remote)
    agent = create_agent(model, [delete_file, read_file], middleware=[AgentHooksMiddleware(bus)])
    try:
        result = await agent.ainvoke({"messages": [{"role": "user", "content": "tidy"}]})
    finally:
        await remote.aclose()
    return result, remote


def tool_texts(result: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m.name, m.content) for m in result["messages"] if isinstance(m, ToolMessage)]


async def test_deny_rewrite_and_redaction_decided_by_the_server(server: Any) -> None:
    url, records = server
    model = script(
        calls(
            ("call_1", "delete_file", {"path": "/tmp/a.txt"}),
            ("call_2", "read_file", {"path": "/tmp/b.txt"}),
            ("call_3", "read_file", {"path": "/etc/passwd"}),
        ),
        "done",
    )
    result, _ = await run(model, url)
    assert tool_texts(result) == [
        ("delete_file", "Deleting files is not allowed."),
        ("read_file", "contents of [REDACTED:path]"),
        ("read_file", "contents of /tmp/safe.txt"),
    ]
    assert ran == [("read_file", {"path": "/tmp/b.txt"}), ("read_file", {"path": "/tmp/safe.txt"})]
    pre = [r for r in records if r.type == "pre_tool_call"]
    assert [(r.agent, r.tool_call_id, r.denied) for r in pre] == [
        ("lc", "call_1", "Deleting files is not allowed."),
        ("lc", "call_2", None),
        ("lc", "call_3", None),
    ]
    assert [r.type for r in records][-2:] == ["on_chat_done", "on_chat_end"]


async def test_an_unreachable_server_denies_the_run_before_it_starts() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    model = script(calls(("call_1", "read_file", {"path": "/tmp/b.txt"})), "done")
    result, _ = await run(model, url)
    assert result["messages"][-1].content == (
        f"the hook server at {url}/v1/events cannot be reached (ConnectError)"
    )
    assert model.sent == []  # the model was never asked
    assert ran == []
