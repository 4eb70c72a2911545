"""Limits from TOML: a file, a string, or the file ``AGENTHOOKS_LIMITS_CONFIG`` names.

Every problem is a ``LimitsConfigError`` naming the file and the key (``limits.toml:
tools.search.rate.per: expected a positive number, got int 0``) or a syntax error's line.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .caps import Cap, RateLimit, as_price
from .settings import LIMITS_ENV, LimitsConfigError, LimitsSettings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

_TOP = (
    "max_turns",
    "max_tool_calls",
    "max_tokens",
    "max_cost",
    "downgrade",
    "deny_message",
    "tools",
    "pricing",
    "budget",
    "store",
)
_BUDGET = ("max_turns", "max_tool_calls", "max_tokens", "max_cost", "tools")
_STORE = ("url", "prefix")
_TOOL = ("max_calls", "rate")
_CAP = ("limit", "action", "ladder")
_RATE = ("calls", "per", "shared", "action", "ladder")
_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def limits_from_env() -> dict[str, Any] | None:
    """The ``Limits`` arguments in the file ``AGENTHOOKS_LIMITS_CONFIG`` names (None when the
    variable is unset or empty).

    Raises:
        PluginOptionError: The variable is unknown (it names the closest) or bad.
        LimitsConfigError: The file does not load.
    """
    path = LimitsSettings.from_env().config
    return load_limits(path) if path is not None else None


def load_limits(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``Limits`` keyword arguments in the TOML file ``path``."""
    source = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LimitsConfigError("limits file not found", source=source) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LimitsConfigError(f"cannot read the limits file: {exc}", source=source) from None
    return parse_limits(text, source=source)


def parse_limits(text: str, *, source: str = "<limits>") -> dict[str, Any]:
    """The ``Limits`` keyword arguments in the TOML ``text``:
    ``Limits(**parse_limits(text))``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _POSITION.search(message)
        if found:
            line, column = int(found.group(1)), int(found.group(2))
            message = message[: found.start()]
        else:  # "(at end of document)": the last line
            line, column = text.count("\n") + (0 if text.endswith("\n") else 1), None
            message = message.replace(" (at end of document)", " at the end of the document")
        raise LimitsConfigError(
            f"invalid TOML: {message}", source=source, line=line, column=column
        ) from None
    try:
        return _arguments(data)
    except LimitsConfigError as exc:
        raise LimitsConfigError(exc.problem, source=source, key=exc.key) from None


def _table(value: Any, known: tuple[str, ...], key: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise LimitsConfigError(
            f"expected a table, got {type(value).__name__} {value!r}", key=key or None
        )
    for name in value:
        if name not in known:
            close = difflib.get_close_matches(str(name), known, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}"
            raise LimitsConfigError(
                f"unknown key; {hint}", key=f"{key}.{name}" if key else str(name)
            )
    return value


def _cap(value: Any, key: str) -> Cap:
    if isinstance(value, Mapping):
        _table(value, _CAP, key)
        if "limit" not in value:
            raise LimitsConfigError("missing", key=f"{key}.limit")
        return Cap(value["limit"], value.get("action"), ladder=value.get("ladder"), key=key)
    return Cap(value, key=key)


def _budget(data: Mapping[str, Any]) -> dict[str, Any]:
    """The ``[budget]`` table: shared caps with the top level's keys."""
    out: dict[str, Any] = {}
    for name in ("max_turns", "max_tool_calls", "max_tokens", "max_cost"):
        if name in data:
            out[name] = _cap(data[name], f"budget.{name}")
    tools = data.get("tools", {})
    if not isinstance(tools, Mapping):
        raise LimitsConfigError(
            f"expected a table of tools, got {type(tools).__name__}", key="budget.tools"
        )
    per_tool = {}
    for tool, spec in tools.items():
        _table(spec, ("max_calls",), f"budget.tools.{tool}")
        if "max_calls" in spec:
            per_tool[tool] = _cap(spec["max_calls"], f"budget.tools.{tool}.max_calls")
    if per_tool:
        out["max_calls_per_tool"] = per_tool
    return out


def _arguments(data: Mapping[str, Any]) -> dict[str, Any]:
    _table(data, _TOP, "")
    out: dict[str, Any] = {}
    for name in ("max_turns", "max_tool_calls", "max_tokens", "max_cost"):
        if name in data:
            out[name] = _cap(data[name], name)
    per_tool: dict[str, Cap] = {}
    rates: dict[str, RateLimit] = {}
    tools = data.get("tools", {})
    if not isinstance(tools, Mapping):
        raise LimitsConfigError(
            f"expected a table of tools, got {type(tools).__name__}", key="tools"
        )
    for tool, spec in tools.items():
        key = f"tools.{tool}"
        _table(spec, _TOOL, key)
        if "max_calls" in spec:
            per_tool[tool] = _cap(spec["max_calls"], f"{key}.max_calls")
        if "rate" in spec:
            rate = _table(spec["rate"], _RATE, f"{key}.rate")
            for required in ("calls", "per"):
                if required not in rate:
                    raise LimitsConfigError("missing", key=f"{key}.rate.{required}")
            rates[tool] = RateLimit(
                rate["calls"],
                rate["per"],
                shared=rate.get("shared", False),
                action=rate.get("action"),
                ladder=rate.get("ladder"),
                key=f"{key}.rate",
            )
    if per_tool:
        out["max_calls_per_tool"] = per_tool
    if rates:
        out["rate_limits"] = rates
    if "pricing" in data:
        pricing = data["pricing"]
        if not isinstance(pricing, Mapping):
            raise LimitsConfigError(
                f"expected a table, got {type(pricing).__name__}", key="pricing"
            )
        out["pricing"] = {model: as_price(p, f"pricing.{model}") for model, p in pricing.items()}
    if "downgrade" in data:
        target = data["downgrade"]
        if not isinstance(target, (str, Mapping)) or (
            isinstance(target, Mapping) and not all(isinstance(v, str) for v in target.values())
        ):
            raise LimitsConfigError(
                f"expected a model name or a table current = cheaper, got {target!r}",
                key="downgrade",
            )
        out["downgrade"] = target
    if "budget" in data:
        out["budget"] = _budget(_table(data["budget"], _BUDGET, "budget"))
    if "store" in data:
        spec = _table(data["store"], _STORE, "store")
        if not isinstance(spec.get("url"), str):
            raise LimitsConfigError("expected a Redis URL string", key="store.url")
        prefix = spec.get("prefix", "agenthooks:limits:")
        if not isinstance(prefix, str):
            raise LimitsConfigError("expected a string", key="store.prefix")
        from .redis_store import RedisStore

        out["store"] = RedisStore(spec["url"], prefix=prefix)
    if "deny_message" in data:
        if not isinstance(data["deny_message"], str):
            raise LimitsConfigError("expected a string", key="deny_message")
        out["deny_message"] = data["deny_message"]
    from .plugin import Limits

    Limits(**out, from_env=False)  # what only the whole can check: a downgrade's target
    return out


__all__ = ["LIMITS_ENV", "limits_from_env", "load_limits", "parse_limits"]
