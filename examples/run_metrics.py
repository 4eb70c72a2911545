"""Record run metrics: a timer per run, its duration, and its error if it failed.

Seed 003: ``BeforeRun`` starting a timer, ``AfterRun`` recording the duration and the error
(``AfterRun`` always fires: it is ``on_chat_end``; seed 004's ``afterRun`` is success-only
``on_chat_done``).

Output:
    runs started: {'analyst': 2}
    durations recorded: {'analyst': 2}
    errors: {'analyst': ['ValueError: no data for Q5']}
"""

import asyncio
from collections import defaultdict

from agenthooks import Agent, HookBus, ScriptedProvider
from agenthooks.events import ChatEndContext, ChatStartContext


class Metrics:
    def __init__(self) -> None:
        self.started: dict[str, int] = defaultdict(int)
        self.durations: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)

    def start_timer(self, ctx: ChatStartContext) -> None:
        self.started[ctx.agent] += 1

    def record(self, ctx: ChatEndContext) -> None:
        self.durations[ctx.agent].append(ctx.duration)
        if ctx.error is not None:
            self.errors[ctx.agent].append(f"{type(ctx.error).__name__}: {ctx.error}")


async def main() -> None:
    metrics = Metrics()
    bus = HookBus()
    bus.on("BeforeRun", metrics.start_timer)
    bus.on("AfterRun", metrics.record)
    agent = Agent(
        "analyst",
        bus=bus,
        provider=ScriptedProvider(["Q3 revenue grew 4%.", ValueError("no data for Q5")]),
    )
    await agent.chat("How did Q3 go?")
    try:
        await agent.chat("How did Q5 go?")
    except ValueError:
        pass
    print("runs started:", dict(metrics.started))
    print("durations recorded:", {k: len(v) for k, v in metrics.durations.items()})
    print("errors:", dict(metrics.errors))


if __name__ == "__main__":
    asyncio.run(main())
