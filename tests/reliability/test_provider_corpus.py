"""The malformed-provider corpus, served by a real loopback HTTP server.

Every case of ``tests/providers/provider_corpus.py`` goes to ``complete()`` and to
``stream()`` (where it has a reply for each) of ``OpenAIChatProvider``. Each must end in a
complete, exactly-correct ``ProviderResponse`` or in exactly the expected ``ProviderError``
carrying the status and the raw bytes received, never in another exception and never in a
partial response; one request per call (the provider never retries); and the two paths
agree on every case that has both. At the end the table of cases per class is printed.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# provider_corpus.py and wire_server.py live beside the provider tests
_PROVIDERS = str(Path(__file__).resolve().parents[1] / "providers")
if _PROVIDERS not in sys.path:
    sys.path.insert(0, _PROVIDERS)

from provider_corpus import UNSET, Case, Failure, corpus  # noqa: E402
from wire_server import Reply, WireServer  # noqa: E402

from agenthooks.errors import ProviderError  # noqa: E402
from agenthooks.messages import ChatMessage, ProviderRequest, ProviderResponse  # noqa: E402
from agenthooks.providers.base import StreamDelta, StreamItem  # noqa: E402
from agenthooks.providers.openai import OpenAIChatProvider  # noqa: E402

CASES = corpus()
GUARD = 10.0  # seconds: no case may hang, whatever the provider does
REQUEST = ProviderRequest(messages=[ChatMessage(role="user", content="hi")])


@dataclass
class Outcome:
    """What one path gave: the items it yielded (or returned), and the error it raised."""

    items: list[StreamItem] = field(default_factory=list)
    error: ProviderError | None = None


@dataclass
class Tally:
    """Cases and paths tried and held, per class."""

    rows: dict[str, list[int]] = field(default_factory=dict)

    def tried(self, case: Case) -> None:
        row = self.rows.setdefault(case.kind, [0, 0, 0])
        row[0] += 1
        row[1] += len(case.paths)

    def held(self, case: Case) -> None:
        self.rows[case.kind][2] += 1

    def table(self) -> list[str]:
        lines = ["| class | cases | paths run | held |", "| --- | ---: | ---: | ---: |"]
        for kind, (cases, paths, held) in self.rows.items():
            lines.append(f"| {kind} | {cases} | {paths} | {held} |")
        total = [sum(row[i] for row in self.rows.values()) for i in range(3)]
        lines.append(f"| all | {total[0]} | {total[1]} | {total[2]} |")
        return lines


@pytest.fixture(scope="module")
def tally(request: pytest.FixtureRequest) -> Iterator[Tally]:
    counts = Tally()
    yield counts
    plugins = request.config.pluginmanager
    reporter = plugins.get_plugin("terminalreporter")
    capture = plugins.get_plugin("capturemanager")
    if reporter is None or capture is None or not counts.rows:
        return
    with capture.global_and_fixture_disabled():  # teardown output is captured otherwise
        reporter.write_line("")
        reporter.write_line("malformed-provider corpus (OpenAI-compatible provider):")
        for line in counts.table():
            reporter.write_line(line)


def test_the_corpus_covers_each_class_with_at_least_80_cases() -> None:
    assert len(CASES) >= 80
    assert len({case.name for case in CASES}) == len(CASES)
    kinds = {case.kind for case in CASES}
    assert len(kinds) >= 10
    assert sum(len(case.paths) == 2 for case in CASES) >= 80  # answers with both shapes


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_case(case: Case, tally: Tally) -> None:
    tally.tried(case)
    outcomes: dict[str, Outcome] = {}
    with WireServer() as server:
        server.reply(*(reply for _, reply in case.paths))
        async with OpenAIChatProvider(
            "test-model", base_url=server.url, api_key="sk-test", timeout=case.timeout
        ) as provider:
            for path, _ in case.paths:
                outcomes[path] = await run(provider, path)
        assert len(server.received) == len(case.paths)  # one request per call, no retry
    where = f"openai (POST {server.url}/chat/completions): "
    for path, reply in case.paths:
        check(case, path, reply, outcomes[path], where)
    if len(outcomes) == 2:
        assert summary(outcomes["json"], where) == summary(outcomes["sse"], where)
    tally.held(case)


async def run(provider: OpenAIChatProvider, path: str) -> Outcome:
    """Call one path; a ``ProviderError`` is an outcome, any other exception fails the case."""
    outcome = Outcome()

    async def call() -> None:
        if path == "json":
            outcome.items.append(await provider.complete(REQUEST))
        else:
            async for item in provider.stream(REQUEST):
                outcome.items.append(item)

    try:
        await asyncio.wait_for(call(), GUARD)
    except ProviderError as exc:
        outcome.error = exc
    return outcome


def check(case: Case, path: str, reply: Reply, outcome: Outcome, where: str) -> None:
    responses = [item for item in outcome.items if isinstance(item, ProviderResponse)]
    if isinstance(case.expect, Failure):
        expect, error = case.expect, outcome.error
        assert error is not None, f"{path}: no error, got {responses}"
        assert type(error) is expect.error, f"{path}: {error!r}"
        assert str(error).startswith(where)
        assert expect.fragment(path) in str(error), f"{path}: {error}"
        assert error.status == expect.status
        assert isinstance(error.raw, bytes)
        if expect.raw == "body" and path == "json":
            assert error.raw == reply.body
        elif expect.raw == "body":
            assert reply.body.startswith(error.raw)
            assert error.raw or not reply.body
        else:
            assert is_prefix(error.raw, reply), f"{path}: {error.raw[:200]!r}"
        assert responses == []  # never a partial response
        return
    assert outcome.error is None, f"{path}: {outcome.error!r}"
    assert len(responses) == 1 and outcome.items[-1] is responses[0]
    response = responses[0]
    assert response.model_copy(update={"raw": None}) == case.expect
    if path == "json":
        assert response.raw == json.loads(reply.body)
        return
    deltas = [item.text for item in outcome.items if isinstance(item, StreamDelta)]
    assert "".join(deltas) == (response.content or "")
    if case.sse_raw is not UNSET:
        assert response.raw == case.sse_raw


def is_prefix(raw: bytes, reply: Reply) -> bool:
    """``raw`` is what the reply sends, cut short (a ``forever`` part repeats)."""
    body = reply.body
    if len(raw) <= len(body):
        return body.startswith(raw)
    rest = raw[len(body) :]
    repeats = reply.forever * (len(rest) // max(len(reply.forever), 1) + 1)
    return raw.startswith(body) and repeats.startswith(rest)


def summary(outcome: Outcome, where: str) -> tuple[object, ...]:
    """What must agree between the paths: the response, or the error's type, status and
    message, less the wording that names the shape (chunk numbers, "delta", bytes read)."""
    if outcome.error is None:
        response = outcome.items[-1]
        assert isinstance(response, ProviderResponse)
        return ("response", response.model_copy(update={"raw": None}))
    text = str(outcome.error).removeprefix(where)
    text = re.sub(r" \((stream chunk \d+|end of stream)\)$", "", text)
    text = text.replace("stream chunk is not valid JSON", "response is not valid JSON")
    text = re.sub(r"server sent an error (instead of a completion|mid-stream)", "an error", text)
    text = text.replace(".delta is", ".message is")
    text = re.sub(r"\d+ bytes", "N bytes", text)
    return (type(outcome.error).__name__, outcome.error.status, text)
