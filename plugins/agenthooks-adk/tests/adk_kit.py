"""The Google ADK adapter of the bridge conformance kit: a real ADK ``Runner`` on an
in-memory session service and an ``App`` with the bridge's plugin, its model a ``BaseLlm``
answering from the script (google-genai types only: no network)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

from agenthooks_adk import AgentHooksPlugin
from agenthooks_adk.capabilities import CAPABILITIES
from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types
from pydantic import Field

from agenthooks import HookBus
from agenthooks.conformance import BridgeAdapter, Outcome, Step

CONFIRMATION = "adk_request_confirmation"
_sessions = itertools.count(1)


class _ScriptedLlm(BaseLlm):
    """Answers each model call with the next step of the script, after its delay (streamed
    word by word when the run streams)."""

    model: str = "scripted"
    steps: list[Any] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        step: Step = self.steps.pop(0)
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.error:
            if stream and step.text:  # a stream that fails after its first chunk
                part = types.Part(text=step.text)
                yield LlmResponse(content=types.Content(role="model", parts=[part]), partial=True)
            raise RuntimeError(step.error)
        if stream and step.text:
            for word in step.text.split(" "):
                part = types.Part(text=word + " ")
                yield LlmResponse(content=types.Content(role="model", parts=[part]), partial=True)
        parts = [
            types.Part(function_call=types.FunctionCall(name=c.name, id=c.id, args=c.arguments))
            for c in step.calls
        ] or [types.Part(text=step.text)]
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=step.input_tokens,
            candidates_token_count=step.output_tokens,
            total_token_count=step.total_tokens,
        )
        yield LlmResponse(content=types.Content(role="model", parts=parts), usage_metadata=usage)


class ADKAdapter(BridgeAdapter):
    """Google ADK, as the kit drives it."""

    capabilities = CAPABILITIES
    streams = True
    unscripted = frozenset({"pre_handoff", "on_handoff", "on_subagent_start", "on_subagent_stop"})
    """A handoff and a sub-agent need agents of their own: the bridge's tests pin them."""

    def _runner(
        self, bus: HookBus, script: Sequence[Step], tools: Sequence[Callable[..., Any]]
    ) -> Runner:
        agent = LlmAgent(
            name="assistant", model=_ScriptedLlm(steps=list(script)), tools=list(tools)
        )
        app = App(name="kit", root_agent=agent, plugins=[AgentHooksPlugin(bus)])
        return Runner(app=app, session_service=InMemorySessionService(), auto_create_session=True)

    async def _run(
        self, runner: Runner, session: str, message: types.Content, **options: Any
    ) -> Outcome:
        events = [
            e
            async for e in runner.run_async(
                user_id="u", session_id=session, new_message=message, **options
            )
        ]
        asked = [fc for e in events for fc in e.get_function_calls() if fc.name == CONFIRMATION]
        finals = [e for e in events if e.is_final_response() and e.content and e.content.parts]
        text = (
            "".join(p.text or "" for p in finals[-1].content.parts or ())  # type: ignore[union-attr]
            if finals and not asked
            else None
        )
        return Outcome(
            text=text,
            paused=[str((fc.args or {})["originalFunctionCall"]["id"]) for fc in asked],
            history=[
                p.text or ""
                for e in events
                if e.content is not None
                for p in e.content.parts or ()
                if p.text
            ],
            handle=(runner, session, asked),
        )

    async def run(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
        *,
        output_type: type[Any] | None = None,
    ) -> Outcome:
        runner = self._runner(bus, script, tools)
        return await self._run(runner, f"s{next(_sessions)}", _user(message))

    async def resume(self, bus: HookBus, paused: Outcome, decisions: Mapping[str, bool]) -> Outcome:
        runner, session, asked = paused.handle
        parts = [
            types.Part(
                function_response=types.FunctionResponse(
                    name=CONFIRMATION,
                    id=fc.id,
                    response={
                        "confirmed": bool(decisions.get(fc.args["originalFunctionCall"]["id"]))
                    },
                )
            )
            for fc in asked
        ]
        return await self._run(runner, session, types.Content(role="user", parts=parts))

    async def stream(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
    ) -> tuple[list[str], Outcome]:
        runner = self._runner(bus, script, tools)
        deltas: list[str] = []
        session = f"s{next(_sessions)}"
        config = RunConfig(streaming_mode=StreamingMode.SSE)
        events = []
        async for event in runner.run_async(
            user_id="u", session_id=session, new_message=_user(message), run_config=config
        ):
            events.append(event)
            if event.partial and event.content is not None:
                deltas += [p.text for p in event.content.parts or () if p.text]
        finals = [e for e in events if e.is_final_response() and e.content and e.content.parts]
        text = "".join(p.text or "" for p in finals[-1].content.parts or ()) if finals else None  # type: ignore[union-attr]
        return deltas, Outcome(text=text)


def _user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


__all__ = ["ADKAdapter"]
