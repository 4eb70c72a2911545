"""The bridge conformance kit: the same scripted conversations through a bridge and through
our runtime, and what every handler saw and what the caller got compared.

A bridge's tests run it by subclassing ``BridgeKit`` with the bridge's adapter::

    class TestStrandsKit(BridgeKit):
        adapter = StrandsAdapter()

Each case runs the reference (our runtime on the same script) and the bridge. Where the
bridge's declaration says a framework cannot do something, the case checks that the bridge
says so with a typed error instead of doing less in silence.
"""

from __future__ import annotations

import asyncio
import difflib
import time
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pydantic import BaseModel

from ..bridges.capabilities import installed_bridges
from ..bridges.needs import UnfiredEventError, UnfiredEventWarning
from ..bus import HookBus
from ..decisions import Ask, Deny
from ..errors import AgentHooksError, StopRun, UnsupportedReturnError
from ..events.catalog import CATALOG, GROUPS
from ..messages import AgentResponse, ChatMessage, ProviderResponse
from ..plugins.loader import entry_points
from ..plugins.needs import MissingEventError, Need
from .adapter import BridgeAdapter, Outcome
from .record import TERMINAL, EventLog
from .runtime import RuntimeAdapter
from .script import (
    CONTACT_JSON,
    CONVERSATION,
    MESSAGE,
    Call,
    Step,
    Tools,
    calls,
    say,
    usage_of,
)

SETTLE = 0.05
"""Seconds the kit waits after a run for anything that would still fire."""


class KitFault(Exception):
    """What a faulty handler raises in the kit's fault cases."""


class Contact(BaseModel):
    """The structured answer of the redaction cases."""

    name: str
    email: str


class Result:
    """One run as the kit saw it: its log, its outcome or error, the tool bodies that ran,
    and how long the caller waited."""

    def __init__(self, log: EventLog, tools: Tools) -> None:
        self.log = log
        self.tools = tools
        self.outcome: Outcome | None = None
        self.error: BaseException | None = None
        self.elapsed = 0.0

    @property
    def kind(self) -> str:
        """How the run ended for the caller: ``ok``, ``cancelled``, or the first error of
        ours (or the faulty handler's) in what was raised."""
        return classify(self.error)

    @property
    def ran(self) -> list[str]:
        """The tool bodies that ran, by name."""
        return [name for name, _ in self.tools.ran]


def classify(error: BaseException | None) -> str:
    """``ok``, ``cancelled``, or the name of the first error of the project (or a
    ``KitFault``) in ``error``'s chain (a framework may wrap it), else ``error``'s own."""
    if error is None:
        return "ok"
    if caused(error, asyncio.CancelledError) is not None:
        return "cancelled"  # a framework may raise its own exception chained from it
    found = caused(error, (AgentHooksError, KitFault))
    return type(found or error).__name__


