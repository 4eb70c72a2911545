"""The bridge conformance kit on Pydantic AI: the same conversations as on our runtime."""

from __future__ import annotations

from pydantic_ai_kit import PydanticAIAdapter

from agenthooks.testing import BridgeKit


class TestPydanticAIKit(BridgeKit):
    adapter = PydanticAIAdapter()
