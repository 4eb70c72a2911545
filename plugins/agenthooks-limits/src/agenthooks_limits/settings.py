"""The plugin's options, declared once: the environment names the TOML file of limits
(``AGENTHOOKS_LIMITS_CONFIG``); the limits themselves are ``Limits`` arguments or that file."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic_settings import SettingsConfigDict

from agenthooks import ConfigError
from agenthooks.plugins import PluginOptionError, PluginSettings

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

    @classmethod
    def read(cls) -> LimitsSettings:
        """``from_env()``, its errors as ``LimitsConfigError`` (what fails the plugin closed).

        Raises:
            LimitsConfigError: Naming the variable that is unknown or bad.
        """
        try:
            return cls.from_env()
        except PluginOptionError as exc:
            raise LimitsConfigError(exc.problem, source=exc.source, key=exc.key) from None


__all__ = ["LIMITS_ENV", "LimitsConfigError", "LimitsSettings"]
