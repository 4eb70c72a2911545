"""The limits plugin's own errors."""

from __future__ import annotations

from agenthooks import ConfigError


class LimitsConfigError(ConfigError):
    """Limits are configured wrongly: ``limits.toml: max_tokens.ladder[1].action: 'halt' is not
    one of warn, downgrade, deny, stop``. ``source`` is the file (``None`` in code), ``key``
    the dotted path of the bad value, ``line`` a TOML syntax error's line."""


__all__ = ["LimitsConfigError"]
