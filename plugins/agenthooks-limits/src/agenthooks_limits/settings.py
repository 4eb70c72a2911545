"""The plugin's options, declared once: the environment names the TOML file of limits
(``AGENTHOOKS_LIMITS_CONFIG``); the limits themselves are ``Limits`` arguments or that file.

A bad or unknown variable is the ``PluginOptionError`` every plugin's options raise; limits
that do not load (a bad file or argument) are a ``LimitsConfigError`` naming the file and the
key. Both are ``agenthooks.ConfigError``s, and from the environment neither fails open."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic_settings import SettingsConfigDict

from agenthooks import ConfigError
from agenthooks.plugins import PluginSettings

LIMITS_ENV = "AGENTHOOKS_LIMITS_CONFIG"
"""The environment variable naming the TOML file ``Limits.from_env()`` reads."""


class LimitsConfigError(ConfigError):
    """Limits are configured wrongly: ``limits.toml: max_tokens.ladder[1].action: 'halt' is not
    one of warn, downgrade, deny, stop``. ``source`` is the file (``None`` in code, or
    ``environment``), ``key`` the dotted path of the bad value (or the variable), ``line`` a
    TOML syntax error's line."""


class LimitsSettings(PluginSettings):
    """``config``: the TOML file of limits (``AGENTHOOKS_LIMITS_CONFIG``); unset: no limits."""

    plugin: ClassVar[str] = "limits"
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_LIMITS_")

    config: Path | None = None


__all__ = ["LIMITS_ENV", "LimitsConfigError", "LimitsSettings"]
