"""The plugin's options, declared once: in code (``AgentHooksSpec([...], mode=...)``) and from
the ``AGENTHOOKS_AGENT_HOOKS_SPEC_*`` variables (``AgentHooksSpec.from_env([...])``) alike.

The interceptors themselves are code: a spec without them denies every emission, which is why
the distribution registers no entry point."""

from __future__ import annotations

from typing import Any, ClassVar

from agent_hooks import EnforcementMode
from agent_hooks.emitter import DEFAULT_TIMEOUT
from pydantic import Field, field_validator
from pydantic_settings import SettingsConfigDict

from agenthooks.plugins import PluginSettings


class SpecSettings(PluginSettings):
    """``mode`` (``enforce`` / ``evaluate_only``), ``timeout`` (seconds per awaitable
    ``intercept`` / ``resolve``; ``None``, or ``none`` in the environment: unbounded) and
    ``incremental_output`` (mediate streamed model calls segment by segment)."""

    plugin: ClassVar[str] = "agent-hooks-spec"
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_AGENT_HOOKS_SPEC_")

    mode: EnforcementMode = EnforcementMode.ENFORCE
    timeout: float | None = Field(DEFAULT_TIMEOUT, gt=0)
    incremental_output: bool = False

    @field_validator("timeout", mode="before")
    @classmethod
    def _none_in_words(cls, value: Any) -> Any:
        # the environment cannot say None: AGENTHOOKS_AGENT_HOOKS_SPEC_TIMEOUT=none
        return None if isinstance(value, str) and value.strip().lower() == "none" else value


__all__ = ["SpecSettings"]
