"""One policy file, enforced on a LangChain agent: the guard of ``bridges_policy.toml`` denies
``delete_file`` on an agent built with ``langchain.agents.create_agent``, through
``AgentHooksMiddleware``. The model is LangChain's own fake chat model (no network); it asks to
delete a file and to read one, then answers.

Output:
    delete_file -> Deleting files is not allowed.
    read_file -> contents of /tmp/b.txt
    answer: done
"""

import asyncio
from pathlib import Path
from typing import Any

from agenthooks_guard import Guard
from agenthooks_langchain import AgentHooksMiddleware
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

from agenthooks import HookBus

POLICY = Path(__file__).with_name("bridges_policy.toml")


class FakeModel(GenericFakeChatModel):
    """LangChain's fake chat model; it answers from its script whatever tools it is given."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> "FakeModel":
        return self


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
    model = FakeModel(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[
                        {"id": "call_1", "name": "delete_file", "args": {"path": "/tmp/a.txt"}},
                        {"id": "call_2", "name": "read_file", "args": {"path": "/tmp/b.txt"}},
                    ],
                ),
                AIMessage(content="done"),
            ]
        )
    )
    agent = create_agent(model, [delete_file, read_file], middleware=[AgentHooksMiddleware(bus)])
    result = await agent.ainvoke(
        {"messages": [{"role": "user", "content": "Delete /tmp/a.txt and read /tmp/b.txt"}]}
    )
    for message in result["messages"]:
        if isinstance(message, ToolMessage):
            print(f"{message.name} -> {message.content}")
    print("answer:", result["messages"][-1].content)


if __name__ == "__main__":
    asyncio.run(main())
