"""One process of a durable run, for the store tests: chat until the run pauses, resume it,
or look at it, against a store URL, with the model behind a loopback OpenAI-format server.

    python durable_worker.py '{"mode": "chat", "store": URL, "session": ID, ...}'

It prints one JSON object: the response (or the typed error), the events it fired (from
``on_event``, numbered per run like an exporter does, continuing after a pause) and what it
saw. The ``refund`` tool appends a line to ``runs`` for every execution; with ``crash`` it
kills this process right after that line (the crash window: the tool ran, its result is not
stored); with ``hold`` it waits until that file exists.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from agenthooks import (
    Agent,
    AgentHooksError,
    Approve,
    Ask,
    Deny,
    OpenAIChatProvider,
    Session,
    tool,
)
from agenthooks.stores import open_store

config: dict[str, Any] = json.loads(sys.argv[1])
runs = Path(config["runs"])


def log_run(line: str) -> None:
    with runs.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


@tool(idempotent=bool(config.get("idempotent")))
def refund(order: int, amount: float) -> str:
    """Refund an order."""
    log_run(f"refund {order} {amount:g}")
    if config.get("crash"):
        os._exit(9)
    hold = config.get("hold")
    if hold:
        while not Path(hold).exists():
            time.sleep(0.02)
    return f"refunded {amount:g} on order {order}"


@tool
def lookup(order: int) -> str:
    """Look an order up."""
    log_run(f"lookup {order}")
    return f"order {order}: delivered"


def build() -> tuple[Agent, list[dict[str, Any]]]:
    provider = OpenAIChatProvider(
        "test-model", base_url=config["base_url"], api_key="k", timeout=10
    )
    agent = Agent("support", "You handle refunds.", provider=provider, tools=[refund, lookup])

    def ask_big_refunds(ctx: Any) -> Ask | None:
        amount = ctx.call.arguments["amount"]
        return Ask(f"refund of {amount:g} needs a manager") if amount > 100 else None

    agent.on("pre_tool_call", ask_big_refunds, match="refund", guard=True)
    events: list[dict[str, Any]] = []
    seq = {"n": 0}

    def resumed(ctx: Any) -> None:
        seq["n"] = ctx.records  # an exporter numbering records per run continues here

    def record(r: Any) -> None:
        seq["n"] += 1
        events.append(
            {
                "seq": seq["n"],
                "type": r.type,
                "run_id": r.run_id,
                "call": r.tool_call_id,
                "asked": r.asked,
                "denied": r.denied,
            }
        )

    agent.on("on_run_resumed", resumed, priority=10**9)
    agent.on("on_event", record)
    if config.get("record"):
        from agenthooks.record import Recorder

        Recorder(config["record"]).attach(agent)
    return agent, events


def decisions(given: dict[str, str]) -> dict[str, Any]:
    return {
        call_id: Approve() if text == "approve" else Deny(text.removeprefix("deny:"))
        for call_id, text in given.items()
    }


async def main() -> dict[str, Any]:
    agent, events = build()
    store = open_store(config["store"])
    session = Session(
        agent, store=store, session_id=config["session"], lease=config.get("lease", 60.0)
    )
    out: dict[str, Any] = {"pid": os.getpid()}
    try:
        if config.get("wait_for"):
            while not Path(config["wait_for"]).exists():
                await asyncio.sleep(0.01)
        mode = config["mode"]
        if mode == "show":
            await session.load()
            out["pending"] = [p.model_dump() for p in session.pending]
            out["history"] = [m.model_dump(mode="json") for m in session.history]
            return out
        if mode == "chat":
            response = await session.chat(config["message"])
        else:
            response = await session.resume(decisions(config.get("decisions", {})))
        out["response"] = {
            "finish_reason": response.finish_reason,
            "content": response.content,
            "pending": [p.model_dump() for p in response.pending],
            "iterations": response.iterations,
            "usage": response.usage.total_tokens,
            "messages": len(response.messages),
        }
    except AgentHooksError as exc:
        out["error"] = {"type": type(exc).__name__, "message": str(exc)}
    finally:
        out["events"] = events
        await store.aclose()
    return out


print(json.dumps(asyncio.run(main())))
