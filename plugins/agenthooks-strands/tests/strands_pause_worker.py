"""The pausing process of the cross-process test: a Strands agent with the bridge, a
``Limits(max_tool_calls=2)`` cap and an ``Ask`` on ``delete_file``, on the
``FileSessionManager`` session under DIR, runs until it pauses.

    python strands_pause_worker.py DIR

Prints one JSON object: the interrupt ids, the paused run's id and usage, and the tool bodies
that ran in this process.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from agenthooks_strands.testing import tool_calls
from strands_helpers import RAN
from test_strands_pause_elsewhere import make_agent


async def main(storage: str) -> dict[str, Any]:
    script = [
        tool_calls(("r1", "read_file", {"path": "/a"})),
        tool_calls(("d1", "delete_file", {"path": "/b"})),
    ]
    agent, _, recorder = make_agent(storage, script)
    paused = await agent.invoke_async("go")
    [pause] = recorder.of("on_chat_paused")
    return {
        "stop_reason": paused.stop_reason,
        "interrupts": [i.id for i in paused.interrupts],
        "run_id": pause.run_id,
        "total_tokens": pause.response.usage.total_tokens,
        "ran": [list(r) for r in RAN],
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
