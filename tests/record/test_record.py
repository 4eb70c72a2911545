"""The Recorder plugin: one JSON line per on_event record, monotonic times and span durations,
whole lines under concurrency, and the terminal events on disk when a run ends."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from record_support import record_scenario, scenario

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import EventRecord
from agenthooks.record import RECORD_FIELDS, Recorder, reachable_buses, to_jsonable


def lines_of(path: Path) -> list[dict[str, Any]]:
    """What is on disk now, read through a separate file object."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def tool_calls(*names: str) -> ProviderResponse:
    return ProviderResponse(tool_calls=[ToolCall(id="", name=n, arguments={}) for n in names])


@tool
async def ping() -> str:
    """Answer pong."""
    await asyncio.sleep(0)
    return "pong"


async def test_one_line_per_on_event_record_in_emission_order(tmp_path: Path) -> None:
    agent = scenario()
    seen: list[EventRecord] = []
    agent.on("on_event", seen.append)
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path)
    recorder.attach(agent)
    await agent.chat("How do hooks work?")
    lines = lines_of(path)
    assert [line["type"] for line in lines] == [r.type for r in seen]
    assert [line["seq"] for line in lines] == list(range(1, len(seen) + 1))
    assert all(list(line) == list(RECORD_FIELDS) for line in lines)
    monos = [line["mono"] for line in lines]
    assert monos == sorted(monos)
    assert [
        (
            line["run_id"],
            line["branch"],
            line["tool_call_id"],
            line["is_error"],
            line["denied"],
            line["timestamp"],
        )
        for line in lines
    ] == [(r.run_id, r.branch, r.tool_call_id, r.is_error, r.denied, r.timestamp) for r in seen]
    assert recorder.count == len(seen)


async def test_lines_carry_serialized_inputs_outputs_and_errors() -> None:
    records = await record_scenario()
    first = records[0]
    assert (first["type"], first["input"], first["agent"], first["parent_run_id"]) == (
        "on_chat_start",
        "How do hooks work?",
        "support",
        None,
    )
    denied = [r for r in records if r["type"] == "pre_tool_call" and r["denied"]]
    assert [(r["tool_name"], r["input"], r["denied"], r["is_error"]) for r in denied] == [
        ("delete_file", {"path": "/etc"}, "file deletion is disabled", True)
    ]
    failed = [r for r in records if r["type"] == "on_tool_call_error"]
    assert [(r["tool_name"], r["error"]) for r in failed] == [
        ("delete_file", "file deletion is disabled"),
        ("flaky_api", "ConnectionError: upstream returned 503"),
    ]
    response = next(r for r in records if r["type"] == "on_response")
    assert response["output"]["tool_calls"][0] == {
        "id": "call_1",
        "name": "search",
        "arguments": {"query": "hooks"},
        "raw_arguments": None,
    }
    assert response["output"]["usage"] == {
        "input_tokens": 30,
        "output_tokens": 12,
        "total_tokens": 42,
        "cost": 0.0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
    }
    assert response["input"]["system"] == "Help users."
    end = records[-1]
    assert end["type"] == "on_chat_end"
    assert end["output"]["content"] == "Hooks let you observe and change every step."
    sub = [r for r in records if r["agent"] == "researcher"]
    assert {r["branch"] for r in sub} == {"support/researcher"}
    assert {r["parent_run_id"] for r in sub} == {first["run_id"]}


async def test_span_durations_are_monotonic_differences() -> None:
    records = await record_scenario()
    by_run: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_run.setdefault(r["run_id"], []).append(r)
    checked = 0
    for run in by_run.values():
        opened: dict[tuple[str, Any], float] = {}
        for r in run:
            if r["type"] in ("pre_request", "on_loop_start"):
                opened[(r["type"], r["iteration"])] = r["mono"]
            elif r["type"] == "on_response":
                assert r["duration"] == r["mono"] - opened[("pre_request", r["iteration"])]
                checked += 1
            elif r["type"] == "on_loop_end":
                assert r["duration"] == r["mono"] - opened[("on_loop_start", r["iteration"])]
                checked += 1
            elif r["type"] == "post_agent":
                start = next(x["mono"] for x in run if x["type"] == "pre_agent")
                assert r["duration"] == r["mono"] - start
                checked += 1
    assert checked == 2 * 6 + 2  # 6 model calls and 6 turns over both runs, 2 agents
    recovered = [r for r in records if r["type"] == "on_model_error"]
    assert recovered[0]["duration"] is not None and recovered[0]["duration"] >= 0
    assert [r["duration"] for r in records if r["type"] == "pre_request"] == [None] * 6


