"""The kit's scripted conversations, said once for every framework: what the model answers
at each call, and the tools it may call (plain functions each adapter wraps the way its
framework wraps a tool)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    """One tool call the model makes: its id, the tool's name and the arguments."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """What the model answers at one call: ``text`` and ``calls`` (tool calls), reporting
    ``input_tokens`` / ``output_tokens``; ``delay`` seconds pass before it answers; an
    ``error`` makes the call fail with ``RuntimeError(error)`` instead."""

    text: str = ""
    calls: tuple[Call, ...] = ()
    input_tokens: int = 10
    output_tokens: int = 5
    delay: float = 0.0
    error: str = ""

    @property
    def total_tokens(self) -> int:
        """The tokens the step reports in all."""
        return self.input_tokens + self.output_tokens


def say(text: str, *, delay: float = 0.0) -> Step:
    """A final answer ``text``."""
    return Step(text=text, delay=delay)


def calls(*made: Call, delay: float = 0.0) -> Step:
    """A turn that calls ``made`` tools."""
    return Step(calls=made, delay=delay)


MESSAGE = "Look up hooks, then mail Bob about it"
"""The user message of every conversation."""

CONVERSATION: tuple[Step, ...] = (
    calls(Call("call_1", "lookup", {"query": "hooks"})),
    calls(Call("call_2", "send_email", {"to": "bob@example.com", "body": "hooks"})),
    say("Done: mailed bob@example.com about hooks."),
)
"""Two tool turns, then the answer (which holds an email address the guard redacts)."""

CONTACT_JSON = '{"name": "Bob", "email": "bob@example.com"}'
"""A structured answer (a ``Contact``) holding an email address."""


class Tools:
    """The conversation's tools; ``ran`` records each body that ran, in order."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []

    def functions(self) -> list[Callable[..., Any]]:
        """``lookup``, ``send_email``, ``wait`` and ``read_file`` (which always fails), as
        plain async functions."""
        ran = self.ran

        async def lookup(query: str) -> str:
            """Look a word up in the dictionary."""
            ran.append(("lookup", {"query": query}))
            return f"found {query}"

        async def send_email(to: str, body: str) -> str:
            """Send an email."""
            ran.append(("send_email", {"to": to, "body": body}))
            return f"sent to {to}"

        async def wait(seconds: float) -> str:
            """Wait a while."""
            ran.append(("wait", {"seconds": seconds}))
            await asyncio.sleep(seconds)
            return "waited"

        async def read_file(path: str) -> str:
            """Read a file."""
            ran.append(("read_file", {"path": path}))
            raise FileNotFoundError(path)

        return [lookup, send_email, wait, read_file]


def usage_of(script: Sequence[Step]) -> int:
    """The total tokens a run of ``script`` reports."""
    return sum(step.total_tokens for step in script)


__all__ = [
    "CONTACT_JSON",
    "CONVERSATION",
    "MESSAGE",
    "Call",
    "Step",
    "Tools",
    "calls",
    "say",
    "usage_of",
]
