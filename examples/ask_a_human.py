"""Ask a human: a hook pauses the run, the run is stored, and a later process resumes it.

A refund over 100 waits for a manager. The run pauses (``finish_reason="paused"``) with the
call in ``response.pending``; the lookup of the same assistant message ran. The paused run is
stored in SQLite; a new ``Session`` with the same agent, store and session id resumes it,
here once with the manager's approval and once with a refusal, whose reason is exactly the
tool message the model reads.

Output:
    paused: refund #r2 {'order': 7, 'amount': 900.0}: a manager approves refunds over 100
    pending in the store: ['r2']
    on_run_resumed: decisions ['r2'], records before the pause: 18
    approved -> Refunded 900 on order 7.
    tools that ran: ['lookup 7', 'refund 7 900']
    on_run_resumed: decisions ['r2'], records before the pause: 18
    denied -> the model read: The manager refused: order 8 was already refunded.
    tools that ran: ['lookup 7', 'refund 7 900', 'lookup 8']
"""

import asyncio
import tempfile
from pathlib import Path

from agenthooks import (
    Agent,
    Approve,
    Ask,
    Deny,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    tool,
)
from agenthooks.events import PreToolCallContext, RunResumedContext
from agenthooks.stores import SQLiteStore

ran: list[str] = []


@tool
def refund(order: int, amount: float) -> str:
    """Refund an order."""
    ran.append(f"refund {order} {amount:g}")
    return f"refunded {amount:g} on order {order}"


@tool
def lookup(order: int) -> str:
    """Look an order up."""
    ran.append(f"lookup {order}")
    return f"order {order}: delivered"


def support(model: ScriptedProvider) -> Agent:
    """The same agent definition in every process."""
    agent = Agent("support", provider=model, tools=[refund, lookup])

    @agent.on("pre_tool_call", match="refund", guard=True)
    def big_refunds(ctx: PreToolCallContext) -> Ask | None:
        if ctx.call.arguments["amount"] > 100:
            return Ask("a manager approves refunds over 100")
        return None

    @agent.on("on_run_resumed")
    def resumed(ctx: RunResumedContext) -> None:
        print(
            f"on_run_resumed: decisions {list(ctx.decisions)}, records before the pause: {ctx.records}"
        )

    agent.on("on_event", lambda record: None)  # an exporter would number these records
    return agent


def asks(order: int) -> ProviderResponse:
    return ProviderResponse(
        tool_calls=[
            ToolCall(id="r1", name="lookup", arguments={"order": order}),
            ToolCall(id="r2", name="refund", arguments={"order": order, "amount": 900}),
        ]
    )


async def main() -> None:
    store = SQLiteStore(Path(tempfile.mkdtemp()) / "sessions.db")

    model = ScriptedProvider([asks(7)])
    paused = await Session(support(model), store=store, session_id="ticket-7").chat("Refund 7")
    for call in paused.pending:
        print(
            f"{paused.finish_reason}: {call.tool} #{call.call_id} {call.arguments}: {call.reason}"
        )
    print("pending in the store:", (await store.get("ticket-7")).pending)

    later = ScriptedProvider(["Refunded 900 on order 7."])
    done = await Session(support(later), store=store, session_id="ticket-7").resume(
        {"r2": Approve()}
    )
    print("approved ->", done.content)
    print("tools that ran:", ran)

    model = ScriptedProvider([asks(8)])
    await Session(support(model), store=store, session_id="ticket-8").chat("Refund 8")
    later = ScriptedProvider(["Order 8 was not refunded."])
    await Session(support(later), store=store, session_id="ticket-8").resume(
        {"r2": Deny("The manager refused: order 8 was already refunded.")}
    )
    print("denied -> the model read:", later.requests[0].messages[-1].content)
    print("tools that ran:", ran)
    await store.aclose()


if __name__ == "__main__":
    asyncio.run(main())
