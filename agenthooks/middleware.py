"""Middleware and the two stacks (provider calls, tool calls).

A middleware offers ``before`` / ``after`` / ``on_error`` phases or a full
``wrap(ctx, call_next)``. The phases are sugar over ``wrap``: one mechanism. A stack is built
with one ``reversed()`` loop, first added outermost, the call innermost; ``before`` phases
therefore run in stack order and ``after`` / ``on_error`` in reverse.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, ClassVar

CallNext = Callable[[Any], Awaitable[Any]]
Wrap = Callable[[Any, CallNext], Awaitable[Any]]


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class Middleware:
    """Base class of middleware. Override any of the phases, or ``wrap`` for full control.

    - ``before(ctx)`` returns ``None`` to go on, or a value that short-circuits the call (the
      inner layers and the call are skipped; outer layers still see the value).
    - ``after(ctx, value)`` returns ``None`` (unchanged) or a replacement value.
    - ``on_error(ctx, exc)`` returns ``None`` (re-raise) or a value that recovers.
    - ``async wrap(ctx, call_next)``: ``await call_next(ctx)`` returns the call's value.

    ``stacks`` says where it applies: ``("provider",)``, ``("tool",)`` or both (default).
    On the provider stack ``ctx`` is the ``pre_request`` context and the value a
    ``ProviderResponse``; on the tool stack ``ctx`` is the ``pre_tool_call`` context and the
    value the tool's result. Phases may be sync or async.
    """

    stacks: ClassVar[tuple[str, ...]] = ("provider", "tool")
    name: ClassVar[str | None] = None

    before: Callable[..., Any] | None = None
    after: Callable[..., Any] | None = None
    on_error: Callable[..., Any] | None = None

    async def wrap(self, ctx: Any, call_next: CallNext) -> Any:
        """Run the phases around ``call_next``; override to take full control."""
        if self.before is not None:
            early = await _maybe(self.before(ctx))
            if early is not None:
                return early
        try:
            value = await call_next(ctx)
        except Exception as exc:
            if self.on_error is None:
                raise
            value = await _maybe(self.on_error(ctx, exc))
            if value is None:
                raise
        if self.after is not None:
            replaced = await _maybe(self.after(ctx, value))
            if replaced is not None:
                return replaced
        return value

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Stack:
    """An ordered, immutable list of middleware; ``compose`` builds the onion around a call.

    Rebuilt (a new ``Stack``) whenever the set changes; a call composes the snapshot it got.

    Args:
        layers: The middleware, the first outermost.
    """

    __slots__ = ("_wraps", "layers")

    def __init__(self, layers: Iterable[Middleware] = ()) -> None:
        self.layers: tuple[Middleware, ...] = tuple(layers)
        # innermost first, bound once: compose runs per call
        self._wraps = tuple(layer.wrap for layer in reversed(self.layers))

    def __add__(self, other: Stack | Iterable[Middleware]) -> Stack:
        more = other.layers if isinstance(other, Stack) else tuple(other)
        return Stack(self.layers + more) if more else self

    def __bool__(self) -> bool:
        return bool(self.layers)

    def __len__(self) -> int:
        return len(self.layers)

    def compose(self, endpoint: CallNext) -> CallNext:
        """The call wrapped in every layer, the first layer outermost."""
        app = endpoint
        for wrap in self._wraps:
            # the layer's ``wrap`` with the next call bound: each layer calls the one inside it
            def link(ctx: Any, wrap: Wrap = wrap, call_next: CallNext = app) -> Awaitable[Any]:
                return wrap(ctx, call_next)

            app = link
        return app


__all__ = ["CallNext", "Middleware", "Stack"]
