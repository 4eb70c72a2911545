"""The pausing process of the cross-process test: a Pydantic AI agent with the bridge, a
``Limits(max_tool_calls=2)`` cap and an ``Ask`` on ``delete_file`` runs until it pauses.

    python pydantic_ai_pause_worker.py

Prints one JSON object: the paused run's id and usage, the tool bodies that ran in this
process, and the history as ``all_messages_json()`` stores it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pydantic_ai import DeferredToolRequests
from pydantic_ai.messages import ToolCallPart
from pydantic_ai_script import Script, file_agent
from test_pydantic_ai_pause_elsewhere import make_bus, turn


async def main() -> dict[str, Any]:
    bus, recorder = make_bus()
    script = Script(
        turn(ToolCallPart("read_file", {"path": "/a"}, tool_call_id="r1")),
        turn(ToolCallPart("delete_file", {"path": "/b"}, tool_call_id="d1")),
    )
    agent, ran = file_agent(script, bus, output_type=[str, DeferredToolRequests])
    paused = await agent.run("go")
    [pause] = recorder.of("on_chat_paused")
    return {
        "deferred": isinstance(paused.output, DeferredToolRequests),
        "run_id": pause.run_id,
        "total_tokens": pause.response.usage.total_tokens,
        "ran": ran,
        "history": paused.all_messages_json().decode(),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
