"""A client's session as one run on the bus: what every client module asks of it.

The server is a transport: a client's hook request becomes one event of the run that stands
for the client's session (``BridgeRun``, the same hook layers, guards and records as a run of
our runtime or of a bridge), and the answer goes back in the client's format. This module is
the client-independent half: the verdict of each kind of event, as plain values a client
module turns into its own wire format.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..bridges import BridgeRun, BridgeTool, Capabilities
from ..bus import HookBus
from ..decisions import Ask, Deny
from ..errors import StopRun, UnsupportedReturnError
from ..events.contexts import (
    ChatStartContext,
    EventRecord,
    PreToolCallContext,
    SubagentStartContext,
    SubagentStopContext,
    UserMessageContext,
)
from ..messages import AgentResponse, ToolCall
from ..runtime.tool_call import ToolHooks, ToolOutcome
from .state import MemoryState, SessionState


@dataclass
class ToolVerdict:
    """What ``pre_tool_call`` decided for a call another process will run.

    ``decision`` is ``"deny"`` (``reason`` is what the model reads), ``"ask"`` (a person
    decides in the client, ``reason`` says why), or ``None`` (no objection: the client's own
    permission rules go on); ``arguments`` is set when a handler rewrote them; ``stop`` is the
    reason the whole session stops (a ``StopRun``)."""

    decision: str | None = None
    reason: str | None = None
    arguments: dict[str, Any] | None = None
    stop: str | None = None


@dataclass
class ResultVerdict:
    """What ``on_tool_call_result`` / ``on_tool_call_error`` decided: ``block`` is a deny's
    reason, ``result`` the replacement a handler gave (``None``: unchanged)."""

    block: str | None = None
    result: Any = None
    changed: bool = False
    stop: str | None = None


@dataclass
class ServedRun:
    """One client session on the bus.

    Args:
        run: The run the session's events fire on.
        client: The client's name (``claude-code``).
        caller: The token's name that opened the session.
        key: The session's key in ``state``.
        state: Where the session's state is shared with the other workers.
    """

    run: BridgeRun
    client: str
    caller: str
    key: str = ""
    state: SessionState = field(default_factory=MemoryState)
    started: bool = False
    stopped: str | None = None
    """Why the session was stopped (a ``StopRun``, a deny of its start), once it was."""

    @property
    def bus(self) -> HookBus:
        """The bus the session's events fire on."""
        return self.run.bus

    async def start(self, message: str = "") -> Deny | None:
        """``on_chat_start`` once per session (its ``SessionStart``, else its first event)."""
        if self.started:
            return None
        self.started = True
        if not await self.state.claim_start(self.key):
            return None  # another request (in any worker) started the session
        got = await self.run.fire("on_chat_start", ChatStartContext, message=message, tools=[])
        if isinstance(got, Deny):
            self.stopped = got.text()
            await self.state.stop(self.key, self.stopped)
            return got
        return None

    async def user_message(self, message: str) -> Deny | str | None:
        """``on_user_message``: a ``Deny`` blocks the prompt; a rewritten message is returned
        (the caller says whether its client can carry it)."""
        got = await self.run.fire("on_user_message", UserMessageContext, message=message)
        if isinstance(got, (Deny, Ask)):
            return Deny(got.text()) if isinstance(got, Ask) else got
        if isinstance(got, UserMessageContext) and got.message != message:
            return got.message
        return None

    def _tool_context(self, call: ToolCall) -> PreToolCallContext:
        return PreToolCallContext(
            **self.run.base(),
            call=call,
            tool=BridgeTool(call.name),
            tool_call_id=call.id,
            scope=None,
            short_circuit=None,
            result=None,
            error=None,
        )

    async def pre_tool(self, call: ToolCall) -> ToolVerdict:
        """``pre_tool_call`` for a call the client is about to run."""
        if "pre_tool_call" not in self.bus.listened:
            return ToolVerdict()
        ctx = self._tool_context(call)
        try:
            async with self.run.serial:
                got = await self.bus.dispatch("pre_tool_call", ctx)
        except StopRun as stop:
            return ToolVerdict("deny", stop.reason, stop=stop.reason)
        if isinstance(got, Ask):
            return ToolVerdict("ask", got.text(call.name))
        if isinstance(got, Deny):
            return ToolVerdict("deny", got.text(call.name))
        if ctx.short_circuit == "error":
            return ToolVerdict("deny", ToolOutcome(call, error=ctx.error).error_text())
        if ctx.short_circuit == "result":
            # the handler meant the tool not to run: refused, never let through, and the
            # return the client cannot carry is a typed error in the records
            problem = UnsupportedReturnError(
                "pre_tool_call",
                "result",
                self.client,
                "the client runs the tool itself and takes no result in its place",
            )
            await self.record("unsupported", error=str(problem), tool=call.name)
            return ToolVerdict("deny", str(problem))
        if ctx.call.arguments != call.arguments:
            return ToolVerdict(arguments=dict(ctx.call.arguments))
        return ToolVerdict()

    async def tool_done(
        self, call: ToolCall, result: Any = None, error: str | None = None
    ) -> ResultVerdict:
        """``on_tool_call_result`` (or ``on_tool_call_error`` when ``error`` is set) for a
        call the client ran."""
        event = "on_tool_call_error" if error is not None else "on_tool_call_result"
        if event not in self.bus.listened:
            return ResultVerdict()
        outcome = ToolOutcome(call, result=result, error=error, source="handler" if error else None)
        ctx = self._tool_context(call)
        try:
            async with self.run.serial:
                after = await ToolHooks(self.bus).after(ctx, outcome)
        except StopRun as stop:
            return ResultVerdict(block=stop.reason, stop=stop.reason)
        if after.denied:
            return ResultVerdict(block=after.error_text())
        if error is not None and after.error is None:  # a handler recovered the failed call
            return ResultVerdict(result=after.result, changed=True)
        if error is None and after.result is not result:
            return ResultVerdict(result=after.result, changed=True)
        return ResultVerdict()

    async def subagent(self, started: bool, name: str, task: str = "", result: Any = None) -> None:
        """``on_subagent_start`` / ``on_subagent_stop`` for a sub-agent the client runs."""
        if started:
            await self.run.fire("on_subagent_start", SubagentStartContext, subagent=name, task=task)
        else:
            await self.run.fire(
                "on_subagent_stop", SubagentStopContext, subagent=name, task=task, result=result
            )

    async def record(
        self, kind: str, payload: Any = None, *, error: str | None = None, tool: str | None = None
    ) -> None:
        """An ``on_event`` record of a client event that has no event of its own in the
        catalog (``type`` is ``CLIENT:Event``), or of a failure to keep in the records."""
        if "on_event" not in self.bus.listened:
            return
        record = EventRecord(
            **self.run.base(),
            type=f"{self.client}:{kind}",
            timestamp=time.time(),
            tool_name=tool,
            input=payload,
            is_error=error is not None,
            error=error,
        )
        async with self.run.serial:
            await self.bus.dispatch("on_event", record)

    async def stop(self, reason: str) -> None:
        """A handler stopped the session (``StopRun``): ``on_stop``, ``on_chat_error`` and
        ``on_chat_end``; every later event of the session is answered with the stop."""
        self.stopped = reason
        await self.state.stop(self.key, reason)
        await self.run.error(StopRun(reason))

    async def fail(self, error: BaseException) -> None:
        """A handler raised: the run ends with ``on_chat_error`` and ``on_chat_end``."""
        self.stopped = f"{type(error).__name__}: {error}"
        await self.state.stop(self.key, self.stopped)
        await self.run.error(error)

    async def end(self, content: str | None = None) -> None:
        """The client's session ended: ``on_chat_done`` and ``on_chat_end``."""
        if self.run.ended is None:
            await self.run.done(
                AgentResponse(
                    content=content, finish_reason="stop", usage=self.run.usage, agent=self.caller
                )
            )


SERVED_CAPABILITIES = Capabilities(
    framework="a hook client",
    distribution="agenthooks[server]",
    setup="agenthooks serve",
    fires=frozenset(
        {
            "on_chat_start",
            "on_user_message",
            "pre_tool_call",
            "on_tool_call_result",
            "on_tool_call_error",
            "on_subagent_start",
            "on_subagent_stop",
            "on_stop",
            "on_chat_done",
            "on_chat_error",
            "on_chat_end",
            "on_event",
        }
    ),
    honours={
        "on_chat_start": frozenset({"deny"}),
        "on_user_message": frozenset({"deny"}),
        "pre_tool_call": frozenset({"call", "error", "deny", "ask"}),
        "on_tool_call_result": frozenset({"result", "deny"}),
    },
)
"""What a served session fires and carries out, whatever the client (a client module narrows
it: Claude Code replaces only an MCP tool's result)."""


__all__ = ["SERVED_CAPABILITIES", "ResultVerdict", "ServedRun", "ToolVerdict"]
