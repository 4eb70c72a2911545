"""The bridge conformance kit on LangChain: the same conversations as on our runtime."""

from __future__ import annotations

from langchain_kit import LangChainAdapter

from agenthooks.testing import BridgeKit


class TestLangChainKit(BridgeKit):
    adapter = LangChainAdapter()
