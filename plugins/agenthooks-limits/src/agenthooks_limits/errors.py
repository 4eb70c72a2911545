"""The limits plugin's own errors."""

from __future__ import annotations

from agenthooks import AgentHooksError


class LimitsConfigError(AgentHooksError, ValueError):
    """Limits are configured wrongly: ``limits.toml: max_tokens.ladder[1].action: 'halt' is not
    one of warn, downgrade, deny, stop``. ``source`` is the file (``None`` in code), ``key``
    the dotted path of the bad value, ``line`` a TOML syntax error's line."""

    def __init__(self, problem: str, *, source: str | None = None, key: str | None = None,
                 line: int | None = None, column: int | None = None) -> None:
        self.problem = problem
        self.source = source
        self.key = key
        self.line = line
        self.column = column
        where = (source or "") + (f":{line}" if line is not None else "") + (
            f":{column}" if column is not None else "")
        super().__init__(": ".join([p for p in (where, key) if p] + [problem]))


__all__ = ["LimitsConfigError"]
