"""Each event is declared once (``agenthooks/events/catalog.py``); every other view of the
catalog is derived from that declaration, and these tests pin each view to it."""

from __future__ import annotations

import json
import subprocess
import sys
import typing

from agenthooks.events import CATALOG, GROUPS, EventName, contexts, generate
from agenthooks.events.describe import describe


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
