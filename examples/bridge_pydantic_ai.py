"""One policy file, enforced on a Pydantic AI agent: the guard of ``bridges_policy.toml`` denies
``delete_file`` on a ``pydantic_ai.Agent`` through ``AgentHooksCapability``. The model is
Pydantic AI's own ``FunctionModel`` (no network): it asks to delete a file and to read one,
then answers.

Output:
    delete_file -> Deleting files is not allowed.
    read_file -> contents of /tmp/b.txt
    answer: done
"""

import asyncio
from pathlib import Path

from agenthooks_guard import Guard
from agenthooks_pydantic_ai import AgentHooksCapability
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agenthooks import HookBus

POLICY = Path(__file__).with_name("bridges_policy.toml")
seen: list[list[ModelMessage]] = []


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    seen.append(messages)
    if len(seen) == 1:
        return ModelResponse(
            parts=[
                ToolCallPart("delete_file", {"path": "/tmp/a.txt"}, tool_call_id="call_1"),
                ToolCallPart("read_file", {"path": "/tmp/b.txt"}, tool_call_id="call_2"),
            ]
        )
    return ModelResponse(parts=[TextPart("done")])


bus = HookBus()
bus.use(Guard.from_file(POLICY))
agent = Agent(FunctionModel(scripted), capabilities=[AgentHooksCapability(bus)])


@agent.tool_plain
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@agent.tool_plain
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


async def main() -> None:
    result = await agent.run("Delete /tmp/a.txt and read /tmp/b.txt")
    for message in seen[-1]:  # what the model read
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart):
                    print(f"{part.tool_name} -> {part.content}")
    print(f"answer: {result.output}")


if __name__ == "__main__":
    asyncio.run(main())
