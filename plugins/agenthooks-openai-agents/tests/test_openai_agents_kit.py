"""The bridge conformance kit on the OpenAI Agents SDK: the same conversations as on our
runtime."""

from __future__ import annotations

from openai_agents_kit import OpenAIAgentsAdapter

from agenthooks.testing import BridgeKit


class TestOpenAIAgentsKit(BridgeKit):
    adapter = OpenAIAgentsAdapter()
