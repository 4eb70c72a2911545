"""The base class of every error agenthooks raises itself."""

from __future__ import annotations


class AgentHooksError(Exception):
    """Base class of every error agenthooks raises itself."""


__all__ = ["AgentHooksError"]
