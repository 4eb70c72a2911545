"""The durable run the store-failure generators cut, and what they check after each cut.

One conversation on a stored ``Session``: the user asks for a refund; the model looks the order
up (``lookup``, idempotent) and refunds it (``refund``, not idempotent) in one assistant
message; a hook asks a human about the refund, so the chat ends paused; ``resume()`` with the
refund approved runs it and the model answers. The generators make the store fail at one step
of that life (a statement, a commit, a transaction's start) and then finish the conversation
the way an operator would: ``resume()`` with no decision when the approval is recorded,
approving a call the run never started, and approving a call that *may* have run only when
the ledger (``Ledger.refunds``) says it did not. What they check:

- each ``chat()`` / ``resume()`` ends with its normal outcome or a ``StoreError`` naming the
  store and the session (never the driver's exception), with exactly one terminal event then
  ``on_chat_end`` and ``on_session_end``;
- the model never reads our failure: no request carries a tool message with the driver's
  error or the StoreError;
- after a failure the session is not left running: the next ``Session`` reads it paused or
  idle at once;
- an approved call that did not start is pending with its approval recorded;
- the refund runs exactly once in the end, the conversation ends with the model's answer,
  and the stored transcript answers every call exactly once, right after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rel_probe import transcript_problems

from agenthooks import (
    Agent,
    Approve,
    Ask,
    Deny,
    ProviderResponse,
    ScriptedProvider,
    Session,
    StoreError,
    ToolCall,
    tool,
)
from agenthooks.messages import ProviderRequest
from agenthooks.runtime.durable.keeper import STORE_FAILED, interrupted

ASKED = "refunds need a manager"
FINAL = "Refunded order 7."
ENDS = ("on_chat_done", "on_chat_paused", "on_chat_error", "on_chat_abort")
LEAKS = ("OperationalError", "StoreError", "connection", "terminat", "locked", "Store(")

TERMINAL = "one terminal event per chat()/resume(), then on_chat_end, on_session_end"
TYPED = "a store failure is a StoreError naming the store and the session"
UNSEEN = "the model never reads our failure"
RELEASED = "a failed run leaves the session paused or idle, never running"
KEPT = "an approved call that did not start stays pending, approved"
ONCE = "the refund runs exactly once"
FINISHED = "the conversation ends with the model's answer"
STORED = "the stored transcript answers every call once"


@dataclass
class Ledger:
    """What really happened, outside the store: the tools' runs and the model's requests."""

    refunds: int = 0
    lookups: int = 0
    requests: list[ProviderRequest] = field(default_factory=list)
    events: list[list[str]] = field(default_factory=list)


def model(ledger: Ledger) -> ScriptedProvider:
    """The model: both calls for the user's message, the answer once the tools answered."""

    def answer(request: ProviderRequest) -> ProviderResponse | str:
        ledger.requests.append(request)
        if request.messages[-1].role == "user":
            return ProviderResponse(
                tool_calls=[
                    ToolCall(id="c1", name="lookup", arguments={"order": 7}),
                    ToolCall(id="c2", name="refund", arguments={"order": 7}),
                ]
            )
        return FINAL

    return ScriptedProvider(answer)


def agent(ledger: Ledger) -> Agent:
    """The same agent definition in every process: two tools and a hook that asks a human."""

    @tool(idempotent=True)
    def lookup(order: int) -> str:
        """Look an order up."""
        ledger.lookups += 1
        return f"order {order}: 40.00"

    @tool
    def refund(order: int) -> str:
        """Refund an order."""
        ledger.refunds += 1
        return f"refunded order {order}"

    built = Agent("support", provider=model(ledger), tools=[lookup, refund])
    built.on("pre_tool_call", lambda ctx: Ask(ASKED) if ctx.call.name == "refund" else None)
    events: list[str] = []
    ledger.events.append(events)
    for name in (*ENDS, "on_chat_end", "on_session_end"):
        built.on(name, lambda ctx, name=name: events.append(name))
    return built


