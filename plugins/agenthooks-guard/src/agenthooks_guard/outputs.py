"""The guard's redaction hooks: what the model, the caller and history see.

Each target registers guards (they run after every ordinary handler, see the final value and
fail closed):

- ``tool_results``: the result of ``on_tool_call_result`` and the error text of
  ``on_tool_call_error``;
- ``requests``: the content of every message of ``pre_request``;
- ``responses``: the content and the provider's raw payload of ``on_response``, and the final
  answer in ``post_agent`` (its text and its structured output). A ``post_agent`` guard makes ``chat_stream()`` gated, so the caller
  gets the redacted answer, never the raw text deltas.

What leaves the process through exporters (logs, spans, recordings) is redacted by the
exporters themselves (``agenthooks.redaction``), with every pattern, whatever the targets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from agenthooks import Deny

if TYPE_CHECKING:
    from agenthooks import HookBus
    from agenthooks.events import (
        PostAgentContext,
        PreRequestContext,
        ResponseContext,
        ToolErrorContext,
        ToolResultContext,
    )

    from .redact import Redactor


class RedactionHooks:
    """The redaction guards of one ``Redactor``, registered by ``install``."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor

    def install(self, bus: HookBus) -> None:
        """Register the guards of the redactor's targets."""
        targets = self.redactor.targets
        if "tool_results" in targets:
            bus.on("on_tool_call_result", self.tool_result, guard=True)
            bus.on("on_tool_call_error", self.tool_error, guard=True)
        if "requests" in targets:
            bus.on("pre_request", self.request, guard=True)
        if "responses" in targets:
            bus.on("on_response", self.response, guard=True)
            bus.on("post_agent", self.answer, guard=True)

    def tool_result(self, ctx: ToolResultContext) -> dict[str, Any] | None:
        """Redact a tool's result before the model reads it; ``None`` if nothing matched."""
        result = ctx.result
        redacted = self.redactor.redact_value(result)
        return None if redacted is result else {"result": redacted}

    def tool_error(self, ctx: ToolErrorContext) -> dict[str, Any] | None:
        """Redact a failed call's error text as the model reads it; ``None`` if nothing matched."""
        error = ctx.error
        text = str(error) if error is not None else ""
        redacted = self.redactor.redact(text)
        if redacted == text:
            return None
        if isinstance(error, BaseException):  # as the model reads an exception (round 3)
            redacted = f"{type(error).__name__}: {redacted}"
        return {"error": redacted}

    def request(self, ctx: PreRequestContext) -> dict[str, Any] | None:
        """Redact the content of the messages sent to the model; ``None`` if nothing matched."""
        redactor = self.redactor
        request = ctx.request
        messages = []
        changed = False
        for message in request.messages:
            if message.content:
                content = redactor.redact(message.content)
                if content != message.content:
                    message = message.model_copy(update={"content": content})
                    changed = True
            messages.append(message)
        if not changed:
            return None
        return {"request": request.model_copy(update={"messages": messages})}

    def response(self, ctx: ResponseContext) -> dict[str, Any] | None:
        """Redact the model's answer and its raw payload; ``None`` if nothing matched."""
        response = ctx.response
        update: dict[str, Any] = {}
        if response.content:
            content = self.redactor.redact(response.content)
            if content != response.content:
                update["content"] = content
        if response.raw is not None:  # the provider's payload carries the raw text too
            raw = self.redactor.redact_value(response.raw)
            if raw is not response.raw:
                update["raw"] = raw
        return {"response": response.model_copy(update=update)} if update else None

    def answer(self, ctx: PostAgentContext) -> dict[str, Any] | Deny | None:
        """Redact the run's final answer (its text and its structured output) before the
        caller gets it; ``None`` if nothing matched. A structured output whose type cannot
        hold the redacted values is withheld (``Deny``), never handed back unredacted."""
        response = ctx.response
        update: dict[str, Any] = {}
        if response.content:
            content = self.redactor.redact(response.content)
            if content != response.content:
                update["content"] = content
        if response.output is not None:  # a structured answer carries the text too
            output = self.redactor.redact_value(response.output)
            if output is not response.output:
                if isinstance(response.output, BaseModel):
                    try:  # the caller gets the type it asked for, its values redacted
                        output = type(response.output).model_validate(output)
                    except ValidationError:
                        return Deny(
                            f"the answer's {type(response.output).__name__} holds text the "
                            "policy redacts and cannot hold it redacted"
                        )
                update["output"] = output
        return {"response": response.model_copy(update=update)} if update else None


__all__ = ["RedactionHooks"]
