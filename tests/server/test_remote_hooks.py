"""``RemoteHooks`` on our runtime: an agent in this process governed by the hook server's
bus over ``/v1/events``: the same scripted cases as the hook clients, and failing closed for
the gates when the server cannot answer."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from server_support import ServerThread, free_port, write_tokens

from agenthooks import Deny, HookBus, tool
from agenthooks.remote import RemoteHooks
from agenthooks.server import Tokens, create_app
from agenthooks.testing import call, make_agent

pytestmark = pytest.mark.server

TOKEN = "tok-worker-3"
ran: list[str] = []


@tool
def shell(command: str) -> str:
    """Run a shell command."""
    ran.append(command)
    return f"ran {command}"


@tool
def lookup(name: str) -> str:
    """Find someone."""
    return f"{name}: ada@example.com"


@pytest.fixture
def server(tmp_path: Path) -> Any:
    ran.clear()
    bus = HookBus()
    records: list[Any] = []
    bus.on("on_event", records.append)

    async def policy(ctx: Any) -> Any:
        command = ctx.call.arguments.get("command", "")
        if "rm " in command:
            return Deny("Deleting files is not allowed.")
        if command.startswith("curl "):
            arguments = {"command": command.replace("curl ", "curl --proto =https ")}
            return {"call": ctx.call.model_copy(update={"arguments": arguments})}
        if command == "sleep":
            await asyncio.sleep(2)
        return None

    bus.on("pre_tool_call", policy, guard=True)
    bus.on(
        "on_user_message",
        lambda ctx: Deny("Never share passwords here.") if "password" in ctx.message else None,
        guard=True,
    )
    bus.on(
        "on_tool_call_result",
        lambda ctx: {"result": str(ctx.result).replace("ada@example.com", "[REDACTED:email]")},
        match="lookup",
        guard=True,
    )
    tokens = Tokens.from_file(write_tokens(tmp_path / "tokens", worker=TOKEN))
    with ServerThread(create_app(bus, tokens=tokens)) as thread:
        yield thread.url, records


def agent(script: list[Any], url: str, **options: Any) -> Any:
    remote = RemoteHooks(url, token=options.pop("token", TOKEN), **options)
    built = make_agent(script, tools=[shell, lookup])
    built.use(remote)
    return built, remote


def tool_messages(built: Any) -> list[str]:
    return [m.content for m in built.history if m.role == "tool"]


async def test_a_denied_call_never_runs_and_the_model_reads_why(server: Any) -> None:
    url, records = server
    built, remote = agent([call("shell", command="rm -rf build"), "ok"], url)
    response = await built.chat("tidy up")
    await remote.aclose()
    assert ran == []
    assert tool_messages(built) == ["Deleting files is not allowed."]
    assert response.content == "ok"
    served = [r for r in records if r.type == "pre_tool_call"]
    assert [(r.agent, r.denied) for r in served] == [("worker", "Deleting files is not allowed.")]
    assert served[0].run_id.startswith("events-")
    assert [r.type for r in records][-2:] == ["on_chat_done", "on_chat_end"]


async def test_a_rewrite_runs_the_rewritten_call(server: Any) -> None:
    url, _ = server
    built, remote = agent([call("shell", command="curl example.org"), "ok"], url)
    await built.chat("fetch")
    await remote.aclose()
    assert ran == ["curl --proto =https example.org"]


async def test_a_prompt_deny_ends_the_run_denied(server: Any) -> None:
    url, _ = server
    built, remote = agent(["never"], url)
    response = await built.chat("my password is x")
    await remote.aclose()
    assert (response.finish_reason, response.content) == ("denied", "Never share passwords here.")
    assert built.provider.requests == []


async def test_a_result_is_redacted_by_the_server(server: Any) -> None:
    url, _ = server
    built, remote = agent([call("lookup", name="Ada"), "found"], url)
    await built.chat("find Ada")
    await remote.aclose()
    assert tool_messages(built) == ["Ada: [REDACTED:email]"]
    assert "ada@example.com" not in str(built.provider.requests[1].messages)


async def test_a_server_too_slow_denies_the_call(server: Any) -> None:
    url, _ = server
    built, remote = agent([call("shell", command="sleep"), "ok"], url, timeout=0.5)
    await built.chat("wait")
    await remote.aclose()
    assert tool_messages(built) == [
        f"the hook server at {url}/v1/events did not answer within 0.5 s"
    ]
    assert ran == []


async def test_an_unreachable_server_or_a_wrong_token_denies_the_run() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    built, remote = agent([call("shell", command="ls"), "ok"], url)
    response = await built.chat("go")
    await remote.aclose()
    assert response.finish_reason == "denied"
    assert (
        response.content == f"the hook server at {url}/v1/events cannot be reached (ConnectError)"
    )
    assert ran == []


async def test_a_wrong_token_denies(server: Any) -> None:
    url, records = server
    built, remote = agent([call("shell", command="ls"), "ok"], url, token="stolen")
    response = await built.chat("go")
    await remote.aclose()
    assert response.finish_reason == "denied"
    assert response.content == (
        f"the hook server at {url}/v1/events answered 401: unauthorized: unknown bearer token"
    )
    assert records == []
