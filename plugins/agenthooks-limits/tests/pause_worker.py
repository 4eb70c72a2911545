"""One process of the pause test: ``chat`` runs until the run pauses (an ``Ask`` on ``pay``),
``resume`` approves it, each with its own agent, bus and ``Limits(max_tool_calls=3)``, against
the store at URL.

    python pause_worker.py chat|resume URL

Prints one JSON object: the finish reason, the tool bodies that ran in this process and the
tool messages of the session.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from agenthooks_limits import Limits

from agenthooks import (
    Agent,
    Approve,
    Ask,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    tool,
)
from agenthooks.stores import open_store

RAN: list[str] = []


@tool
def note(text: str) -> str:
    """Take a note."""
    RAN.append(f"note {text}")
    return "noted"


@tool
def pay(amount: int) -> str:
    """Pay."""
    RAN.append(f"pay {amount}")
    return f"paid {amount}"


def call(call_id: str, name: str, arguments: dict[str, Any]) -> ProviderResponse:
    return ProviderResponse(tool_calls=[ToolCall(id=call_id, name=name, arguments=arguments)])


SCRIPTS = {
    "chat": [call("n1", "note", {"text": "a"}), call("p1", "pay", {"amount": 50})],
    "resume": [
        call("n2", "note", {"text": "b"}),
        call("n3", "note", {"text": "c"}),
        ProviderResponse(content="done"),
    ],
}


async def main(mode: str, url: str) -> None:
    agent = Agent("payer", provider=ScriptedProvider(SCRIPTS[mode]), tools=[note, pay])
    agent.use(Limits(max_tool_calls=3))
    agent.on("pre_tool_call", lambda ctx: Ask("pay 50?"), match="pay")
    store = open_store(url)
    try:
        session = Session(agent, store=store, session_id="pause-test")
        if mode == "chat":
            response = await session.chat("go")
        else:
            response = await session.resume({"p1": Approve()})
        messages = [[m.tool_call_id, m.content] for m in session.history if m.role == "tool"]
    finally:
        await store.aclose()
    print(json.dumps({"finish": response.finish_reason, "ran": RAN, "tools": messages}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
