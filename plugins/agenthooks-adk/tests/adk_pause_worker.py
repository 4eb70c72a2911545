"""The pausing process of the cross-process test: an ADK runner with the bridge, a
``Limits(max_tool_calls=2)`` cap and an ``Ask`` on ``delete_file``, on a
``DatabaseSessionService`` at URL (SQLite), runs until it pauses.

    python adk_pause_worker.py URL

Prints one JSON object: the paused run's id and usage, the tool bodies that ran in this
process, and the confirmation request the caller answers.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import adk_scripted as s
from google.adk.sessions import DatabaseSessionService
from test_adk_pause import confirmation_request
from test_adk_pause_elsewhere import make_runner


async def main(url: str) -> dict[str, Any]:
    runner, _, seen = make_runner(
        DatabaseSessionService(url),
        [
            s.model_turn(s.call("read_file", "r1", path="/a"), tokens=(10, 5)),
            s.model_turn(s.call("delete_file", "d1", path="/b"), tokens=(10, 5)),
        ],
    )
    events = await s.run(runner, "go")
    [pause] = seen["paused"]
    return {
        "run_id": pause.run_id,
        "total_tokens": pause.response.usage.total_tokens,
        "ran": [[name, args] for name, args in s.RAN],
        "request": confirmation_request(events).model_dump(mode="json"),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
