"""Incremental output: a streamed response is mediated segment by segment, and the stream's
consumer gets a segment only after a verdict covering it allowed it."""

from __future__ import annotations

import ast
import json
from importlib.resources import files
from typing import Any

import pytest
from agent_hooks import Verdict
from agent_hooks.ctk.runner import run_vector
from agenthooks_agent_hooks_spec import AgentHooksSpec
from agenthooks_agent_hooks_spec.ctk import IncrementalHarness, SegmentProvider

from agenthooks import Agent, FinalResponse, ProviderResponse, TextDelta

VECTORS = {
    v["id"]: v
    for v in (
        json.loads(f.read_text(encoding="utf-8"))
        for f in (files("agent_hooks.ctk") / "vectors").iterdir()
        if f.name.startswith("AH-CTK-11") and f.name.endswith(".json")
    )
}


@pytest.mark.parametrize("vid", ["AH-CTK-110", "AH-CTK-111", "AH-CTK-112", "AH-CTK-113"])
async def test_the_incremental_vectors_pass_with_what_they_release_and_persist(vid: str) -> None:
    vector = VECTORS[vid]
    harness = IncrementalHarness()
    result = await run_vector(harness, vector)
    assert (result.status, result.failures) == ("pass", [])
    expect = vector["expect"]
    assert harness.released == expect["released_output"]
    persisted = "\n".join(harness.persisted)
    for text in expect.get("persisted_must_not_contain", []):
        assert text not in persisted


class Log:
    """The order in which the policy saw the segments and the consumer got the text."""

    def __init__(self, deny: str | None = None) -> None:
        self.deny = deny
        self.lines: list[str] = []

    def intercept(self, context: dict[str, Any]) -> Verdict:
        if context["interception_point"] == "post_model_call":
            response = context["response"]
            self.lines.append(f"verdict {response['finish_reason']}: {response['content']!r}")
            if self.deny is not None and self.deny in response["content"]:
                return Verdict.deny(reason="policy:secret")
        return Verdict.allow()


async def consume(agent: Agent, log: Log) -> Any:
    async for item in agent.chat_stream("tell me"):
        if isinstance(item, TextDelta):
            log.lines.append(f"released {item.text!r}")
        elif isinstance(item, FinalResponse):
            return item.response
    raise AssertionError("no final response")


def streaming_agent(*segments: str, truncated: bool = False) -> Agent:
    content = "".join(segments)
    plan = {"stream": list(segments), "stream_truncated": truncated}
    return Agent("a", provider=SegmentProvider([ProviderResponse(content=content)], [plan]))


async def test_each_segment_is_released_only_after_its_covering_verdict() -> None:
    log = Log()
    agent = streaming_agent("one ", "two ", "three")
    agent.bus.use(AgentHooksSpec([log], incremental_output=True))
    response = await consume(agent, log)
    assert response.content == "one two three"
    verdicts = [line for line in log.lines if line.startswith("verdict")]
    assert verdicts == [
        "verdict incremental: 'one '",
        "verdict incremental: 'one two '",
        "verdict stop: 'one two three'",
    ]
    assert [line for line in log.lines if line.startswith("released")] == [
        "released 'one '",
        "released 'two '",
        "released 'three'",
    ]
    # the watermark: when text reaches the consumer, a verdict covering all of it came first
    covered, released = "", ""
    for line in log.lines:
        text = line.split(": ", 1)[1] if line.startswith("verdict") else line[len("released ") :]
        if line.startswith("verdict"):
            covered = ast.literal_eval(text)
        else:
            released += ast.literal_eval(text)
            assert covered.startswith(released), (released, covered)
    assert [m.content for m in agent.history] == ["tell me", "one two three"]


async def test_a_deny_withholds_the_rest_and_nothing_withheld_enters_history() -> None:
    log = Log(deny="SECRET")
    agent = streaming_agent("public, ", "SECRET", " tail")
    records: list[Any] = []
    agent.bus.use(AgentHooksSpec([log], incremental_output=True, record_sink=records.append))
    response = await consume(agent, log)
    assert (response.finish_reason, response.content) == ("denied", "policy:secret")
    assert sorted(log.lines) == [
        "released 'public, '",
        "verdict incremental: 'public, '",
        "verdict incremental: 'public, SECRET'",
    ]
    assert log.lines.index("verdict incremental: 'public, '") < log.lines.index(
        "released 'public, '"
    )
    assert [m.content for m in agent.history] == ["tell me"]
    assert [r.interception_point.value for r in records][-1] == "agent_shutdown"
    assert "output" not in [r.interception_point.value for r in records]


async def test_a_cut_stream_denies_its_unevaluated_tail_with_a_record() -> None:
    log = Log()
    agent = streaming_agent("clean, ", "partial", truncated=True)
    records: list[Any] = []
    agent.bus.use(AgentHooksSpec([log], incremental_output=True, record_sink=records.append))
    response = await consume(agent, log)
    assert (response.finish_reason, response.content) == (
        "denied",
        "host_error:streaming_unsupported",
    )
    assert log.lines == ["verdict incremental: 'clean, '", "released 'clean, '"]  # and no more
    residue = [r for r in records if r.interception_point.value == "post_model_call"][-1]
    assert (residue.verdict.decision.value, residue.verdict.reason) == (
        "deny",
        "host_error:streaming_unsupported",
    )
    assert [m.content for m in agent.history] == ["tell me"]


async def test_without_incremental_output_the_answer_is_released_whole_after_output() -> None:
    log = Log()
    agent = streaming_agent("one ", "two")
    agent.bus.use(AgentHooksSpec([log]))
    await consume(agent, log)
    assert log.lines == ["verdict stop: 'one two'", "released 'one two'"]
