"""The bridge conformance kit on Google ADK: the same conversations as on our runtime."""

from __future__ import annotations

from adk_kit import ADKAdapter

from agenthooks.testing import BridgeKit


class TestADKKit(BridgeKit):
    adapter = ADKAdapter()
