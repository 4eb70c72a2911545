"""The function tools of a cloned agent: the SDK's own tool behind the bus's hook layer.

The SDK runs a tool as ``on_invoke_tool(ctx, arguments_json)`` and, by default, turns its
exception into text for the model (``failure_error_function``) before any caller sees it. The
hooked tool calls a copy of the tool that raises instead, so ``on_tool_call_error`` sees the
exception with its type; an error nobody recovered is then written for the model by the
tool's own formatter, exactly as the SDK would have (or raised, where the tool has none).

``pre_tool_call`` may ask a human (``Ask``): the hooked tool's ``needs_approval`` runs the hook
layer ahead of the body, so an ``Ask`` becomes the SDK's own approval request
(``result.interruptions``), and the run resumes with ``state.approve(item)`` /
``state.reject(item, rejection_message=...)``.
"""

# no ``from __future__ import annotations`` here: the SDK reads the annotations of a tool's
# ``on_invoke_tool`` on every call (to pick its context type), and evaluating string
# annotations compiles them each time

import asyncio
import copy
import inspect
import json
from collections.abc import Awaitable, Callable
from functools import lru_cache
from typing import Any

from agents.function_schema import function_schema
from agents.run_context import RunContextWrapper
from agents.tool import (
    FunctionTool,
    ToolOriginType,
    get_function_tool_origin,
    invoke_function_tool,
    maybe_invoke_function_tool_failure_error_function,
    set_function_tool_failure_error_function,
)
from agents.tool_context import ToolContext
from pydantic import BaseModel, ValidationError

from agenthooks import Deny
from agenthooks.bridges import (
    SUBAGENT_EVENTS,
    BridgeRun,
    BridgeTool,
    ToolOutcome,
    cancel_requested,
    delegate,
    invalid_arguments,
)
from agenthooks.errors import ToolValidationError
from agenthooks.events import GROUPS, ToolCallErrorContext
from agenthooks.messages import ChatMessage, PendingCall, ToolCall

from .capabilities import CAPABILITIES
from .scope import ACTIVE, Approval, RunScope, current
from .translate import parse_arguments

_TOOL_EVENTS = GROUPS["tool_call"]


def tools_hooked(run: BridgeRun) -> bool:
    """Whether a tool call of ``run`` goes through the hook layer."""
    bus = run.bus
    return bool(bus.stacks.get("tool")) or not _TOOL_EVENTS.isdisjoint(bus.listened)


def _subagent(tool: FunctionTool) -> str | None:
    """The name of the agent ``tool`` runs (``agent.as_tool()``), else ``None``."""
    origin = get_function_tool_origin(tool)
    if origin is None or origin.type != ToolOriginType.AGENT_AS_TOOL:
        return None
    return origin.agent_name or tool.name


def _task(arguments: dict[str, Any], text: str) -> str:
    """What a sub-agent is asked: the ``input`` argument ``as_tool`` gives the model, else the
    arguments as sent."""
    given = arguments.get("input")
    return given if isinstance(given, str) else text


@lru_cache(maxsize=512)
def _arguments_model(fn: Callable[..., Any], strict: bool) -> type[BaseModel]:
    # ``function_tool`` built the tool with ``function_schema(fn, strict_json_schema=strict)``:
    # the same call gives the model it validates with (docstrings only describe, so they are
    # not read), and an error in it is the SDK's, so it reaches the caller
    schema = function_schema(fn, use_docstring_info=False, strict_json_schema=strict)
    return schema.params_pydantic_model


