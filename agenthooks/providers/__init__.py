"""Model providers: the protocol, the scripted default, the OpenAI-compatible and the
Anthropic clients."""

from .anthropic import AnthropicProvider
from .base import Provider, StreamDelta, StreamItem
from .openai import OpenAIChatProvider
from .scripted import ScriptedProvider

__all__ = [
    "AnthropicProvider",
    "OpenAIChatProvider",
    "Provider",
    "ScriptedProvider",
    "StreamDelta",
    "StreamItem",
]
