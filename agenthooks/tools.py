"""Tools: ``@tool`` turns a typed function into a ``Tool``; ``Scope`` groups tools.

Arguments are validated by pydantic from the function's signature; the JSON schema given to
the provider comes from the same model. A parameter annotated ``ToolContext`` is injected by
the runtime (memory, run id, the call) and is not part of the schema.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, TypeVar, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from .errors import RegistrationError, ToolValidationError
from .messages import ToolCall

if TYPE_CHECKING:
    from .runtime.memory import Memory

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(slots=True)
class ToolContext:
    """What a tool may ask for by annotating a parameter ``ToolContext``."""

    call: ToolCall
    agent: str
    run_id: str
    branch: str
    memory: Memory | None = None
    session_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    run: Any = field(default=None, repr=False)
    """The run calling the tool (how a sub-agent tool starts its child run); opaque."""


class Tool(Generic[F]):
    """A function the model may call. Calling the ``Tool`` calls the original function.

    Made by ``@tool``; its arguments are those of ``tool``.
    """

    subagent: Any = None
    """The agent this tool delegates to (a sub-agent offered as a tool), else None."""
    handoff: Any = None
    """The agent this tool hands the conversation to (``transfer_to_<name>``), else None."""

    def __init__(
        self,
        fn: F,
        *,
        name: str | None = None,
        description: str | None = None,
        inline: bool = False,
        idempotent: bool = False,
    ) -> None:
        if not callable(fn):
            raise RegistrationError(f"@tool needs a function, got {fn!r}")
        self.fn = fn
        self.__wrapped__ = fn
        self.name = name or fn.__name__
        self.description = (description or inspect.getdoc(fn) or "").strip()
        self.__doc__ = fn.__doc__
        self.is_async = inspect.iscoroutinefunction(fn)
        self.inline = inline
        self.idempotent = idempotent
        """Running the tool twice with the same arguments does no harm: after a crash of a
        stored run between the tool's execution and the commit of its result, the resumed
        run runs it again by itself (a tool that is not idempotent waits for a human)."""
        self.context_param, self.args_model = _arguments_model(fn, self.name)
        self._argument_names = tuple(self.args_model.model_fields)
        self.exact_types = _exact_types(self.args_model)
        """Each parameter's type when every one is a plain ``str``, ``int``, ``float`` or
        ``bool`` (else None): arguments of exactly those types, all given, need no
        validation, which would return them unchanged."""
        self.parameters = self.args_model.model_json_schema()
        self.parameters.pop("title", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function itself, with no validation and no hooks: a tool stays callable."""
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Tool({self.name!r})"

    @cached_property
    def schema(self) -> dict[str, Any]:
        """The OpenAI-style function schema offered to the provider."""
        return self._build_schema()

    def _build_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validate and coerce ``arguments``; raise ``ToolValidationError`` naming the argument.

        Arguments that hold every parameter, each of exactly its plain type
        (``exact_types``), are returned as they are (read only: a tool gets keywords of its
        own): validation could not change them, and skipping it saves 16.8k machine
        instructions per tool call, 4.7 % of a run with one tool call and no hooks
        (``benchmarks/callgrind.py``: 355.5k validated, 338.7k skipped). Anything else goes
        through ``model_validate``."""
        exact = self.exact_types
        if exact is not None and len(arguments) == len(exact):
            for key, kind in exact.items():
                if type(arguments.get(key)) is not kind:
                    break
            else:
                return arguments
        try:
            model = self.args_model.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}"
                for e in exc.errors()
            )
            raise ToolValidationError(
                f"invalid arguments for tool {self.name!r}: {problems}"
            ) from None
        # the fields, in order, as validated (a model argument stays a model); a read per
        # field is 12x cheaper than dict(model), whose lookup of a missing ``keys`` goes
        # through the model's __getattr__
        return {name: getattr(model, name) for name in self._argument_names}

    async def invoke(self, arguments: dict[str, Any], context: ToolContext | None = None) -> Any:
        """Run the function with validated ``arguments``; sync functions run in a worker thread
        unless the tool is ``inline``."""
        if self.inline and not self.is_async:
            result = self.call_inline(arguments, context)
        else:
            kwargs = dict(arguments)
            if self.context_param is not None:
                kwargs[self.context_param] = context
            if self.is_async:
                return await self.fn(**kwargs)
            result = await asyncio.to_thread(self.fn, **kwargs)
        if is_awaitable(result):
            result = await result
        return result

    def call_inline(self, arguments: dict[str, Any], context: ToolContext | None = None) -> Any:
        """Call the function here and now with validated ``arguments``, as ``invoke`` does for
        an ``inline`` sync tool; an awaitable it returns is the caller's to await."""
        if self.context_param is None:
            return self.fn(**arguments)
        return self.fn(**arguments, **{self.context_param: context})


