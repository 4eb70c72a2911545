"""Against the real OpenAI-compatible provider on a loopback HTTP server: provider name,
request and response model, response id, token usage, and an HTTP error."""

from __future__ import annotations

import pytest
from opentelemetry.trace import SpanKind, StatusCode
from otel_traced import Traced
from wire_server import WireServer, completion, error_reply, json_reply

from agenthooks import Agent, OpenAIChatProvider, ProviderHTTPError

pytestmark = pytest.mark.server


async def test_a_call_over_the_wire_names_provider_models_id_and_usage(traced: Traced) -> None:
    with WireServer() as server:
        server.reply(json_reply(completion("Hello!", usage=(21, 3), model="gpt-wire-2024")))
        provider = OpenAIChatProvider("gpt-wire", base_url=server.url, api_key="k", timeout=5)
        agent = Agent("assistant", provider=provider)
        agent.use(traced.plugin)

        response = await agent.chat("hi")

    assert response.content == "Hello!"
    assert traced.names == ["chat gpt-wire", "invoke_agent assistant"]
    chat = traced.one("chat gpt-wire")
    assert chat.kind is SpanKind.CLIENT
    attrs = dict(chat.attributes or {})
    assert attrs["gen_ai.provider.name"] == "openai"
    assert attrs["gen_ai.request.model"] == "gpt-wire"
    assert attrs["gen_ai.response.model"] == "gpt-wire-2024"
    assert attrs["gen_ai.response.id"] == "chatcmpl-test"
    assert (attrs["gen_ai.usage.input_tokens"], attrs["gen_ai.usage.output_tokens"]) == (21, 3)
    assert attrs["gen_ai.response.finish_reasons"] == ("stop",)


async def test_an_http_error_fails_the_chat_span_with_the_error_type(traced: Traced) -> None:
    with WireServer() as server:
        server.reply(error_reply(503, "overloaded, try later"))
        provider = OpenAIChatProvider("gpt-wire", base_url=server.url, api_key="k", timeout=5)
        agent = Agent("assistant", provider=provider)
        agent.use(traced.plugin)

        with pytest.raises(ProviderHTTPError) as caught:
            await agent.chat("hi")

    chat, agent_span = traced.spans
    assert chat.name == "chat gpt-wire"
    assert (chat.status.status_code, chat.status.description) == (
        StatusCode.ERROR,
        str(caught.value),
    )
    assert "overloaded, try later" in str(caught.value)
    assert (chat.attributes or {})["error.type"] == "ProviderHTTPError"
    assert (agent_span.attributes or {})["error.type"] == "ProviderHTTPError"
    assert agent_span.status.status_code is StatusCode.ERROR
    assert traced.plugin.open_spans == 0
