"""No mistake passes in silence (issue 21, class 6): each generator makes one kind of mistake a
new user makes, in every shape it comes in, and checks that it is refused or reported once,
naming what was wrong, and that what is drawn or printed says what happened.

- an observer handler that returns something (meant for an interceptor): one
  ``IgnoredReturnWarning`` per handler naming it, the event and the events that take it;
- a handler that cannot take the context: a ``RegistrationError`` at registration;
- the store commands: one line on stderr, a non-zero exit, no store created;
- the trace: a tool span lasts what its record says, an error keeps its type.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import itertools
import sqlite3
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rel_drive import scale
from rel_tally import Problem, Tally

from agenthooks import (
    CATALOG,
    Agent,
    Approve,
    Ask,
    Deny,
    HookBus,
    ProviderResponse,
    RegistrationError,
    ScriptedProvider,
    ToolCall,
    tool,
)
from agenthooks.bus.registry import handler_label
from agenthooks.cli import main
from agenthooks.errors import IgnoredReturnWarning
from agenthooks.record import Recorder
from agenthooks.trace import build_trace, render_tree

WARNED = "the mistake is reported once, naming what was wrong"
REFUSED = "the mistake is refused at registration, naming the handler and the event"
ONE_LINE = "a failure is one line on stderr with a non-zero exit"
NOTHING_MADE = "reading never creates a store"
DRAWN = "the trace draws what the records say"

OBSERVERS = [name for name, spec in CATALOG.items() if spec.kind == "observer"]


def takers(value: Any) -> list[str]:
    """The events whose handlers may return ``value``, read off the catalog."""
    if isinstance(value, bool):
        return [n for n, s in CATALOG.items() if s.kind == "predicate"]
    if isinstance(value, Deny):
        return [n for n, s in CATALOG.items() if s.deny]
    if isinstance(value, Ask):
        return [n for n, s in CATALOG.items() if s.ask]
    if isinstance(value, dict) and value:
        return [n for n, s in CATALOG.items() if set(value) <= s.returns]
    return []


def test_an_observer_that_returns_something_is_warned_about_once() -> None:
    tally = Tally("an observer's ignored return is warned about once per handler")
    returns: list[Any] = [
        {"message": "x"},
        {"result": 1},
        {"response": None, "model": "m"},
        Deny("no"),
        Ask("a human?"),
        True,
        False,
        "text",
        0,
        [],
        None,
    ]
    for event, value, is_async in itertools.product(OBSERVERS, returns, (False, True)):
        if is_async:

            async def handler(ctx: Any, value: Any = value) -> Any:
                return value

        else:

            def handler(ctx: Any, value: Any = value) -> Any:
                return value

        bus = HookBus()
        bus.on(event, handler)
        ctx = CATALOG[event].context()

        async def three(bus: HookBus = bus, event: str = event, ctx: Any = ctx) -> list[Any]:
            return [await bus.emit(event, ctx) for _ in range(3)]

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = asyncio.run(three())
        problems: list[Problem] = []
        if results != [None, None, None]:
            problems.append((WARNED, f"the return was not ignored: {results}"))
        ours = [w for w in caught if w.category is IgnoredReturnWarning]
        want = 0 if value is None else 1
        if len(ours) != want or len(caught) != want:
            problems.append(
                (
                    WARNED,
                    f"{len(ours)} warning(s) ({[str(w.message) for w in caught]}), want {want}",
                )
            )
        for w in ours:
            text = str(w.message)
            names = takers(value)
            where = f"it is taken by {', '.join(names)}" if names else "no event takes it"
            for part in (handler_label(handler), repr(event), where):
                if part not in text:
                    problems.append((WARNED, f"the warning does not say {part!r}: {text}"))
        tally.case(
            f"{event} returns {value!r} ({'async' if is_async else 'sync'})", problems, event
        )
    tally.assert_held()


def _none() -> None:
    return None


def _extra(ctx: Any, extra: Any) -> None:
    return None


def _keyword(ctx: Any, *, flag: bool) -> None:
    return None


async def _async_none() -> None:
    return None


class _Holder:
    def method(self) -> None:
        return None

    def __call__(self) -> None:
        return None


def test_a_handler_that_cannot_take_the_context_is_refused_at_registration() -> None:
    tally = Tally("a handler that cannot take the context is refused at registration")
    bad: list[tuple[str, Callable[..., Any]]] = [
        ("lambda: None", lambda: None),
        ("def f()", _none),
        ("async def f()", _async_none),
        ("f(ctx, extra)", _extra),
        ("f(ctx, *, flag)", _keyword),
        ("a method without ctx", _Holder().method),
        ("an object whose __call__ takes nothing", _Holder()),
        ("a partial that binds the context's place", functools.partial(_extra, 1, 2)),
    ]
    good: list[tuple[str, Callable[..., Any]]] = [
        ("lambda ctx: None", lambda ctx: None),
        ("f(*args)", lambda *args: None),
        ("a partial leaving ctx", functools.partial(_extra, extra=1)),
        ("a builtin", print),
    ]
    events = list(CATALOG) if scale(False, True) else list(CATALOG)[::2]
    for event, (shape, handler), how in itertools.product(
        events, [*bad, *good], ("on", "decorator", "once")
    ):
        bus = HookBus()
        refused = None
        try:
            if how == "on":
                bus.on(event, handler)
            elif how == "decorator":
                bus.on(event)(handler)
            else:
                bus.once(event, handler)
        except RegistrationError as exc:
            refused = str(exc)
        problems: list[Problem] = []
        should = (shape, handler) in bad
        if should and refused is None:
            problems.append((REFUSED, "accepted: it would fail when the event fires"))
        if not should and refused is not None:
            problems.append((REFUSED, f"a handler that takes the context was refused: {refused}"))
        if refused is not None:
            for part in (handler_label(handler), repr(event)):
                if part not in refused:
                    problems.append((REFUSED, f"the error does not name {part!r}: {refused}"))
            if bus.handlers(event):
                problems.append((REFUSED, "the refused handler was registered anyway"))
        tally.case(f"{shape} on {event} ({how})", problems, shape)
    tally.assert_held()


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:  # argparse's own usage errors
            code = int(exc.code or 0)
        except Exception:  # what the console script would print as a traceback
            return 1, out.getvalue(), err.getvalue() + "Traceback\n" + traceback.format_exc()
    return code, out.getvalue(), err.getvalue()


def test_the_store_commands_fail_in_one_line_and_create_nothing(
    tmp_path: Path, monkeypatch: Any
) -> None:
    tally = Tally("store commands: one line, non-zero, nothing created")
    # where each case points: (label, --store given for this folder, or None for
    # $AGENTHOOKS_STORE naming a missing file)
    stores: list[tuple[str, Callable[[Path], str] | None]] = [
        ("a missing file", lambda d: str(d / "sesions.db")),
        ("a missing file, sqlite:////", lambda d: f"sqlite:///{d / 'sesions.db'}"),
        ("a missing file in a missing folder", lambda d: str(d / "nope" / "s.db")),
        ("a missing file in $AGENTHOOKS_STORE", None),
        ("a folder", lambda d: str(d / "a-folder")),
        ("a file that is no database", lambda d: str(d / "notes.txt")),
        ("an empty file", lambda d: str(d / "empty.db")),
        ("another program's SQLite database", lambda d: str(d / "app.db")),
    ]
    commands = [
        ["sessions", "list"],
        ["sessions", "show", "s1"],
        ["approvals", "list"],
        ["approvals", "approve", "s1/c1"],
        ["approvals", "deny", "s1/c1", "--reason", "no"],
    ]
    for number, ((label, store), command) in enumerate(itertools.product(stores, commands)):
        folder = tmp_path / str(number)  # each case on its own files
        folder.mkdir()
        (folder / "a-folder").mkdir()
        (folder / "notes.txt").write_text("not a database\n" * 100)
        (folder / "empty.db").touch()
        with contextlib.closing(sqlite3.connect(folder / "app.db")) as conn:
            conn.execute("CREATE TABLE users (name TEXT)")
            conn.commit()
        if store is None:
            if command[0] == "approvals":
                continue  # without --store the approvals come from every installed source
            monkeypatch.setenv("AGENTHOOKS_STORE", str(folder / "sesions.db"))
            args = command
        else:
            monkeypatch.delenv("AGENTHOOKS_STORE", raising=False)
            args = [*command, "--store", store(folder)]

        def files(folder: Path = folder) -> list[tuple[str, bytes]]:
            return sorted(
                (str(p.relative_to(folder)), p.read_bytes() if p.is_file() else b"")
                for p in folder.rglob("*")
            )

        before = files()
        code, out, err = _cli(args)
        problems: list[Problem] = []
        if code == 0:
            problems.append((ONE_LINE, f"exit 0: {out!r}"))
        if err.count("\n") != 1 or not err.startswith(f"agenthooks {command[0]}: error: "):
            problems.append((ONE_LINE, f"stderr is not one error line: {err[:300]!r}"))
        if "Traceback" in err or out:
            problems.append((ONE_LINE, f"stdout {out[:100]!r}, stderr {err[:300]!r}"))
        after = files()
        if after != before:
            made = sorted({name for name, _ in after} - {name for name, _ in before})
            problems.append((NOTHING_MADE, f"the files changed (new: {made})"))
        tally.case(f"{' '.join(command)} on {label}", problems, label)
    monkeypatch.delenv("AGENTHOOKS_STORE", raising=False)
    tally.assert_held()


@tool
async def fine() -> str:
    """Works after 2 ms."""
    await asyncio.sleep(0.002)
    return "ok"


@tool
def refused() -> str:
    """Denied by a hook: never runs."""
    return "ran"


@tool
def asked() -> str:
    """Paused for a human, approved at resume."""
    return "approved and ran"


def _raiser(kind: type[Exception]) -> Any:
    @tool(name=f"raises_{kind.__name__}")
    async def fails() -> str:
        """Fails after 2 ms."""
        await asyncio.sleep(0.002)
        raise kind("/tmp/x")

    return fails


ERRORS = [FileNotFoundError, PermissionError, ValueError, KeyError, TimeoutError]


def test_tool_spans_last_what_their_records_say_and_errors_keep_their_type() -> None:
    tally = Tally("the trace draws a tool as its record says, errors with their type")
    kinds = ["fine", "refused", "asked", "unknown", *[f"raises_{e.__name__}" for e in ERRORS]]
    size = 2 if not scale(False, True) else 3
    for batch in itertools.product(kinds, repeat=size):
        calls = [ToolCall(id=f"c{i}", name=name) for i, name in enumerate(batch)]
        agent = Agent(
            "a",
            provider=ScriptedProvider([ProviderResponse(tool_calls=calls), "done", "done"]),
            tools=[fine, refused, asked, *[_raiser(e) for e in ERRORS]],
            parallel_tool_calls=True,
        )
        agent.on("pre_tool_call", lambda ctx: Deny("not this one"), match="refused")
        agent.on("pre_tool_call", lambda ctx: Ask("a human decides"), match="asked")

        async def slow_after(ctx: Any) -> None:  # records arrive well after the tools ended
            await asyncio.sleep(0.01)

        agent.on("on_tool_call_result", slow_after)
        agent.on("on_tool_call_error", slow_after)
        recorder = Recorder()
        recorder.attach(agent)

        async def run(agent: Agent = agent, batch: tuple[str, ...] = batch) -> None:
            response = await agent.chat("go")
            if response.finish_reason == "paused":
                await agent.resume(
                    {f"c{i}": Approve() for i, name in enumerate(batch) if name == "asked"}
                )

        asyncio.run(run())
        records = recorder.records
        trace = build_trace(records)
        problems: list[Problem] = []
        # the last record of each call that carries a duration: what the span must show
        ended = {
            r["tool_call_id"]: r
            for r in records
            if r["type"] in ("on_tool_call_result", "on_tool_call_error")
        }
        spans = [s for s in trace.spans if s.kind == "tool"]
        last = {s.details["tool_call_id"]: s for s in spans}  # the resumed span replaces
        turn0 = next(s for s in trace.spans if s.name == "turn 0")
        for call in calls:
            span = last.get(call.id)
            record = ended.get(call.id)
            if span is None or record is None:
                problems.append((DRAWN, f"{call.name}: span {span}, record {record}"))
                continue
            if span.end != span.start + record["duration"]:
                problems.append(
                    (DRAWN, f"{call.name}: {span.duration:.4f}s drawn, record {record['duration']}")
                )
            if call.name.startswith("raises_"):
                want = f"{call.name.removeprefix('raises_')}: {KeyError('/tmp/x')}"
                if call.name != "raises_KeyError":
                    want = f"{call.name.removeprefix('raises_')}: /tmp/x"
                if span.error != want or f"ERROR: {want}" not in render_tree(trace):
                    problems.append((DRAWN, f"{call.name}: error drawn as {span.error!r}"))
        for span in turn0.children:
            if span.kind == "tool" and span.duration > turn0.duration:
                problems.append((DRAWN, f"{span.name} lasts longer than its turn"))
        tally.case("+".join(batch), problems, "+".join(sorted(set(batch))))
    tally.assert_held()
