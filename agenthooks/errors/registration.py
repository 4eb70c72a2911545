"""Errors of registering hooks, matchers, middleware and plugins, and of configuring them."""

from __future__ import annotations

from .base import AgentHooksError


class RegistrationError(AgentHooksError, ValueError):
    """A hook, matcher, middleware or plugin was registered wrongly."""


class ConfigError(RegistrationError):
    """A plugin or agent is configured wrongly; the message names where and which key:
    ``policy.toml:3: rules[2].action: 'alow' is not one of allow, deny, ask``.

    ``source`` is the file, class or ``environment`` the value came from, ``key`` the option,
    variable or dotted path, ``line`` / ``column`` the position of a syntax error, ``problem``
    what is wrong.
    """

    def __init__(
        self,
        problem: str,
        *,
        source: str | None = None,
        key: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.problem = problem
        self.source = source
        self.key = key
        self.line = line
        self.column = column
        where = (
            (source or "")
            + (f":{line}" if line is not None else "")
            + (f":{column}" if line is not None and column is not None else "")
        )
        super().__init__(": ".join([p for p in (where, key) if p] + [problem]))


class UnknownEventError(RegistrationError, KeyError):
    """An event name that is neither canonical nor a known alias."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        self.name = name
        self.suggestions = suggestions
        hint = f"; did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"unknown event {name!r}{hint}")

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class BadReturnError(AgentHooksError, TypeError):
    """A handler returned something its event does not accept."""


class AgentHooksWarning(UserWarning):
    """A likely mistake that agenthooks reports without stopping: filter it like any Python
    warning (``-W error::agenthooks.errors.AgentHooksWarning`` makes it raise)."""


class IgnoredReturnWarning(AgentHooksWarning):
    """An observer handler returned something other than ``None``: observers' returns are
    ignored, so it was most likely meant for an interceptor event. Given once per handler, at
    the handler's own file and line."""


__all__ = [
    "AgentHooksWarning",
    "BadReturnError",
    "ConfigError",
    "IgnoredReturnWarning",
    "RegistrationError",
    "UnknownEventError",
]
