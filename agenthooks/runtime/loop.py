"""The turn loop: one turn is one readable function.

on_loop_start → transform_context → pre_request → (stream) → on_response → assistant appended
→ tool calls → on_loop_end → prepare_next_turn → should_stop → next turn. A response without
tool calls ends the loop; its message is held back until ``post_agent`` allowed it.
"""

from __future__ import annotations

from functools import partial

from .._construct import chat_message, context, provider_request
from ..decisions import Deny
from ..errors import BudgetExceeded, MaxTurnsExceeded, ProviderError, ProviderResponseError
from ..events.contexts import (
    LoopContext,
    PreRequestContext,
    ResponseContext,
    StopContext,
    StreamContext,
    TransformContextContext,
    TurnContext,
)
from ..layers import PROVIDER_EVENTS, call_provider, recover_model_error
from ..messages import ChatMessage, ProviderRequest, ProviderResponse
from ..providers.base import StreamDelta
from .run import Run
from .streaming import TextDelta
from .toolcalls import run_tool_calls

_FINISH = {"stop": "stop", "length": "length", "content_filter": "content_filter"}
_BETWEEN_TURNS = frozenset({"prepare_next_turn", "should_stop"})


class Ended:
    """How the turns ended: the answer's content and finish reason with the final message
    held back (or None), or a deny."""

    __slots__ = ("content", "finish_reason", "held", "deny")

    def __init__(
        self,
        content: str | None = None,
        finish_reason: str = "stop",
        held: ChatMessage | None = None,
        deny: Deny | None = None,
    ) -> None:
        self.content = content
        self.finish_reason = finish_reason
        self.held = held
        self.deny = deny


async def run_turns(run: Run) -> Ended:
    """Turns until the model answers without tools, a hook stops or denies, or a limit hits."""
    while True:
        agent = run.agent
        bus = run.bus
        run.iteration = run.turns
        if "on_loop_start" in bus.listened:
            await bus.emit("on_loop_start", context(LoopContext, run.base()))
        if agent.max_total_tokens is not None or agent.max_cost is not None:
            over = _over_budget(run)
            if over is not None:
                await _stop(run, "max_budget")
                raise BudgetExceeded(over, run.new_messages)
        messages = run.messages
        if "transform_context" in bus.listened:
            tctx = context(TransformContextContext, run.base(), messages=list(messages))
            await bus.run("transform_context", tctx)
            messages = tctx.messages
        request = provider_request(
            run.model or "",
            agent.instructions,
            list(messages),
            agent.scopes.schemas(),
            agent.tool_choice,
            agent.temperature,
            run.thinking,
        )
        run.turns += 1
        provider = run.provider
        if (
            run.sink is None
            and provider is not None
            and not bus.provider_stack
            and not agent.provider_middleware
            and PROVIDER_EVENTS.isdisjoint(bus.listened)
        ):
            response = await provider.complete(request)  # request_model's zero-hook path
        else:
            response = await request_model(run, request)
        if isinstance(response, Deny):
            if "on_loop_end" in bus.listened:
                await bus.emit("on_loop_end", context(LoopContext, run.base()))
            return Ended(deny=response)
        usage = response.usage
        if usage.total_tokens or usage.input_tokens or usage.output_tokens or usage.cost:
            run.usage = run.usage + usage
        finish = _FINISH.get(response.finish_reason, "stop")
        if not response.tool_calls:
            held = chat_message(
                "assistant", response.content, [], thinking_blocks=list(response.thinking_blocks)
            )
            if "on_loop_end" in bus.listened:
                await bus.emit("on_loop_end", context(LoopContext, run.base()))
            return Ended(response.content, finish, held)
        assistant = chat_message(
            "assistant",
            response.content,
            list(response.tool_calls),
            thinking_blocks=list(response.thinking_blocks),
        )
        run.append(assistant)
        if "on_message" in bus.listened:
            await run.message_event(assistant)
        terminated = await run_tool_calls(run, assistant.tool_calls)
        if "on_loop_end" in bus.listened:
            await bus.emit("on_loop_end", context(LoopContext, run.base()))
        if terminated:
            return Ended(response.content, "terminated")
        if not _BETWEEN_TURNS.isdisjoint(bus.listened) and await _between_turns(run, assistant):
            return Ended(response.content, "stopped")
        if run.turns >= agent.max_turns:
            await _stop(run, "max_turns")
            raise MaxTurnsExceeded(
                f"agent {agent.name!r} reached max_turns={agent.max_turns} with the model "
                "still asking for tools",
                run.new_messages,
            )


