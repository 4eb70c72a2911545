"""A Strands tool described for hooks (``ctx.tool``), validated with its own schema."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from pydantic import BaseModel, ValidationError

from agenthooks.bridges import BridgeTool, invalid_arguments
from agenthooks.errors import ToolValidationError

# jsonschema ships no type stubs; what is used of it here is one validator class
jsonschema: Any = import_module("jsonschema")


def bridge_tool(tool: Any) -> BridgeTool:
    """``tool`` (a Strands ``AgentTool``) as a ``BridgeTool``: its name, description and JSON
    schema, and a validator that does what Strands does before the body runs.

    A ``@tool`` function is validated and coerced by the pydantic model Strands built from its
    signature (``"true"`` for a ``bool`` becomes ``True``); any other tool (an MCP tool, a
    module tool) is checked against its JSON schema, which is all Strands knows of it.
    """
    spec = tool.tool_spec
    schema = dict(spec.get("inputSchema", {}).get("json", {}) or {})
    model = _input_model(tool)
    name = str(spec["name"])
    if model is not None:

        def validate(arguments: dict[str, Any]) -> dict[str, Any]:
            try:
                return model.model_validate(arguments).model_dump()
            except ValidationError as exc:
                raise invalid_arguments(name, exc) from None

    else:
        checker = jsonschema.Draft202012Validator(schema)

        def validate(arguments: dict[str, Any]) -> dict[str, Any]:
            errors = sorted(checker.iter_errors(arguments), key=lambda e: list(e.path))
            if errors:
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in e.path) or '(arguments)'}: {e.message}"
                    for e in errors
                )
                raise ToolValidationError(f"invalid arguments for tool {name!r}: {problems}")
            return arguments

    return BridgeTool(
        name,
        str(spec.get("description", "")),
        schema,
        validate=validate,
        original=tool,
    )


def _input_model(tool: Any) -> type[BaseModel] | None:
    # Strands keeps the pydantic model of a @tool function's signature on its metadata: the
    # very model its stream() validates with
    metadata = getattr(tool, "_metadata", None)
    model = getattr(metadata, "input_model", None)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model
    return None


__all__ = ["bridge_tool"]
