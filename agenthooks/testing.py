"""Test helpers for hook authors, and the pytest plugin that serves them as fixtures.

The core distribution registers this module under the ``pytest11`` entry point, so any test
suite in an environment with agenthooks installed gets two fixtures:

- ``hook_recorder``: a ``HookRecorder``; ``hook_recorder.attach(agent)`` records every event
  the agent's runs fire (detached when the test ends)::

      hook_recorder.attach(agent)
      await agent.chat("hi")
      hook_recorder.assert_sequence(["pre_tool_call", "on_tool_call_error", "on_chat_done"])
      assert hook_recorder.of("pre_tool_call")[0].call.arguments == {"path": "/"}

- ``scripted_agent``: a factory building an ``Agent`` on a ``ScriptedProvider`` from a short
  script of replies and tool calls::

      agent = scripted_agent([call("search", q="hooks"), "Found it."], tools=[search])

``-p no:agenthooks`` switches the plugin off.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from .bridges.needs import everywhere
from .bus import Disposer
from .conformance import BridgeAdapter, BridgeKit, Outcome
from .events.catalog import CATALOG, resolve
from .messages import ProviderResponse, ToolCall
from .plugins import PluginOptionError
from .providers.scripted import ScriptedProvider
from .record import reachable_buses
from .runtime.agent import Agent

if TYPE_CHECKING:
    from .bus import HookBus
    from .events.contexts import EventContext

FIRST = 10**9
"""The recorder's priority: it sees every emission before any ordinary handler can stop it."""

ScriptStep: TypeAlias = Any
"""One step of a ``scripted_agent`` script: a reply ``str``, a ``ToolCall`` or ``(name,
arguments)`` tuple, a list of those (one response asking for several tools), or anything a
``ScriptedProvider`` takes (a ``ProviderResponse``, an exception, a callable)."""


class HookRecorder:
    """Records every event fired on the buses it is attached to, in firing order.

    One observer per event (``on_event`` excepted), registered first, returning ``None``: it
    never changes a run. Contexts are kept by reference, so after the run they show what the
    whole chain left in them.
    """

    def __init__(self) -> None:
        self.events: list[tuple[str, EventContext]] = []
        self._disposers: list[Disposer] = []

    def attach(self, target: Agent | HookBus) -> Disposer:
        """Record ``target``: a bus, or an agent and the sub-agents that have a bus of their
        own. Attach after registering the hooks under test. Returns the undo."""
        disposers = [
            bus.on(name, self._handler(name), priority=FIRST)
            for bus in reachable_buses(target)
            for name in CATALOG
            if name != "on_event"
        ]

        def undo() -> None:
            for dispose in disposers:
                dispose()

        disposer = Disposer(undo)
        self._disposers.append(disposer)
        return disposer

    def detach(self) -> None:
        """Undo every ``attach``."""
        for dispose in self._disposers:
            dispose()
        self._disposers.clear()

    def _handler(self, name: str) -> Callable[[EventContext], None]:
        def record(ctx: EventContext) -> None:
            self.events.append((name, ctx))

        record.__qualname__ = f"HookRecorder.{name}"
        return everywhere(record)  # a bridge that never fires the event ignores it quietly

    def names(self) -> list[str]:
        """The recorded event names, in firing order."""
        return [name for name, _ in self.events]

    def of(self, event: str) -> list[Any]:
        """The contexts of every emission of ``event`` (a name or alias; ``"event:name"``
        keeps only the emissions for that tool, sub-agent or handoff target)."""
        canonical, wanted = _split(event)
        return [
            ctx
            for name, ctx in self.events
            if name == canonical and (wanted is None or _subject(name, ctx) == wanted)
        ]

    def assert_sequence(self, expected: Sequence[str], *, exact: bool = False) -> None:
        """Assert the order of events: the recorded events that ``expected`` names (aliases
        accepted) must be exactly ``expected``; events it does not name are ignored unless
        ``exact``. ``"pre_tool_call:search"`` names the emissions for one tool (sub-agent,
        handoff target). Fails with a diff of expected and recorded."""
        __tracebackhide__ = True  # pytest shows the failing test line, not this helper
        wanted = [_split(item) for item in expected]
        qualified = {name for name, subject in wanted if subject is not None}
        named = {name for name, _ in wanted}
        want = [f"{name}:{subject}" if subject is not None else name for name, subject in wanted]
        got = [
            f"{name}:{_subject(name, ctx)}" if name in qualified else name
            for name, ctx in self.events
            if exact or name in named
        ]
        if want == got:
            return
        diff = [line for line in difflib.ndiff(want, got) if not line.startswith("? ")]
        scope = (
            "all recorded events" if exact else "the recorded events of " + ", ".join(sorted(named))
        )
        raise AssertionError(
            f"event sequence differs ({scope}); - expected, + recorded:\n" + "\n".join(diff)
        )

    def clear(self) -> None:
        """Forget what was recorded so far."""
        self.events.clear()

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[tuple[str, EventContext]]:
        return iter(self.events)


