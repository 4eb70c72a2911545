"""The bridge conformance kit on Strands: the same conversations as on our runtime."""

from __future__ import annotations

from strands_kit import StrandsAdapter

from agenthooks.testing import BridgeKit


class TestStrandsKit(BridgeKit):
    adapter = StrandsAdapter()