def _arguments_model(fn: Callable[..., Any], name: str) -> tuple[str | None, type[BaseModel]]:
    try:
        hints = get_type_hints(fn, include_extras=True)  # keep Annotated constraints
    except Exception:  # unresolvable forward refs: fall back to Any for each parameter
        hints = {}
    fields: dict[str, Any] = {}
    context_param = None
    for pname, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(pname, Any)
        if annotation is ToolContext:
            context_param = pname
            continue
        default = ... if param.default is param.empty else param.default
        fields[pname] = (annotation, default)
    model = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    return context_param, model


_EXACT = (str, int, float, bool)


def _exact_types(model: type[BaseModel]) -> dict[str, type] | None:
    types: dict[str, type] = {}
    for name, info in model.model_fields.items():
        if info.annotation not in _EXACT or info.metadata:  # a constraint validates more
            return None
        types[name] = info.annotation  # type: ignore[assignment]
    return types


@overload
def tool(fn: F, /) -> Tool[F]: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    inline: bool = False,
    idempotent: bool = False,
) -> Callable[[F], Tool[F]]: ...
def tool(
    fn: F | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    inline: bool = False,
    idempotent: bool = False,
) -> Tool[F] | Callable[[F], Tool[F]]:
    """Turn a typed sync or async function into a ``Tool``.

    Use it bare (``@tool``) or with options (``@tool(name=..., inline=True)``). The
    parameters' annotations become the JSON schema the model sees.

    Args:
        fn: The function, when used bare.
        name: The name the model calls it by; defaults to the function's name.
        description: What the model reads about it; defaults to the function's docstring.
        inline: Run a sync function on the event loop instead of a worker thread (for quick
            functions that do not block).
        idempotent: Running it twice with the same arguments does no harm: a stored run that
            crashed while it ran runs it again on resume (otherwise a human decides).

    Returns:
        The ``Tool`` (bare use), or a decorator that makes one.

    Raises:
        RegistrationError: ``fn`` is not callable.
    """
    if fn is not None:
        return Tool(fn)

    def decorate(f: F) -> Tool[F]:
        return Tool(f, name=name, description=description, inline=inline, idempotent=idempotent)

    return decorate


def as_tool(obj: Tool[Any] | Callable[..., Any]) -> Tool[Any]:
    """A ``Tool`` as it is, or a plain function wrapped as one."""
    return obj if isinstance(obj, Tool) else Tool(obj)


class Scope:
    """A named group of tools that can be registered, unregistered and disabled together.

    Args:
        name: The scope's name.
        tools: ``Tool`` objects, or plain functions (each wrapped as one).
        enabled: Whether the model is offered its tools.

    Raises:
        RegistrationError: Two tools have the same name.
    """

    __slots__ = ("name", "tools", "enabled")

    def __init__(
        self, name: str, tools: Iterable[Tool[Any] | Callable[..., Any]] = (), enabled: bool = True
    ) -> None:
        self.name = name
        self.tools: dict[str, Tool[Any]] = {}
        for t in tools:
            t = as_tool(t)
            if t.name in self.tools:
                raise RegistrationError(f"scope {name!r} has two tools named {t.name!r}")
            self.tools[t.name] = t
        self.enabled = enabled

    def __repr__(self) -> str:
        return f"Scope({self.name!r}, tools={list(self.tools)!r}, enabled={self.enabled})"


_SCALARS = {True: "true", False: "false", None: "null"}
_PLAIN = frozenset({str, int, float, bool, type(None), dict, list, tuple})


def is_awaitable(value: Any) -> bool:
    """``inspect.isawaitable``, answered at once for the plain values tools mostly return."""
    return type(value) not in _PLAIN and inspect.isawaitable(value)


def serialize_result(result: Any) -> str:
    """The text of a tool message: strings as they are, anything else as JSON."""
    kind = type(result)
    if kind is str:
        return result  # type: ignore[no-any-return]
    if kind is int:
        return str(result)
    if kind is bool or result is None:
        return _SCALARS[result]
    if isinstance(result, str):
        return result
    if isinstance(result, BaseModel):
        return result.model_dump_json()
    try:
        return json.dumps(result, default=_json_default, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(result)


def _json_default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


__all__ = ["Scope", "Tool", "ToolContext", "as_tool", "is_awaitable", "serialize_result", "tool"]