def _validator(tool: FunctionTool) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """The tool's own argument model (the one ``function_tool`` validates with), as a
    ``BridgeTool`` validator; ``None`` for a tool built without ``function_tool``."""
    try:
        fn = tool.__wrapped__
    except AttributeError:
        return None
    strict = tool.strict_json_schema
    try:
        model = _arguments_model(fn, strict)
    except TypeError:  # an unhashable callable (lru_cache's key): read it uncached
        model = _arguments_model.__wrapped__(fn, strict)

    def validate(arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            parsed = model(**arguments)
        except ValidationError as exc:
            raise invalid_arguments(tool.name, exc) from exc
        return {name: getattr(parsed, name) for name in type(parsed).model_fields}

    return validate


def _arguments_text(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)


async def _policy(setting: Any, ctx: RunContextWrapper[Any], params: Any, call_id: str) -> bool:
    """The tool's own ``needs_approval`` (a bool, or a callable, maybe async)."""
    if isinstance(setting, bool):
        return setting
    got = setting(ctx, params, call_id)
    if inspect.isawaitable(got):
        got = await got
    return bool(got)


class HandlerCancelled(Exception):
    """A handler raised ``CancelledError`` inside an SDK tool call: carried through the SDK
    as an exception and raised to the caller as the cancellation (``on_chat_abort``)."""


class HookedTool:
    """What a cloned agent's ``FunctionTool`` runs: its ``on_invoke_tool`` and, where hooks
    may ask a human, its ``needs_approval``."""

    def __init__(self, tool: FunctionTool) -> None:
        self.original = tool
        self.policy = tool.needs_approval
        self._raising: FunctionTool | None = None
        self._described: BridgeTool | None = None
        self.subagent = _subagent(tool)
        """The agent the tool runs (an ``as_tool()`` agent): its call is a delegation."""
        try:  # made by function_tool: its invoker takes the tool context the SDK gives ours
            tool.__wrapped__  # noqa: B018
            self._direct = True
        except AttributeError:
            self._direct = False

    async def _run(self, tool: FunctionTool, ctx: ToolContext[Any], arguments: str) -> Any:
        if self._direct:
            return await tool.on_invoke_tool(ctx, arguments)
        # another invoker: the SDK's own call, which picks the context type it declares
        return await invoke_function_tool(function_tool=tool, context=ctx, arguments=arguments)

    @property
    def raising(self) -> FunctionTool:
        """A copy of the tool that raises its errors instead of writing them for the model
        (so ``on_tool_call_error`` sees them), made when first needed."""
        if self._raising is None:
            raising = copy.copy(self.original)
            raising.timeout_seconds = None  # the SDK times the hooked tool itself
            set_function_tool_failure_error_function(raising, None)
            self._raising = raising
        return self._raising

    @property
    def described(self) -> BridgeTool:
        """The tool as hooks see it (``ctx.tool``), made when first asked for."""
        if self._described is None:
            tool = self.original
            self._described = BridgeTool(
                tool.name,
                tool.description,
                tool.params_json_schema,
                validate=_validator(tool),
                original=tool,
            )
        return self._described

    def build(self, with_approvals: bool) -> FunctionTool:
        """The cloned agent's copy of the tool."""
        hooked = copy.copy(self.original)
        hooked.on_invoke_tool = self.invoke
        if with_approvals:
            hooked.needs_approval = self.needs_approval
        return hooked

    # --- the call as hooks see it ----------------------------------------------------------

    def _call(
        self, call_id: str, arguments: dict[str, Any], raw: str | None = None
    ) -> tuple[ToolCall, ToolValidationError | None]:
        """The call as hooks get it: its arguments validated with the tool's own schema, or
        the error that says why they are not valid."""
        name = self.original.name
        if raw is not None:
            return ToolCall(id=call_id, name=name, raw_arguments=raw), ToolValidationError(
                f"the arguments of tool {name!r} are not a JSON object"
            )
        try:
            validated = self.described.validate(arguments)
        except ToolValidationError as exc:
            return ToolCall(id=call_id, name=name, arguments=arguments), exc
        return ToolCall(id=call_id, name=name, arguments=validated), None

    # --- needs_approval: the hooks ahead of the body -----------------------------------------

    async def needs_approval(
        self, ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        """Run the hook layer up to the tool body; an ``Ask`` is the SDK's approval request."""
        if await _policy(self.policy, ctx, params, call_id):
            return True  # the tool's own approval: the SDK asks, the hooks run once approved
        scope = current()
        if scope is None or not tools_hooked(scope.run):
            return False
        call, invalid = self._call(call_id, params)
        if invalid is not None:
            return False  # the body's turn reports it, as the SDK would run it
        loop = asyncio.get_running_loop()
        body: asyncio.Future[Any] = loop.create_future()
        decided: asyncio.Future[None] = loop.create_future()

        def decide(_: object = None) -> None:
            if not decided.done():
                decided.set_result(None)

        async def deferred(arguments: dict[str, Any]) -> Any:
            decide()  # the hooks let the call through: the SDK runs its body next
            run_body = await body
            return await run_body(arguments)

        task = asyncio.ensure_future(scope.run.tool_call(call, self.described, deferred))
        task.add_done_callback(decide)  # or they decided without it (deny, ask, result)
        try:
            await decided
        except BaseException:
            task.cancel()
            raise
        if task.done():
            error = task.exception()
            if error is not None:
                raise scope.raised(error)
            outcome = task.result()
            if outcome.asked is not None:
                scope.asked[call_id] = PendingCall(
                    call_id=call_id,
                    tool=self.original.name,
                    arguments=call.arguments,
                    reason=outcome.asked,
                )
                return True
        scope.approvals[call_id] = Approval(call, task, body)
        return False

    # --- on_invoke_tool ----------------------------------------------------------------------

    async def invoke(self, ctx: ToolContext[Any], input: str) -> Any:
        """The SDK runs the tool: through the hook layer when anyone listens."""
        scope = current()
        if scope is None or not self._reported(scope.run):
            # nobody listens: the tool as the SDK runs it (the SDK applies its timeout to
            # the hooked tool)
            if self.subagent is not None:
                return await self._delegated(self.original, ctx, input)
            return await self._run(self.original, ctx, input)
        # from here the tool message is ours to report (on_message), also when only
        # on_message listens: the hook layer's zero-listener path runs the body then
        run = scope.run
        call_id = ctx.tool_call_id
        pending = scope.approvals.pop(call_id, None)

        def body_for(call: ToolCall) -> Callable[[dict[str, Any]], Awaitable[Any]]:
            async def body(arguments: dict[str, Any]) -> Any:
                # the arguments as sent when no hook changed them: the SDK validates them
                # exactly as without the bridge
                text = input if arguments is call.arguments else _arguments_text(arguments)
                if self.subagent is None:
                    return await self._run(self.raising, ctx, text)
                return await delegate(
                    run,
                    self.subagent,
                    _task(arguments, text),
                    call_id,
                    lambda: self._delegated(self.raising, ctx, text),
                )

            return body

        try:
            if pending is not None:
                if not pending.task.done():
                    pending.body.set_result(body_for(pending.call))
                outcome = await pending.task
            else:
                call, invalid = self._call(call_id, *parse_arguments(input))
                if invalid is not None:
                    outcome = await self._invalid(run, call, invalid)
                else:
                    outcome = await run.tool_call(
                        call,
                        self.described,
                        body_for(call),
                        approved=call_id in scope.approved,
                    )
            if outcome.terminate:
                event = "on_tool_call_error" if outcome.is_error else "on_tool_call_result"
                CAPABILITIES.require(event, "terminate")
                scope.terminating.add(call_id)  # the next turn ends the run, if all agree
        except Exception as exc:
            # what the hook layer raises is ours (a hook's error, a return the SDK cannot
            # carry out): the tool's own errors come back in the outcome
            scope.raised(exc)
            raise
        except asyncio.CancelledError as exc:
            if cancel_requested():  # the caller's cancellation: it goes on as it is
                raise
            # a handler raised it: the SDK would make it a tool error the model reads and go
            # on; it crosses the SDK as an exception and the run ends cancelled
            scope.raised(exc)
            raise HandlerCancelled("a handler raised CancelledError") from exc
        return await self._answer(scope, ctx, outcome)

    async def _delegated(self, tool: FunctionTool, ctx: ToolContext[Any], text: str) -> Any:
        """The agent tool's body: the sub-agent's run is a run of its own, not part of the
        calling run (a model it names, which the run's hooked provider resolves, reports no
        turn of the caller's)."""
        token = ACTIVE.set(None)
        try:
            return await self._run(tool, ctx, text)
        finally:
            ACTIVE.reset(token)

    def _reported(self, run: BridgeRun) -> bool:
        """Whether a call of this tool is ours to report: anyone hears its hook layer, its
        tool message or (an ``as_tool()`` agent) its delegation."""
        listened = run.bus.listened
        return (
            tools_hooked(run)
            or "on_message" in listened
            or (self.subagent is not None and not SUBAGENT_EVENTS.isdisjoint(listened))
        )

    async def _invalid(
        self, run: BridgeRun, call: ToolCall, error: ToolValidationError
    ) -> ToolOutcome:
        """Arguments that do not validate: ``on_tool_call_error`` (``source="validation"``),
        which may recover with a result."""
        got = await run.fire(
            "on_tool_call_error",
            ToolCallErrorContext,
            call=call,
            tool=self.described,
            tool_call_id=call.id,
            error=error,
            source="validation",
        )
        if isinstance(got, ToolCallErrorContext) and got.result is not None:
            CAPABILITIES.require("on_tool_call_error", "result")
            return ToolOutcome(call, result=got.result, short_circuit=True)
        if isinstance(got, ToolCallErrorContext) and got.error is not None:
            return ToolOutcome(call, error=got.error, source="validation")
        return ToolOutcome(call, error=error, source="validation")

    async def _answer(self, scope: RunScope, ctx: ToolContext[Any], outcome: ToolOutcome) -> Any:
        """What the SDK gets for the call: the result, or the text the model reads."""
        run = scope.run
        is_error = False
        if outcome.asked is not None:
            # only the hooks ahead of the body can pause the SDK's run; an Ask that comes
            # later cannot, and the model reads it as a refusal (as in a sub-agent's run)
            answer: Any = Deny(outcome.asked).text(self.original.name)
            is_error = True
        elif outcome.denied:
            answer = outcome.error_text()
            is_error = True
        elif outcome.error is not None:
            is_error = True
            error = outcome.error
            if isinstance(error, BaseException):
                written = await maybe_invoke_function_tool_failure_error_function(
                    function_tool=self.original, context=ctx, error=error
                )
                if written is None:  # the tool has no formatter: the SDK fails the run
                    raise error
                answer = written
            else:
                answer = error
        else:
            answer = outcome.result
        if "on_message" in run.bus.listened:
            text = answer if isinstance(answer, str) else (outcome.text or str(answer))
            message = ChatMessage(
                role="tool", content=text, tool_call_id=outcome.call.id, is_error=is_error
            )
            try:
                await run.message(message)
            except Exception as exc:
                scope.raised(exc)  # a hook's error: the caller gets it, never the model
                raise
        return answer


__all__ = ["HookedTool", "tools_hooked"]
