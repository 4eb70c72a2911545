"""Record a run's events to a file and look at it as a tree (what ``agenthooks trace`` does).

Not from a seed: the tooling of this project. ``Recorder`` is a plugin writing every
``on_event`` record as one JSON line; ``agenthooks trace run.jsonl`` prints the tree and
``agenthooks trace run.jsonl --html timeline.html`` writes the timeline page.

Output:
    recorded 27 events to run.jsonl
    agent assistant  1.1 ms  → stop
    ├─ turn 0  0.8 ms
    │  ├─ model call  0.1 ms  → tools: search, delete_file
    │  ├─ tool search({"query": "hooks"})  0.5 ms  → 2 hits for hooks
    │  └─ tool delete_file({"path": "/"})  0.6 ms  DENIED: not here
    └─ turn 1  0.1 ms
       └─ model call  0.0 ms  → 'Found 2 hits; deleting is not allowed.'
"""

import asyncio
import tempfile
from pathlib import Path

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.record import Recorder
from agenthooks.trace import build_trace, load_recording, render_tree


@tool
def search(query: str) -> str:
    """Search."""
    return f"2 hits for {query}"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return "deleted"


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="c1", name="search", arguments={"query": "hooks"}),
                    ToolCall(id="c2", name="delete_file", arguments={"path": "/"}),
                ]
            ),
            "Found 2 hits; deleting is not allowed.",
        ]
    )
    agent = Agent("assistant", provider=model, tools=[search, delete_file])
    agent.on("pre_tool_call", lambda ctx: Deny("not here"), match="delete_file")

    path = Path(tempfile.mkdtemp()) / "run.jsonl"
    with Recorder(path) as recorder:
        recorder.attach(agent)
        await agent.chat("Search for hooks, then delete everything")
    print(f"recorded {recorder.count} events to {path.name}")

    recording = load_recording(path)
    print(render_tree(build_trace(recording.records)), end="")


if __name__ == "__main__":
    asyncio.run(main())
