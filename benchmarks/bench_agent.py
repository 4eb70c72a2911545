"""One agent run, side by side with the floor.

The conversation: user message → the model asks for one tool call → the tool (an
``async def``, as the peer frameworks run theirs) runs → the model answers. The scripted model returns at once, so what is measured is the loop itself.
The floor is a hand-written minimal async loop doing the same steps with plain dicts.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

from pathtrace import trace

from agenthooks import (
    Agent,
    Middleware,
    ProviderRequest,
    ProviderResponse,
    Session,
    ToolCall,
    tool,
)
from agenthooks.providers import ScriptedProvider

CALL = ToolCall(id="call_1", name="add", arguments={"a": 2, "b": 3})
ASK = ProviderResponse(tool_calls=[CALL], finish_reason="tool_calls")
ANSWER = ProviderResponse(content="5")


def script(request: ProviderRequest) -> ProviderResponse:
    """Ask for the tool after a user message, answer after a tool message."""
    return ASK if request.messages[-1].role == "user" else ANSWER


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


# the floor -----------------------------------------------------------------------------------


def _floor_model(messages: list[dict[str, Any]]) -> dict[str, Any]:
    if messages[-1]["role"] == "user":
        return {
            "content": None,
            "tool_calls": [{"id": "call_1", "name": "add", "arguments": {"a": 2, "b": 3}}],
        }
    return {"content": "5", "tool_calls": []}


async def _floor_provider(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return _floor_model(messages)


async def _floor_add(a: int, b: int) -> int:
    return a + b


async def floor_run(message: str) -> dict[str, Any]:
    """The hand-written loop: the same steps, plain dicts, no hooks."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": message}]
    tools = {"add": _floor_add}
    for _ in range(25):
        reply = await _floor_provider(messages)
        messages.append(
            {"role": "assistant", "content": reply["content"], "tool_calls": reply["tool_calls"]}
        )
        if not reply["tool_calls"]:
            return {"content": reply["content"], "messages": messages}
        for call in reply["tool_calls"]:
            result = await tools[call["name"]](**call["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": str(result)})
    raise RuntimeError("max turns")


_SCHEMAS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            },
        },
    }
]
_TYPES = {"add": {"a": int, "b": int}}


