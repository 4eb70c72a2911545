"""``AgentHooksRunner``: ``agents.Runner`` with a ``HookBus`` enforced on every run."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from typing import Any, NoReturn

from agents import Agent, RunConfig, Runner, RunResult, RunResultStreaming, RunState
from agents.items import ToolApprovalItem, TResponseInputItem
from agents.models.interface import Model
from agents.models.multi_provider import MultiProvider
from agents.stream_events import StreamEvent

from agenthooks import Deny, HookBus
from agenthooks.bridges import PAUSED_RUNS, BridgeRun, RunDenied
from agenthooks.events import PreAgentContext
from agenthooks.messages import ChatMessage, PendingCall

from .capabilities import CAPABILITIES
from .cloning import Cloner, HookedProvider, hooked, model_name
from .decisions import decisions
from .model import HookedModel
from .scope import ACTIVE, RunScope
from .translate import parse_arguments, replace_user_text, user_text

Input = str | list[TResponseInputItem] | RunState[Any]
"""What a run starts from: a user message, input items, or a paused run's state."""
PAUSE_KEY = "openai-agents"
"""The namespace of this bridge's paused runs in ``PAUSED_RUNS`` (by pending call id)."""
_CLONES_KEPT = 64
"""Agent graphs whose clones a runner keeps."""


@dataclasses.dataclass(slots=True)
class _Prepared:
    agent: Agent[Any]
    kwargs: dict[str, Any]
    owned: HookedProvider | None
    """The provider this runner made for the run (closed after it)."""