def _split(item: str) -> tuple[str, str | None]:
    event, _, subject = item.partition(":")
    return resolve(event).name, subject or None


def _subject(name: str, ctx: Any) -> str | None:
    attr = CATALOG[name].match
    return None if attr is None else getattr(ctx, attr, None)


def call(name: str, /, **arguments: Any) -> ToolCall:
    """A tool call for a script: ``call("search", q="hooks")`` (ids are filled in as
    ``call_1``, ``call_2``, ... by the provider)."""
    return ToolCall(id="", name=name, arguments=arguments)


def _step(step: ScriptStep) -> Any:
    if isinstance(step, ToolCall):
        return ProviderResponse(tool_calls=[step])
    if isinstance(step, tuple):
        return ProviderResponse(tool_calls=[_tool_call(step)])
    if isinstance(step, list):
        return ProviderResponse(tool_calls=[_tool_call(s) for s in step])
    return step


def _tool_call(item: Any) -> ToolCall:
    if isinstance(item, ToolCall):
        return item
    if isinstance(item, tuple) and len(item) in (1, 2) and isinstance(item[0], str):
        arguments = item[1] if len(item) == 2 else {}
        return ToolCall(id="", name=item[0], arguments=dict(arguments))
    raise TypeError(
        f"a scripted tool call is a ToolCall or a (name, arguments) tuple, not {item!r}"
    )


def make_agent(
    script: Iterable[ScriptStep],
    *,
    tools: Iterable[Any] = (),
    name: str = "agent",
    instructions: str | None = None,
    **options: Any,
) -> Agent:
    """An ``Agent`` named ``name`` on a ``ScriptedProvider`` that answers ``script`` in order
    (the ``scripted_agent`` fixture). ``options`` go to ``Agent`` (``bus=``, ``max_turns=``,
    ``parallel_tool_calls=``, ``sub_agents=``, ...); ``agent.provider.requests`` holds what
    the model was sent."""
    if isinstance(script, (str, ToolCall, tuple)):
        raise TypeError("scripted_agent takes a list of steps; wrap a single step in a list")
    provider = ScriptedProvider([_step(s) for s in script], name=f"{name}-script")
    return Agent(name, instructions, provider=provider, tools=tools, **options)


def require(problem: str | None) -> None:
    """Skip the calling test when an external service or program it needs is missing
    (``problem`` says which, and why); under ``CI=true``, where CI provides every one of them,
    fail instead. ``None``: nothing is missing. The one way a test of this project skips.

    Raises:
        pytest.fail.Exception: ``problem`` is set and ``CI=true``.
        pytest.skip.Exception: ``problem`` is set otherwise.
    """
    if problem is None:
        return
    __tracebackhide__ = True
    import pytest  # here: the other helpers of this module work without pytest

    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{problem} (CI=true: a missing service fails the run)", pytrace=False)
    pytest.skip(problem)


try:
    import pytest
except ImportError:  # without pytest: the helpers work, only the fixtures are missing
    pass
else:

    @pytest.fixture(name="hook_recorder")
    def _hook_recorder() -> Iterator[HookRecorder]:
        """A ``HookRecorder``: ``hook_recorder.attach(agent)`` records the agent's events;
        detached when the test ends."""
        recorder = HookRecorder()
        yield recorder
        recorder.detach()

    @pytest.fixture(name="scripted_agent")
    def _scripted_agent() -> Callable[..., Agent]:
        """A factory: ``scripted_agent(["hello"])`` or ``scripted_agent([call("search",
        q="x"), "done"], tools=[search])`` builds an ``Agent`` on a ``ScriptedProvider``."""
        return make_agent


def assert_option_error(
    make: Callable[[], object],
    *,
    key: str,
    closest: str | None = None,
    source: str | None = None,
    says: str | None = None,
) -> PluginOptionError:
    """Check that building a plugin from bad options fails the way users are promised: a
    ``PluginOptionError`` naming the ``key`` (the keyword argument or environment variable)
    and, for a mistyped key, the ``closest`` valid one.

    Args:
        make: Builds the plugin or its settings (``lambda: Retry(attemps=3)``).
        key: The key the error must name.
        closest: The valid key the error must suggest (``did you mean 'attempts'?``).
        source: Where the value came from, if the test pins it (``"environment"``).
        says: Text the error's message must contain.

    Returns:
        The error, for further checks.

    Raises:
        AssertionError: ``make`` succeeded, raised something else, or the error names
            another key, suggestion, source or message.
    """
    __tracebackhide__ = True
    try:
        made = make()
    except PluginOptionError as exc:
        error = exc
    else:
        raise AssertionError(f"expected a PluginOptionError naming {key!r}, built {made!r}")
    message = str(error)
    if error.key != key:
        raise AssertionError(f"the error names {error.key!r}, not {key!r}: {message}")
    if closest is not None and f"did you mean {closest!r}?" not in message:
        raise AssertionError(f"the error does not suggest {closest!r}: {message}")
    if source is not None and error.source != source:
        raise AssertionError(f"the error's source is {error.source!r}, not {source!r}: {message}")
    if says is not None and says not in message:
        raise AssertionError(f"the error does not say {says!r}: {message}")
    return error


