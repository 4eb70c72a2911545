"""Each event is declared once, as its context class with an ``@event`` declaration
(``agenthooks/events/contexts.py``); every other view (the catalog, the ``EventName`` Literal,
``typed.py``, the README's event table, ``agenthooks events --json``) is derived from those
classes, and these tests pin each view to them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from agenthooks.events import CATALOG, GROUPS, EventContext, EventName, contexts, generate
from agenthooks.events.catalog import declared
from agenthooks.events.describe import describe, markdown_table
from agenthooks.events.spec import event


def test_the_catalog_is_the_declarations_of_the_context_classes_in_file_order() -> None:
    classes = [
        cls
        for name, cls in vars(contexts).items()
        if isinstance(cls, type)
        and issubclass(cls, EventContext)
        and "spec" in cls.__dict__
        and name == cls.__name__
    ]
    assert [cls.spec.name for cls in classes] == list(CATALOG)
    for cls in classes:
        assert CATALOG[cls.spec.name] is cls.spec
        assert cls.spec.context is cls
    assert declared() == list(CATALOG.values())


def test_every_public_context_class_declares_one_event_or_is_a_shared_base() -> None:
    # the shared bases hold fields for a family of events; each event has its own class
    bases = {
        "EventContext",
        "HandoffContext",
        "LoopContext",
        "MemoryContext",
        "ScopeContext",
        "SessionContext",
        "StreamContext",
        "SubagentContext",
        "TurnContext",
    }
    former = {"ToolErrorContext", "ToolResultContext"}  # former names of declared classes
    for name in contexts.__all__:
        cls = getattr(contexts, name)
        if name in bases:
            assert "spec" not in cls.__dict__, name
        else:
            assert "spec" in cls.__dict__, name
            assert name in former or cls.__name__ == name
    assert len({s.context for s in CATALOG.values()}) == len(CATALOG)


def test_the_catalog_keeps_the_event_spec_fields_code_outside_uses() -> None:
    spec = CATALOG["pre_tool_call"]
    assert (spec.name, spec.kind, spec.context) == (
        "pre_tool_call",
        "interceptor",
        contexts.PreToolCallContext,
    )
    assert spec.returns == {"call", "result", "error"}
    assert spec.short_circuit == {"result", "error"} and spec.recovery == frozenset()
    assert (spec.deny, spec.ask, spec.gate, spec.teardown) == (True, True, True, False)
    assert spec.match == "tool_name" and spec.groups == {"tool_call"}
    assert spec.aliases[:2] == ("preToolCall", "BeforeTool")
    assert spec.doc == "after arguments validate, before the tool handler runs"
    assert spec.kind_label == "interceptor, short-circuit"
    assert spec.may_return == '{"call"}, {"error"}, {"result"}, Deny(reason), Ask(reason)'


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        (
            {"kind": "interceptor", "returns": ("answer",)},
            "event 'on_probe' (Probe): returns ['answer'], which the context has no field for",
        ),
        (
            {"kind": "interceptor", "returns": ("note",), "short_circuit": ("other",)},
            "short-circuit or recovery keys ['other'] are not returned",
        ),
        (
            {"kind": "observer", "deny": True},
            "event 'on_probe' (Probe): a observer takes no returns, Deny or Ask",
        ),
        ({"kind": "observer", "match": "tool"}, "match='tool' is not an attribute of the context"),
        ({"kind": "observer", "doc": ""}, "doc (when the event fires) is empty"),
    ],
)
def test_a_declaration_its_class_cannot_honour_fails_at_once(
    declaration: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"doc": "when probed", **declaration}
    kind = args.pop("kind")

    class Probe(EventContext):
        note: str = ""

    with pytest.raises(TypeError, match=re.escape(message)):
        event("on_probe", kind, **args)(Probe)  # type: ignore[arg-type]
    assert "on_probe" not in CATALOG


def test_a_class_declares_at_most_one_event() -> None:
    class Probe(EventContext):
        pass

    event("on_probe", "observer", doc="when probed")(Probe)
    with pytest.raises(TypeError, match="the class already declares 'on_probe'"):
        event("on_probe_again", "observer", doc="when probed again")(Probe)


def test_typed_py_is_current_and_a_stale_copy_is_found_and_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate.main(["--check"]) == 0
    stale = tmp_path / "typed.py"
    stale.write_text(generate.render().replace('"on_chat_start",', ""), encoding="utf-8")
    monkeypatch.setattr(generate, "TARGET", stale)

    assert generate.main(["--check"]) == 1
    assert capsys.readouterr().err == (
        f"{stale} is stale: run python -m agenthooks.events.generate\n"
    )
    assert generate.main([]) == 0
    assert stale.read_text(encoding="utf-8") == generate.render()


def test_the_event_table_has_one_row_per_declared_event_in_order() -> None:
    # the docs site's event reference is this table, filled in at build time
    rows = markdown_table().splitlines()[2:]
    assert [row.split(" | ")[0].strip("| `") for row in rows] == list(CATALOG)
    pre_tool_call = rows[list(CATALOG).index("pre_tool_call")]
    assert pre_tool_call.startswith(
        "| `pre_tool_call` | interceptor, short-circuit | after arguments validate, before the "
        'tool handler runs | {"call"}, {"error"}, {"result"}, Deny(reason), Ask(reason) | '
        "`preToolCall`, "
    )


def test_the_event_name_literal_lists_the_declared_events_in_order() -> None:
    assert typing.get_args(EventName) == tuple(CATALOG)


def test_the_typed_module_is_generated_from_the_declarations() -> None:
    assert generate.TARGET.read_text(encoding="utf-8") == generate.render(), (
        "agenthooks/events/typed.py is stale: run python -m agenthooks.events.generate"
    )


def test_each_typed_overload_gives_its_event_and_aliases_their_context() -> None:
    text = generate.render()
    for spec in CATALOG.values():
        names = ", ".join(f'"{n}"' for n in (spec.name, *spec.aliases))
        assert f"event: Literal[{names}], handler: Callable[[{spec.context.__name__}], Any]" in text


def test_groups_are_derived_from_the_declarations() -> None:
    assert {
        "after_answer": {"on_chat_done", "on_chat_end", "on_session_end"},
        "between_turns": {"prepare_next_turn", "should_stop"},
        "model_call": {"pre_request", "on_response", "on_model_error"},
        "stream": {"on_stream_start", "on_stream_chunk", "on_stream_end", "on_stream_error"},
        "tool_call": {"pre_tool_call", "on_tool_call_result", "on_tool_call_error"},
    } == GROUPS
    for name, members in GROUPS.items():
        assert members == {s.name for s in CATALOG.values() if name in s.groups}


def test_every_event_has_a_context_class_named_after_it_with_a_docstring() -> None:
    for spec in CATALOG.values():
        cls = spec.context
        assert getattr(contexts, cls.__name__) is cls
        assert (cls.__doc__ or "").startswith(f"``{spec.name}``") or spec.name == "on_event", (
            spec.name
        )


def test_the_cli_catalog_is_the_declaration_with_its_context_fields() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agenthooks.cli", "events", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = json.loads(out)
    assert [r["event"] for r in rows] == list(CATALOG)
    assert rows == [json.loads(json.dumps(describe(s))) for s in CATALOG.values()]
    pre_tool_call = next(r for r in rows if r["event"] == "pre_tool_call")
    assert pre_tool_call["context"] == "PreToolCallContext"
    fields = {f["name"]: (f["type"], f["writable"]) for f in pre_tool_call["fields"]}
    assert (
        fields.items()
        >= {
            "call": ("ToolCall", True),
            "tool_call_id": ("str", False),
            "result": ("Any", True),
        }.items()
    )
    assert pre_tool_call["fails_closed"] is True and pre_tool_call["matches"] == "tool_name"
