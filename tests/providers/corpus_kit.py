"""The parts the provider corpus is built of: cases, expected outcomes, and answers in
both shapes (a ``chat.completion`` body and a stream), the well-formed ones built with the
official ``openai`` package's types so that they have the shapes OpenAI itself sends."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_chunk import Choice as ChunkChoice
from openai.types.chat.chat_completion_chunk import (
    ChoiceDelta,
    ChoiceDeltaToolCall,
    ChoiceDeltaToolCallFunction,
)
from openai.types.chat.chat_completion_message_tool_call import (
    ChatCompletionMessageToolCall,
    Function,
)
from openai.types.completion_usage import CompletionUsage
from wire_server import (
    Reply,
    json_reply,
    sse_reply,
)

from agenthooks.errors import (
    ProviderError,
    ProviderResponseError,
)
from agenthooks.messages import ProviderResponse, ToolCall, Usage

JSON = dict[str, Any]
UNSET: Any = object()
TIMEOUT = 0.2  # the provider's timeout in the timing cases: the whole response gets 0.6 s


@dataclass(frozen=True)
class Failure:
    """A typed error: exactly ``error``, with ``status``, a message containing ``says``, and
    ``raw`` equal to the body sent (``"body"``) or to a prefix of it (``"prefix"``: the
    answer was cut short or never finished). A stream stops at the event that failed, so
    there ``raw`` is the body up to that event at least: a prefix, never empty."""

    error: type[ProviderError]
    says: str
    status: int | None = 200
    raw: Literal["body", "prefix"] = "body"
    says_streamed: str | None = None  # the stream's wording, when it differs

    def fragment(self, path: str) -> str:
        """What the error message must contain on ``path`` ("json" or "sse")."""
        return self.says_streamed if path == "sse" and self.says_streamed else self.says


@dataclass(frozen=True)
class Case:
    """One answer, its replies for each path and the outcome both must reach."""

    name: str
    kind: str
    expect: ProviderResponse | Failure
    json: Reply | None = None
    sse: Reply | None = None
    sse_raw: Any = UNSET  # the streamed response's raw: its decoded chunks, when known
    timeout: float = 2.0

    @property
    def paths(self) -> list[tuple[str, Reply]]:
        """The (path, reply) pairs this case serves."""
        return [(path, r) for path, r in (("json", self.json), ("sse", self.sse)) if r]


@dataclass
class _Calls:
    """Tool calls in both shapes: complete (a completion) and as deltas with an index."""

    message: list[Any] = field(default_factory=list)
    deltas: list[Any] = field(default_factory=list)


def ok(
    content: str | None = None,
    calls: list[ToolCall] | None = None,
    finish: str = "stop",
    usage: tuple[int, int, int] | None = (12, 3, 15),
) -> ProviderResponse:
    """The response a case must give (``raw`` is checked apart)."""
    tokens = Usage()
    if usage is not None:
        tokens = Usage(input_tokens=usage[0], output_tokens=usage[1], total_tokens=usage[2])
    return ProviderResponse(
        content=content, tool_calls=calls or [], finish_reason=finish, usage=tokens
    )


def call(id: str, name: str, arguments: dict[str, Any], raw: str | None = None) -> ToolCall:
    """An expected tool call."""
    return ToolCall(id=id, name=name, arguments=arguments, raw_arguments=raw)


def bad(says: str) -> Failure:
    """A malformed answer: ``ProviderResponseError`` with status 200."""
    return Failure(ProviderResponseError, says)


# ------------------------------------------------------------- openai-typed baselines

HEAD: JSON = {"id": "chatcmpl-corpus", "created": 1700000000, "model": "test-model"}
USAGE: JSON = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}


def typed_completion(
    content: str | None,
    calls: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
    finish: Any = "stop",
    usage: bool = True,
) -> JSON:
    """A ``chat.completion`` body built with the ``openai`` types (every null field sent)."""
    tool_calls = [
        ChatCompletionMessageToolCall(
            id=id, type="function", function=Function(name=name, arguments=arguments)
        )
        for id, name, arguments in calls
    ]
    message = ChatCompletionMessage(
        role="assistant", content=content, tool_calls=tool_calls or None
    )
    return ChatCompletion(
        **HEAD,
        object="chat.completion",
        choices=[Choice(index=0, message=message, finish_reason=finish, logprobs=None)],
        usage=CompletionUsage(**USAGE) if usage else None,
    ).model_dump(mode="json")


def typed_chunks(
    pieces: list[str] = (),  # type: ignore[assignment]
    calls: list[tuple[int, str | None, str | None, str | None]] = (),  # type: ignore[assignment]
    finish: Any = "stop",
    usage: bool = True,
) -> list[JSON]:
    """A stream built with the ``openai`` types: a role chunk, one chunk per text piece and
    per tool-call delta ``(index, id, name, arguments)``, the finish, then usage."""
    deltas = [ChoiceDelta(role="assistant", content="")]
    deltas += [ChoiceDelta(content=piece) for piece in pieces]
    for index, id, name, arguments in calls:
        function = ChoiceDeltaToolCallFunction(name=name, arguments=arguments)
        tool_call = ChoiceDeltaToolCall(
            index=index, id=id, type="function" if id else None, function=function
        )
        deltas.append(ChoiceDelta(tool_calls=[tool_call]))
    chunks = [
        ChatCompletionChunk(
            **HEAD,
            object="chat.completion.chunk",
            choices=[ChunkChoice(index=0, delta=delta, finish_reason=None)],
        )
        for delta in deltas
    ]
    chunks.append(
        ChatCompletionChunk(
            **HEAD,
            object="chat.completion.chunk",
            choices=[ChunkChoice(index=0, delta=ChoiceDelta(), finish_reason=finish)],
        )
    )
    if usage:
        chunks.append(
            ChatCompletionChunk(
                **HEAD, object="chat.completion.chunk", choices=[], usage=CompletionUsage(**USAGE)
            )
        )
    return [chunk.model_dump(mode="json") for chunk in chunks]


def pair(name: str, kind: str, body: JSON, chunks: list[JSON], expect: ProviderResponse) -> Case:
    """A completion and a stream that must give the same response."""
    return Case(name, kind, expect, json_reply(body), sse_reply(chunks), sse_raw=chunks)


def twin(
    name: str,
    kind: str,
    expect: ProviderResponse | Failure,
    *,
    message: Any = UNSET,
    calls: _Calls | None = None,
    finish: Any = "stop",
    usage: Any = USAGE,
    choice: JSON | None = None,
    top: JSON | None = None,
) -> Case:
    """One answer as a completion body and as a stream (the message as one delta, a finish
    chunk, a usage chunk). ``choice`` and ``top`` add or replace fields of the choice and of
    the body (the stream's first chunk)."""
    if message is UNSET:
        message = {"role": "assistant", "content": "ok"}
    delta = message
    if calls is not None:
        message = {"role": "assistant", "content": None, "tool_calls": calls.message}
        delta = {"role": "assistant", "tool_calls": calls.deltas}
    body = {
        **HEAD,
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, **(choice or {})}],
        "usage": usage,
        **(top or {}),
    }
    head = {**HEAD, "object": "chat.completion.chunk"}
    first = {
        **head,
        "choices": [{"index": 0, "delta": delta, "finish_reason": None, **(choice or {})}],
        **(top or {}),
    }
    last = {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
    chunks = [first, last, {**head, "choices": [], "usage": usage}]
    return Case(name, kind, expect, json_reply(body), sse_reply(chunks), sse_raw=chunks)


def calls(*entries: Any) -> _Calls:
    """Tool calls for ``twin``; a dict entry gets its position as the delta's ``index``."""
    deltas = [{"index": i, **e} if isinstance(e, dict) else e for i, e in enumerate(entries)]
    return _Calls(list(entries), deltas)


def function(name: Any = "lookup", arguments: Any = '{"key": 1}', id: Any = "call_1") -> JSON:
    """One complete tool call."""
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def unfinished(body: JSON) -> JSON:
    body["choices"][0]["finish_reason"] = None
    return body


def sse_events(chunks: list[JSON], newline: str = "\n", done: bool = True) -> list[str]:
    datas = [json.dumps(chunk) for chunk in chunks] + (["[DONE]"] if done else [])
    return [f"data: {data}{newline}{newline}" for data in datas]


def replace_content_type(reply: Reply, content_type: str | None) -> Reply:
    """``reply`` with another Content-Type (``None``: no such header)."""
    reply.content_type = content_type
    return reply


def delta_chunk(*tool_calls: JSON, finish: str | None = None) -> JSON:
    delta = {"tool_calls": list(tool_calls)} if tool_calls else {}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {**HEAD, "object": "chat.completion.chunk", "choices": [choice]}


def plain_no_usage(reply: Reply) -> Reply:
    """A completion reply without its usage (the streamed twins above send none)."""
    body = json.loads(reply.body)
    body["usage"] = None
    return json_reply(body)
