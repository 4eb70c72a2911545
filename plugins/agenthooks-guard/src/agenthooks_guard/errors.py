"""The guard's own errors: a bad policy names its file, its key (or line) and the fix."""

from __future__ import annotations

from agenthooks import AgentHooksError, ConfigError


class GuardConfigError(ConfigError):
    """A policy is invalid: ``policy.toml: rules[2].action: 'alow' is not one of allow, deny, ask``.

    ``source`` is the file (or ``None`` for a policy built in code), ``key`` the dotted path of
    the bad value (``rules[2].action``, 0-based indexes), ``line`` / ``column`` the position of
    a TOML syntax error, ``problem`` what is wrong.
    """


class PolicyEvaluationError(AgentHooksError):
    """A rule could not be evaluated against a call (``args.amount`` is not a number). Raised
    inside the guard, so the bus counts it as a ``Deny`` with this text: fail closed."""


__all__ = ["GuardConfigError", "PolicyEvaluationError"]
