"""Over a real OpenAI-format HTTP endpoint: what a pre_model_call transform writes back is what
goes on the wire, and post_model_call carries the model and the usage the server reported."""

from __future__ import annotations

import pytest
from agenthooks_agent_hooks_spec import AgentHooksSpec
from spec_helpers import Policy, transform
from wire_server import WireServer, completion, json_reply

from agenthooks import Agent, OpenAIChatProvider

pytestmark = pytest.mark.server


async def test_a_rewritten_system_prompt_is_the_one_sent_over_http() -> None:
    with WireServer() as server:
        server.reply(json_reply(completion("Il fait beau.")))
        provider = OpenAIChatProvider("gpt-test", base_url=server.url, api_key="k", timeout=5)
        agent = Agent("a", "Answer in English.", provider=provider)
        policy = Policy(
            pre_model_call=lambda c: transform("$target[0].content", "Answer in French.")
        )
        agent.bus.use(AgentHooksSpec([policy]))
        response = await agent.chat("weather?")
        body = server.requests[0]
    assert response.content == "Il fait beau."
    assert body["messages"] == [
        {"role": "system", "content": "Answer in French."},
        {"role": "user", "content": "weather?"},
    ]
    pre, post = policy.at("pre_model_call")[0], policy.at("post_model_call")[0]
    assert pre["model"] == {"id": "gpt-test"} and post["model"] == {"id": "gpt-test"}
    assert post["usage"] == {"prompt_tokens": 10, "completion_tokens": 5}
    assert post["response"] == {
        "content": "Il fait beau.",
        "tool_calls": [],
        "finish_reason": "stop",
    }
