"""The public surface: ``agenthooks.__all__`` pinned, and the typed faces of ``on`` / ``once``
/ ``@hook`` checked by mypy itself (a Literal event name gives the handler its context)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import mypy.api
import pytest

import agenthooks
from agenthooks.events import CATALOG

PUBLIC = {
    "Agent", "AgentHooksError", "AgentResponse", "AnthropicProvider", "BadReturnError",
    "BudgetExceeded", "CATALOG",
    "CallNext", "ChatMessage", "ConfigError", "Deny", "Disposer", "EventName", "FinalResponse",
    "HookBus", "MaxTurnsExceeded", "Memory", "Middleware", "OpenAIChatProvider", "OutputValidationError", "Provider",
    "ProviderConnectionError", "ProviderError", "ProviderHTTPError", "ProviderRequest",
    "ProviderResponse", "ProviderResponseError", "ProviderTimeout", "RegistrationError",
    "RunAborted", "Scope", "ScriptedProvider", "Session", "Stack", "StopRun", "StreamDelta",
    "StreamEvent", "TextDelta", "Tool", "ToolCall", "ToolCallEnd", "ToolCallStart",
    "ToolContext", "UnknownEventError", "Usage", "hook", "tool",
    "Ask", "Approve", "PendingCall", "ResumeError", "ResumeConflictError", "SessionPausedError",
    "StoreError", "PausedRun",
}  # fmt: skip
CONTEXTS = {
    "ChatAbortContext", "ChatDoneContext", "ChatEndContext", "ChatErrorContext",
    "ChatPausedContext", "RunResumedContext",
    "ChatStartContext", "EventContext", "EventRecord", "HandoffContext", "LoopContext",
    "LoopEndContext", "LoopStartContext", "MemoryContext", "MemoryErrorContext",
    "MemoryReadContext", "MemoryWriteContext", "MessageContext", "ModelErrorContext",
    "OnHandoffContext", "OutputContext", "PostAgentContext", "PreAgentContext", "PreHandoffContext",
    "PreRequestContext", "PreToolCallContext", "PrepareNextTurnContext", "ResponseContext",
    "ScopeContext", "ScopeRegisterContext", "ScopeUnregisterContext", "SessionCloseContext",
    "SessionContext", "SessionEndContext", "SessionStartContext", "ShouldStopContext",
    "StopContext", "StreamChunkContext", "StreamContext", "StreamEndContext",
    "StreamErrorContext", "StreamStartContext", "SubagentContext", "SubagentStartContext",
    "SubagentStopContext", "ToolCallErrorContext", "ToolCallResultContext", "ToolErrorContext",
    "ToolResultContext", "TransformContextContext", "TurnContext", "UserMessageContext",
}  # fmt: skip


def test_all_is_pinned() -> None:
    assert set(agenthooks.__all__) == PUBLIC | CONTEXTS
    assert len(agenthooks.__all__) == len(set(agenthooks.__all__))
    for name in agenthooks.__all__:
        assert getattr(agenthooks, name) is not None


def test_every_event_context_is_importable_from_the_top_level() -> None:
    for spec in CATALOG.values():
        assert getattr(agenthooks, spec.context.__name__) is spec.context


SNIPPET = """
from agenthooks import (
    Agent, HookBus, PreToolCallContext, ToolCallResultContext, Deny, hook, ResponseContext,
)

bus = HookBus()
agent = Agent("a")

bus.on("preToolCall", lambda ctx: Deny(ctx.call.arguments["nope"]))
agent.once("PostToolUse", lambda ctx: {"result": ctx.result, "terminate": ctx.terminate})
bus.on("pre_tool_call", lambda ctx: ctx.terminate)

def wrong(ctx: ToolCallResultContext) -> None: ...

bus.on("pre_tool_call", wrong)

@bus.on("pre_tool_call", match="delete_file")
def no_deletes(ctx: PreToolCallContext) -> Deny | None:
    return Deny("no") if ctx.call.name == "delete_file" else None

reveal_type(no_deletes)
dispose = bus.on("on_tool_call_result", lambda ctx: None)
reveal_type(dispose)

class Audit:
    @hook("on_response")
    def check(self, ctx: ResponseContext) -> None:
        reveal_type(ctx.response)
"""


@pytest.mark.slow
def test_mypy_gives_each_handler_the_context_of_its_event(tmp_path: Path) -> None:
    source = tmp_path / "snippet.py"
    source.write_text(textwrap.dedent(SNIPPET), encoding="utf-8")
    out, err, _status = mypy.api.run(
        ["--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(source)]
    )
    lines = [line.split(": ", 1)[1] for line in out.splitlines()]
    # the lambdas that use their event's fields (aliases included) pass; a field of another
    # event's context, or a handler typed for another event, is an error
    assert lines == [
        'error: "EventContext" has no attribute "terminate"  [attr-defined]',
        'error: Argument 2 to "__call__" of "OnMethod" has incompatible type '
        '"Callable[[ToolCallResultContext], None]"; expected "Callable[[EventContext], Any]"  '
        "[arg-type]",
        'note: Revealed type is "def (ctx: agenthooks.events.contexts.PreToolCallContext) -> '
        'agenthooks.decisions.Deny | None"',
        'note: Revealed type is "agenthooks.disposer.Disposer"',
        'note: Revealed type is "agenthooks.messages.ProviderResponse"',
    ], out + err