def caused(error: BaseException | None, kinds: Any) -> Any:
    """The first exception of ``kinds`` in ``error``'s chain (``__cause__``, then
    ``__context__``), or ``None``."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, kinds):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


Setup = Callable[[HookBus], Any]


class BridgeKit:
    """The conformance cases; subclass it (``class TestXKit(BridgeKit)``) with ``adapter``."""

    adapter: BridgeAdapter

    @property
    def reference(self) -> RuntimeAdapter:
        """Our runtime, on the same scripts."""
        return RuntimeAdapter(self.adapter.capabilities)

    @property
    def fires(self) -> frozenset[str]:
        """The events the bridge fires."""
        return self.adapter.capabilities.fires - {"on_event"}

    @property
    def compared(self) -> frozenset[str]:
        """The events the straight conversation compares: those the bridge fires, but the
        stream events (a framework may stream every call; ``chat()`` does not)."""
        return self.fires - GROUPS["stream"]

    async def drive(
        self,
        adapter: BridgeAdapter,
        setup: Setup | None = None,
        script: Sequence[Step] = CONVERSATION,
        *,
        output_type: type[Any] | None = None,
        timeout: float | None = None,
        settle: float = SETTLE,
        then: Callable[[BridgeAdapter, HookBus, Outcome], Awaitable[Outcome]] | None = None,
    ) -> Result:
        """One run of ``script`` on ``adapter`` with ``setup(bus)`` applied, in a task of
        its own (a handler may cancel it: ``bus.kit_task``)."""
        bus = HookBus()
        log = EventLog(bus)
        tools = Tools()
        result = Result(log, tools)
        if setup is not None:
            setup(bus)

        async def body() -> Outcome:
            outcome = await adapter.run(
                bus, script, tools.functions(), MESSAGE, output_type=output_type
            )
            if then is not None:
                outcome = await then(adapter, bus, outcome)
            return outcome

        async def once() -> Outcome:
            run = body()
            return await (run if timeout is None else asyncio.wait_for(run, timeout))

        started = time.perf_counter()
        task = asyncio.ensure_future(once())
        bus.kit_task = task  # type: ignore[attr-defined]
        await asyncio.wait({task})
        result.elapsed = time.perf_counter() - started
        if task.cancelled():
            result.error = asyncio.CancelledError()
        elif task.exception() is not None:
            result.error = task.exception()
        else:
            result.outcome = task.result()
        await asyncio.sleep(settle)
        return result

    async def both(self, setup: Setup | None = None, **options: Any) -> tuple[Result, Result]:
        """The reference's run and the bridge's, with the same setup."""
        reference = await self.drive(self.reference, setup, **options)
        bridged = await self.drive(self.adapter, setup, **options)
        return reference, bridged

    def conversation_events(self, result: Result) -> list[str]:
        """The distinct events a run fired, in order, but ``on_chat_end``."""
        seen: list[str] = []
        for name, _ in result.log.events:
            if name not in seen and name != "on_chat_end":
                seen.append(name)
        return seen

    # --- the straight path ---------------------------------------------------------------

    async def test_the_conversation_fires_what_our_runtime_fires(self) -> None:
        """The same events in the same order with the same values; the same answer."""
        reference, bridged = await self.both()
        assert bridged.error is None, f"the run failed: {bridged.error!r}"
        among = self.compared
        got, want = bridged.log.names(among), reference.log.names(among)
        assert got == want, "\n".join(difflib.ndiff(want, got))
        for name in sorted(among):
            assert bridged.log.of(name) == reference.log.of(name), name
        assert bridged.outcome is not None and reference.outcome is not None
        assert bridged.outcome.text == reference.outcome.text
        assert bridged.tools.ran == reference.tools.ran
        assert bridged.log.ending() == "on_chat_done"

    async def test_usage_is_the_whole_runs(self) -> None:
        """``on_chat_done`` reports every token of the run."""
        reference, bridged = await self.both()
        total = usage_of(CONVERSATION)
        assert reference.log.of("on_chat_done")[0][2] == total
        assert bridged.log.of("on_chat_done")[0][2] == total

    # --- the end, whatever happens ---------------------------------------------------------

    async def test_an_on_loop_end_handler_that_raises_still_ends_the_run_once(self) -> None:
        """A raising ``on_loop_end`` (the last turn's included): one terminal event, then
        ``on_chat_end``, and the caller gets the error."""

        def setup(bus: HookBus) -> None:
            def broken(ctx: Any) -> None:
                if ctx.iteration == 2:
                    raise KitFault("on_loop_end")

            bus.on("on_loop_end", broken)

        reference, bridged = await self.both(setup)
        assert reference.kind == "KitFault"
        assert bridged.kind == "KitFault", bridged.error
        assert bridged.log.ending() == reference.log.ending() == "on_chat_error"

    async def test_a_fault_at_every_event_ends_the_run_as_on_our_runtime(self) -> None:
        """A handler raising at each event: the caller gets its error where our runtime's
        caller does; one terminal event, ``on_chat_end`` last, nothing after it."""
        await self._each_event(_raise, "KitFault")

    async def test_a_cancelled_error_from_a_handler_is_never_a_tool_error(self) -> None:
        """A handler raising ``CancelledError`` at each event cancels the run (never a
        tool error the model reads)."""
        await self._each_event(_cancelled, "cancelled")

    async def test_a_cancellation_after_every_event_aborts_the_run(self) -> None:
        """The caller's task cancelled as each event fires: ``on_chat_abort``, then
        ``on_chat_end``, and nothing after it."""
        await self._each_event(_cancel_caller, "cancelled", compare=False)

    async def test_a_bad_return_at_every_interceptor_is_a_typed_error(self) -> None:
        """A return no handler of the event may give: the typed error of our runtime."""
        await self._each_event(_bad_return, None, interceptors_only=True)

    async def _each_event(
        self,
        fault: Callable[[str], Setup],
        kind: str | None,
        interceptors_only: bool = False,
        compare: bool = True,
    ) -> None:
        """``fault(event)`` at each event the conversation fires on the bridge, compared with
        our runtime where it fires the event too; else the caller must get ``kind``."""
        straight = await self.drive(self.adapter)
        wrong: list[str] = []
        for event in self.conversation_events(straight):
            if interceptors_only and CATALOG[event].kind == "observer":
                continue
            reference, bridged = await self.both(fault(event))
            try:
                terminal = bridged.log.ending()
            except AssertionError as exc:
                wrong.append(f"{event}: {exc}")
                continue
            if not compare or event not in reference.log.names():
                # our chat() never fires it (a stream event), or runs through a cancellation
                # no await of it ever suspends on: the fault's own outcome
                # after post_agent the run has its answer: done or aborted are both one end
                late = event in TERMINAL or event == "post_agent"
                if not late and terminal != "on_chat_abort" and kind == "cancelled":
                    wrong.append(f"{event}: ended with {terminal}, not on_chat_abort")
                if kind is not None and bridged.kind != kind:
                    wrong.append(f"{event}: the caller got {bridged.kind}, not {kind}")
                continue
            if reference.log.events:
                expected = reference.log.ending()
                if terminal != expected:
                    wrong.append(f"{event}: ended with {terminal}, our runtime with {expected}")
            if bridged.kind != reference.kind:
                wrong.append(
                    f"{event}: the caller got {bridged.kind} ({bridged.error!r}), "
                    f"on our runtime {reference.kind}"
                )
            if bridged.ran != reference.ran:
                wrong.append(
                    f"{event}: tool bodies ran {bridged.ran}, on our runtime {reference.ran}"
                )
        assert not wrong, "\n".join(wrong)

    # --- timeouts --------------------------------------------------------------------------

    async def _times_out(self, setup: Setup | None, script: Sequence[Step]) -> Result:
        got = await self.drive(self.adapter, setup, script, timeout=0.2, settle=1.2)
        assert isinstance(got.error, (asyncio.TimeoutError, TimeoutError)), got.error
        assert got.elapsed < 0.8, f"the caller waited {got.elapsed:.2f}s for a 0.2s timeout"
        assert got.log.ending() == "on_chat_abort"
        return got

    async def test_a_timeout_around_a_slow_handler_reaches_the_caller_on_time(self) -> None:
        """A 1 s handler under a 0.2 s timeout: the caller gets it at 0.2 s, and the tool the
        handler gates never runs."""

        def setup(bus: HookBus) -> None:
            async def slow(ctx: Any) -> None:
                await asyncio.sleep(1.0)

            bus.on("pre_tool_call", slow)

        got = await self._times_out(setup, CONVERSATION)
        assert got.ran == []

    async def test_a_timeout_around_a_slow_model_reaches_the_caller_on_time(self) -> None:
        """A model that takes 1 s under a 0.2 s timeout."""
        await self._times_out(None, (say("late", delay=1.0),))

    async def test_a_timeout_around_a_slow_tool_reaches_the_caller_on_time(self) -> None:
        """A tool that takes 1 s under a 0.2 s timeout."""
        await self._times_out(
            None, (calls(Call("call_1", "wait", {"seconds": 1.0})), say("waited"))
        )

    # --- returns ---------------------------------------------------------------------------

    async def test_should_stop_ends_the_run_as_on_our_runtime(self) -> None:
        """``should_stop`` returning True after a tool-only turn: ``stopped``, or a typed
        error where the bridge does not fire it."""

        def setup(bus: HookBus) -> None:
            bus.on("should_stop", lambda ctx: True)

        reference, bridged = await self.both(setup)
        if "should_stop" not in self.fires:
            assert caused(bridged.error, UnfiredEventError) is not None, bridged.error
            return
        assert bridged.error is None, bridged.error
        assert reference.outcome is not None and bridged.outcome is not None
        assert bridged.log.of("on_chat_done") == reference.log.of("on_chat_done")
        assert bridged.ran == reference.ran == ["lookup"]

    async def test_an_interceptor_of_an_event_never_fired_is_refused(self) -> None:
        """A user's interceptor or predicate on an event the bridge never fires is a typed
        error when a run starts; an observer of one gets one warning."""
        unfired = [
            e
            for e in CATALOG
            if e not in self.fires and e != "on_event" and CATALOG[e].kind != "observer"
        ]
        for event in unfired:

            def setup(bus: HookBus, event: str = event) -> None:
                bus.on(event, lambda ctx: None)

            got = await self.drive(self.adapter, setup)
            error = caused(got.error, UnfiredEventError)
            assert error is not None, f"{event}: {got.error!r}"
            assert error.event == event
            assert error.framework == self.adapter.capabilities.framework
        observers = [e for e in CATALOG if e not in self.fires and CATALOG[e].kind == "observer"]
        for event in observers:
            if event == "on_event":
                continue

            def observe(bus: HookBus, event: str = event) -> None:
                def watcher(ctx: Any) -> None:
                    return None

                watcher.__qualname__ = f"kit_watcher_{event}"
                bus.on(event, watcher)

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = await self.drive(self.adapter, observe)
            assert got.error is None, got.error
            said = [w for w in caught if issubclass(w.category, UnfiredEventWarning)]
            assert len(said) == 1 and event in str(said[0].message), (event, said)

    async def test_a_plugin_that_needs_an_event_never_fired_is_refused_at_set_up(self) -> None:
        """A plugin's declared need: refused, naming the plugin, the option, the framework
        and the event, where the bridge never fires the event; accepted where it does."""
        for event in ("prepare_next_turn", "pre_tool_call", "on_handoff"):

            def setup(bus: HookBus, event: str = event) -> None:
                bus.use(_Needy(event))

            got = await self.drive(self.adapter, setup)
            error = caused(got.error, MissingEventError)
            if event in self.fires:
                assert error is None and got.error is None, got.error
                continue
            assert error is not None, f"{event}: {got.error!r}"
            assert (error.plugin, error.option, error.event) == ("needy", "cap", event)
            assert error.framework == self.adapter.capabilities.framework
            assert got.ran == []

    # --- the declaration --------------------------------------------------------------------

    async def _provoked(self) -> set[str]:
        """The events the bridge fires across the conversation and the failing scripts."""
        heard: set[str] = set()
        for script in (CONVERSATION, *SCRIPTS.values()):
            heard |= set(self.conversation_events(await self.drive(self.adapter, None, script)))
        return heard

    def test_the_declaration_is_the_installed_entry_point(self) -> None:
        """The bridge's ``Capabilities`` is registered under ``agenthooks.bridges``."""
        assert self.adapter.capabilities in installed_bridges().values()

    async def test_every_declared_event_fires(self) -> None:
        """Across the kit's scripts (the conversation, a failing tool, a failing model, a
        stop, a cancellation, a pause and its resume, a stream), the bridge fires every event
        it declares, but those it says only other situations lead to."""
        heard: set[str] = set()
        failing = (calls(Call("call_1", "read_file", {"path": "/nowhere"})), say("sorry"))
        runs: list[tuple[Setup | None, Sequence[Step]]] = [
            (None, CONVERSATION),
            (None, failing),
            (None, (Step(error="the model is down"),)),
            (_raise_stop, CONVERSATION),
            (_cancel_caller("pre_tool_call"), CONVERSATION),
        ]
        for setup, script in runs:
            heard |= {
                name for name, _ in (await self.drive(self.adapter, setup, script)).log.events
            }
        if self.adapter.resumes:

            async def approve(adapter: BridgeAdapter, bus: HookBus, paused: Outcome) -> Outcome:
                return await adapter.resume(bus, paused, {"call_2": True})

            paused = await self.drive(self.adapter, _ask_mail, then=approve)
            heard |= {name for name, _ in paused.log.events}
        if self.adapter.streams:
            failing_stream = (Step(text="half an", error="the model is down"),)
            for script in (CONVERSATION, failing_stream):
                bus = HookBus()
                log = EventLog(bus)
                try:
                    await self.adapter.stream(bus, script, Tools().functions(), MESSAGE)
                except Exception:
                    pass
                heard |= {name for name, _ in log.events}
        missing = self.fires - self.adapter.unscripted - heard
        assert not missing, f"declared but never fired: {sorted(missing)}"

    async def test_every_declared_return_is_carried_out_as_on_our_runtime(self) -> None:
        """Each return the bridge honours, given once at the conversation's first firing of
        its event: the run goes on as it does on our runtime (the same events, tool bodies,
        answer and end)."""
        caps = self.adapter.capabilities
        straight = await self._provoked()
        wrong: list[str] = []
        for event, key in sorted(RETURNS):
            if event not in straight or not caps.honoured(event, key):
                continue
            if (event, key) == ("prepare_next_turn", "provider"):
                continue  # our runtime would call the stand-in provider
            script = SCRIPTS.get(event, CONVERSATION)
            reference, bridged = await self.both(_once(event, key), script=script)
            if event == "pre_tool_call" and key == "ask":
                same = bridged.outcome is not None and bridged.outcome.paused == ["call_1"]
                if not same or bridged.log.ending() != "on_chat_paused":
                    wrong.append(f"{event}.{key}: did not pause ({bridged.error!r})")
                continue
            if f"{event}.{key}" in caps.gaps and caused(bridged.error, AgentHooksError):
                continue  # a declared gap: the framework's typed error, said in the table
            problems = _differences(reference, bridged)
            wrong += [f"{event}.{key}: {p}" for p in problems]
        assert not wrong, "\n".join(wrong)

    async def test_every_return_the_bridge_cannot_carry_out_is_a_typed_error(self) -> None:
        """Each return of a fired event the declaration does not honour: an
        ``UnsupportedReturnError`` naming the event and the framework, never ignored."""
        caps = self.adapter.capabilities
        straight = await self._provoked()
        wrong: list[str] = []
        for event, key in caps.unhonoured():
            if (event, key) not in RETURNS or event not in straight:
                continue
            script = SCRIPTS.get(event, CONVERSATION)
            got = await self.drive(self.adapter, _once(event, key), script)
            error = caused(got.error, UnsupportedReturnError)
            if error is None:
                wrong.append(f"{event}.{key}: {got.kind} ({got.error!r})")
                continue
            if caps.framework not in str(error) or event not in str(error):
                wrong.append(f"{event}.{key}: the error does not name both: {error}")
        assert not wrong, "\n".join(wrong)

    # --- the plugins -----------------------------------------------------------------------

    async def test_a_guard_deny_is_the_same_as_on_our_runtime(self) -> None:
        """A denied call never runs; the run goes on as on our runtime."""
        policy = '[[rules]]\ntool = "send_email"\naction = "deny"\nreason = "No mail."\n'

        def setup(bus: HookBus) -> None:
            bus.use(_plugin("guard").from_toml(policy))

        reference, bridged = await self.both(setup)
        assert bridged.error is None, bridged.error
        assert bridged.ran == reference.ran == ["lookup"]
        assert bridged.log.of("on_tool_call_error") == reference.log.of("on_tool_call_error")
        assert reference.outcome is not None and bridged.outcome is not None
        assert bridged.outcome.text == reference.outcome.text

    async def test_redaction_reaches_the_text_answer_and_what_on_chat_done_reports(self) -> None:
        """The caller gets the answer redacted, and ``on_chat_done`` reports what it got."""

        def setup(bus: HookBus) -> None:
            bus.use(_plugin("guard").from_toml('[redact]\npatterns = ["email"]\n'))

        reference, bridged = await self.both(setup)
        assert reference.outcome is not None and bridged.outcome is not None, bridged.error
        assert bridged.outcome.text == reference.outcome.text
        assert "bob@example.com" not in (bridged.outcome.text or "")
        assert bridged.log.of("on_chat_done")[0][0] == bridged.outcome.text

    async def test_redaction_reaches_a_structured_answer_or_the_run_is_refused(self) -> None:
        """A structured output passes the redaction; where the bridge cannot rewrite it, the
        run is refused with a typed error, never handed back unredacted."""
        if not self.adapter.structured:
            return

        def setup(bus: HookBus) -> None:
            bus.use(_plugin("guard").from_toml('[redact]\npatterns = ["email"]\n'))

        got = await self.drive(self.adapter, setup, (say(CONTACT_JSON),), output_type=Contact)
        if got.error is not None:
            assert caused(got.error, AgentHooksError) is not None, got.error
            return
        assert got.outcome is not None
        assert "bob@example.com" not in repr(got.outcome.output)
        assert "bob@example.com" not in " ".join(got.outcome.history)

    async def test_redaction_reaches_a_stream_or_the_stream_is_refused(self) -> None:
        """Streamed, the caller never reads what the policy redacts: not in the deltas, the
        answer or the stored history; or the stream is refused with a typed error."""
        if not self.adapter.streams:
            return

        bus = HookBus()
        bus.use(_plugin("guard").from_toml('[redact]\npatterns = ["email"]\n'))
        tools = Tools()
        try:
            deltas, outcome = await self.adapter.stream(
                bus, CONVERSATION, tools.functions(), MESSAGE
            )
        except AgentHooksError:
            return
        assert "bob@example.com" not in "".join(deltas)
        assert "bob@example.com" not in (outcome.text or "")
        assert not any("bob@example.com" in h for h in outcome.history if "Done" in h)

    async def test_a_turn_cap_acts_as_on_our_runtime_or_is_refused(self) -> None:
        """``Limits(max_turns=2)``: the run stops where ours stops, or (a bridge that never
        fires ``prepare_next_turn``) the plugin is refused at set-up."""

        def setup(bus: HookBus) -> None:
            bus.use(_plugin("limits")(max_turns=2))

        reference, bridged = await self.both(setup)
        if "prepare_next_turn" not in self.fires:
            error = caused(bridged.error, MissingEventError)
            assert error is not None, bridged.error
            assert (error.option, error.event) == ("max_turns", "prepare_next_turn")
            return
        assert bridged.kind == reference.kind
        assert bridged.ran == reference.ran
        assert bridged.log.ending() == reference.log.ending()
        assert bridged.log.of("on_chat_done") == reference.log.of("on_chat_done")

    # --- a pause -----------------------------------------------------------------------------

    async def _paused_and_resumed(self, setup: Setup) -> tuple[Result, Result]:
        async def approve(adapter: BridgeAdapter, bus: HookBus, paused: Outcome) -> Outcome:
            assert paused.paused == ["call_2"], paused
            return await adapter.resume(bus, paused, {"call_2": True})

        reference = await self.drive(self.reference, setup, then=approve)
        bridged = await self.drive(self.adapter, setup, then=approve)
        return reference, bridged

    async def test_an_ask_pauses_and_a_resume_goes_on_as_on_our_runtime(self) -> None:
        """An ``Ask`` pauses the run at ``send_email``; approved, it runs once; the resumed run
        hears the decision and reports the whole run's usage."""
        if not self.adapter.resumes:
            return

        def setup(bus: HookBus) -> None:
            def ask(ctx: Any) -> Ask | None:
                return Ask("a human decides") if ctx.call.name == "send_email" else None

            bus.on("pre_tool_call", ask)

        reference, bridged = await self._paused_and_resumed(setup)
        assert bridged.error is None, bridged.error
        assert bridged.ran == reference.ran == ["lookup", "send_email"]
        assert reference.outcome is not None and bridged.outcome is not None
        assert bridged.outcome.text == reference.outcome.text
        assert [n for n, _ in bridged.log.events if n in TERMINAL] == [
            "on_chat_paused",
            "on_chat_done",
        ]
        if "on_run_resumed" in self.fires:
            assert bridged.log.of("on_run_resumed") == [(["call_2"], ["Approve"])]
        assert bridged.log.of("on_chat_done")[0][2] == usage_of(CONVERSATION)

    async def test_a_tool_call_cap_holds_across_a_pause(self) -> None:
        """``Limits(max_tool_calls=1)``: the call approved after the pause is the run's
        second, and is denied."""
        if not self.adapter.resumes:
            return

        def setup(bus: HookBus) -> None:
            bus.use(_plugin("limits")(max_tool_calls=1))

            def ask(ctx: Any) -> Ask | None:
                return Ask("a human decides") if ctx.call.name == "send_email" else None

            bus.on("pre_tool_call", ask)

        reference, bridged = await self._paused_and_resumed(setup)
        assert reference.ran == ["lookup"], reference.ran
        assert bridged.ran == ["lookup"], bridged.ran


def _plugin(name: str) -> Any:
    """The class of the installed plugin ``name`` (its ``agenthooks.plugins`` entry point):
    the guard and the limits, which the plugin cases use, are plugin distributions."""
    for point in entry_points():
        if point.name == name:
            return point.load()
    raise LookupError(f"the kit needs the {name!r} plugin installed (agenthooks-{name})")


def _changed_call(ctx: Any) -> Any:
    arguments = dict(ctx.call.arguments)
    first = next(iter(arguments), None)
    if first is not None:
        arguments[first] = f"{arguments[first]}-changed"
    return ctx.call.model_copy(update={"arguments": arguments})


def _with_extra(messages: list[Any]) -> list[Any]:
    return [*messages, ChatMessage(role="user", content="(a hook adds this)")]


FAILING_TOOL: tuple[Step, ...] = (
    calls(Call("call_1", "read_file", {"path": "/nowhere"})),
    say("sorry"),
)
"""A conversation whose tool fails (``on_tool_call_error``)."""

FAILING_MODEL: tuple[Step, ...] = (Step(error="the model is down"),)
"""A conversation whose model fails (``on_model_error``)."""

SCRIPTS = {"on_tool_call_error": FAILING_TOOL, "on_model_error": FAILING_MODEL}
"""The script that leads to each event the conversation does not fire."""

RETURNS: dict[tuple[str, str], Callable[[Any], Any]] = {
    ("on_chat_start", "deny"): lambda ctx: Deny("the kit refuses"),
    ("on_user_message", "deny"): lambda ctx: Deny("the kit refuses"),
    ("on_user_message", "message"): lambda ctx: {"message": "Look up nothing"},
    ("pre_agent", "deny"): lambda ctx: Deny("the kit refuses"),
    ("pre_agent", "response"): lambda ctx: {"response": AgentResponse(content="instead")},
    ("transform_context", "messages"): lambda ctx: {"messages": _with_extra(ctx.messages)},
    ("pre_request", "deny"): lambda ctx: Deny("the kit refuses"),
    ("pre_request", "request"): lambda ctx: {
        "request": ctx.request.model_copy(update={"messages": _with_extra(ctx.request.messages)})
    },
    ("pre_request", "response"): lambda ctx: {
        "response": ProviderResponse(content="short-circuited")
    },
    ("on_response", "deny"): lambda ctx: Deny("the kit refuses"),
    ("on_response", "response"): lambda ctx: {
        "response": ctx.response.model_copy(update={"content": "rewritten"})
    },
    ("pre_tool_call", "deny"): lambda ctx: Deny("the kit refuses"),
    ("pre_tool_call", "ask"): lambda ctx: Ask("the kit asks"),
    ("pre_tool_call", "call"): lambda ctx: {"call": _changed_call(ctx)},
    ("pre_tool_call", "result"): lambda ctx: {"result": "from the kit"},
    ("pre_tool_call", "error"): lambda ctx: {"error": "the kit failed it"},
    ("on_tool_call_result", "deny"): lambda ctx: Deny("the kit refuses"),
    ("on_tool_call_result", "result"): lambda ctx: {"result": "rewritten result"},
    ("on_tool_call_result", "terminate"): lambda ctx: {"terminate": True},
    ("prepare_next_turn", "model"): lambda ctx: {"model": "another-model"},
    ("prepare_next_turn", "thinking"): lambda ctx: {"thinking": "high"},
    ("prepare_next_turn", "messages"): lambda ctx: {"messages": _with_extra(ctx.messages)},
    ("prepare_next_turn", "provider"): lambda ctx: {"provider": _OtherProvider()},
    ("should_stop", "true"): lambda ctx: True,
    ("on_tool_call_error", "result"): lambda ctx: {"result": "recovered"},
    ("on_tool_call_error", "error"): lambda ctx: {"error": "reworded by the kit"},
    ("on_tool_call_error", "terminate"): lambda ctx: {"terminate": True},
    ("on_model_error", "response"): lambda ctx: {"response": ProviderResponse(content="recovered")},
    ("on_model_error", "error"): lambda ctx: {"error": KitFault("reworded by the kit")},
    ("post_agent", "deny"): lambda ctx: Deny("the kit refuses"),
    ("post_agent", "response"): lambda ctx: {
        "response": ctx.response.model_copy(update={"content": "rewritten answer"})
    },
}
"""A return per ``(event, key)`` the conversation can provoke: what the returns cases give."""


class _OtherProvider:
    """A provider a ``prepare_next_turn`` handler switches to (never called here)."""

    name = "other"


def _once(event: str, key: str) -> Setup:
    make = RETURNS[(event, key)]

    def setup(bus: HookBus) -> None:
        fired: list[bool] = []

        def handler(ctx: Any) -> Any:
            if fired:
                return None
            fired.append(True)
            return make(ctx)

        bus.on(event, handler)

    return setup


class _Needy:
    """A plugin needing one event for its ``cap`` option."""

    name = "needy"

    def __init__(self, event: str) -> None:
        self.event = event

    def needs(self) -> list[Need]:
        return [Need("cap", {self.event}, "checked there")]

    def setup(self, bus: Any) -> None:
        return None


def _differences(reference: Result, bridged: Result) -> list[str]:
    """How the bridge's run differs from our runtime's (the caller, the tool bodies, the end
    and its answer)."""
    out: list[str] = []
    if bridged.kind != reference.kind:
        out.append(f"the caller got {bridged.kind} ({bridged.error!r}), on ours {reference.kind}")
    if bridged.ran != reference.ran:
        out.append(f"tool bodies ran {bridged.ran}, on ours {reference.ran}")
    try:
        ended = bridged.log.ending()
    except AssertionError as exc:
        return [*out, str(exc)]
    if ended != reference.log.ending():
        out.append(f"ended with {ended}, on ours {reference.log.ending()}")
    done, ours = bridged.log.of("on_chat_done"), reference.log.of("on_chat_done")
    if [d[:2] for d in done] != [d[:2] for d in ours]:
        out.append(f"on_chat_done {done}, on ours {ours}")
    return out


def _raise_stop(bus: HookBus) -> None:
    def stop(ctx: Any) -> None:
        if ctx.call.name == "send_email":
            raise StopRun("the kit stops here")

    bus.on("pre_tool_call", stop)


def _ask_mail(bus: HookBus) -> None:
    def ask(ctx: Any) -> Ask | None:
        return Ask("a human decides") if ctx.call.name == "send_email" else None

    bus.on("pre_tool_call", ask)


def _raise(event: str) -> Setup:
    def setup(bus: HookBus) -> None:
        def fault(ctx: Any) -> None:
            raise KitFault(event)

        bus.on(event, fault)

    return setup


def _cancelled(event: str) -> Setup:
    def setup(bus: HookBus) -> None:
        def fault(ctx: Any) -> None:
            raise asyncio.CancelledError()

        bus.on(event, fault)

    return setup


def _cancel_caller(event: str) -> Setup:
    def setup(bus: HookBus) -> None:
        def cancel(ctx: Any) -> None:
            bus.kit_task.cancel()  # type: ignore[attr-defined]

        bus.on(event, cancel)

    return setup


def _bad_return(event: str) -> Setup:
    def setup(bus: HookBus) -> None:
        bus.on(event, lambda ctx: {"no_such_key": 1})

    return setup


__all__ = ["BridgeKit", "Contact", "KitFault", "Result", "caused", "classify"]