async def test_tool_and_run_durations_are_the_records_own() -> None:
    agent = Agent("a", provider=ScriptedProvider([tool_calls("ping"), "done"]), tools=[ping])
    own: dict[str, float] = {}
    agent.on("on_tool_call_result", lambda ctx: own.__setitem__("tool", ctx.duration))
    agent.on("on_chat_end", lambda ctx: own.__setitem__("run", ctx.duration))
    recorder = Recorder()
    recorder.attach(agent)
    await agent.chat("go")
    durations = {r["type"]: r["duration"] for r in recorder.records}
    assert durations["on_tool_call_result"] == own["tool"]
    assert durations["on_chat_end"] == own["run"]


@pytest.mark.parametrize("ending", ["done", "error", "abort"])
async def test_terminal_events_are_on_disk_before_the_caller_gets_control(
    tmp_path: Path, ending: str
) -> None:
    started = asyncio.Event()

    @tool
    async def wait_forever() -> str:
        """Never returns."""
        started.set()
        await asyncio.Event().wait()
        return "unreachable"

    scripts: dict[str, list[Any]] = {
        "done": ["hello"],
        "error": [RuntimeError("provider down")],
        "abort": [tool_calls("wait_forever")],
    }
    script = scripts[ending]
    agent = Agent("a", provider=ScriptedProvider(script), tools=[wait_forever])
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path)  # never closed in this test: only the flush can put lines there
    recorder.attach(agent)
    if ending == "abort":
        task = asyncio.ensure_future(agent.chat("go"))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    elif ending == "error":
        with pytest.raises(RuntimeError, match="provider down"):
            await agent.chat("go")
    else:
        await agent.chat("go")
    types = [line["type"] for line in lines_of(path)]
    terminal = {"done": "on_chat_done", "error": "on_chat_error", "abort": "on_chat_abort"}
    assert types[-2:] == [terminal[ending], "on_chat_end"]
    assert types[0] == "on_chat_start"
    assert len(types) == recorder.count


async def test_parallel_tools_and_parallel_subagents_write_whole_lines(tmp_path: Path) -> None:
    def worker(name: str) -> Agent:
        return Agent(
            name,
            provider=ScriptedProvider([tool_calls("ping", "ping"), f"{name} ok"]),
            tools=[ping],
            parallel_tool_calls=True,
        )

    alpha, beta = worker("alpha"), worker("beta")
    lead = Agent(
        "lead",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="", name="alpha", arguments={"task": "a"}),
                        ToolCall(id="", name="beta", arguments={"task": "b"}),
                        ToolCall(id="", name="ping", arguments={}),
                    ]
                ),
                "all done",
            ]
        ),
        tools=[ping],
        sub_agents=[alpha, beta],
        parallel_tool_calls=True,
    )
    seen: list[str] = []
    lead.on("on_event", lambda r: seen.append(f"{r.branch}:{r.type}"))
    path = tmp_path / "run.jsonl"
    with Recorder(path) as recorder:
        recorder.attach(lead)
        await lead.chat("go")
    lines = lines_of(path)
    assert [f"{r['branch']}:{r['type']}" for r in lines] == seen
    assert [r["seq"] for r in lines] == list(range(1, len(seen) + 1))
    runs = {r["branch"]: r["run_id"] for r in lines if r["type"] == "on_chat_start"}
    assert set(runs) == {"lead", "lead/alpha", "lead/beta"}
    assert {r["parent_run_id"] for r in lines if r["branch"] != "lead"} == {runs["lead"]}
    # the two sub-agent runs overlapped: beta started before alpha ended
    order = [(r["branch"], r["type"]) for r in lines]
    assert order.index(("lead/beta", "on_chat_start")) < order.index(("lead/alpha", "on_chat_end"))


