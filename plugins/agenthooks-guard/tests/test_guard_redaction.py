"""PII redaction: the patterns, and what the model and the caller see in real runs."""

from __future__ import annotations

import re
from typing import Any

import pytest
from agenthooks_guard import (
    BUILTIN_PATTERNS,
    Guard,
    Policy,
    RedactionPattern,
    Redactor,
    luhn_valid,
    parse_policy,
)
from pydantic import BaseModel

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool

REDACTOR = Redactor()


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("write to ada.lovelace+work@example.co.uk today", "write to [REDACTED:email] today"),
        (
            "call +1 415 555 2671 or (415) 555-2671 or 415.555.2671",
            "call [REDACTED:phone] or [REDACTED:phone] or [REDACTED:phone]",
        ),
        ("uk +44 20 7946 0958, e164 +14155552671", "uk [REDACTED:phone], e164 [REDACTED:phone]"),
        (
            "visa 4111 1111 1111 1111, amex 378282246310005, dashed 5555-5555-5555-4444",
            "visa [REDACTED:card], amex [REDACTED:card], dashed [REDACTED:card]",
        ),
        ("not a card: 4111 1111 1111 1112", "not a card: 4111 1111 1111 1112"),
        ("openai sk-proj-AbCdEfGhIjKlMnOpQrStUv12 ok", "openai [REDACTED:api_key] ok"),
        ("aws AKIAIOSFODNN7EXAMPLE ok", "aws [REDACTED:api_key] ok"),
        ("gh ghp_" + "x1" * 18 + " ok", "gh [REDACTED:api_key] ok"),
        (
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
            "Authorization: Bearer [REDACTED:api_key]",
        ),
        (
            "on 2024-01-15 from 192.168.1.10, order 12345678, v1.2.3",
            "on 2024-01-15 from 192.168.1.10, order 12345678, v1.2.3",
        ),
    ],
)
def test_builtin_patterns(text: str, redacted: str) -> None:
    assert REDACTOR.redact(text) == redacted


def test_luhn() -> None:
    assert luhn_valid("4111 1111 1111 1111")
    assert luhn_valid("378282246310005")
    assert not luhn_valid("4111111111111112")
    assert not luhn_valid("0000 0000 00")  # too short for a card


def test_builtin_order_lets_earlier_patterns_win() -> None:
    assert list(BUILTIN_PATTERNS) == ["api_key", "email", "card", "phone"]


def test_custom_patterns_a_value_group_and_a_callable_replacement() -> None:
    ssn = RedactionPattern("ssn", re.compile(r"\b\d{3}-\d{2}-\d{4}\b"))
    token = RedactionPattern("token", re.compile(r"token=(?P<value>\w+)"))
    redactor = Redactor(
        ["email", ssn, token], replacement=lambda pattern, text: f"<{pattern.name}:{len(text)}>"
    )
    assert redactor.redact("ssn 123-45-6789 a@b.io token=abc123") == (
        "ssn <ssn:11> <email:6> token=<token:6>"
    )


def test_redact_value_walks_containers_and_models_and_keeps_unchanged_objects() -> None:
    class Person(BaseModel):
        name: str
        email: str

    data = {"people": [{"email": "a@b.io"}, ("x", "c@d.io")], "n": 3}
    assert REDACTOR.redact_value(data) == {
        "people": [{"email": "[REDACTED:email]"}, ("x", "[REDACTED:email]")],
        "n": 3,
    }
    assert REDACTOR.redact_value(Person(name="Ada", email="a@b.io")) == {
        "name": "Ada",
        "email": "[REDACTED:email]",
    }
    clean = {"people": ["nobody"], "n": 3}
    assert REDACTOR.redact_value(clean) is clean


@tool
def lookup(name: str) -> dict[str, Any]:
    """Find a person."""
    return {"name": name, "email": "ada@example.com", "card": "4111 1111 1111 1111"}


async def test_tool_results_requests_and_responses_are_redacted_where_configured() -> None:
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="lookup", arguments={"name": "Ada"})]
            ),
            "Her email is ada@example.com, key sk-AbCdEfGhIjKlMnOpQrStUv12.",
        ]
    )
    agent = Agent("assistant", provider=provider, tools=[lookup])
    agent.use(Guard(parse_policy('[redact]\npatterns = ["email", "card", "api_key"]\n')))
    seen_by_observers: list[str | None] = []
    agent.on("on_message", lambda ctx: seen_by_observers.append(ctx.message.content))

    response = await agent.chat("My card is 4111-1111-1111-1111, find Ada")

    first, second = provider.requests
    # the user's message goes to the provider redacted; stored history keeps what was typed
    assert first.messages[0].content == "My card is [REDACTED:card], find Ada"
    assert agent.history[0].content == "My card is 4111-1111-1111-1111, find Ada"
    # the tool result is redacted before its tool message is written
    assert second.messages[2].content == (
        '{"name": "Ada", "email": "[REDACTED:email]", "card": "[REDACTED:card]"}'
    )
    # the final answer is redacted before it reaches history and the caller
    assert response.content == "Her email is [REDACTED:email], key [REDACTED:api_key]."
    assert seen_by_observers[-1] == response.content


async def test_only_the_configured_targets_are_redacted() -> None:
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="lookup", arguments={"name": "Ada"})]
            ),
            "reach her at ada@example.com",
        ]
    )
    agent = Agent("assistant", provider=provider, tools=[lookup])
    agent.use(Guard(Policy(redact=Redactor(["email"], targets=["tool_results"]))))
    response = await agent.chat("ada@example.com asks")
    assert provider.requests[0].messages[0].content == "ada@example.com asks"
    assert '"email": "[REDACTED:email]"' in (provider.requests[1].messages[2].content or "")
    assert response.content == "reach her at ada@example.com"


async def test_redaction_runs_after_ordinary_handlers_as_a_guard() -> None:
    provider = ScriptedProvider(["plain answer"])
    agent = Agent("assistant", provider=provider)
    agent.use(Guard(Policy(redact=Redactor(["email"]))))
    # an ordinary handler registered after the guard still runs before it
    agent.on(
        "on_response",
        lambda ctx: {
            "response": ctx.response.model_copy(update={"content": "mail bob@example.com"})
        },
    )
    response = await agent.chat("hi")
    assert response.content == "mail [REDACTED:email]"
