"""The Google ADK bridge's cost, timed beside the same agent without it: a scripted run of 2 model
calls and 1 tool call of an ``LlmAgent`` on a ``Runner`` with an in-memory session service and
a scripted ``BaseLlm`` (no network), ADK alone, with a plugin that does nothing (ADK calls
every plugin's callbacks: the baseline), with ``AgentHooksPlugin`` and no handler, and with the
plugin and five observers. ``harness.compare`` times the variants in interleaved rounds in one
process and prints the medians and the milliseconds the bridge adds per model or tool call
beside the baseline, by the wall clock and in CPU time.

    .venv/bin/python benchmarks/bridges/bench_adk.py [rounds]
"""

from __future__ import annotations

import itertools
import logging
import sys
import warnings
from collections.abc import AsyncGenerator
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agenthooks_adk import AgentHooksPlugin
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types
from harness import FIVE_OBSERVERS, NO_HANDLER, compare, five_observers, rounds

from agenthooks import HookBus

CALL = LlmResponse(
    content=types.Content(
        role="model",
        parts=[
            types.Part(
                function_call=types.FunctionCall(id="call_1", name="lookup", args={"city": "Paris"})
            )
        ],
    )
)
ANSWER = LlmResponse(content=types.Content(role="model", parts=[types.Part(text="It is sunny.")]))


class ScriptedLlm(BaseLlm):
    """Calls the tool on the first call of a run, answers on the second."""

    model: str = "scripted"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1].parts or []
        yield ANSWER if last and last[0].function_response is not None else CALL


def lookup(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


class EmptyPlugin(BasePlugin):
    """A plugin that does nothing: ADK calls its (inherited, empty) callbacks all the same."""

    def __init__(self) -> None:
        super().__init__("empty")


def variant(plugin: BasePlugin | None) -> Any:
    agent = LlmAgent(name="assistant", model=ScriptedLlm(), tools=[lookup])
    app = App(name="bench", root_agent=agent, plugins=[plugin] if plugin else [])
    runner = Runner(app=app, session_service=InMemorySessionService(), auto_create_session=True)
    sessions = itertools.count()
    question = types.Content(role="user", parts=[types.Part(text="Weather in Paris?")])

    async def run() -> object:
        # a fresh session each run: every round times the same conversation
        session = f"s{next(sessions)}"
        async for _ in runner.run_async(user_id="u", session_id=session, new_message=question):
            pass
        return None

    return run


def main() -> None:
    logging.disable(logging.WARNING)  # ADK warns on every run of a model without usage
    warnings.simplefilter("ignore")
    # ADK calls every plugin's callbacks (BasePlugin's are empty) whatever the plugin: the
    # bridge's own cost is what it adds to a plugin that does nothing
    compare(
        f"Google ADK {version('google-adk')} with agenthooks-adk",
        {
            "adk alone": variant(None),
            "an empty plugin": variant(EmptyPlugin()),
            NO_HANDLER: variant(AgentHooksPlugin(HookBus())),
            FIVE_OBSERVERS: variant(AgentHooksPlugin(five_observers())),
        },
        baseline="an empty plugin",
        rounds=rounds(),
    )


if __name__ == "__main__":
    main()