def test_threads_writing_at_once_never_interleave_a_line(tmp_path: Path) -> None:
    path = tmp_path / "threads.jsonl"
    recorder = Recorder(path)
    payload = "x" * 3000  # lines longer than a write buffer

    def write_many(n: int) -> None:
        for i in range(300):
            recorder.write(
                EventRecord(type="on_message", run_id=f"t{n}", output=payload, iteration=i)
            )

    threads = [threading.Thread(target=write_many, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recorder.close()
    lines = lines_of(path)
    assert len(lines) == 2400
    assert sorted(r["seq"] for r in lines) == list(range(1, 2401))
    for n in range(8):
        assert [r["iteration"] for r in lines if r["run_id"] == f"t{n}"] == list(range(300))
    assert {r["output"] for r in lines} == {payload}


class Opaque:
    def __str__(self) -> str:
        return "<opaque thing>"


def test_to_jsonable_never_raises() -> None:
    response = ProviderResponse(content="hi", raw=b"\xff\xfe binary")
    assert to_jsonable(ValueError("boom")) == "ValueError: boom"
    assert to_jsonable(KeyError()) == "KeyError"
    assert to_jsonable({"when": Opaque(), "ids": {3}, "pair": (1, 2), "raw": b"ok"}) == {
        "when": "<opaque thing>",
        "ids": [3],
        "pair": [1, 2],
        "raw": "ok",
    }
    dumped = to_jsonable(response)
    assert dumped["content"] == "hi"
    assert dumped["raw"] == "\ufffd\ufffd binary"
    assert dumped["usage"] == {
        "input_tokens": 0,
        "output_tokens": 0,
        "total_tokens": 0,
        "cost": 0.0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
    }


async def test_tool_results_of_any_type_are_recorded() -> None:
    @tool
    def odd() -> Any:
        """Return something JSON does not know."""
        return {"error": ValueError("inner"), "blob": b"\x00\xff", "thing": Opaque()}

    agent = Agent("a", provider=ScriptedProvider([tool_calls("odd"), "done"]), tools=[odd])
    recorder = Recorder()
    recorder.attach(agent)
    await agent.chat("go")
    result = next(r for r in recorder.records if r["type"] == "on_tool_call_result")
    assert result["output"] == {
        "error": "ValueError: inner",
        "blob": "\x00\ufffd",
        "thing": "<opaque thing>",
    }


async def test_stream_target_is_written_and_never_closed() -> None:
    stream = io.StringIO()
    recorder = Recorder(stream)
    agent = Agent("a", provider=ScriptedProvider(["hello"]))
    agent.use(recorder)
    await agent.chat("hi")
    recorder.close()
    assert not stream.closed
    types = [json.loads(line)["type"] for line in stream.getvalue().splitlines()]
    assert types[0] == "on_chat_start" and types[-1] == "on_chat_end"
    assert recorder.records == []


async def test_a_failing_stream_never_fails_the_run() -> None:
    stream = io.StringIO()
    stream.close()  # every write raises ValueError
    agent = Agent("a", provider=ScriptedProvider(["hello"]))
    agent.use(Recorder(stream))
    response = await agent.chat("hi")
    assert response.content == "hello"


async def test_close_is_idempotent_and_later_records_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path)
    agent = Agent("a", provider=ScriptedProvider(["one", "two"]))
    recorder.attach(agent)
    await agent.chat("first")
    recorder.close()
    recorder.close()
    count = len(lines_of(path))
    await agent.chat("second")
    assert len(lines_of(path)) == count == recorder.count
    assert recorder.closed


async def test_append_mode_keeps_earlier_runs(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    for text in ("one", "two"):
        agent = Agent("a", provider=ScriptedProvider([text]))
        with Recorder(path, append=True) as recorder:
            recorder.attach(agent)
            await agent.chat("hi")
    done = [r["output"]["content"] for r in lines_of(path) if r["type"] == "on_chat_done"]
    assert done == ["one", "two"]


async def test_disposer_detaches_and_flushes(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path)
    agent = Agent("a", provider=ScriptedProvider(["one", "two"]))
    dispose = recorder.attach(agent)
    await agent.chat("first")
    dispose()
    assert agent.bus.handlers("on_event") == []
    await agent.chat("second")
    assert [r["input"] for r in lines_of(path) if r["type"] == "on_chat_start"] == ["first"]


async def test_attach_covers_subagents_with_their_own_bus_exactly_once() -> None:
    own = Agent("own", provider=ScriptedProvider(["own done"]), bus=HookBus())
    plain = Agent("plain", provider=ScriptedProvider(["plain done"]))
    lead = Agent(
        "lead",
        provider=ScriptedProvider(
            [
                ProviderResponse(tool_calls=[ToolCall(id="", name="own", arguments={"task": "x"})]),
                ProviderResponse(
                    tool_calls=[ToolCall(id="", name="plain", arguments={"task": "y"})]
                ),
                "done",
            ]
        ),
        sub_agents=[own, plain],
    )
    assert reachable_buses(lead) == [lead.bus, own.bus]
    recorder = Recorder()
    recorder.attach(lead)
    await lead.chat("go")
    starts = [r["branch"] for r in recorder.records if r["type"] == "on_chat_start"]
    assert starts == ["lead", "lead/own", "lead/plain"]
    seqs = [r["seq"] for r in recorder.records]
    assert seqs == list(range(1, len(seqs) + 1))


def test_recorder_is_a_named_plugin() -> None:
    bus = HookBus()
    recorder = Recorder()
    dispose = bus.use(recorder)
    assert bus.plugins["recorder"].plugin is recorder
    assert len(bus.handlers("on_event")) == 1
    dispose()
    assert "recorder" not in bus.plugins and bus.handlers("on_event") == []
    assert repr(recorder) == "Recorder(memory, 0 records)"
