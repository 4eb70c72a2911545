"""One policy file, enforced on a Strands agent: the guard of ``bridges_policy.toml`` denies
``delete_file`` on a ``strands.Agent`` through ``AgentHooksPlugin``. Strands ships no fake
model, so the model is ``agenthooks_strands.testing.ScriptedModel`` (no network), which speaks
Strands' streaming protocol; it asks to delete a file and to read one, then answers.

Output:
    delete_file -> Deleting files is not allowed.
    read_file -> contents of /tmp/b.txt
    answer: done
"""

import asyncio
from pathlib import Path

from agenthooks_guard import Guard
from agenthooks_strands import AgentHooksPlugin
from agenthooks_strands.testing import ScriptedModel, tool_calls
from strands import Agent, tool

from agenthooks import HookBus

POLICY = Path(__file__).with_name("bridges_policy.toml")


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


async def main() -> None:
    bus = HookBus()
    bus.use(Guard.from_file(POLICY))
    model = ScriptedModel(
        [
            tool_calls(
                ("call_1", "delete_file", {"path": "/tmp/a.txt"}),
                ("call_2", "read_file", {"path": "/tmp/b.txt"}),
            ),
            "done",
        ]
    )
    agent = Agent(
        model=model,
        tools=[delete_file, read_file],
        plugins=[AgentHooksPlugin(bus)],
        callback_handler=None,
    )
    result = await agent.invoke_async("Delete /tmp/a.txt and read /tmp/b.txt")
    names = {"call_1": "delete_file", "call_2": "read_file"}
    for message in model.requests[-1]["messages"]:  # what the model read
        for block in message["content"]:
            if "toolResult" in block:
                tool_result = block["toolResult"]
                text = "".join(part.get("text", "") for part in tool_result["content"])
                print(f"{names[tool_result['toolUseId']]} -> {text}")
    print(f"answer: {str(result).strip()}")


if __name__ == "__main__":
    asyncio.run(main())
