"""The plugin's own error: a bad option names where it came from and its key."""

from __future__ import annotations

from agenthooks import ConfigError


class RetryConfigError(ConfigError):
    """An option is invalid: ``RetryMiddleware: attempts: 0 is not a whole number >= 1``.

    ``source`` is where the value came from (the class given the argument, or ``environment``
    for a variable read when the plugin is loaded by its entry point), ``key`` the option or
    variable name, ``problem`` what is wrong with it.
    """

    def __init__(self, source: str, key: str, problem: str) -> None:
        super().__init__(problem, source=source, key=key)


__all__ = ["RetryConfigError"]
