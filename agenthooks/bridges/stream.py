"""The stream events of one bridged model call, fired the same way whatever framework
streams: ``on_stream_start``, ``on_stream_chunk`` per text delta (with the text so far),
then ``on_stream_end`` or ``on_stream_error``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..events.contexts import (
    StreamChunkContext,
    StreamEndContext,
    StreamErrorContext,
    StreamStartContext,
)
from ..messages import ProviderRequest, ProviderResponse

if TYPE_CHECKING:
    from .run import BridgeRun


class BridgeStream:
    """One model call's stream as the bus hears it (``BridgeRun.stream(request)``).

    Args:
        run: The run the call belongs to.
        request: The request as the hooks left it (on every stream context).
    """

    __slots__ = ("run", "request", "accumulated", "chunks")

    def __init__(self, run: BridgeRun, request: ProviderRequest) -> None:
        self.run = run
        self.request = request
        self.accumulated = ""
        """The text streamed so far."""
        self.chunks = "on_stream_chunk" in run.bus.listened

    async def start(self) -> None:
        """``on_stream_start``: the call starts streaming."""
        await self._fire("on_stream_start", StreamStartContext)

    async def chunk(self, delta: str) -> None:
        """``on_stream_chunk``: ``delta`` arrived (empty deltas are not reported)."""
        if not delta:
            return
        self.accumulated += delta
        if self.chunks:
            await self._fire("on_stream_chunk", StreamChunkContext, delta=delta)

    async def end(self, response: ProviderResponse) -> None:
        """``on_stream_end``: the call completed with ``response``."""
        await self._fire("on_stream_end", StreamEndContext, response=response)

    async def error(self, error: BaseException) -> None:
        """``on_stream_error``: the call failed with ``error``."""
        await self._fire("on_stream_error", StreamErrorContext, error=error)

    async def _fire(self, event: str, cls: type[Any], **values: Any) -> None:
        # the hook layer's model call does not hold the run's lock: the events of a call in
        # flight fire through the run like any other
        if event in self.run.bus.listened:
            await self.run.fire(
                event, cls, request=self.request, accumulated=self.accumulated, **values
            )


__all__ = ["BridgeStream"]
