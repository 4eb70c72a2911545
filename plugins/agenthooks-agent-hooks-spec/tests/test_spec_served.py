"""``/v1/agent-hooks``: a host of AGENT-HOOKS-0.1 delegates its interception to the hook
server. The contexts are built with the standard's own ``AgentContextBuilder`` and every
answer is parsed by its ``InterceptorResponse`` (the SDK's §5.5 gate), so a verdict the
standard would refuse fails the test."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_hooks import AgentContextBuilder, Decision, InterceptorResponse

from agenthooks import Ask, Deny, HookBus
from agenthooks.server import Tokens, create_app

_SERVER_TESTS = Path(__file__).resolve().parents[3] / "tests" / "server"
if str(_SERVER_TESTS) not in sys.path:
    sys.path.insert(0, str(_SERVER_TESTS))

from server_support import ServerThread, write_tokens  # noqa: E402

TOKEN = "tok-host-8"


@pytest.fixture
def served(tmp_path: Path) -> Any:
    bus = HookBus()
    records: list[Any] = []
    bus.on("on_event", records.append)

    def policy(ctx: Any) -> Any:
        if ctx.call.name == "delete_file":
            return Deny("Deleting files is not allowed.")
        if ctx.call.name == "transfer":
            return Ask("Transfers need a person.")
        if ctx.call.arguments.get("path") == "/etc/passwd":
            return {"call": ctx.call.model_copy(update={"arguments": {"path": "/tmp/safe"}})}
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
        guard=True,
    )
    tokens = Tokens.from_file(write_tokens(tmp_path / "tokens", host=TOKEN))
    with ServerThread(create_app(bus, tokens=tokens)) as server:
        yield server.url, records


def host(session: str = "sess-1") -> AgentContextBuilder:
    return AgentContextBuilder(agent_id="a-1", framework="test-host", session_id=session)


def ask(url: str, context: Any, token: str = TOKEN) -> httpx.Response:
    return httpx.post(
        f"{url}/v1/agent-hooks",
        json=context,
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )


def verdict(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    parsed = InterceptorResponse.parse(response.text)  # the standard's own gate
    return parsed.verdict, parsed.extensions


def test_the_scripted_cases_as_verdicts_of_the_standard(served: Any) -> None:
    url, records = served
    builder = host()
    start, ext = verdict(ask(url, builder.agent_startup(tools_registered=["read_file"])))
    assert start.decision is Decision.ALLOW
    assert ext == {"agenthooks": {"run_id": "agent-hooks-sess-1", "caller": "host"}}

    denied, _ = verdict(
        ask(url, builder.pre_tool_call(call_id="c1", name="delete_file", args={"path": "/a"}))
    )
    assert (denied.decision, denied.reason, denied.message, denied.approval) == (
        Decision.DENY,
        "agenthooks:deny",
        "Deleting files is not allowed.",
        None,
    )

    asked, _ = verdict(
        ask(url, builder.pre_tool_call(call_id="c2", name="transfer", args={"amount": 500}))
    )
    assert asked.decision is Decision.DENY and asked.is_liftable
    assert asked.message == "Transfers need a person."

    rewritten, _ = verdict(
        ask(
            url, builder.pre_tool_call(call_id="c3", name="read_file", args={"path": "/etc/passwd"})
        )
    )
    assert rewritten.decision is Decision.TRANSFORM
    assert (rewritten.transform.path, rewritten.transform.value) == (
        "$target",
        {"path": "/tmp/safe"},
    )

    redacted, _ = verdict(
        ask(
            url,
            builder.post_tool_call(
                call_id="c4", name="lookup", args={"name": "Ada"}, value="Ada: ada@example.com"
            ),
        )
    )
    assert redacted.decision is Decision.TRANSFORM
    assert redacted.transform.value == "Ada: [REDACTED:email]"

    blocked, _ = verdict(ask(url, host("sess-2").input(content="my password is x")))
    assert (blocked.decision, blocked.message) == (Decision.DENY, "Never share passwords here.")

    end, _ = verdict(ask(url, builder.agent_shutdown(reason="completed")))
    assert end.decision is Decision.ALLOW
    run = [r for r in records if r.run_id == "agent-hooks-sess-1"]
    assert {r.agent for r in run} == {"host"}
    assert [r.type for r in run][-2:] == ["on_chat_done", "on_chat_end"]
    assert [(r.tool_call_id, r.denied, r.asked) for r in run if r.type == "pre_tool_call"] == [
        ("c1", "Deleting files is not allowed.", None),
        ("c2", None, "Transfers need a person."),
        ("c3", None, None),
    ]


def test_points_without_an_event_of_ours_are_recorded_and_allowed(served: Any) -> None:
    url, records = served
    context = host("sess-3").pre_model_call(
        model_id="m", messages=[{"role": "user", "content": "hi"}]
    )
    allowed, _ = verdict(ask(url, context))
    assert allowed.decision is Decision.ALLOW
    assert [r.type for r in records] == ["on_chat_start", "agent-hooks:pre_model_call"]


@pytest.mark.parametrize(
    ("context", "error"),
    [
        ([1], "agent-hooks context must be a JSON object, not list"),
        (
            {"interception_point": "pre_tool_call"},
            "agent-hooks context: 'spec' must be a non-empty string (missing)",
        ),
        (
            {"spec": "0.1", "interception_point": "teleport", "session": {"id": "s"}},
            "agent-hooks context: 'interception_point' 'teleport' is not one of",
        ),
        (
            {"spec": "0.1", "interception_point": "input", "session": "s"},
            "agent-hooks context: 'session' must be an object (got str)",
        ),
    ],
)
def test_a_bad_context_is_400_naming_the_field(served: Any, context: Any, error: str) -> None:
    url, records = served
    got = ask(url, context)
    assert got.status_code == 400
    assert got.json()["error"].startswith(error)
    assert records == []


def test_a_wrong_token_is_401(served: Any) -> None:
    url, records = served
    got = ask(url, host().agent_startup(tools_registered=[]), token="stolen")
    assert got.status_code == 401
    assert records == []
