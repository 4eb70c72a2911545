"""One policy file, enforced on an OpenAI Agents SDK agent: the guard of
``bridges_policy.toml`` denies ``delete_file`` on an ``agents.Agent`` run through
``AgentHooksRunner``. The model is the SDK's own ``ScriptedModel`` (no network); it asks to
delete a file and to read one, then answers.

Output:
    delete_file -> Deleting files is not allowed.
    read_file -> contents of /tmp/b.txt
    answer: done
"""

import asyncio
from pathlib import Path

from agenthooks_guard import Guard
from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from agenthooks import HookBus

POLICY = Path(__file__).with_name("bridges_policy.toml")


@function_tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@function_tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


async def main() -> None:
    set_tracing_disabled(True)  # no trace exporter: nothing leaves the process
    bus = HookBus()
    bus.use(Guard.from_file(POLICY))
    model = ScriptedModel(
        [
            [
                function_call("delete_file", {"path": "/tmp/a.txt"}, call_id="call_1"),
                function_call("read_file", {"path": "/tmp/b.txt"}, call_id="call_2"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="assistant", model=model, tools=[delete_file, read_file])

    result = await AgentHooksRunner(bus).run(agent, "Delete /tmp/a.txt and read /tmp/b.txt")

    names = {"call_1": "delete_file", "call_2": "read_file"}
    for item in model.calls[1].input:  # what the model read for each call
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            print(f"{names[item['call_id']]} -> {item['output']}")
    print("answer:", result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
