"""One policy file, enforced on a Google ADK agent: the guard of ``bridges_policy.toml``
denies ``delete_file`` on an ADK ``LlmAgent`` through ``AgentHooksPlugin``. The model is a
scripted ``BaseLlm`` standing in for Gemini (google-genai types, no network); it asks to
delete a file and to read one, then answers.

Output:
    delete_file -> {'error': 'Deleting files is not allowed.'}
    read_file -> {'result': 'contents of /tmp/b.txt'}
    answer: done
"""

import asyncio
import logging
from collections.abc import AsyncGenerator
from pathlib import Path

from agenthooks_adk import AgentHooksPlugin
from agenthooks_guard import Guard
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types
from pydantic import Field

from agenthooks import HookBus

POLICY = Path(__file__).with_name("bridges_policy.toml")


class ScriptedModel(BaseLlm):
    """Asks for both tools, then answers "done"; keeps what it was sent."""

    model: str = "scripted"
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        if len(self.requests) == 1:
            calls = [
                types.FunctionCall(id="call_1", name="delete_file", args={"path": "/tmp/a.txt"}),
                types.FunctionCall(id="call_2", name="read_file", args={"path": "/tmp/b.txt"}),
            ]
            parts = [types.Part(function_call=call) for call in calls]
        else:
            parts = [types.Part(text="done")]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


async def main() -> None:
    logging.disable(logging.WARNING)  # ADK notes that the scripted model reports no usage
    bus = HookBus()
    bus.use(Guard.from_file(POLICY))
    model = ScriptedModel()
    agent = LlmAgent(name="assistant", model=model, tools=[delete_file, read_file])
    app = App(name="files", root_agent=agent, plugins=[AgentHooksPlugin(bus)])
    runner = Runner(app=app, session_service=InMemorySessionService(), auto_create_session=True)
    question = types.Content(
        role="user", parts=[types.Part(text="Delete /tmp/a.txt and read /tmp/b.txt")]
    )
    answer = None
    async for event in runner.run_async(user_id="u", session_id="s", new_message=question):
        if event.is_final_response() and event.content and event.content.parts:
            answer = event.content.parts[0].text
    for content in model.requests[-1].contents:  # what the model read
        for part in content.parts or ():
            if part.function_response is not None:
                print(f"{part.function_response.name} -> {part.function_response.response}")
    print(f"answer: {answer}")


if __name__ == "__main__":
    asyncio.run(main())
