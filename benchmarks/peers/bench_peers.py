"""The agent-run benchmark of ../bench_agent.py, run through peer frameworks.

The same conversation everywhere: user message → the model asks for one tool call
``add(a=2, b=3)`` → the tool runs → the model answers "5". Each framework gets a scripted
model written against its own model interface that returns at once (no network, no sleeps),
so what is measured is each framework's loop. Every run is checked: the answer is "5" and the
tool ran exactly once.

    python bench_peers.py                 # every framework, one child process each, then the table
    python bench_peers.py --only strands  # one framework (names: see FRAMEWORKS)

Each framework runs in its own process so that one framework's imports (tracing providers,
thread pools, a bigger garbage-collected heap) cannot slow another down. Our rows come from
``bench_agent.measure()``. Peer tools are ``async def``: every peer runs a sync tool through
a thread (``asyncio.to_thread`` / ``run_in_executor``) under an async run, and the async form
is their fastest path. ``BENCH_PEERS_SECONDS`` (time per repeat, default 0.3) and
``BENCH_PEERS_REPEAT`` (best of N, default 7) trade precision for time.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import gc
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

# No framework may try the network: tracing and telemetry off before any import.
os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"
os.environ["OTEL_SDK_DISABLED"] = "true"
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
os.environ.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)

HERE = Path(__file__).resolve().parent
MESSAGE = "2+3?"
SECONDS = float(os.environ.get("BENCH_PEERS_SECONDS", "0.3"))
REPEAT = int(os.environ.get("BENCH_PEERS_REPEAT", "7"))
OURS_NUMBER, OURS_REPEAT = 2000, 15  # best of 15: a repeat is only ~0.1 s

RunFn = Callable[[], Awaitable[str]]


class Calls:
    """How many times the ``add`` tool ran, to check one call per run."""

    count = 0


# OpenAI Agents SDK ---------------------------------------------------------------------------


def openai_agents() -> list[tuple[str, RunFn]]:
    """A custom ``Model`` returning ``ModelResponse``; ``Runner.run`` drives the loop."""
    from agents import Agent, ModelResponse, Runner, Usage, function_tool, set_tracing_disabled
    from agents.models.interface import Model
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    set_tracing_disabled(True)
    ask = ModelResponse(
        output=[
            ResponseFunctionToolCall(
                id="fc_1",
                call_id="call_1",
                name="add",
                arguments='{"a": 2, "b": 3}',
                type="function_call",
                status="completed",
            )
        ],
        usage=Usage(),
        response_id=None,
    )
    answer = ModelResponse(
        output=[
            ResponseOutputMessage(
                id="msg_1",
                role="assistant",
                status="completed",
                type="message",
                content=[ResponseOutputText(text="5", annotations=[], type="output_text")],
            )
        ],
        usage=Usage(),
        response_id=None,
    )

    class ScriptedModel(Model):
        """Asks for ``add`` after the user message, answers after the tool output."""

        async def get_response(
            self,
            system_instructions: Any,
            input: Any,
            model_settings: Any,
            tools: Any,
            output_schema: Any,
            handoffs: Any,
            tracing: Any,
            **kwargs: Any,
        ) -> Any:
            last = input[-1] if isinstance(input, list) else {"role": "user"}
            return answer if last.get("type") == "function_call_output" else ask

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the benchmark does not stream")

    @function_tool
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        Calls.count += 1
        return a + b

    agent = Agent(name="bench", instructions="Add numbers.", model=ScriptedModel(), tools=[add])

    async def run() -> str:
        result = await Runner.run(agent, MESSAGE)
        return str(result.final_output)

    return [("OpenAI Agents SDK", run)]


# LangChain -----------------------------------------------------------------------------------


def langchain() -> list[tuple[str, RunFn]]:
    """A ``BaseChatModel`` supporting ``bind_tools``, run by ``create_agent``; then the same
    with 5 pass-through ``AgentMiddleware`` (``wrap_model_call``)."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import tool

    class ScriptedChatModel(BaseChatModel):
        """Asks for ``add`` after the user message, answers after the tool message."""

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def _reply(self, messages: list[BaseMessage]) -> ChatResult:
            # a fresh message per call, as a real model returns: the graph sets its id
            if isinstance(messages[-1], ToolMessage):
                message = AIMessage(content="5")
            else:
                message = AIMessage(
                    content="",
                    tool_calls=[
                        {
                            "name": "add",
                            "args": {"a": 2, "b": 3},
                            "id": "call_1",
                            "type": "tool_call",
                        }
                    ],
                )
            return ChatResult(generations=[ChatGeneration(message=message)])

        def _generate(
            self,
            messages: list[BaseMessage],
            stop: Any = None,
            run_manager: Any = None,
            **kwargs: Any,
        ) -> ChatResult:
            return self._reply(messages)

        async def _agenerate(
            self,
            messages: list[BaseMessage],
            stop: Any = None,
            run_manager: Any = None,
            **kwargs: Any,
        ) -> ChatResult:
            return self._reply(messages)

        def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
            # as real chat models do, minus the provider's wire-format conversion
            return self.bind(tools=list(tools), **kwargs)

    class PassThrough(AgentMiddleware):  # type: ignore[type-arg]
        """A middleware that only calls the next layer."""

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            return await handler(request)

    @tool
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        Calls.count += 1
        return a + b

    def runner(middleware: list[Any]) -> RunFn:
        graph = create_agent(
            ScriptedChatModel(), [add], system_prompt="Add numbers.", middleware=middleware
        )

        async def run() -> str:
            state = await graph.ainvoke({"messages": [{"role": "user", "content": MESSAGE}]})
            return str(state["messages"][-1].content)

        return run

    # create_agent refuses two middleware of the same name (the class name by default)
    five = [type(f"PassThrough{i}", (PassThrough,), {})() for i in range(5)]
    return [
        ("LangChain create_agent", runner([])),
        ("LangChain create_agent, 5 middleware", runner(five)),
    ]