async def step(ledger: Ledger, make: Any) -> tuple[Any, StoreError | None, list[str]]:
    """One ``chat()`` / ``resume()`` (``make(session_agent)`` returns its coroutine): the
    response or the StoreError, and the problems of its events and errors."""
    problems: list[str] = []
    built = agent(ledger)
    events = ledger.events[-1]
    try:
        return await make(built), None, _ends(events)
    except StoreError as exc:
        # a store that fails before the run begins (its claim) leaves no run: no event
        return None, exc, _ends(events) if events else []
    except Exception as exc:
        problems.append(f"{type(exc).__name__}: {exc}")
        raise AssertionError("; ".join(problems)) from exc


def _ends(events: list[str]) -> list[str]:
    ends = [e for e in events if e in ENDS]
    tail = events[events.index(ends[0]) + 1 :] if len(ends) == 1 else []
    if len(ends) != 1 or tail != ["on_chat_end", "on_session_end"]:
        return [f"events {events}"]
    return []


async def check_failure(
    ledger: Ledger, store: Any, session_id: str, error: StoreError, phase: str
) -> list[tuple[str, str]]:
    """What must hold right after a ``chat()`` or ``resume()`` (``phase``) ended with
    ``error``."""
    problems: list[tuple[str, str]] = []
    if error.store != repr(store) or error.session_id != session_id:
        problems.append((TYPED, f"{phase}: store={error.store!r} session={error.session_id!r}"))
    if repr(store) not in str(error) or repr(session_id) not in str(error):
        problems.append((TYPED, f"{phase}: {error}"))
    row = await store.get(session_id)
    if row is not None and row.status == "running":
        problems.append((RELEASED, f"{phase}: still running ({row.owner})"))
    began = bool(ledger.events[-1])  # a resume whose claim failed never began: nothing kept
    if phase == "resume" and began and ledger.refunds == 0:
        paused = row.paused if row is not None else None
        pending = [p.call_id for p in paused.pending] if paused is not None else []
        answer = paused.answers.get("c2") if paused is not None else None
        if "c2" not in pending or answer is None or not answer.approved:
            problems.append((KEPT, f"pending {pending}, answer {answer}"))
    return problems


async def finish(ledger: Ledger, store: Any, session_id: str) -> list[tuple[str, str]]:
    """Finish the conversation as an operator would (see the module's docstring); what broke."""
    problems: list[tuple[str, str]] = []
    for _ in range(4):
        row = await store.get(session_id)
        if row is not None and row.status == "idle" and row.messages:
            break
        if row is None or row.status == "idle":

            def make(a: Agent) -> Any:
                return Session(a, store=store, session_id=session_id).chat("Refund order 7")

        else:
            paused = row.paused
            assert paused is not None, row
            decisions: dict[str, Any] = {}
            for pending in paused.pending:
                if pending.call_id in paused.answers:
                    continue  # recorded: resume() takes it
                if pending.reason == interrupted(STORE_FAILED) and ledger.refunds:
                    decisions[pending.call_id] = Deny("already refunded")
                else:
                    decisions[pending.call_id] = Approve()

            def make(a: Agent, decisions: dict[str, Any] = decisions) -> Any:
                return Session(a, store=store, session_id=session_id).resume(decisions)

        _, error, ends = await step(ledger, make)
        problems += [(TERMINAL, e) for e in ends]
        if error is not None:
            problems.append((FINISHED, f"the store failed again: {error}"))
            break
    history = await store.history(session_id)
    if ledger.refunds != 1:
        problems.append((ONCE, f"refund ran {ledger.refunds} times"))
    if not history or history[-1].content != FINAL:
        problems.append((FINISHED, f"ends with {history[-1] if history else None}"))
    problems += [(STORED, p) for p in transcript_problems(history)]
    for request in ledger.requests:
        for message in request.messages:
            if message.role == "tool" and any(w in (message.content or "") for w in LEAKS):
                problems.append((UNSEEN, f"the model read {message.content!r}"))
    return problems


__all__ = [
    "ASKED",
    "FINAL",
    "Ledger",
    "agent",
    "check_failure",
    "finish",
    "step",
]
