"""The one path of a provider call, streamed or not.

hook layer (``pre_request`` → call → ``on_model_error`` on failure → ``on_response``) →
the bus's middleware → the agent's middleware → the provider. Streaming is a different
innermost call (``stream_provider``), not a different path. When nothing wraps the call, the
path goes straight to the provider: the one "nobody listens" check, at the top.
"""

from __future__ import annotations

from typing import Any

from ..bus import HookBus
from ..decisions import Deny
from ..errors import ProviderError, ProviderResponseError, ends_run
from ..events.contexts import (
    ModelErrorContext,
    PreRequestContext,
    ResponseContext,
    StreamChunkContext,
    StreamEndContext,
    StreamErrorContext,
    StreamStartContext,
)
from ..messages import ProviderRequest, ProviderResponse
from ..providers.base import StreamDelta
from .run_state import Run, common
from .streaming import TextDelta


async def model_call(run: Run, request: ProviderRequest) -> ProviderResponse | Deny:
    """One provider call of ``run``: the response the run goes on with, or the ``Deny`` of
    ``pre_request`` / ``on_response``. Raises what the provider raised (or its ``{"error"}``
    replacement) when nothing recovered. When nobody listens, nothing wraps the call and the
    run does not stream, the provider's own ``complete`` is called straight away, with no
    context and no hook layer (this shortcut and the tool call's save a 0-hook run 111k of
    its 444k instructions: ``benchmarks/callgrind.py`` with the stacks always built)."""
    provider = run.provider
    if provider is None:
        raise ProviderError(f"agent {run.agent.name!r} has no provider: pass provider=...")
    hooks = run.stacks.model
    streaming = run.sink is not None
    if hooks is None and not streaming:
        response: ProviderResponse = await provider.complete(request)
        return response
    ctx = PreRequestContext(
        **run.context_fields,
        request=request,
        response=None,
        short_circuit=None,
        provider=provider,
        stream=streaming,
        chunks_sent=0,
    )
    if not streaming:
        return await hooks.wrap(ctx, hooks.inner, run)  # type: ignore[union-attr]
    return await _streamed_call(run, ctx, hooks)


STREAMS: dict[str, Run] = {}
"""run id -> the run whose provider call streams now, while it does: the innermost call
(``endpoint``) is given only the context, and finds the run to stream to here (a context
carries no state of ours)."""


async def _streamed_call(
    run: Run, ctx: PreRequestContext, hooks: ModelHooks | None
) -> ProviderResponse | Deny:
    if hooks is None:
        result: ProviderResponse | Deny = await stream_provider(run, ctx)
    else:
        STREAMS[run.run_id] = run
        try:
            result = await hooks.wrap(ctx, hooks.inner, run)
        finally:
            STREAMS.pop(run.run_id, None)
    if (
        not run.gated
        and type(result) is ProviderResponse
        and ctx.chunks_sent == 0
        and result.content
    ):
        await run.send(TextDelta(result.content))  # a cached or recovered answer: one chunk
    return result


class ModelHooks:
    """The hook layer of the provider call: outermost, it translates between the hooks'
    return keys and the middleware's values (``{"response": r}`` from ``pre_request`` is a
    ``before`` that returns ``r``; ``{"response": r}`` from ``on_model_error`` an
    ``on_error`` that returns ``r``; ``{"error": e}`` re-raises ``e``)."""

    __slots__ = ("bus", "inner")

    def __init__(self, bus: HookBus, inner: Any = None) -> None:
        self.bus = bus
        self.inner = inner
        """What this layer wraps when it is the outermost layer of a built stack."""

    async def wrap(
        self, ctx: PreRequestContext, call_next: Any, run: Run | None = None
    ) -> ProviderResponse | Deny:
        """Run the call ``ctx`` describes: ``pre_request``, ``call_next`` (the middleware and
        the provider), ``on_model_error`` on a failure, ``on_response``. ``run``: the run
        making the call in our runtime, whose common fields the later contexts carry
        (``None`` for a bridged framework's call: they are ``ctx``'s)."""
        bus = self.bus
        if "pre_request" in bus.listened:
            deny = await bus.dispatch("pre_request", ctx)
            if deny is not None:
                return deny  # type: ignore[no-any-return]
        if ctx.short_circuit == "response" and ctx.response is not None:
            response = ctx.response
        else:
            try:
                response = await call_next(ctx)
            except Exception as exc:
                if ends_run(exc):  # a hook's own raise (a stream hook's, say) is no model error
                    raise
                response = await self.recover(ctx, exc, run)
        if "on_response" not in bus.listened:
            return response
        after = ResponseContext(**_base(ctx, run), request=ctx.request, response=response)
        deny = await bus.dispatch("on_response", after)
        return after.response if deny is None else deny

    async def recover(
        self, ctx: PreRequestContext, exc: Exception, run: Run | None = None
    ) -> ProviderResponse:
        """``on_model_error``: the recovered response, or raise the (possibly replaced) error."""
        bus = self.bus
        if "on_model_error" not in bus.listened:
            raise exc
        ectx = ModelErrorContext(
            **_base(ctx, run),
            request=ctx.request,
            error=exc,
            response=None,
            recovered=False,
        )
        await bus.dispatch("on_model_error", ectx)
        if ectx.recovered and ectx.response is not None:
            return ectx.response
        error = ectx.error if isinstance(ectx.error, BaseException) else exc
        if error is exc:
            raise exc
        raise error from exc


def _base(ctx: PreRequestContext, run: Run | None) -> dict[str, Any]:
    """The common fields of the next context of ``ctx``'s call: its run's, shared (a call
    outside our runtime: ``ctx``'s own)."""
    return common(ctx) if run is None else run.context_fields


async def endpoint(ctx: PreRequestContext) -> ProviderResponse:
    """The innermost call: the provider the context names (a fallback middleware may have
    passed on another), streamed when the run streams."""
    if ctx.stream:
        return await stream_provider(STREAMS[ctx.run_id], ctx)
    response: ProviderResponse = await ctx.provider.complete(ctx.request)
    return response


async def stream_provider(run: Run, ctx: PreRequestContext) -> ProviderResponse:
    """The provider's streamed call, the innermost call of a run that streams: stream events
    for observers, text deltas for the run's consumer, the response at the end."""
    request = ctx.request
    await run.fire("on_stream_start", StreamStartContext, request=request)
    accumulated = ""
    response: ProviderResponse | None = None
    chunk_heard = "on_stream_chunk" in run.bus.listened
    try:
        async for item in ctx.provider.stream(request):
            if type(item) is StreamDelta:
                accumulated += item.text
                if chunk_heard:
                    await run.fire(
                        "on_stream_chunk",
                        StreamChunkContext,
                        request=request,
                        delta=item.text,
                        accumulated=accumulated,
                    )
                if not run.gated:
                    ctx.chunks_sent += 1
                    await run.send(TextDelta(item.text))
            else:
                response = item
        if response is None:
            raise ProviderResponseError("the provider's stream ended without a response")
    except Exception as exc:
        if not ends_run(exc):
            await run.fire(
                "on_stream_error",
                StreamErrorContext,
                request=request,
                error=exc,
                accumulated=accumulated,
            )
        raise
    await run.fire(
        "on_stream_end",
        StreamEndContext,
        request=request,
        response=response,
        accumulated=accumulated,
    )
    return response


__all__ = ["STREAMS", "ModelHooks", "endpoint", "model_call", "stream_provider"]