# Strands -------------------------------------------------------------------------------------


def strands() -> list[tuple[str, RunFn]]:
    """A custom ``Model`` provider whose ``stream`` yields Strands stream events."""
    from strands import Agent, tool
    from strands.models.model import Model
    from strands.telemetry.metrics import EventLoopMetrics

    ask = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "call_1", "name": "add"}}}},
        {"contentBlockDelta": {"delta": {"toolUse": {"input": '{"a": 2, "b": 3}'}}}},
        {"contentBlockStop": {}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    answer = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "5"}}},
        {"contentBlockStop": {}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]

    class ScriptedModel(Model):
        """Asks for ``add`` after the user message, answers after the tool result."""

        def update_config(self, **model_config: Any) -> None:
            pass

        def get_config(self) -> Any:
            return {}

        async def structured_output(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the benchmark has no structured output")
            yield  # pragma: no cover

        async def stream(
            self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any
        ) -> Any:
            tool_result = any("toolResult" in block for block in messages[-1]["content"])
            for event in answer if tool_result else ask:
                yield event

    @tool
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        Calls.count += 1
        return a + b

    agent = Agent(
        model=ScriptedModel(), tools=[add], system_prompt="Add numbers.", callback_handler=None
    )

    async def run() -> str:
        # a fresh conversation each time, as our rows have; the agent's metrics grow by a
        # trace per cycle and slow every later run, so they start afresh too
        agent.messages.clear()
        agent.event_loop_metrics = EventLoopMetrics()
        result = await agent.invoke_async(MESSAGE)
        return "".join(block.get("text", "") for block in result.message["content"])

    return [("Strands", run)]


# ours ----------------------------------------------------------------------------------------


def ours() -> list[tuple[str, float]]:
    """Our rows from ``bench_agent.measure()``, after checking the same answer and one tool
    call through a real agent."""
    sys.path.insert(0, str(HERE.parent))
    import bench_agent

    async def check() -> None:
        agent = bench_agent.make_agent("0 hooks")
        response = await agent.chat(MESSAGE)
        tool_messages = [m for m in agent._history if m.role == "tool"]
        assert response.content == "5", response
        assert len(tool_messages) == 1, agent._history

    asyncio.run(check())
    return asyncio.run(bench_agent.measure(OURS_NUMBER, OURS_REPEAT))


FRAMEWORKS: dict[str, Callable[[], list[tuple[str, RunFn]]]] = {
    "openai-agents": openai_agents,
    "langchain": langchain,
    "strands": strands,
}
PACKAGES = (
    "agenthooks",
    "openai-agents",
    "langchain",
    "langchain-core",
    "langgraph",
    "strands-agents",
    "pydantic",
)


# timing --------------------------------------------------------------------------------------


async def _checked(run: RunFn) -> None:
    before = Calls.count
    answer = await run()
    if answer != "5" or Calls.count != before + 1:
        raise AssertionError(
            f"expected answer '5' and one tool call, got {answer!r} and "
            f"{Calls.count - before} calls"
        )


async def _time(run: RunFn) -> tuple[float, int]:
    """Best seconds per run over ``REPEAT`` repeats of N runs, N sized to ``SECONDS``."""
    for _ in range(10):  # warm caches and lazy imports
        await _checked(run)
    start = time.perf_counter()
    for _ in range(10):
        await _checked(run)
    number = max(10, int(SECONDS / ((time.perf_counter() - start) / 10)))
    best = float("inf")
    for _ in range(REPEAT):
        gc.collect()
        start = time.perf_counter()
        for _ in range(number):
            await _checked(run)
        best = min(best, (time.perf_counter() - start) / number)
    return best, number


def child(name: str) -> list[tuple[str, float, int]]:
    """Rows (name, seconds per run, runs per repeat) for one framework, in this process."""
    if name == "agenthooks":
        return [(row, seconds, OURS_NUMBER) for row, seconds in ours()]
    rows = []
    for row, run in FRAMEWORKS[name]():
        Calls.count = 0
        seconds, number = asyncio.run(_time(run))
        assert Calls.count == 20 + REPEAT * number, Calls.count  # one tool call per run
        rows.append((row, seconds, number))
    return rows


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


def main() -> int:
    """Run each framework in its own process and print the side-by-side table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["agenthooks", *FRAMEWORKS])
    parser.add_argument("--json", action="store_true", help="print rows as JSON (child mode)")
    args = parser.parse_args()
    if args.json:
        print(json.dumps(child(args.only or "agenthooks")))
        return 0
    names = [args.only] if args.only else ["agenthooks", *FRAMEWORKS]
    if "agenthooks" not in names:
        names.insert(0, "agenthooks")
    rows: list[tuple[str, float, int]] = []
    for name in names:
        print(f"measuring {name} ...", file=sys.stderr, flush=True)
        out = subprocess.run(
            [sys.executable, __file__, "--json", "--only", name],
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        ).stdout
        rows += [tuple(r) for r in json.loads(out.splitlines()[-1])]  # type: ignore[misc]

    floor = rows[0][1]
    ours_0 = next(s for r, s, _ in rows if r == "agenthooks, 0 hooks")
    print(
        f"# peers, {datetime.date.today().isoformat()}: python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, {platform.machine()}, {platform.system()}"
    )
    print("# " + ", ".join(f"{p} {version(p)}" for p in PACKAGES))
    print('\n## One agent run (user → 1 tool call `add(2, 3)` → answer "5"), scripted model')
    print(f"{'case':38} {'per run':>10} {'runs':>6} {'× floor':>9} {'× ours 0 hooks':>15}")
    for name, seconds, number in rows:
        print(
            f"{name:38} {_fmt(seconds):>10} {number:6d} {seconds / floor:9.1f} "
            f"{seconds / ours_0:15.2f}"
        )
    peers = [
        (n, s) for n, s, _ in rows if not n.startswith(("agenthooks", "floor", "hand-written"))
    ]
    if peers:
        name, fastest = min(peers, key=lambda r: r[1])
        verdict = "holds" if fastest / ours_0 >= 100 else "does NOT hold"
        print(
            f"\naim: agenthooks (0 hooks) ≥ 100× below every peer — {verdict}: fastest peer "
            f"({name}) is {fastest / ours_0:.0f}× our 0-hook run"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
