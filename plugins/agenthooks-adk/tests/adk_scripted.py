"""A scripted ADK model and the helpers the tests share: a real ADK ``Runner`` on an
in-memory session service, with a ``BaseLlm`` that answers from a script (google-genai types
only: no network, no Gemini)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable
from typing import Any

from agenthooks_adk import AgentHooksPlugin
from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.apps import App
from google.adk.events.event import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types
from pydantic import Field

from agenthooks import HookBus

Step = LlmResponse | BaseException | Callable[[LlmRequest], Awaitable[LlmResponse]]


class ScriptedLlm(BaseLlm):
    """Answers each model call with the next step of ``script``; keeps a copy of every
    request it got (what the model saw)."""

    model: str = "scripted"
    script: list[Any] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request.model_copy(deep=True))
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        if callable(step):
            step = await step(llm_request)
        yield step


class Streaming(ScriptedLlm):
    """Streams each step of ``script`` (a list of text chunks, or an exception to raise
    mid-stream) as partial responses, then the complete response."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request.model_copy(deep=True))
        chunks = self.script.pop(0)
        for chunk in chunks:
            if isinstance(chunk, BaseException):
                raise chunk
            part = types.Part(text=chunk)
            yield LlmResponse(content=types.Content(role="model", parts=[part]), partial=True)
        yield model_turn("".join(chunks))


SSE = RunConfig(streaming_mode=StreamingMode.SSE)


def call(name: str, id: str, /, **args: Any) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name=name, id=id, args=args))


def model_turn(*parts: types.Part | str, tokens: tuple[int, int] | None = None) -> LlmResponse:
    made = [types.Part(text=p) if isinstance(p, str) else p for p in parts]
    usage = None
    if tokens is not None:
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=tokens[0],
            candidates_token_count=tokens[1],
            total_token_count=sum(tokens),
        )
    return LlmResponse(content=types.Content(role="model", parts=made), usage_metadata=usage)


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


RAN: list[tuple[str, dict[str, Any]]] = []


def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(("delete_file", {"path": path}))
    return f"deleted {path}"


def read_file(path: str, verbose: bool = False) -> str:
    """Read a file."""
    RAN.append(("read_file", {"path": path, "verbose": verbose}))
    if path.startswith("/missing"):
        raise FileNotFoundError(path)
    return f"contents of {path}"


def conversation() -> list[Step]:
    """The scripted conversation every bridge runs: two calls in one turn, then "done"."""
    return [
        model_turn(
            call("delete_file", "call_1", path="/tmp/a.txt"),
            call("read_file", "call_2", path="/tmp/b.txt"),
            tokens=(10, 5),
        ),
        model_turn("done", tokens=(20, 2)),
    ]


def runner(
    bus: HookBus | None,
    model: ScriptedLlm,
    tools: Iterable[Any] = (delete_file, read_file),
    *,
    plugins: Iterable[BasePlugin] = (),
    **agent_options: Any,
) -> Runner:
    agent = LlmAgent(name="assistant", model=model, tools=list(tools), **agent_options)
    bridged: list[BasePlugin] = [AgentHooksPlugin(bus)] if bus is not None else []
    app = App(name="app", root_agent=agent, plugins=[*bridged, *plugins])
    return Runner(app=app, session_service=InMemorySessionService(), auto_create_session=True)


async def run(
    runner: Runner, message: types.Content | str, *, session: str = "s", **options: Any
) -> list[Event]:
    if isinstance(message, str):
        message = user(message)
    return [
        event
        async for event in runner.run_async(
            user_id="u", session_id=session, new_message=message, **options
        )
    ]


def final_text(events: list[Event]) -> str | None:
    finals = [e for e in events if e.is_final_response() and e.content and e.content.parts]
    if not finals:
        return None
    return "".join(p.text or "" for p in finals[-1].content.parts or ())  # type: ignore[union-attr]


def tool_messages(request: LlmRequest) -> list[tuple[str | None, dict[str, Any] | None]]:
    """The function responses a model request carries: (call id, response)."""
    return [
        (p.function_response.id, p.function_response.response)
        for c in request.contents
        for p in c.parts or ()
        if p.function_response is not None
    ]


def recorder(bus: HookBus) -> list[str]:
    seen: list[str] = []
    bus.on("on_event", lambda r: seen.append(f"{r.type}:{r.tool_call_id or ''}".rstrip(":")))
    return seen


async def settle() -> None:
    """Let callbacks scheduled by a task's end run."""
    for _ in range(5):
        await asyncio.sleep(0)