_EXAMPLE = re.compile(r"```python\n(.*?)```.*?```(?:text)?\n(.*?)```", re.DOTALL)


def readme_example(path: str | os.PathLike[str]) -> tuple[str, str]:
    """The first ```` ```python ```` block of a Markdown file and the output block after it
    (```` ```text ```` or untagged): how a plugin's tests check that its README's example
    prints what the README says."""
    found = _EXAMPLE.search(Path(path).read_text(encoding="utf-8"))
    if found is None:
        raise AssertionError(f"{path} has no ```python example followed by an output block")
    return found.group(1), found.group(2)


def assert_readme_runs(
    path: str | os.PathLike[str], prints: Mapping[int, str] | None = None
) -> None:
    """Run every ```` ```python ```` block of a Markdown file as written, in order, each in a
    namespace of its own as ``__main__``: the first (the example) must print the output block
    after it (``readme_example``); block ``i`` after it must print ``prints[i]`` (nothing where
    ``prints`` has no entry).

    Raises:
        AssertionError: Naming the block that printed something else.
    """
    text = Path(path).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    expected = {0: readme_example(path)[1], **(prints or {})}
    for index, block in enumerate(blocks):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, f"{path}[{index}]", "exec"), {"__name__": "__main__"})
        if out.getvalue() != expected.get(index, ""):
            raise AssertionError(
                f"{path}: python block {index} printed {out.getvalue()!r}, "
                f"not {expected.get(index, '')!r}"
            )


# --- generated cases ----------------------------------------------------------------------
# A generator test feeds every case's problems to a ``Tally`` and ends with
# ``tally.assert_held()``: it passes when every case held, else fails with the counts per kind
# of break and the first cases of each kind (a minimal repro to start from). The summary line
# is printed too (``pytest -s`` shows the figures a reliability table keeps).

Problem = tuple[str, str]
"""One break of a generated case: (kind of break, what exactly)."""
_EXAMPLES = 6  # examples kept per kind of break


@dataclass
class Tally:
    """The cases of one class of promise and the breaks among them."""

    name: str
    cases: int = 0
    held: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    groups: dict[str, set[str]] = field(default_factory=dict)
    only: Counter[str] = field(default_factory=Counter)  # cases with this break and no other

    def case(self, label: str, problems: list[Problem], group: str = "") -> bool:
        """Count one case; True when it held. The examples shown per kind of break come from
        distinct ``group`` values first (say, one per event), so one cause does not hide the
        others."""
        self.cases += 1
        if not problems:
            self.held += 1
            return True
        kinds = list(dict.fromkeys(k for k, _ in problems))
        if len(kinds) == 1:
            self.only[kinds[0]] += 1
        for kind in kinds:
            self.kinds[kind] += 1
            shown = self.examples.setdefault(kind, [])
            groups = self.groups.setdefault(kind, set())
            if len(shown) < _EXAMPLES and (group not in groups or not group):
                groups.add(group)
                detail = "; ".join(d for k, d in problems if k == kind)
                shown.append(f"{label}: {detail[:240]}")
        return False

    def summary(self) -> str:
        """The figures: how many cases held, and each kind of break with its examples."""
        lines = [f"[{self.name}] {self.held} of {self.cases} cases held"]
        for kind, count in self.kinds.most_common():
            lines.append(
                f"  {count} case(s) broke '{kind}' ({self.only[kind]} broke nothing else), e.g."
            )
            lines += [f"    - {example}" for example in self.examples[kind]]
        return "\n".join(lines)

    def assert_held(self) -> None:
        """Print the figures; fail with the breaks when a case did not hold."""
        text = self.summary()
        print(text)
        assert self.cases > 0, f"[{self.name}] generated no case"
        assert self.held == self.cases, text


__all__ = [
    "FIRST",
    "BridgeAdapter",
    "BridgeKit",
    "HookRecorder",
    "Outcome",
    "Problem",
    "ScriptStep",
    "Tally",
    "assert_option_error",
    "assert_readme_runs",
    "call",
    "make_agent",
    "readme_example",
    "require",
]
