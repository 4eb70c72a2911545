"""Model providers: the protocol, the scripted default and the OpenAI-compatible client."""

from .base import Provider, StreamDelta, StreamItem
from .openai import OpenAIChatProvider
from .scripted import ScriptedProvider

__all__ = ["OpenAIChatProvider", "Provider", "ScriptedProvider", "StreamDelta", "StreamItem"]