async def floor_same_steps(message: str) -> dict[str, Any]:
    """The hand-written loop doing every step agenthooks does without hooks: a request per
    turn (model, system prompt, a copy of the transcript, the tool schemas), the tool's
    arguments checked against its signature, the result serialized as JSON, the run's
    response with its new messages and turn count."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": message}]
    tools = {"add": _floor_add}
    for turn in range(25):
        request = {
            "model": "",
            "system": "Add numbers.",
            "messages": list(messages),
            "tools": list(_SCHEMAS),
        }
        reply = await _floor_provider(request["messages"])
        messages.append(
            {"role": "assistant", "content": reply["content"], "tool_calls": reply["tool_calls"]}
        )
        if not reply["tool_calls"]:
            return {
                "content": reply["content"],
                "finish_reason": "stop",
                "messages": list(messages),
                "iterations": turn + 1,
            }
        for call in reply["tool_calls"]:
            types = _TYPES[call["name"]]
            arguments = call["arguments"]
            if set(arguments) != set(types) or not all(
                type(arguments[k]) is t for k, t in types.items()
            ):
                raise TypeError(f"bad arguments for {call['name']}")
            result = await tools[call["name"]](**arguments)
            messages.append(
                {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)}
            )
    raise RuntimeError("max turns")


# ours ----------------------------------------------------------------------------------------


class PassThrough(Middleware):
    """A middleware that only calls the next layer."""

    stacks = ("provider",)

    async def wrap(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        return await call_next(ctx)


PER_TURN = ("on_loop_start", "transform_context", "pre_request", "on_response", "on_loop_end")
"""Five events that fire once per turn."""
ON_THE_PATH = ("pre_request", "on_response", "pre_tool_call", "on_tool_call_result", "on_chat_done")
"""One observer on each: the model call, the tool call and the end of the run."""


def make_agent(setup: str) -> Agent:
    """An agent for one benchmark row; its history is reset per run by the caller."""
    agent = Agent(
        "bench", "Add numbers.", provider=ScriptedProvider(script, record=False), tools=[add]
    )
    if setup == "5 observers":  # on the model call, the tool call and the run's end
        for event in ON_THE_PATH:
            agent.on(event, lambda ctx: None)
    elif setup == "5 per-turn observers":
        for event in PER_TURN:
            agent.on(event, lambda ctx: None)
    elif setup == "5 observers, mixed":  # 4 of them fire per message or per tool call
        for event in ("on_loop_start", "on_loop_end", "on_message", "on_response", "pre_tool_call"):
            agent.on(event, lambda ctx: None)
    elif setup == "on_event":
        agent.on("on_event", lambda record: None)
    elif setup == "5 middleware":
        for _ in range(5):
            agent.use(PassThrough())
    return agent


async def measure(number: int = 2000, repeat: int = 7) -> list[tuple[str, float]]:
    """(row, seconds per run) for the floor and each setup, best of ``repeat`` rounds; the
    rows are timed interleaved, round by round, so load on a shared machine hits every row
    alike and the ratios hold steady."""
    cases: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
        ("floor (hand-written loop)", lambda: floor_run("2+3?")),
        ("hand-written loop, same steps", lambda: floor_same_steps("2+3?")),
    ]
    setups = ("0 hooks", "5 observers", "5 per-turn observers", "5 observers, mixed", "on_event")
    for setup in (*setups, "5 middleware"):
        agent = make_agent(setup)

        async def one(agent: Agent = agent) -> Any:
            return await Session(agent).chat("2+3?")  # a fresh conversation each time

        cases.append((f"agenthooks, {setup}", one))
    best = dict.fromkeys((name for name, _ in cases), float("inf"))
    for _ in range(repeat):
        for name, run in cases:
            gc.collect()
            start = time.perf_counter()
            for _ in range(number):
                await run()
            best[name] = min(best[name], (time.perf_counter() - start) / number)
    return list(best.items())


async def concurrent_memory(runs: int = 10_000) -> tuple[float, float]:
    """Peak traced memory per run and seconds for ``runs`` concurrent runs of one agent, one
    ``Session`` each, as a server serving many conversations has."""
    agent = make_agent("0 hooks")
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    await asyncio.gather(*(Session(agent).chat("2+3?") for _ in range(runs)))
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return (peak - base) / runs, elapsed


async def live_memory(runs: int = 2_000) -> tuple[float, float]:
    """Memory held per live run while its tool really suspends (ours, then the bare floor's):
    ``runs`` runs are started and measured while every one of them waits in its tool."""
    release = asyncio.Event()

    @tool(name="add")
    async def wait(a: int, b: int) -> int:
        """Add, once released."""
        await release.wait()
        return a + b

    agent = Agent(
        "bench", "Add numbers.", provider=ScriptedProvider(script, record=False), tools=[wait]
    )

    async def floor_waiting(message: str) -> dict[str, Any]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": message}]
        reply = await _floor_provider(messages)
        messages.append({"role": "assistant", **reply})
        await release.wait()
        messages.append({"role": "tool", "tool_call_id": "call_1", "content": "5"})
        return {"content": "5", "messages": messages}

    held = []
    for start in (lambda: Session(agent).chat("2+3?"), lambda: floor_waiting("2+3?")):
        release.clear()
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        tasks = [asyncio.ensure_future(start()) for _ in range(runs)]
        for _ in range(20):  # every run reaches its tool
            await asyncio.sleep(0)
        gc.collect()
        held.append((tracemalloc.get_traced_memory()[0] - base) / runs)
        tracemalloc.stop()
        release.set()
        await asyncio.gather(*tasks)
    return held[0], held[1]


def hops_per_tool_call() -> tuple[int, int]:
    """Agenthooks calls and module hops one more tool call costs, with a ``pre_tool_call``
    hook, an ``on_tool_call_result`` hook and a tool middleware (``pathtrace.py``)."""

    class Passthrough(Middleware):
        async def wrap(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
            return await call_next(ctx)

    @tool
    async def add_async(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def run_with(calls: int) -> Any:
        asks = ProviderResponse(
            tool_calls=[
                ToolCall(id=f"c{i}", name="add_async", arguments={"a": i, "b": 1})
                for i in range(calls)
            ]
        )
        agent = Agent(
            "calc",
            provider=ScriptedProvider([asks, "done"]),
            tools=[add_async],
            middleware=[Passthrough()],
        )
        agent.on("pre_tool_call", lambda ctx: None)
        agent.on("on_tool_call_result", lambda ctx: None)
        return trace(lambda: agent.chat("go"))

    run_with(2)  # warm: what is built once is not per call
    one, two = run_with(1), run_with(2)
    return len(two.calls) - len(one.calls), two.hops - one.hops


def instructions_per_run() -> int:
    """Bytecode instructions one 0-hook run executes (``sys.settrace`` with opcode events),
    the harness's own excluded: a count that does not move with the machine's load, which
    time follows closely on one machine."""
    agent = make_agent("0 hooks")
    counted = [0]

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
        elif event == "opcode":
            counted[0] += 1
        return tracer

    async def one() -> None:
        for _ in range(3):  # warm: what is built once is not per run
            await Session(agent).chat("2+3?")
        sys.settrace(tracer)
        try:
            await Session(agent).chat("2+3?")
        finally:
            sys.settrace(None)

    asyncio.run(one())
    return counted[0]


async def floor_memory(runs: int = 10_000) -> float:
    """Peak traced memory per run of the floor, for comparison."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    await asyncio.gather(*(floor_run("2+3?") for _ in range(runs)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return (peak - base) / runs


def main() -> None:
    """Print the agent-run table."""
    rows = asyncio.run(measure())
    floor, same_steps = rows[0][1], rows[1][1]
    no_hooks = next(s for name, s in rows if name == "agenthooks, 0 hooks")
    print("\n## One agent run (user → 1 tool call → answer), scripted model")
    print(f"{'case':34} {'µs/run':>9} {'× floor':>8} {'× same steps':>13} {'× 0 hooks':>10}")
    for name, seconds in rows:
        print(
            f"{name:34} {seconds * 1e6:9.1f} {seconds / floor:8.1f} "
            f"{seconds / same_steps:13.1f} {seconds / no_hooks:10.2f}"
        )
    print("goal: 5 observers ≤ 1.7× our 0-hook figure (the rest: compare_commits.py)")
    per_run, elapsed = asyncio.run(concurrent_memory())
    floor_per_run = asyncio.run(floor_memory())
    print(
        f"\n10,000 concurrent runs (asyncio.gather, a Session each): {elapsed:.2f} s, peak "
        f"{per_run / 1024:.1f} KiB per run; floor {floor_per_run / 1024:.2f} KiB per run"
    )
    ours, bare = asyncio.run(live_memory())
    print(
        f"memory held per live run while its tool waits: {ours / 1024:.1f} KiB "
        f"(floor {bare / 1024:.1f} KiB, {ours / bare:.1f}×; target ≤ 4 KiB)"
    )
    print(f"bytecode instructions per 0-hook run: {instructions_per_run():,}")
    calls, hops = hops_per_tool_call()
    print(f"one more tool call: {calls} agenthooks calls, {hops} module hops (target ≤ 10)")


if __name__ == "__main__":
    main()
