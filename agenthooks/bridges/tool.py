"""A bridged framework's tool as hooks see it (``ctx.tool``): its name, description and JSON
schema, validated with the framework's own schema."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ToolValidationError
from ..tools import Tool

Validate = Callable[[dict[str, Any]], dict[str, Any]]


class BridgeTool(Tool[Any]):
    """A tool another framework owns, described for hooks.

    Args:
        name: The tool's name as the model calls it.
        description: What the model is told the tool does.
        parameters: The JSON schema of the arguments.
        validate: Validates and coerces arguments with the framework's own schema, as the
            framework will before the tool body runs (so a guard judges the values that will
            run: ``"true"`` for a ``bool`` is judged as ``True``). Raises
            ``ToolValidationError`` naming the argument; any other exception it raises is
            reported as one. ``None`` takes the arguments as they are.
        original: The framework's own tool object (``ctx.tool.original``).
        idempotent: Running the tool twice with the same arguments does no harm.
    """

    def __init__(
        self,
        name: str,
        description: str = "",
        parameters: dict[str, Any] | None = None,
        *,
        validate: Validate | None = None,
        original: Any = None,
        idempotent: bool = False,
    ) -> None:
        # Tool.__init__ reads a Python function's signature; here the framework owns the
        # function, its schema and its validation, so the fields are set from what it says
        self.fn = original
        self.name = name
        self.description = description
        self.parameters = dict(parameters or {"type": "object", "properties": {}})
        self.is_async = False
        self.inline = False
        self.idempotent = idempotent
        self.context_param = None
        self.exact_types = None
        self.original = original
        self._validate = validate

    def __repr__(self) -> str:
        return f"BridgeTool({self.name!r})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Refuse to run: the bridged framework runs its own tool, agenthooks only describes it.

        Raises:
            TypeError: Always, naming the tool.
        """
        raise TypeError(f"{self!r} describes a tool the bridged framework runs; call that tool")

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validate and coerce ``arguments`` with the framework's schema.

        Raises:
            ToolValidationError: Naming the tool and what was wrong.
        """
        if self._validate is None:
            return dict(arguments)
        try:
            return self._validate(arguments)
        except ToolValidationError:
            raise
        except Exception as exc:
            raise ToolValidationError(
                f"invalid arguments for tool {self.name!r}: {type(exc).__name__}: {exc}"
            ) from exc


__all__ = ["BridgeTool", "Validate"]
