"""The error a bridge raises for tool arguments the framework's own pydantic schema rejects,
worded as on agenthooks' runtime, so a handler and the model read the same text whichever
framework runs the tool."""

from __future__ import annotations

from pydantic import ValidationError

from ..errors import ToolValidationError


def invalid_arguments(tool: str, error: ValidationError) -> ToolValidationError:
    """The ``ToolValidationError`` for ``error``: the tool's name, then each problem as
    ``location: message`` (``(arguments)`` where the whole object is wrong), ``; ``-separated.

    Args:
        tool: The tool's name as the model calls it.
        error: What the framework's pydantic schema raised for the arguments.
    """
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}" for e in error.errors()
    )
    return ToolValidationError(f"invalid arguments for tool {tool!r}: {problems}")


__all__ = ["invalid_arguments"]
