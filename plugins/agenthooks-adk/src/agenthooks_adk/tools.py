"""An ADK tool as hooks see it (``ctx.tool``): its declaration's name, description and JSON
schema, and its arguments validated and coerced the way the tool itself will take them."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pydantic
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.function_tool import FunctionTool

from agenthooks.bridges import BridgeTool
from agenthooks.errors import ToolValidationError

from .translate import function_spec

# parameters ADK fills itself, never the model
_INJECTED = frozenset({"tool_context", "input_stream"})


def bridge_tool(tool: BaseTool) -> BridgeTool:
    """``tool`` described for hooks, validating with its own declaration: a
    ``FunctionTool``'s Python signature (``"true"`` for a ``bool`` becomes ``True``, a dict
    for a Pydantic model becomes the model, as ``FunctionTool`` converts them), any other
    tool's declared JSON schema."""
    declaration = _declaration(tool)
    if declaration is not None:
        function = function_spec(declaration)["function"]
        description, parameters = function["description"], function["parameters"]
    else:
        description, parameters = tool.description, {"type": "object", "properties": {}}
    if isinstance(tool, FunctionTool):
        validate = _signature_validator(tool)
    elif declaration is not None:
        validate = _schema_validator(tool.name, parameters)
    else:
        validate = None
    return BridgeTool(tool.name, description or "", parameters, validate=validate, original=tool)


def _declaration(tool: BaseTool) -> Any:
    # the method every ADK tool implements to declare itself to the model (private, and listed
    # in the README's "Framework internals"); ADK calls it the same way, so what it raises
    # reaches the caller as it would without the bridge
    return tool._get_declaration()


def _signature_validator(tool: FunctionTool) -> Any:
    func = tool.func
    try:
        signature = inspect.signature(func)
        hints = typing.get_type_hints(func)
    except (TypeError, ValueError, NameError):
        return None
    adapters: dict[str, pydantic.TypeAdapter[Any]] = {}
    required: list[str] = []
    defaults: dict[str, Any] = {}
    for name, param in signature.parameters.items():
        if name in _INJECTED or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(name, param.annotation)
        if param.default is param.empty:
            required.append(name)
        else:
            defaults[name] = param.default
        if annotation is param.empty or annotation is None:
            continue
        try:
            adapters[name] = pydantic.TypeAdapter(annotation)
        except (TypeError, NameError, pydantic.PydanticUserError):
            continue  # an annotation pydantic cannot take: FunctionTool passes it as it is

    def validate(arguments: dict[str, Any]) -> dict[str, Any]:
        missing = [name for name in required if name not in arguments]
        if missing:
            raise ToolValidationError(
                f"invalid arguments for tool {tool.name!r}: missing {', '.join(missing)}"
            )
        out = dict(arguments)
        for name, value in arguments.items():
            adapter = adapters.get(name)
            if adapter is None:
                continue
            try:
                out[name] = adapter.validate_python(value)
            except pydantic.ValidationError as exc:
                problem = exc.errors()[0]["msg"] if exc.errors() else str(exc)
                raise ToolValidationError(
                    f"invalid arguments for tool {tool.name!r}: {name}: {problem}"
                ) from exc
        # the values the body runs with, as on our runtime: a default is judged too
        for name, default in defaults.items():
            out.setdefault(name, default)
        return out

    return validate


def _schema_validator(name: str, schema: dict[str, Any]) -> Any:
    try:
        validator = jsonschema.Draft202012Validator(schema)
    except jsonschema.SchemaError:
        return None

    def validate(arguments: dict[str, Any]) -> dict[str, Any]:
        error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
        if error is not None:
            where = ".".join(str(p) for p in error.absolute_path) or "arguments"
            raise ToolValidationError(
                f"invalid arguments for tool {name!r}: {where}: {error.message}"
            )
        return dict(arguments)

    return validate


__all__ = ["bridge_tool"]
