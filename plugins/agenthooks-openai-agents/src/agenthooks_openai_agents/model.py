"""The model of a cloned agent: the SDK's own model behind the bus's hook layer.

Each call of the SDK (``get_response``, or ``stream_response`` for a streamed run) is one model
turn of the bridged run: ``on_loop_start``, then ``transform_context`` → ``pre_request`` → the
bus's provider middleware → the SDK's model → ``on_response`` / ``on_model_error``, then the
assistant message (``on_message``); an answer without tool work goes through ``post_agent``
first, so what the SDK keeps, returns and stores is what ``post_agent`` allowed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Any

from agents.agent_output import AgentOutputSchemaBase
from agents.exceptions import ModelBehaviorError
from agents.handoffs import Handoff
from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from agents.model_settings import ModelSettings
from agents.models.interface import Model, ModelTracing
from agents.tool import Tool
from agents.usage import Usage as SDKUsage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseTextDeltaEvent,
    ResponseUsage,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from openai.types.shared import Reasoning

from agenthooks import AgentResponse, Deny
from agenthooks.bridges import BridgeRun, RunDenied
from agenthooks.events import (
    GROUPS,
    TransformContextContext,
)
from agenthooks.messages import ChatMessage, ProviderRequest, ProviderResponse

from .scope import RunScope, current
from .translate import (
    ModelInput,
    SentRequest,
    from_request,
    from_response,
    has_tool_work,
    read_input,
    replace_user_text,
    text_response,
    to_request,
    to_response,
    to_usage,
)

_MODEL_EVENTS = GROUPS["model_call"] | {"transform_context"}


def _hooked(run: BridgeRun) -> bool:
    """Whether a model call of ``run`` goes through the hook layer (anyone listening to the
    model events, or middleware on the provider stack); else the SDK's model is called as is
    and nothing is translated."""
    bus = run.bus
    return bool(bus.stacks.get("provider")) or not _MODEL_EVENTS.isdisjoint(bus.listened)


def _plain(schema: AgentOutputSchemaBase | None) -> bool:
    return schema is None or schema.is_plain_text()


class HookedModel(Model):
    """The SDK model ``inner`` (named ``name`` in requests) with the bridged run's hooks
    around it. Outside an ``AgentHooksRunner`` run it is ``inner`` unchanged.
    """

    def __init__(self, inner: Model, name: str) -> None:
        self.inner = inner
        self.name = name

    def __repr__(self) -> str:
        return f"HookedModel({self.inner!r})"

    async def close(self) -> None:
        """Close the inner model."""
        await self.inner.close()

    async def _cleanup_on_run_end(self, owner: object) -> None:
        # the SDK's hook for run-scoped resources of its models: the inner model's, unchanged
        await self.inner._cleanup_on_run_end(owner)

    def get_retry_advice(self, request: Any) -> Any:
        """The inner model's retry advice, unchanged."""
        return self.inner.get_retry_advice(request)

    # --- one turn --------------------------------------------------------------------------

    async def _enter(self, scope: RunScope, input: str | list[Any]) -> BridgeRun:
        if scope.ready is not None and not scope.ready.is_set():
            await scope.ready.wait()  # a streamed run's start events run first
        if scope.refused is not None:
            raise scope.refused
        run = scope.run
        if run.iteration is not None and scope.terminating and self._terminated(scope, input):
            pass  # the batch asked to end the run: no prepare_next_turn, no should_stop
        elif run.iteration is not None and run.between_turns_heard:
            await run.loop_end()
            await self._next_turn(scope, input)
        await run.loop_start()
        return run

    def _terminated(self, scope: RunScope, input: str | list[Any]) -> bool:
        """Whether every call of the last batch returned ``{"terminate": True}``: the run
        then ends with the batch's assistant text (``finish_reason="terminated"``)."""
        messages = read_input(input).messages
        last = next((m for m in reversed(messages) if m.role == "assistant"), None)
        if last is None or not last.tool_calls:
            return False
        if any(call.id not in scope.terminating for call in last.tool_calls):
            scope.terminating.clear()
            return False
        scope.preset = AgentResponse(content=last.content or "", finish_reason="terminated")
        scope.finish = "terminated"
        return True

    async def _next_turn(self, scope: RunScope, input: str | list[Any]) -> None:
        """Between turns (``BridgeRun.between_turns``): the next request's model
        (``{"model"}``, a name the run's model provider knows) and reasoning effort
        (``{"thinking"}``); a ``should_stop`` ends the run with the last assistant text."""
        run = scope.run
        messages = read_input(input).messages
        last = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=None)
        turn = await run.between_turns(
            message=None if last is None else messages[last],
            tool_messages=[] if last is None else messages[last + 1 :],
            new_messages=messages,
            messages=messages,
            model=scope.model or self.name,
            thinking=scope.thinking,
        )
        if "model" in turn.changed:
            scope.model = turn.model
        if "thinking" in turn.changed:
            scope.thinking = turn.thinking
        if turn.stop:
            # a graceful stop: the turn answers with the last assistant text, no model call
            text = None if last is None else messages[last].content
            scope.preset = AgentResponse(content=text or "", finish_reason="stopped")
            scope.finish = "stopped"

    def _target(self, scope: RunScope, call: ModelInput) -> tuple[Model, ModelInput]:
        """The model a turn calls and the call (a ``prepare_next_turn`` may have changed the
        model or the reasoning effort)."""
        model: Model = self.inner
        if scope.model is not None and scope.model != self.name and scope.provider is not None:
            model = scope.provider.get_model(scope.model)
        if scope.thinking is not None:
            base = call.settings.reasoning or Reasoning()
            settings = dataclasses.replace(
                call.settings, reasoning=base.model_copy(update={"effort": scope.thinking})
            )
            call = ModelInput(call.system, call.input, settings, call.tools, call.handoffs)
        return model, call

    async def _transform(self, run: BridgeRun, sent: SentRequest) -> SentRequest:
        if "transform_context" not in run.bus.listened:
            return sent
        got = await run.fire(
            "transform_context", TransformContextContext, messages=list(sent.request.messages)
        )
        if isinstance(got, TransformContextContext) and got.messages != sent.request.messages:
            run.capabilities.require("transform_context", "messages")
            request = sent.request.model_copy(update={"messages": list(got.messages)})
            return to_request(from_request(sent, request), request.model)
        return sent

    async def _after(
        self,
        scope: RunScope,
        response: ModelResponse,
        translated: ProviderResponse | None,
        schema: AgentOutputSchemaBase | None,
    ) -> ModelResponse:
        """The assistant message of a turn: an answer goes through ``post_agent`` first."""
        run = scope.run
        listened = run.bus.listened
        if has_tool_work(response):
            if "on_message" in listened:
                got = translated or to_response(response)
                await run.message(
                    ChatMessage(role="assistant", content=got.content, tool_calls=got.tool_calls)
                )
            return response
        # the answer's turn ends before post_agent, as on our runtime (not inside done())
        await run.loop_end()
        if "post_agent" in listened or "on_message" in listened:
            got = translated or to_response(response)
            content = got.content
            if "post_agent" in listened:
                answer = run.answer(content)
                verdict = await run.post_agent(answer, input=scope.input)
                scope.answered = True
                if isinstance(verdict, Deny):
                    return self._deny(scope, verdict, schema, "post_agent")
                if verdict is not answer and verdict.content != content:
                    content = verdict.content
                    changed = got.model_copy(update={"content": content})
                    response = from_response(changed, got)
            scope.answered = True
            await run.message(ChatMessage(role="assistant", content=content))
        scope.answered = True
        return response

    async def _preset(self, scope: RunScope, schema: AgentOutputSchemaBase | None) -> ModelResponse:
        """The agent's answer a ``pre_agent`` handler gave, instead of a model call."""
        preset, scope.preset = scope.preset, None
        assert preset is not None
        response = text_response(preset.content or "")
        return await self._after(scope, response, None, schema)

    def _deny(
        self, scope: RunScope, deny: Deny, schema: AgentOutputSchemaBase | None, event: str
    ) -> ModelResponse:
        """A deny that ends the run: the reason is the agent's answer, where the SDK can take
        a text answer; for a structured ``output_type`` it cannot, and the caller gets
        ``RunDenied``."""
        scope.denied = deny
        reason = deny.text()
        if not _plain(schema):
            raise scope.raised(RunDenied(reason, event=event))
        return text_response(reason)

    # --- get_response ----------------------------------------------------------------------

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        """The SDK's model call, through the hook layer when a bridged run is current.

        Outside a bridged run the inner model answers unchanged. Inside one, the request goes
        through ``pre_request``, the provider stack and ``on_response``; a ``Deny``'s reason becomes
        the answer.
        """

        def ask(model: Model, c: ModelInput) -> Awaitable[ModelResponse]:
            return model.get_response(
                c.system,
                c.input,
                c.settings,
                c.tools,
                output_schema,
                c.handoffs,
                tracing,
                previous_response_id=previous_response_id,
                conversation_id=conversation_id,
                prompt=prompt,
            )

        asked = ModelInput(system_instructions, input, model_settings, tools, handoffs)
        scope = current()
        if scope is None:
            return await ask(self.inner, asked)
        run = await self._enter(scope, input)
        if scope.preset is not None:
            return await self._preset(scope, output_schema)
        if scope.rewritten is not None:
            asked.input = replace_user_text(asked.input, *scope.rewritten)
        model, asked = self._target(scope, asked)
        if not _hooked(run):
            response = await ask(model, asked)
            run.add_usage(to_usage(response.usage))
            return await self._after(scope, response, None, output_schema)

        sent = await self._transform(run, to_request(asked, scope.model or self.name))
        produced: list[ProviderResponse] = []

        async def call(request: ProviderRequest) -> ProviderResponse:
            got = to_response(await ask(model, from_request(sent, request)))
            produced.append(got)
            return got

        got = await run.model_call(sent.request, call)
        if isinstance(got, Deny):
            return self._deny(scope, got, output_schema, "pre_request")
        response = from_response(got, produced[-1] if produced else None)
        return await self._after(scope, response, got, output_schema)

    # --- stream_response -------------------------------------------------------------------

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """The SDK's streamed model call, through the hook layer when a bridged run is current.

        The final ``ResponseCompletedEvent`` is held until the answer's hooks have run, so a
        changed or denied answer is what the SDK completes with.
        """

        def stream(model: Model, c: ModelInput) -> AsyncIterator[TResponseStreamEvent]:
            return model.stream_response(
                c.system,
                c.input,
                c.settings,
                c.tools,
                output_schema,
                c.handoffs,
                tracing,
                previous_response_id=previous_response_id,
                conversation_id=conversation_id,
                prompt=prompt,
            )

        asked = ModelInput(system_instructions, input, model_settings, tools, handoffs)
        scope = current()
        if scope is None:
            async for event in stream(self.inner, asked):
                yield event
            return
        run = await self._enter(scope, input)
        if scope.preset is not None:
            yield _completed(None, await self._preset(scope, output_schema), self.name)
            return
        if scope.rewritten is not None:
            asked.input = replace_user_text(asked.input, *scope.rewritten)
        model, asked = self._target(scope, asked)
        name = scope.model or self.name
        # a guard on the answer (a redaction) gates the text: the caller reads it once the
        # answer passed its hooks, as on our runtime, never the text the model streamed
        bus = run.bus
        gated = bool(bus.guards("post_agent") or bus.guards("on_response"))
        held: list[TResponseStreamEvent] = []
        if not _hooked(run):
            completed: ResponseCompletedEvent | None = None
            feed = run.stream(ProviderRequest(model=name))
            if feed is not None:
                await feed.start()
            try:
                async for event in stream(model, asked):
                    if isinstance(event, ResponseCompletedEvent):
                        completed = event
                        continue  # held until the answer's verdict
                    if feed is not None and isinstance(event, ResponseTextDeltaEvent):
                        await feed.chunk(event.delta)
                    if gated and isinstance(event, ResponseTextDeltaEvent):
                        held.append(event)
                        continue
                    yield event
            except Exception as exc:
                if feed is not None:
                    await feed.error(exc)
                raise
            if completed is None:
                raise ModelBehaviorError("Model did not produce a final response!")
            raw = _model_response(completed.response)
            run.add_usage(to_usage(raw.usage))
            if feed is not None:
                await feed.end(to_response(raw))
            final = await self._after(scope, raw, None, output_schema)
            for event in _released(held, raw, final):
                yield event
            yield completed if final is raw else _completed(completed, final, name)
            return

        sent = await self._transform(run, to_request(asked, name))
        queue: asyncio.Queue[TResponseStreamEvent] = asyncio.Queue()
        produced: list[tuple[ProviderResponse, ResponseCompletedEvent]] = []

        async def call(request: ProviderRequest) -> ProviderResponse:
            feed = run.stream(request)
            if feed is not None:
                await feed.start()
            last: ResponseCompletedEvent | None = None
            try:
                async for event in stream(model, from_request(sent, request)):
                    if isinstance(event, ResponseCompletedEvent):
                        last = event
                        continue
                    if feed is not None and isinstance(event, ResponseTextDeltaEvent):
                        await feed.chunk(event.delta)
                    queue.put_nowait(event)
            except Exception as exc:
                if feed is not None:
                    await feed.error(exc)
                raise
            if last is None:
                raise ModelBehaviorError("Model did not produce a final response!")
            got = to_response(_model_response(last.response))
            if feed is not None:
                await feed.end(got)
            produced.append((got, last))
            return got

        # the hook layer runs in its own task while its stream's events flow to the SDK
        task = asyncio.ensure_future(run.model_call(sent.request, call))
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    item = getter.result()
                    if gated and isinstance(item, ResponseTextDeltaEvent):
                        held.append(item)
                    else:
                        yield item
                    continue
                getter.cancel()
                while not queue.empty():
                    item = queue.get_nowait()
                    if gated and isinstance(item, ResponseTextDeltaEvent):
                        held.append(item)
                    else:
                        yield item
                break
            got = task.result()
        finally:
            if not task.done():
                task.cancel()
        if isinstance(got, Deny):
            yield _completed(None, self._deny(scope, got, output_schema, "pre_request"), name)
            return
        original, last = produced[-1] if produced else (None, None)
        response = from_response(got, original)
        final = await self._after(scope, response, got, output_schema)
        for event in _released(held, response, final):
            yield event
        if last is not None and got is original and final is response:
            yield last
        else:
            yield _completed(last, final, name)


