"""Remote approvals: a guard's ask in this process, the answer from `agenthooks approvals` run
as another process."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
import redis
from agenthooks_guard import Guard
from agenthooks_redis import RedisApprovals, RedisApprover
from redis_support import free_port

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.approvals import ApprovalError

pytestmark = [pytest.mark.subprocess, pytest.mark.server]

POLICY = """
[[rules]]
tool = "pay"
action = "ask"
"""

PAID: list[tuple[int, str]] = []


@tool
def pay(amount: int, to: str) -> str:
    """Pay someone."""
    PAID.append((amount, to))
    return f"paid {amount} to {to}"


def payer(guard: Guard) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="p1", name="pay", arguments={"amount": 900, "to": "eve"})]
            ),
            "Done.",
        ]
    )
    agent = Agent("clerk", provider=provider, tools=[pay])
    agent.use(guard)
    return agent, provider


def cli(
    prefix: str, *args: str, url: str = "redis://127.0.0.1:6379/0"
) -> subprocess.CompletedProcess[str]:
    """`agenthooks approvals ...` in another process, configured by the environment."""
    env = {
        **os.environ,
        "AGENTHOOKS_REDIS_URL": url,
        "AGENTHOOKS_REDIS_APPROVALS": prefix + "approvals",
        "COLUMNS": "200",
    }
    return subprocess.run(
        [sys.executable, "-m", "agenthooks.cli", "approvals", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


async def pending_id(server: redis.Redis, prefix: str) -> str:
    """The id of the one pending request, once it is filed."""
    for _ in range(3000):
        ids = server.zrange(prefix + "approvals:pending", 0, -1)
        if ids:
            [found] = ids
            return str(found)
        await asyncio.sleep(0.01)
    raise AssertionError("no request was filed")


async def test_approved_from_another_process(url: str, prefix: str, server: redis.Redis) -> None:
    PAID.clear()
    approver = RedisApprover(url, prefix=prefix + "approvals")
    agent, _ = payer(Guard.from_toml(POLICY, approver=approver))
    run = asyncio.create_task(agent.chat("Pay eve."))
    approval_id = await pending_id(server, prefix)
    listed = await asyncio.to_thread(cli, prefix, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    [item] = json.loads(listed.stdout)
    assert {
        k: item[k] for k in ("id", "source", "kind", "summary", "status", "agent", "expires_at")
    } == {
        "id": approval_id,
        "source": "redis",
        "kind": "tool call",
        "summary": 'pay({"amount": 900, "to": "eve"})',
        "status": "pending",
        "agent": "clerk",
        "expires_at": None,
    }
    assert item["details"] == {
        "tool": "pay",
        "arguments": {"amount": 900, "to": "eve"},
        "tool_call_id": "p1",
        "by": None,
    }
    table = await asyncio.to_thread(cli, prefix, "list")
    header, _rule, row = table.stdout.splitlines()
    assert header.split() == ["id", "source", "kind", "asked", "expires", "request"]
    assert row.startswith(approval_id) and 'pay({"amount": 900, "to": "eve"})  (run ' in row
    done = await asyncio.to_thread(cli, prefix, "approve", approval_id, "--by", "ada")
    assert (done.returncode, done.stdout) == (
        0,
        f'approved {approval_id} (redis): pay({{"amount": 900, "to": "eve"}})\n',
    )
    assert (await run).content == "Done."
    assert PAID == [(900, "eve")]
    stored = server.hgetall(f"{prefix}approvals:req:{approval_id}")
    assert (stored["status"], stored["by"]) == ("approved", "ada")
    again = await asyncio.to_thread(cli, prefix, "deny", approval_id)
    assert again.returncode == 2
    assert again.stderr == (
        f"agenthooks approvals: error: approval request {approval_id!r} is no longer pending: approved\n"
    )
    assert [f["id"] for _, f in server.xrange(prefix + "approvals")] == [approval_id]
    await approver.aclose()


async def test_denied_with_a_reason_the_model_reads(
    url: str, prefix: str, server: redis.Redis
) -> None:
    PAID.clear()
    approver = RedisApprover(url, prefix=prefix + "approvals")
    agent, provider = payer(Guard.from_toml(POLICY, approver=approver))
    run = asyncio.create_task(agent.chat("Pay eve."))
    approval_id = await pending_id(server, prefix)
    done = await asyncio.to_thread(
        cli, prefix, "deny", approval_id, "--reason", "Eve is not a supplier."
    )
    assert (
        done.stdout
        == f'denied {approval_id} (redis): pay({{"amount": 900, "to": "eve"}}): Eve is not a supplier.\n'
    )
    await run
    assert PAID == []
    message = provider.requests[1].messages[-1]
    assert (message.role, message.content, message.is_error) == (
        "tool",
        "Eve is not a supplier.",
        True,
    )
    await approver.aclose()


async def test_no_answer_in_time_denies_and_expires_the_request(
    url: str, prefix: str, server: redis.Redis
) -> None:
    PAID.clear()
    approver = RedisApprover(url, prefix=prefix + "approvals", timeout=0.3)
    agent, provider = payer(Guard.from_toml(POLICY, approver=approver))
    await agent.chat("Pay eve.")
    assert PAID == []
    assert provider.requests[1].messages[-1].content == (
        'Tool call "pay" was denied: no approval within 0.3 seconds (approval timeout)'
    )
    [approval_id] = [f["id"] for _, f in server.xrange(prefix + "approvals")]
    assert server.hget(f"{prefix}approvals:req:{approval_id}", "status") == "expired"
    assert server.zcard(prefix + "approvals:pending") == 0
    late = await asyncio.to_thread(cli, prefix, "approve", approval_id)
    assert late.returncode == 2 and late.stderr.endswith("is no longer pending: expired\n")
    await approver.aclose()


async def test_the_guards_own_timeout_expires_the_request(
    url: str, prefix: str, server: redis.Redis
) -> None:
    PAID.clear()
    approver = RedisApprover(url, prefix=prefix + "approvals")
    guard = Guard.from_toml("ask_timeout = 0.3\n" + POLICY, approver=approver)
    agent, _ = payer(guard)
    await agent.chat("Pay eve.")
    assert PAID == []
    [approval_id] = [f["id"] for _, f in server.xrange(prefix + "approvals")]
    assert server.hget(f"{prefix}approvals:req:{approval_id}", "status") == "expired"
    with pytest.raises(ApprovalError) as caught:
        await RedisApprovals(url, prefix=prefix + "approvals").answer(approval_id, True)
    assert str(caught.value) == f"approval request {approval_id!r} is no longer pending: expired"
    await approver.aclose()


async def test_a_policy_file_names_the_approver(
    url: str, prefix: str, server: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    PAID.clear()
    monkeypatch.setenv("AGENTHOOKS_REDIS_URL", url)
    monkeypatch.setenv("AGENTHOOKS_REDIS_APPROVALS", prefix + "approvals")
    guard = Guard.from_toml('approver = "agenthooks_redis.approver:ask"\n' + POLICY)
    agent, _ = payer(guard)
    run = asyncio.create_task(agent.chat("Pay eve."))
    approval_id = await pending_id(server, prefix)
    source = RedisApprovals()  # configured by the same variables
    [pending] = await source.pending()
    assert pending.id == approval_id and pending.run_id is not None
    answered = await source.answer(approval_id, True, reason="fine", by="bob")
    assert (answered.status, answered.reason, answered.details["by"]) == ("approved", "fine", "bob")
    await run
    assert PAID == [(900, "eve")]
    assert await source.pending() == []
    await source.aclose()


def test_listing_nothing_and_unknown_ids(url: str, prefix: str) -> None:
    empty = cli(prefix, "list")
    assert (empty.returncode, empty.stdout) == (0, "no pending approvals\n")
    unknown = cli(prefix, "approve", "nope")
    assert (unknown.returncode, unknown.stderr) == (
        2,
        "agenthooks approvals: error: no approval request 'nope' in source 'redis'\n",
    )
    other = cli(prefix, "list", "--source", "sqlite")
    assert (other.returncode, other.stderr) == (
        2,
        "agenthooks approvals: error: no approval source named 'sqlite'; installed: redis, store\n",
    )


def test_an_unreachable_source_is_an_error(prefix: str) -> None:
    closed = f"redis://127.0.0.1:{free_port()}/0"
    result = cli(prefix, "list", url=closed)
    assert result.returncode == 1 and result.stdout == "no pending approvals\n"
    assert result.stderr.startswith(
        "agenthooks approvals: error: source 'redis' failed: ConnectionError: "
    )
