"""An MCP server's tool as an agenthooks ``Tool``: the server's name, description and input
schema, arguments checked against that schema, and calls that go to the server."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from jsonschema import validators  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

from ..errors import ToolValidationError
from ..tools import Tool, ToolContext

if TYPE_CHECKING:
    from mcp.types import CallToolResult
    from mcp.types import Tool as MCPToolSpec

    from .server import BaseMCPServer

Caller = Callable[..., Awaitable[str]]

_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


class MCPTool(Tool[Caller]):
    """A tool listed by an MCP server. ``invoke`` sends ``tools/call`` to ``server`` and
    returns the text of its result; an error result raises ``MCPToolError``."""

    def __init__(self, server: BaseMCPServer, spec: MCPToolSpec) -> None:
        # no Tool.__init__: there is no Python signature to read, the schema is the server's
        self.server = server
        self.spec = spec
        self.name = spec.name
        self.description = (spec.description or "").strip()
        self.__doc__ = spec.description
        self.is_async = True
        self.inline = False
        self.context_param = None
        self.parameters = dict(spec.input_schema or _OBJECT)
        self._schema = None
        self._validator = _validator(self.parameters)

        async def call(**arguments: Any) -> str:
            return await server.call_tool(spec.name, arguments)

        call.__name__ = call.__qualname__ = spec.name
        self.fn = call
        self.__wrapped__ = call

    def __repr__(self) -> str:
        return f"MCPTool({self.name!r}, server={self.server.display!r})"

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Check ``arguments`` against the server's input schema; ``ToolValidationError``
        naming each wrong argument. The server fills in defaults itself."""
        if self._validator is None:
            return dict(arguments)
        errors = sorted(self._validator.iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e.path)}: {e.message}" if e.path else e.message
                for e in errors
            )
            raise ToolValidationError(f"invalid arguments for tool {self.name!r}: {problems}")
        return dict(arguments)

    async def invoke(self, arguments: dict[str, Any], context: ToolContext | None = None) -> Any:
        """Call the tool on its server; the text of the result."""
        return await self.server.call_tool(self.name, arguments)


def _validator(schema: dict[str, Any]) -> Any:
    """A JSON Schema validator for ``schema``, or None when the schema itself is invalid (then
    the server alone judges the arguments)."""
    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError:
        return None
    return cls(schema)


def result_text(result: CallToolResult) -> str:
    """What the model reads of a ``tools/call`` result: its text blocks as they are, any other
    block (image, audio, resource) as JSON, one block a line; the structured content as JSON
    when there is no block."""
    parts = []
    for block in result.content:
        if block.type == "text":
            parts.append(block.text)
        else:
            parts.append(
                json.dumps(block.model_dump(mode="json", by_alias=True, exclude_none=True))
            )
    if not parts and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "\n".join(parts)


__all__ = ["MCPTool", "result_text"]
