"""Incremental output (AGENT-HOOKS-0.1 §12.1 exception, §12.1a): ``post_model_call`` mediates a
streamed response segment by segment, and text is released only under a covering verdict.

A provider-stack middleware gives the streamed call a mediating provider. Each streamed delta
is one segment; a segment is held until the next one arrives, then ``post_model_call`` is
emitted on the text so far with ``finish_reason: "incremental"`` and, on allow, the held
segment is released to the stream. The last segment is covered by the final emission (the
whole response with its real finish reason and tool calls). So the exposure bound: nothing
reaches the consumer before a verdict covering it allowed it, and at most one segment is held.

A deny stops the provider's stream and withholds the rest (the released prefix stays
released); the run ends denied, and nothing withheld enters history. A stream that ends early
(cut, or without its final response) leaves a residue no emission evaluated: it is denied
``host_error:streaming_unsupported`` with a record of its own, and withheld. A transform of a
segment cannot rewrite text already released: it denies the same way; a final transform is
applied, and released if it extends what was released.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from agent_hooks import HostError, Verdict

from agenthooks import Deny, Middleware, ProviderResponse, StreamDelta
from agenthooks.events import PreRequestContext

from . import projection as p

if TYPE_CHECKING:
    from .plugin import AgentHooksSpec

EXPOSURE_BOUND = (
    "segment watermark: a streamed segment is released only after a post_model_call verdict "
    "covering it allowed it; at most one unevaluated segment is held"
)
"""The §12.1a exposure bound this host enforces (its declaration states it)."""

INCREMENTAL = "incremental"
"""``response.finish_reason`` of a segment's emission."""


class IncrementalOutput(Middleware):
    """The provider-stack middleware of an ``AgentHooksSpec(incremental_output=True)``:
    streamed calls go through a ``MediatedProvider``."""

    stacks = ("provider",)
    name = "agent-hooks-spec.incremental"

    def __init__(self, spec: AgentHooksSpec) -> None:
        self.spec = spec

    async def wrap(self, ctx: PreRequestContext, call_next: Any) -> Any:
        """Route a streamed call through a ``MediatedProvider``; other calls pass through."""
        if not ctx.stream or isinstance(ctx.provider, MediatedProvider):
            return await call_next(ctx)
        inner = ctx.provider
        # the stream endpoint reads the provider from the context it is given; the same context
        # object goes on (it counts the chunks the consumer got), so its field is set for the
        # call and put back after it
        ctx.provider = MediatedProvider(inner, self.spec, ctx)
        try:
            return await call_next(ctx)
        finally:
            ctx.provider = inner


class MediatedProvider:
    """One streamed call of ``inner`` under segment-by-segment mediation (see the module)."""

    def __init__(self, inner: Any, spec: AgentHooksSpec, ctx: PreRequestContext) -> None:
        self.inner = inner
        self.spec = spec
        self.ctx = ctx

    def __getattr__(self, name: str) -> Any:  # model, name, ... of the real provider
        return getattr(self.inner, name)

    async def complete(self, request: Any) -> ProviderResponse:
        """Not streamed: the buffered path (one emission on ``on_response``)."""
        response: ProviderResponse = await self.inner.complete(request)
        return response

    async def stream(self, request: Any) -> AsyncIterator[Any]:
        """The inner stream, each segment released once a verdict covering it allowed it."""
        released = ""
        held: str | None = None
        final: ProviderResponse | None = None
        source = self.inner.stream(request)
        try:
            async for item in source:
                if not isinstance(item, StreamDelta):
                    final = item
                    continue
                if held is not None:
                    deny = await self.spec.segment(self.ctx, released + held)
                    if deny is not None:
                        yield self._withheld(deny, released)
                        return
                    released += held
                    yield StreamDelta(held)
                held = item.text
        except Exception:
            if held is None:
                raise  # nothing unevaluated: the model call failed as any other
            final = None
        finally:
            close = getattr(source, "aclose", None)
            if close is not None:
                await close()
        if final is None:
            if held is None:
                return  # the runtime reports a stream without a response
            deny = self.spec.residue(self.ctx, released + held)
            yield self._withheld(deny, released)
            return
        outcome = await self.spec.final(self.ctx, final)
        if isinstance(outcome, Deny):
            yield self._withheld(outcome, released)
            return
        response = outcome["response"] if isinstance(outcome, dict) else final
        text = response.content or ""
        if not text.startswith(released):
            deny = self.spec.residue(self.ctx, text, "a transform rewrote released text")
            yield self._withheld(deny, released)
            return
        if len(text) > len(released):
            yield StreamDelta(text[len(released) :])
        self.spec.settled(self.ctx, None)
        yield response

    def _withheld(self, deny: Deny, released: str) -> ProviderResponse:
        """The response the run gets for a denied stream: only what was released; the deny
        itself reaches the run from ``on_response``."""
        self.spec.settled(self.ctx, deny)
        return ProviderResponse(content=released or None)


def self_deny(spec: AgentHooksSpec, wire: Any, detail: str | None) -> Deny:
    """Record ``deny host_error:streaming_unsupported`` for ``wire`` without consulting the
    interceptors (no emission evaluated that text) and return the bus's ``Deny``.

    agent-hooks-sdk 0.1.0b3 (pinned) has no public call that records a host-synthesized verdict
    other than ``context_invalid``; this uses the emitter's own record path for it.
    """
    emitter = spec.emitter
    try:
        identity = emitter._compute_identity(wire)
    except Exception:  # an identity provider that fails: honest absence
        identity = None
    verdict = Verdict.host_error(HostError.STREAMING_UNSUPPORTED, detail)
    from agent_hooks.emitter import _Outcome

    record = emitter._append(emitter._finalize(wire, _Outcome(verdict), identity))
    text = ": ".join(part for part in (record.verdict.reason, record.verdict.message) if part)
    return Deny(text)


def segment_wire(spec: AgentHooksSpec, state: Any, ctx: Any, model_id: str, text: str) -> Any:
    """The ``post_model_call`` context of the text streamed so far."""
    return spec._stamp(
        state.builder.post_model_call(
            model_id=model_id,
            content=p.to_json(text, "$.response.content"),
            tool_calls=[],
            finish_reason=INCREMENTAL,
        ),
        ctx,
    )


__all__ = [
    "EXPOSURE_BOUND",
    "INCREMENTAL",
    "IncrementalOutput",
    "MediatedProvider",
    "self_deny",
]
