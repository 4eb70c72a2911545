"""Mistakes fail loudly (item 9 as a class): each generator makes one kind of configuration
mistake in every shape it comes in, and checks that it is refused (or warned about once) with a
message that names what was wrong, and that nothing is left half-installed.
"""

from __future__ import annotations

import asyncio
import gc
import re
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from rel_drive import scale
from rel_tally import Problem, Tally
from structlog.testing import capture_logs

from agenthooks import (
    CATALOG,
    Agent,
    HookBus,
    Middleware,
    RegistrationError,
    ScriptedProvider,
    Session,
    tool,
)
from agenthooks.events import ALIASES

LOUD = "the mistake is refused, naming what was wrong"


def typos(name: str) -> list[str]:
    """Names one slip away from ``name``, with its prefix (``on_``, ``pre_``...) intact, that
    are no event and no alias: what a plugin author types by mistake."""
    prefix = name.split("_", 1)[0] + "_"
    out = [name[:i] + name[i + 1 :] for i in range(len(prefix), len(name))]  # a letter dropped
    out += [
        name[:i] + name[i + 1] + name[i] + name[i + 2 :] for i in range(len(prefix), len(name) - 1)
    ]
    out += [name.replace("_call", ""), name + "s", name.replace("_", "", 2)]
    names = [
        t
        for t in dict.fromkeys(out)
        if t.startswith(prefix) and t != name and t not in CATALOG and t not in ALIASES
    ]
    return names if scale(False, True) else names[:: max(1, len(names) // 3)]


def test_a_plugin_method_named_like_no_event_is_refused_naming_the_closest_event() -> None:
    tally = Tally("plugin methods named like no event")
    cases = [("on_tool_call_result", "on_tool_result")]
    cases += [(event, typo) for event in CATALOG if event != "on_event" for typo in typos(event)]
    for event, typo in cases:

        def observe(self: Any, ctx: Any) -> None:
            return None

        plugin = type("Slip", (), {typo: observe, "on_message": observe, "name": f"slip-{typo}"})
        bus = HookBus()
        problems: list[Problem] = []
        try:
            bus.use(plugin())
        except RegistrationError as exc:
            if event not in str(exc):
                problems.append((LOUD, f"the error does not name {event!r}: {exc}"))
            if bus.handlers("on_message"):
                problems.append((LOUD, "the refused plugin left its on_message handler"))
        else:
            problems.append((LOUD, f"a method {typo!r} was accepted in silence"))
        tally.case(f"method {typo!r} (meant {event!r})", problems, event)
    tally.assert_held()


@tool
async def search(query: str) -> str:
    """Search."""
    return query


@tool
async def lookup(key: str) -> str:
    """Look up."""
    return key


def _tree() -> Agent:
    """A lead with the tool ``search``, a sub-agent ``finder`` (tool ``lookup``) and a handoff
    target ``closer``."""
    script = ScriptedProvider(lambda request: "done")
    finder = Agent("finder", provider=script, tools=[lookup])
    closer = Agent("closer", provider=script)
    return Agent("lead", provider=script, tools=[search], sub_agents=[finder], handoffs=[closer])


def _warnings_about(name: str, run: Callable[[], Any]) -> int:
    """How many warnings (Python warnings or log lines) name ``name`` while ``run`` runs."""
    with warnings.catch_warnings(record=True) as caught, capture_logs() as logs:
        warnings.simplefilter("always")
        run()
    count = sum(name in str(w.message) for w in caught)
    count += sum(any(name in str(v) for v in entry.values()) for entry in logs)
    return count


def test_a_match_that_names_nothing_the_run_can_reach_warns_once() -> None:
    tally = Tally("match= naming nothing reachable")
    reachable = {
        "pre_tool_call": ["search", "lookup", "finder", "transfer_to_closer"],
        "on_tool_call_result": ["search", "lookup"],
        "on_tool_call_error": ["lookup"],
        "on_subagent_start": ["finder"],
        "pre_handoff": ["closer"],
    }
    cases: list[tuple[str, Any, str, bool]] = []
    for event, names in reachable.items():
        for name in names:
            cases.append((event, name, name, False))
            cases.append((event, re.compile(f"^{name}$"), name, False))
        cases.append((event, "serach", "serach", True))
        cases.append((event, re.compile("^nothing_here$"), "nothing_here", True))
        cases.append((event, ["search", "fetch_all"], "fetch_all", True))
    for event, match, name, unreachable in cases:
        agent = _tree()
        agent.on(event, lambda ctx: None, match=match)

        def two_runs(agent: Agent = agent) -> None:
            async def both() -> None:
                await Session(agent).chat("one")
                await Session(agent).chat("two")

            asyncio.run(both())

        count = _warnings_about(name, two_runs)
        want = 1 if unreachable else 0
        problems: list[Problem] = []
        if count != want:
            problems.append((LOUD, f"{count} warning(s) naming {name!r}, expected {want}"))
        tally.case(f"{event} match={match!r}", problems, f"{unreachable}")
    # a bus no agent runs on never warns: it cannot know the tools
    bus = HookBus()
    count = _warnings_about(
        "serach", lambda: bus.on("pre_tool_call", lambda c: None, match="serach")
    )
    tally.case("a bus without an agent", [] if count == 0 else [(LOUD, f"{count} warnings")])
    tally.assert_held()


def test_a_tool_and_a_sub_agent_or_handoff_with_one_name_is_refused() -> None:
    tally = Tally("one name for two tools of an agent")

    def sub(name: str) -> Agent:
        return Agent(name, provider=ScriptedProvider(lambda r: "x"))

    def named(name: str) -> Any:
        @tool(name=name)
        async def fn(text: str) -> str:
            return text

        return fn

    shapes: list[tuple[str, Callable[[], Agent]]] = []
    for name in ("search", "helper", "transfer_to_closer"):
        shapes.append(
            (
                f"tool and sub-agent {name!r}",
                lambda n=name: Agent("a", tools=[named(n)], sub_agents=[sub(n)]),
            )
        )
        shapes.append(
            (f"two sub-agents {name!r}", lambda n=name: Agent("a", sub_agents=[sub(n), sub(n)]))
        )
    shapes.append(
        (
            "tool transfer_to_closer and handoff closer",
            lambda: Agent("a", tools=[named("transfer_to_closer")], handoffs=[sub("closer")]),
        )
    )
    shapes.append(
        (
            "sub-agent transfer_to_closer and handoff closer",
            lambda: Agent("a", sub_agents=[sub("transfer_to_closer")], handoffs=[sub("closer")]),
        )
    )
    shapes.append(
        ("two handoffs closer", lambda: Agent("a", handoffs=[sub("closer"), sub("closer")]))
    )
    for label, build in shapes:
        problems: list[Problem] = []
        try:
            agent = build()
        except RegistrationError as exc:
            wanted = label.split()[-1].strip("'")
            if wanted not in str(exc):
                problems.append((LOUD, f"the error does not name {wanted!r}: {exc}"))
        else:
            problems.append((LOUD, f"accepted in silence: tools {agent.scopes.names()}"))
        tally.case(label, problems)
    tally.assert_held()


class Named:
    """A plugin with a name and one handler."""

    name = "audit"

    def on_message(self, ctx: Any) -> None:
        return None


def _setup(bus: Any) -> None:
    bus.on("on_message", lambda ctx: None)


def test_a_plugin_installed_twice_under_one_name_is_refused() -> None:
    tally = Tally("one plugin name installed twice")
    pairs: list[tuple[str, Any, Any]] = [
        ("two instances of one class", Named(), Named()),
        ("the class, then an instance", Named, Named()),
        ("the same instance twice", (one := Named()), one),
        ("a setup function twice", _setup, _setup),
        ("two classes, one name", Named(), type("Other", (Named,), {})()),
    ]
    for label, first, second in pairs:
        bus = HookBus()
        dispose = bus.use(first)
        problems: list[Problem] = []
        try:
            bus.use(second)
        except RegistrationError as exc:
            name = "audit" if label != "a setup function twice" else "_setup"
            if name not in str(exc):
                problems.append((LOUD, f"the error does not name {name!r}: {exc}"))
        else:
            problems.append(
                (LOUD, f"installed twice in silence: {len(bus.handlers('on_message'))} handlers")
            )
        dispose()
        if bus.handlers("on_message"):
            problems.append((LOUD, "removing the plugin left a copy of its handler"))
        tally.case(label, problems)
    tally.assert_held()


class Passthrough(Middleware):
    """A middleware that changes nothing."""


def _bus_state(bus: HookBus) -> Any:
    return (
        {e: list(bus.handlers(e)) for e in CATALOG},
        {e: list(bus.signal(e).receivers) for e in CATALOG},
        bus.listened,
        list(bus.provider_stack.layers),
        list(bus.tool_stack.layers),
        dict(bus.plugins),
    )


def test_a_plugin_whose_setup_fails_is_rolled_back_completely() -> None:
    tally = Tally("a failed plugin setup rolls back")
    keep: list[Any] = []  # receivers connected weakly must stay alive

    def receiver(sender: Any, **kw: Any) -> None:
        return None

    keep.append(receiver)
    steps: dict[str, Callable[[Any], Any]] = {
        "on": lambda bus: bus.on("on_message", lambda ctx: None),
        "once": lambda bus: bus.once("pre_request", lambda ctx: None),
        "decorator": lambda bus: bus.on("on_loop_start")(lambda ctx: None),
        "use middleware": lambda bus: bus.use(Passthrough()),
        "signal connect": lambda bus: bus.signal("on_message").connect(receiver),
        "signal connect (strong)": lambda bus: bus.signal("on_chat_end").connect(
            receiver, weak=False
        ),
    }
    orders = [list(steps)] + [[name] for name in steps] + [list(reversed(steps))]
    for order in orders:
        for fail_after in range(len(order) + 1):

            def setup(bus: Any, order: list[str] = order, k: int = fail_after) -> None:
                for name in order[:k]:
                    steps[name](bus)
                raise ValueError("setup failed on purpose")

            bus = HookBus()
            bus.on("on_message", lambda ctx: None)  # what was there before stays
            before = _bus_state(bus)
            problems: list[Problem] = []
            with pytest.raises(ValueError):
                bus.use(setup)
            after = _bus_state(bus)
            if after != before:
                changed = [
                    what
                    for what, a, b in zip(
                        (
                            "handlers",
                            "receivers",
                            "listened",
                            "provider stack",
                            "tool stack",
                            "plugins",
                        ),
                        before,
                        after,
                    )
                    if a != b
                ]
                problems.append((LOUD, f"left behind: {changed}"))
            tally.case(
                f"setup does {order[:fail_after]} then fails",
                problems,
                "+".join(order[:fail_after]),
            )
    tally.assert_held()


def test_an_isolated_error_says_which_events_fail_closed_and_points_to_guards() -> None:
    tally = Tally("isolated errors point to guard=True")
    for event in ("on_chat_start", "on_session_start", "post_agent", "on_response", "on_message"):
        agent = Agent("a", provider=ScriptedProvider(lambda r: "fine"))

        def boom(ctx: Any) -> None:
            raise ValueError("policy check crashed")

        agent.on(event, boom, errors="isolate")
        with capture_logs() as logs:
            asyncio.run(Session(agent).chat("hi"))
        lines = [e for e in logs if any("policy check crashed" in str(v) for v in e.values())]
        problems: list[Problem] = []
        if not lines:
            problems.append((LOUD, "no log line for the isolated error"))
        for line in lines:
            if "guard=True" not in " ".join(str(v) for v in line.values()):
                problems.append((LOUD, f"the log line does not point to guard=True: {line}"))
        tally.case(f"isolated error in {event}", problems)
    tally.assert_held()


async def test_chat_sync_inside_a_running_loop_says_what_to_use_instead() -> None:
    agent = Agent("a", provider=ScriptedProvider(["never"]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError) as raised:
            agent.chat_sync("hi")
        gc.collect()  # a coroutine made and dropped warns when it is collected
    message = str(raised.value)
    assert "await" in message and "chat(" in message, message  # names the async call to use
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
