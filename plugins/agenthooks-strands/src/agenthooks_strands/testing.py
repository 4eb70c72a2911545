"""A Strands ``Model`` that plays back a script: for tests, examples and benchmarks, no network.

Strands ships no fake model; this one speaks its streaming protocol (``messageStart``,
``contentBlockStart`` / ``Delta`` / ``Stop``, ``messageStop``, ``metadata``) exactly as a real
provider adapter does, so the agent loop, its hooks and its middleware run for real.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import AsyncGenerator, AsyncIterable, Callable, Sequence
from typing import Any

from strands.models.model import Model

Turn = dict[str, Any] | str | BaseException | Callable[[list[dict[str, Any]]], Any]


def text(answer: str) -> dict[str, Any]:
    """An assistant message that answers ``answer``."""
    return {"role": "assistant", "content": [{"text": answer}]}


def tool_calls(*calls: tuple[str, str, dict[str, Any]], say: str | None = None) -> dict[str, Any]:
    """An assistant message that calls tools: ``(id, name, input)`` each, after ``say``."""
    content: list[dict[str, Any]] = [{"text": say}] if say else []
    content += [{"toolUse": {"toolUseId": i, "name": n, "input": a}} for i, n, a in calls]
    return {"role": "assistant", "content": content}


class ScriptedModel(Model):
    """Answers each model call with the next item of ``script``.

    An item is an assistant message (``{"role": "assistant", "content": [...]}``; see ``text``
    and ``tool_calls``), a string (a text answer), an exception (the call raises it), or a
    callable that gets the messages and returns one of those. A message's ``stopReason`` key
    sets the stop reason the model reports (``"max_tokens"``, say). ``requests`` records what every
    call was sent: ``{"messages", "system_prompt", "tool_specs"}``. Each answer reports
    ``usage`` (default 10 input, 5 output tokens).

    Args:
        script: The answers, one per call.
        usage: The usage each call reports.
    """

    def __init__(self, script: Sequence[Turn], usage: dict[str, int] | None = None) -> None:
        self.script = list(script)
        self.usage = usage or {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}
        self.requests: list[dict[str, Any]] = []
        self.config: dict[str, Any] = {"model_id": "scripted"}

    def update_config(self, **model_config: Any) -> None:
        """Merge ``model_config`` into the config."""
        self.config.update(model_config)

    def get_config(self) -> dict[str, Any]:
        """The config (``model_id``)."""
        return self.config

    def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[dict[str, Any], None]:
        """Not scripted: structured output is out of this model's scope."""
        raise NotImplementedError("ScriptedModel does not script structured output")

    async def stream(  # type: ignore[override]
        self,
        messages: list[dict[str, Any]],
        tool_specs: list[dict[str, Any]] | None = None,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncIterable[dict[str, Any]]:
        """Stream the next scripted answer as Strands' stream events."""
        self.requests.append(
            {
                "messages": copy.deepcopy(messages),
                "system_prompt": system_prompt,
                "tool_specs": list(tool_specs or []),
            }
        )
        if not self.script:
            raise RuntimeError("ScriptedModel: the script has no answer left")
        item: Any = self.script.pop(0)
        if callable(item) and not isinstance(item, BaseException | type):
            item = item(messages)
        if isinstance(item, type) and issubclass(item, BaseException):
            item = item("scripted failure")
        if isinstance(item, BaseException):
            raise item
        message = text(item) if isinstance(item, str) else item
        for event in _events(message, self.usage):
            yield event


def _events(message: dict[str, Any], usage: dict[str, int]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    stop = "end_turn"
    for block in message["content"]:
        if "text" in block:
            # word by word, each with its whitespace, as a provider streams
            words = re.findall(r"\S+\s*|\s+", block["text"]) or [""]
            events.append({"contentBlockStart": {"start": {}}})
            events += [{"contentBlockDelta": {"delta": {"text": w}}} for w in words]
            events.append({"contentBlockStop": {}})
        elif "toolUse" in block:
            use = block["toolUse"]
            stop = "tool_use"
            events += [
                {
                    "contentBlockStart": {
                        "start": {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}
                    }
                },
                {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(use["input"])}}}},
                {"contentBlockStop": {}},
            ]
        elif "reasoningContent" in block:
            reasoning = block["reasoningContent"].get("reasoningText", {})
            delta: list[dict[str, Any]] = [
                {"reasoningContent": {"text": reasoning.get("text", "")}}
            ]
            if reasoning.get("signature"):
                delta.append({"reasoningContent": {"signature": reasoning["signature"]}})
            events += [{"contentBlockStart": {"start": {}}}]
            events += [{"contentBlockDelta": {"delta": d}} for d in delta]
            events += [{"contentBlockStop": {}}]
    events.append({"messageStop": {"stopReason": message.get("stopReason", stop)}})
    events.append({"metadata": {"usage": dict(usage), "metrics": {"latencyMs": 1}}})
    return events


__all__ = ["ScriptedModel", "text", "tool_calls"]