class AgentHooksRunner:
    """Runs Agents SDK agents with ``bus``'s hooks, guards, middleware and plugins.

    ``run``, ``run_sync`` and ``run_streamed`` take the arguments of ``agents.Runner``'s and
    return what they return. Each run works on clones of the user's agents (the starting agent
    and every handoff target) whose models, function tools and handoffs report to the run's
    hooks; the user's agents are never changed.

    A hook's ``Deny`` at the start (``on_chat_start``, ``on_user_message``) raises
    ``agenthooks.errors.RunDenied`` (the SDK cannot end a run with an answer before it
    starts); a ``Deny`` inside the run (``pre_request``, ``on_response``, ``post_agent``)
    ends it with the reason as its final output. A ``pre_tool_call`` ``Ask`` pauses the run
    through the SDK's approvals: ``result.interruptions``, then ``state = result.to_state()``,
    ``state.approve(item)`` or ``state.reject(item, rejection_message=reason)``, and
    ``await runner.run(agent, state)``.

    Args:
        bus: The bus whose handlers apply to every run of this runner.
    """

    def __init__(self, bus: HookBus) -> None:
        self.bus = bus
        self._driving: set[asyncio.Task[None]] = set()
        self._cloners: dict[tuple[int, bool], Cloner] = {}
        """The clones of each agent graph run so far, used again while the graph is unchanged
        (cloning costs more than a model turn of the SDK's loop)."""

    def pending(self, item: ToolApprovalItem) -> PendingCall | None:
        """The call an interruption of this runner's run asks about, as the hooks asked it:
        the call id, the tool, its validated arguments and the ``Ask``'s ``reason`` (what a
        UI shows beside the SDK's approval item). ``None`` for an item this runner did not
        pause (a tool's own ``needs_approval``, or a pause made in another process).

        Args:
            item: One of ``result.interruptions`` or ``state.get_interruptions()``.
        """
        call_id = _call_id(item) or ""
        carried = PAUSED_RUNS.get((PAUSE_KEY, call_id))
        if carried is None:
            return None
        return next((call for call in carried.pending if call.call_id == call_id), None)

    def _clone(self, agent: Agent[Any]) -> Agent[Any]:
        key = (id(agent), tools_hooked_bus(self.bus))
        cloner = self._cloners.get(key)
        if cloner is None or not cloner.current():
            if len(self._cloners) >= _CLONES_KEPT:
                self._cloners.pop(next(iter(self._cloners)))
            cloner = self._cloners[key] = Cloner(with_approvals=key[1])
        return cloner.clone(agent)

    # --- preparing a run -----------------------------------------------------------------

    def _prepare(self, agent: Agent[Any], kwargs: dict[str, Any]) -> _Prepared:
        config = kwargs.get("run_config")
        owned: HookedProvider | None = None
        if config is None:
            owned = HookedProvider(MultiProvider())
            config = RunConfig(model_provider=owned)
        else:
            if isinstance(config, dict):
                given = config
                config = RunConfig(**given)
                if "model_provider" not in given:
                    owned = HookedProvider(config.model_provider)
                    config = dataclasses.replace(config, model_provider=owned)
            if owned is None and not isinstance(config.model_provider, HookedProvider):
                config = dataclasses.replace(
                    config, model_provider=HookedProvider(config.model_provider)
                )
            if isinstance(config.model, Model) and not isinstance(config.model, HookedModel):
                config = dataclasses.replace(
                    config, model=HookedModel(config.model, model_name(config.model))
                )
        kwargs = {**kwargs, "run_config": config}
        return _Prepared(self._clone(agent), kwargs, owned)

    def _scope(self, agent: Agent[Any], input: Any, prepared: _Prepared) -> RunScope:
        name = agent.name
        approved: frozenset[str] = frozenset()
        carried = None
        if isinstance(input, RunState):
            pending = input.get_interruptions()
            ids = [_call_id(item) for item in pending]
            approved = frozenset(i for i in ids if i)
            # the paused run's id, counts, usage, plugins' state and asked calls (a pause of
            # this process)
            carried = PAUSED_RUNS.take((PAUSE_KEY, i) for i in approved)
            if pending:
                name = pending[0].agent.name
        run = BridgeRun(self.bus, CAPABILITIES, agent=name)
        if carried is not None:
            run.resume_from(carried)
        provider = prepared.kwargs["run_config"].model_provider
        if isinstance(provider, HookedProvider):
            provider = provider.inner
        scope = RunScope(run, approved=approved, provider=provider)
        if carried is not None:
            scope.asked.update((call.call_id, call) for call in carried.pending)
        return scope

    async def _begin(
        self, scope: RunScope, agent: Agent[Any], input: Any, prepared: _Prepared
    ) -> Any:
        """The start events; the input the SDK runs on (rewritten by ``on_user_message``)."""
        run = scope.run
        if isinstance(input, RunState):
            if "on_run_resumed" in run.bus.listened:
                pending = [_pending(item, scope) for item in input.get_interruptions()]
                await run.resumed(pending, decisions(input, pending))
            # a streamed run got its input before the start events: only run() can adopt
            return input if scope.ready is not None else await _adopt(input, prepared)
        text = user_text(input)
        scope.input = text
        tools = [t.name for t in agent.tools] if "on_chat_start" in run.bus.listened else []
        got = await run.start(text, tools=tools)
        if isinstance(got, Deny):
            raise RunDenied(got.text(), event=run.denied_by or "on_chat_start")
        if got != text:
            scope.input = got
            scope.rewritten = (text, got)
            input = replace_user_text(input, text, got)
        if "on_message" in run.bus.listened:
            await run.message(ChatMessage(role="user", content=got))
        agent_says = await run.fire("pre_agent", PreAgentContext, input=got)
        if isinstance(agent_says, Deny):
            raise RunDenied(agent_says.text(), event="pre_agent")
        if isinstance(agent_says, PreAgentContext) and agent_says.response is not None:
            CAPABILITIES.require("pre_agent", "response")
            scope.preset = agent_says.response
        return input

    async def _finish(self, scope: RunScope, result: RunResult | RunResultStreaming) -> None:
        """The end of a run the SDK completed: paused, denied or done."""
        run = scope.run
        if result.interruptions:
            pending = [_pending(item, scope) for item in result.interruptions]
            try:
                await run.paused(lambda: run.answer(None, "paused", pending=pending))
            finally:  # filed under each call the run waits on: the RunState resumes with them
                PAUSED_RUNS.keep(
                    [(PAUSE_KEY, call.call_id) for call in pending], run.carry(pending)
                )
            return
        if scope.denied is not None:
            await run.done(run.denied_response(scope.denied))
            return
        output = result.final_output
        finish = scope.finish
        if not scope.answered and "post_agent" in run.bus.listened:
            # the answer is a tool's output (tool_use_behavior): its verdict comes now
            answer = run.answer(output if isinstance(output, str) else str(output))
            verdict = await run.post_agent(answer, input=scope.input)
            if isinstance(verdict, Deny):
                result.final_output = verdict.text()
                await run.done(run.denied_response(verdict))
                return
            if verdict is not answer:
                result.final_output = output = verdict.content
        content = output if isinstance(output, str) or output is None else str(output)
        if finish in ("stopped", "terminated") and not content:
            content = None  # ended after a tool-only turn: no text, as on our runtime
        structured = None if isinstance(output, str) else output
        await run.done(lambda: run.answer(content, finish, output=structured))

    # --- the three entry points ----------------------------------------------------------

    async def run(self, starting_agent: Agent[Any], input: Input, **kwargs: Any) -> RunResult:
        """``agents.Runner.run`` with the bus's hooks: the same arguments, the same result.

        Raises:
            RunDenied: ``on_chat_start`` or ``on_user_message`` denied the run.
        """
        prepared = self._prepare(starting_agent, kwargs)
        scope = self._scope(starting_agent, input, prepared)
        try:
            async with scope.run:
                sdk_input = await self._begin(scope, starting_agent, input, prepared)
                token = ACTIVE.set(scope)
                try:
                    result = await Runner.run(prepared.agent, sdk_input, **prepared.kwargs)
                except BaseException as exc:
                    _reraise(scope, exc)
                finally:
                    ACTIVE.reset(token)
                    scope.close()
                await self._finish(scope, result)
        finally:
            if prepared.owned is not None:
                await prepared.owned.aclose()
        return result

    def run_sync(self, starting_agent: Agent[Any], input: Input, **kwargs: Any) -> RunResult:
        """``agents.Runner.run_sync`` with the bus's hooks.

        Raises:
            RuntimeError: Called inside a running event loop (``await runner.run`` there).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.run(starting_agent, input, **kwargs))
        raise RuntimeError(
            "AgentHooksRunner.run_sync() cannot run inside a running event loop; "
            "use await runner.run(...) there"
        )

    def run_streamed(
        self, starting_agent: Agent[Any], input: Input, **kwargs: Any
    ) -> RunResultStreaming:
        """``agents.Runner.run_streamed`` with the bus's hooks: the same arguments, the same
        result. The start events run before the first model call; ``stream_events()`` ends
        once the run's end events ran.

        A denied start surfaces as ``RunDenied`` from ``stream_events()``.
        """
        prepared = self._prepare(starting_agent, kwargs)
        scope = self._scope(starting_agent, input, prepared)
        scope.ready = asyncio.Event()
        token = ACTIVE.set(scope)  # the SDK's run loop task copies it
        try:
            result = Runner.run_streamed(prepared.agent, input, **prepared.kwargs)
        finally:
            ACTIVE.reset(token)
        driver = asyncio.ensure_future(self._drive(scope, starting_agent, input, result, prepared))
        self._driving.add(driver)
        driver.add_done_callback(self._driving.discard)
        events = result.stream_events

        async def stream_events() -> AsyncIterator[StreamEvent]:
            try:
                async for event in events():
                    yield event
            except GeneratorExit:
                raise  # the consumer stopped early: the SDK ends the run, the driver its events
            except BaseException as exc:
                await asyncio.wait({driver})
                _reraise(scope, exc)
            await asyncio.wait({driver})

        # the same result object the SDK returned; its stream ends after our end events
        object.__setattr__(result, "stream_events", stream_events)
        return result

    async def _drive(
        self,
        scope: RunScope,
        agent: Agent[Any],
        input: Any,
        result: RunResultStreaming,
        prepared: _Prepared,
    ) -> None:
        """A streamed run's start and end events, around the SDK's run loop task."""
        ready = scope.ready
        assert ready is not None
        try:
            async with scope.run:
                try:
                    await self._begin(scope, agent, input, prepared)
                except BaseException as exc:
                    scope.refused = exc
                    raise
                finally:
                    ready.set()
                loop = result.run_loop_task
                if loop is not None:
                    await asyncio.wait({loop})
                scope.close()
                if loop is not None and loop.cancelled():
                    raise asyncio.CancelledError()
                failed = result.run_loop_exception
                if failed is not None:
                    raise scope.unwrap(failed)
                await self._finish(scope, result)
        except BaseException:
            pass  # reported by the run's end events; the caller gets it from the stream
        finally:
            if prepared.owned is not None:
                await prepared.owned.aclose()


async def _adopt(state: RunState[Any], prepared: _Prepared) -> RunState[Any]:
    """``state`` with the run's clones as its agents. A state restored from JSON with the
    user's own agents (``RunState.from_json(agent, data)``) is restored again with the
    clones, so the resumed part reports to the hooks too; its context is the JSON's, or the
    ``context=`` the run was given."""
    pending = state.get_interruptions()
    if all(hooked(item.agent) for item in pending):
        return state
    return await RunState.from_json(
        prepared.agent, state.to_json(), context_override=prepared.kwargs.get("context")
    )


def _reraise(scope: RunScope, exc: BaseException) -> NoReturn:
    """Raise what the caller gets for ``exc``: a hook's own exception where the SDK wrapped
    it (its cause kept), else ``exc`` as it is."""
    ours = scope.unwrap(exc)
    if ours is exc:
        raise exc
    raise ours from ours.__cause__


def tools_hooked_bus(bus: HookBus) -> bool:
    """Whether tool calls may be asked about: the hooks ahead of a tool body then run in its
    ``needs_approval``, so an ``Ask`` becomes the SDK's approval request."""
    return bool(bus.stacks.get("tool")) or "pre_tool_call" in bus.listened


def _call_id(item: ToolApprovalItem) -> str | None:
    raw = item.raw_item
    value = raw.get("call_id") if isinstance(raw, dict) else getattr(raw, "call_id", None)
    return value if isinstance(value, str) else None


def _pending(item: ToolApprovalItem, scope: RunScope) -> PendingCall:
    call_id = _call_id(item) or ""
    asked = scope.asked.get(call_id)
    if asked is not None:
        return asked
    raw = item.raw_item
    text = raw.get("arguments") if isinstance(raw, dict) else getattr(raw, "arguments", None)
    arguments, _ = parse_arguments(text if isinstance(text, str) else None)
    return PendingCall(call_id=call_id, tool=item.name or "", arguments=arguments)


__all__ = ["AgentHooksRunner"]
