"""Markers the suite's own files cannot carry: the parity kit's sweeps live in the library
(``agenthooks.conformance``, which imports no pytest at module level), so ``make check``
learns here which of its cases fire a run per event of the catalog."""

from __future__ import annotations

import pytest

from agenthooks.conformance import BridgeKit

SWEEPS = frozenset(
    {
        "test_a_fault_at_every_event_ends_the_run_as_on_our_runtime",
        "test_a_cancelled_error_from_a_handler_is_never_a_tool_error",
        "test_a_cancellation_after_every_event_aborts_the_run",
        "test_a_bad_return_at_every_interceptor_is_a_typed_error",
        "test_every_declared_return_is_carried_out_as_on_our_runtime",
    }
)
"""The kit's cases that run the conversation once per event (or per declared return): a
second or more each per bridge, so ``make test`` runs them and ``make check`` does not."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the kit's sweeps ``slow``."""
    for item in items:
        cls = getattr(item, "cls", None)
        if cls is not None and issubclass(cls, BridgeKit) and item.name in SWEEPS:
            item.add_marker(pytest.mark.slow)
