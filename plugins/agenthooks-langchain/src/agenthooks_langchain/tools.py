"""A LangChain tool as hooks see it (``ctx.tool``), its arguments validated with the tool's
own schema, so a guard judges the values the tool body will get."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ValidationError

from agenthooks.bridges import BridgeTool, invalid_arguments

from .translate import tool_schema


def bridge_tool(tool: BaseTool) -> BridgeTool:
    """``tool`` described for hooks: its name, description, the JSON schema the model sees,
    and a validator that coerces arguments as LangChain will before the body runs."""
    function = tool_schema(tool)["function"]
    schema = tool.tool_call_schema

    def validate(arguments: dict[str, Any]) -> dict[str, Any]:
        if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            return dict(arguments)  # a JSON-schema tool: LangChain passes its arguments as given
        try:
            model = schema.model_validate(arguments)
        except ValidationError as exc:
            raise invalid_arguments(tool.name, exc) from exc
        # what BaseTool._parse_input hands the body: the validated value of each argument given
        return {name: getattr(model, name) for name in model.model_dump() if name in arguments}

    return BridgeTool(
        tool.name,
        function.get("description", ""),
        function.get("parameters") or {"type": "object", "properties": {}},
        validate=validate,
        original=tool,
    )


__all__ = ["bridge_tool"]
