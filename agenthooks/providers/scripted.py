"""The embedded deterministic provider: replays scripted responses in order.

It is the default for demos and tests and the provider the benchmarks run against, so its
hot path does no pydantic validation: items are checked with ``isinstance`` once, at
construction, and a response is copied only when it needs tool-call ids filled in.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TypeAlias, cast

from ..errors import ScriptExhausted
from ..messages import ProviderRequest, ProviderResponse, ToolCall
from .base import StreamDelta, StreamItem

ScriptResult: TypeAlias = ProviderResponse | str
"""What a scripted callable returns: a response, or a string (its content)."""

ScriptCallable: TypeAlias = Callable[[ProviderRequest], ScriptResult | Awaitable[ScriptResult]]
"""A callable script item: ``request -> ProviderResponse | str``, sync or async."""

ScriptItem: TypeAlias = (
    ProviderResponse | str | BaseException | type[BaseException] | ScriptCallable
)
"""One scripted call: a response, a string, an exception to raise, or a callable."""

# A word with the whitespace around it, or a run of whitespace alone: joining the pieces
# gives back the content exactly.
_WORDS = re.compile(r"\s*\S+\s*|\s+")


class ScriptedProvider:
    """A provider that answers from a script, for demos, tests and benchmarks.

    Running out of items raises ``ScriptExhausted``. Tool calls with an empty ``id`` get
    deterministic ids ``call_1``, ``call_2``, ... counted across the provider's life.
    ``stream()`` yields the content as ``StreamDelta`` pieces (words with their whitespace,
    or ``chunk_size``-character pieces), then the ``ProviderResponse``.

    Args:
        responses: A list (any iterable but a string) whose items are, one per call:

            - a ``ProviderResponse``, returned as is;
            - a ``str``, shorthand for ``ProviderResponse(content=...)``;
            - an exception instance (or class), raised by that call (to exercise error
              recovery);
            - a callable ``request -> ProviderResponse | str``, sync or async, called with
              the request.

            Or a single callable, used for every call (the script never runs out).
        name: The provider's name in events and errors.
        chunk_size: Stream the content in pieces of this many characters instead of words.
        record: Keep a copy of every request received, the failing ones included, in
            ``requests``; ``False`` for benchmarks that make millions of calls.

    Raises:
        TypeError: ``responses`` is a single response instead of a list, or holds an item
            of none of the kinds above.
        ValueError: ``chunk_size`` is less than 1.
    """

    __slots__ = (
        "_call_ids",
        "_calls",
        "_each",
        "_index",
        "_script",
        "chunk_size",
        "name",
        "record",
        "requests",
    )

    def __init__(
        self,
        responses: Iterable[ScriptItem] | ScriptCallable,
        *,
        name: str = "scripted",
        chunk_size: int | None = None,
        record: bool = True,
    ) -> None:
        if chunk_size is not None and chunk_size < 1:
            raise ValueError(f"ScriptedProvider chunk_size must be >= 1, got {chunk_size!r}")
        self.name = name
        self.chunk_size = chunk_size
        self.record = record
        self.requests: list[ProviderRequest] = []  # a copy of each request received, in order
        self._each: ScriptCallable | None = None
        self._script: list[ScriptItem] = []
        self._index = 0
        self._calls = 0
        self._call_ids = 0
        if isinstance(responses, (str, ProviderResponse, BaseException)):
            raise TypeError(
                f"ScriptedProvider takes a list of responses, got {type(responses).__name__}; "
                f"wrap a single response in a list: ScriptedProvider([{responses!r}])"
            )
        if callable(responses):
            self._each = responses
        else:
            self._script = [_check_item(item, index) for index, item in enumerate(responses)]

    @property
    def remaining(self) -> int | None:
        """How many scripted items are left (``None`` when one callable answers every call)."""
        return None if self._each is not None else len(self._script) - self._index

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Record the request and return the next scripted response (or raise its exception)."""
        if self.record:
            self.requests.append(
                request.model_copy(
                    update={"messages": list(request.messages), "tools": list(request.tools)}
                )
            )
        self._calls += 1
        item = self._each if self._each is not None else self._next_item()
        if isinstance(item, ProviderResponse):
            response = item
        elif isinstance(item, str):
            response = ProviderResponse(content=item)
        elif isinstance(item, (BaseException, type)):
            raise item
        else:  # a callable, called here rather than through a coroutine of its own
            result = item(request)
            if type(result) is not ProviderResponse and inspect.isawaitable(result):
                result = await result
            response = result if type(result) is ProviderResponse else self._response(item, result)
        for call in response.tool_calls:
            if not call.id:
                return self._with_call_ids(response)
        return response

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamItem]:
        """Yield the next response's content as ``StreamDelta`` pieces, then the response."""
        response = await self.complete(request)
        if response.content:
            for piece in self._split(response.content):
                yield StreamDelta(piece)
        yield response

    def _next_item(self) -> ScriptItem:
        if self._index >= len(self._script):
            given = len(self._script)
            raise ScriptExhausted(
                f"ScriptedProvider {self.name!r} ran out of responses: it was given {given} "
                f"and this is call {self._calls}; add more responses to the script"
            )
        item = self._script[self._index]
        self._index += 1
        return item

    def _response(self, item: ScriptCallable, result: object) -> ProviderResponse:
        """What a script callable returned, as a response."""
        if isinstance(result, ProviderResponse):
            return result
        if isinstance(result, str):
            return ProviderResponse(content=result)
        raise TypeError(
            f"ScriptedProvider {self.name!r}: the script callable {item!r} returned "
            f"{type(result).__name__}; return a ProviderResponse or a str"
        )

    def _with_call_ids(self, response: ProviderResponse) -> ProviderResponse:
        """``response`` with ids for its tool calls that have none."""
        calls: list[ToolCall] = []
        for call in response.tool_calls:
            if not call.id:
                self._call_ids += 1
                call = call.model_copy(update={"id": f"call_{self._call_ids}"})
            calls.append(call)
        return response.model_copy(update={"tool_calls": calls})

    def _split(self, content: str) -> list[str]:
        size = self.chunk_size
        if size is None:
            return _WORDS.findall(content)
        return [content[i : i + size] for i in range(0, len(content), size)]

    def __repr__(self) -> str:
        script = "callable" if self._each is not None else f"{self.remaining} left"
        return f"ScriptedProvider(name={self.name!r}, {script})"


def _check_item(item: object, index: int) -> ScriptItem:
    """Accept one script item as is, or name the bad one (checked once, not per call)."""
    if isinstance(item, (ProviderResponse, str, BaseException)):
        return item
    if isinstance(item, type) and issubclass(item, BaseException):
        return item  # raised like an instance
    if callable(item):
        return cast("ScriptCallable", item)
    raise TypeError(
        f"ScriptedProvider response #{index} is {type(item).__name__}: {item!r}; expected a "
        "ProviderResponse, a str, an exception, or a callable request -> ProviderResponse | str"
    )


__all__ = ["ScriptCallable", "ScriptItem", "ScriptResult", "ScriptedProvider"]
