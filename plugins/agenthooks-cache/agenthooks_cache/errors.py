"""The plugin's own error: a bad option names where it came from and its key."""

from __future__ import annotations

from agenthooks import RegistrationError


class CacheConfigError(RegistrationError):
    """An option is invalid: ``CachePlugin: ttl: -1 is not a number of seconds > 0``.

    ``source`` is where the value came from (the class given the argument, or ``environment``
    for a variable read when the plugin is loaded by its entry point), ``key`` the option or
    variable name, ``problem`` what is wrong with it.
    """

    def __init__(self, source: str, key: str, problem: str) -> None:
        self.source = source
        self.key = key
        self.problem = problem
        super().__init__(f"{source}: {key}: {problem}")


__all__ = ["CacheConfigError"]