async def _between_turns(run: Run, assistant: ChatMessage) -> bool:
    """``prepare_next_turn`` then ``should_stop``; True when the run should stop."""
    bus = run.bus
    count = len(assistant.tool_calls)
    ctx = context(
        TurnContext,
        run.base(),
        message=assistant,
        tool_messages=run.new_messages[-count:],
        new_messages=list(run.new_messages),
        messages=list(run.messages),
        provider=run.provider,
        model=run.model or "",
        thinking=run.thinking,
    )
    if "prepare_next_turn" in bus.listened:
        before = (ctx.provider, ctx.model, ctx.thinking, ctx.messages)
        await bus.run("prepare_next_turn", ctx)
        if ctx.provider is not before[0]:
            run.provider = ctx.provider
        if ctx.model != before[1]:
            run.model = ctx.model
        if ctx.thinking != before[2]:
            run.thinking = ctx.thinking
        if ctx.messages is not before[3]:
            run.messages = list(ctx.messages)
    return await bus.check("should_stop", ctx)


def _over_budget(run: Run) -> str | None:
    agent = run.agent
    if agent.max_total_tokens is not None and run.usage.total_tokens >= agent.max_total_tokens:
        return (
            f"agent {agent.name!r} used {run.usage.total_tokens} tokens of "
            f"max_total_tokens={agent.max_total_tokens}"
        )
    if agent.max_cost is not None and run.usage.cost >= agent.max_cost:
        return f"agent {agent.name!r} spent {run.usage.cost} of max_cost={agent.max_cost}"
    return None


async def _stop(run: Run, reason: str) -> None:
    if "on_stop" in run.bus.listened:
        await run.bus.emit("on_stop", context(StopContext, run.base(), reason=reason))


async def request_model(run: Run, request: ProviderRequest) -> ProviderResponse | Deny:
    """One provider call through the hook layer, the bus's and the agent's middleware."""
    bus = run.bus
    provider = run.provider
    if provider is None:
        raise ProviderError(f"agent {run.agent.name!r} has no provider: pass provider=...")
    stack = bus.provider_stack + run.agent.provider_middleware
    streaming = run.sink is not None
    listened = bus.listened
    if not streaming and not stack and "pre_request" not in listened:
        # nothing wraps the call: build a context only for the after-events someone hears
        try:
            response: ProviderResponse = await provider.complete(request)
        except Exception as exc:
            if "on_model_error" not in listened:
                raise
            response = await recover_model_error(bus, _request_context(run, request), exc)
        if "on_response" not in listened:
            return response
        after = context(ResponseContext, run.base(), request=request, response=response)
        deny = await bus.run("on_response", after)
        return deny if deny is not None else after.response
    ctx = _request_context(run, request)
    endpoint = partial(_stream, run) if streaming else _complete
    result = await call_provider(bus, ctx, endpoint, stack)
    if (
        streaming
        and not run.gated
        and isinstance(result, ProviderResponse)
        and ctx.chunks_sent == 0
        and result.content
    ):
        await run.send(TextDelta(result.content))  # a cached or recovered answer: one chunk
    return result


def _request_context(run: Run, request: ProviderRequest) -> PreRequestContext:
    return context(
        PreRequestContext,
        run.base(),
        request=request,
        response=None,
        short_circuit=None,
        provider=run.provider,
        stream=run.sink is not None,
        chunks_sent=0,
    )


async def _complete(ctx: PreRequestContext) -> ProviderResponse:
    response: ProviderResponse = await ctx.provider.complete(ctx.request)
    return response


async def _stream(run: Run, ctx: PreRequestContext) -> ProviderResponse:
    """The streamed call: stream events for observers, text deltas for the consumer."""
    bus = run.bus
    base = run.base()
    request = ctx.request
    if "on_stream_start" in bus.listened:
        await bus.emit("on_stream_start", context(StreamContext, base, request=request))
    accumulated = ""
    response: ProviderResponse | None = None
    try:
        async for item in ctx.provider.stream(request):
            if isinstance(item, StreamDelta):
                accumulated += item.text
                if "on_stream_chunk" in bus.listened:
                    await bus.emit(
                        "on_stream_chunk",
                        context(
                            StreamContext,
                            base,
                            request=request,
                            delta=item.text,
                            accumulated=accumulated,
                        ),
                    )
                if not run.gated:
                    ctx.__dict__["chunks_sent"] = ctx.chunks_sent + 1
                    await run.send(TextDelta(item.text))
            else:
                response = item
        if response is None:
            raise ProviderResponseError("the provider's stream ended without a response")
    except Exception as exc:
        if "on_stream_error" in bus.listened:
            await bus.emit(
                "on_stream_error",
                context(StreamContext, base, request=request, error=exc, accumulated=accumulated),
            )
        raise
    if "on_stream_end" in bus.listened:
        await bus.emit(
            "on_stream_end",
            context(
                StreamContext, base, request=request, response=response, accumulated=accumulated
            ),
        )
    return response


__all__ = ["Ended", "request_model", "run_turns"]
