"""Each client's table is the one declaration of its mapping: every row that names an event
of ours has a handler firing it, every handled event has a row, and the Hook server page
lists every row."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenthooks.events import CATALOG
from agenthooks.server import claude_code, codex, events_wire

PAGE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "hook-server.md"


@pytest.mark.parametrize(
    ("table", "handlers"),
    [
        (claude_code.EVENTS, claude_code.HANDLERS),
        (codex.EVENTS, claude_code.HANDLERS),
        (events_wire.EVENTS, events_wire.HANDLERS),
    ],
)
def test_every_row_names_a_catalog_event_and_has_its_handler(table, handlers) -> None:
    for client_event, row in table.items():
        assert row.ours in CATALOG, (client_event, row.ours)
        if row.ours != "on_event":
            assert client_event in handlers, client_event
    assert set(claude_code.EVENTS) >= set(claude_code.HANDLERS)


def test_the_page_lists_every_claude_code_event() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for client_event in claude_code.EVENTS:
        assert f"`{client_event}`" in text, client_event
