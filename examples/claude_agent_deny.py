"""A Claude agent with a deny hook: the tool never runs and Claude reads the reason.

Not from a seed: the same ``Deny`` as ``deny_dangerous_tool.py``, on ``AnthropicProvider``.
The tool results of one assistant turn go back in one user message of ``tool_result``
blocks; the denied one carries ``is_error``.

By default it runs offline against a stand-in for https://api.anthropic.com on 127.0.0.1
that answers with canned Messages API JSON and shows the blocks the second request sent.
``--live`` asks the real API instead (``ANTHROPIC_API_KEY``; ``CLAUDE_MODEL`` picks the
model), where Claude's own words replace the canned ones.

Output:
    denied: delete_file({"path": "notes.txt"})
    sent back: tool_result toolu_01 "notes.txt, todo.txt"
    sent back: tool_result toolu_02 "file deletion is disabled in this session" (is_error)
    answer: Your files are notes.txt and todo.txt; I may not delete them.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from agenthooks import Agent, AnthropicProvider, Deny, HookBus, tool
from agenthooks.events import PreToolCallContext

bus = HookBus()


@bus.on("pre_tool_call", match="delete_file")
def no_deletes(ctx: PreToolCallContext) -> Deny:
    print(f"denied: {ctx.call.name}({json.dumps(ctx.call.arguments)})")
    return Deny("file deletion is disabled in this session")


@tool
def list_files() -> str:
    """List the files in the workspace."""
    return "notes.txt, todo.txt"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    raise RuntimeError("never runs: the hook denies it")


# ------------------------------------------------------------- the offline stand-in


def reply(content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    """A Messages API response body."""
    return {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": "claude-standin",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 20},
    }


CANNED = [
    reply(
        [
            {"type": "tool_use", "id": "toolu_01", "name": "list_files", "input": {}},
            {
                "type": "tool_use",
                "id": "toolu_02",
                "name": "delete_file",
                "input": {"path": "notes.txt"},
            },
        ],
        "tool_use",
    ),
    reply(
        [{"type": "text", "text": "Your files are notes.txt and todo.txt; I may not delete them."}],
        "end_turn",
    ),
]


class StandIn:
    """A minimal ``POST /v1/messages`` server: one canned answer per request, in order."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.url = ""

    async def __aenter__(self) -> StandIn:
        self.server = await asyncio.start_server(self.answer, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()
        await self.server.wait_closed()

    async def answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
        length = int(head.split("content-length:")[1].split("\r\n")[0])
        self.requests.append(json.loads(await reader.readexactly(length)))
        body = json.dumps(CANNED[len(self.requests) - 1]).encode()
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(body), body)
        )
        await writer.drain()
        writer.close()


# ------------------------------------------------------------------------------- run


async def ask(provider: AnthropicProvider) -> str | None:
    agent = Agent(
        "files", "You manage files.", provider=provider, tools=[list_files, delete_file], bus=bus
    )
    async with provider:
        response = await agent.chat("List my files, then delete notes.txt.")
    return response.content


async def main() -> None:
    if "--live" in sys.argv:
        model = os.environ.get("CLAUDE_MODEL", "claude-sonnet-4-5")
        print("answer:", await ask(AnthropicProvider(model)))
        return
    async with StandIn() as api:
        answer = await ask(AnthropicProvider("claude-standin", base_url=api.url, api_key="none"))
    for block in api.requests[1]["messages"][-1]["content"]:
        flag = " (is_error)" if block.get("is_error") else ""
        print(
            f"sent back: {block['type']} {block['tool_use_id']} {json.dumps(block['content'])}{flag}"
        )
    print("answer:", answer)


if __name__ == "__main__":
    asyncio.run(main())