def _released(
    held: list[TResponseStreamEvent], streamed: ModelResponse, final: ModelResponse
) -> list[TResponseStreamEvent]:
    """The held text deltas of a gated call: all of them when the answer the hooks left says
    what the model streamed, none when they changed it (the caller reads the final answer)."""
    if not held:
        return []
    said = "".join(e.delta for e in held if isinstance(e, ResponseTextDeltaEvent))
    final_text = to_response(final).content or ""
    original = to_response(streamed).content or ""
    return held if said == final_text and said == original else []


def _model_response(response: Response) -> ModelResponse:
    usage = response.usage
    return ModelResponse(
        output=list(response.output),
        usage=SDKUsage(
            requests=1,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            total_tokens=usage.total_tokens,
            input_tokens_details=usage.input_tokens_details,
            output_tokens_details=usage.output_tokens_details,
        )
        if usage is not None
        else SDKUsage(requests=1),
        response_id=response.id,
    )


def _completed(
    last: ResponseCompletedEvent | None, response: ModelResponse, model: str
) -> ResponseCompletedEvent:
    """The terminal stream event carrying ``response`` (as the hooks left it)."""
    usage = response.usage
    sent_usage = ResponseUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        input_tokens_details=usage.input_tokens_details
        or InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
        output_tokens_details=usage.output_tokens_details
        or OutputTokensDetails(reasoning_tokens=0),
    )
    if last is not None:
        body = last.response.model_copy(update={"output": response.output, "usage": sent_usage})
        return last.model_copy(update={"response": body})
    body = Response.model_construct(
        id=response.response_id or "resp_agenthooks",
        object="response",
        created_at=time.time(),
        model=model,
        output=list(response.output),
        usage=sent_usage,
        status="completed",
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
    )
    return ResponseCompletedEvent(type="response.completed", response=body, sequence_number=0)


__all__ = ["HookedModel"]
