"""From a recording to spans, a terminal tree and a timeline page (no subprocess here; the
console script is tested in test_tools_cli.py and the page in Chromium in
test_tools_timeline.py)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from record_support import SCENARIO_TREE, deterministic, record_scenario, write_jsonl

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.record import Recorder
from agenthooks.trace import (
    RecordingError,
    build_trace,
    load_recording,
    page_data,
    render_html,
    render_tree,
)
from agenthooks.trace.text import format_duration


@pytest.fixture(scope="module")
def scenario_records() -> list[dict[str, Any]]:
    return deterministic(asyncio.run(record_scenario()))


def test_tree_of_a_recorded_run(scenario_records: list[dict[str, Any]]) -> None:
    assert render_tree(build_trace(scenario_records)) == SCENARIO_TREE


def test_tree_in_ascii_and_in_colour(scenario_records: list[dict[str, Any]]) -> None:
    trace = build_trace(scenario_records)
    ascii_tree = render_tree(trace, unicode=False)
    assert ascii_tree.splitlines()[1] == "+- turn 0  14 ms"
    assert (
        "|  `- tool flaky_api()  5.0 ms  ERROR: ConnectionError: upstream returned 503"
        in ascii_tree
    )
    coloured = render_tree(trace, color=True).splitlines()
    assert (
        coloured[5]
        == "│  └─ \033[31mtool flaky_api()  5.0 ms  ERROR: ConnectionError: upstream returned 503\033[0m"
    )
    assert coloured[4] == (
        '│  ├─ \033[33mtool delete_file({"path": "/etc"})  0.0 ms  DENIED: '
        "file deletion is disabled\033[0m"
    )
    assert re.sub(r"\033\[\d+m", "", "\n".join(coloured)) + "\n" == SCENARIO_TREE


def test_spans_nest_and_keep_details(scenario_records: list[dict[str, Any]]) -> None:
    trace = build_trace(scenario_records)
    assert [(s.kind, s.name, s.branch, depth) for s, depth in trace.walk()][:4] == [
        ("run", "support", "support", 0),
        ("turn", "turn 0", "support", 1),
        ("model", "demo-model", "support", 2),
        ("tool", "search", "support", 2),
    ]
    researcher = next(s for s in trace.spans if s.kind == "run" and s.name == "researcher")
    delegating = next(s for s in trace.spans if s.kind == "tool" and s.name == "researcher")
    assert delegating.children == [researcher]
    assert researcher.branch == "support/researcher"
    assert researcher.start >= delegating.start and researcher.end <= delegating.end  # type: ignore[operator]
    denied = next(s for s in trace.spans if s.name == "delete_file")
    assert (denied.status, denied.error, denied.details["arguments"]) == (
        "denied",
        "file deletion is disabled",
        '{"path": "/etc"}',
    )
    run = trace.roots[0]
    assert run.details["input"] == "How do hooks work?"
    assert run.details["output"] == "Hooks let you observe and change every step."
    assert run.tokens == (182, 44)  # the whole run: the sub-agent's tokens included


def test_time_format() -> None:
    assert [format_duration(s) for s in (0.0004, 0.0099, 0.0125, 0.999, 1.0, 12.345)] == [
        "0.4 ms",
        "9.9 ms",
        "12 ms",
        "999 ms",
        "1.00 s",
        "12.35 s",
    ]


async def test_denies_marks_and_aborts_show_in_the_tree() -> None:
    started = asyncio.Event()

    @tool
    async def slow() -> str:
        """Never returns."""
        started.set()
        await asyncio.Event().wait()
        return "unreachable"

    billing = Agent("billing", provider=ScriptedProvider(["Refund issued."]))
    triage = Agent(
        "triage",
        provider=ScriptedProvider(
            [
                ProviderResponse(tool_calls=[ToolCall(id="h1", name="transfer_to_billing")]),
            ]
        ),
        handoffs=[billing],
    )
    recorder = Recorder()
    recorder.attach(triage)
    await triage.chat("refund please")

    gated = Agent("gated", provider=ScriptedProvider(["never sent"]))
    gated.on("pre_request", lambda ctx: Deny("over budget"))
    recorder.attach(gated)
    await gated.chat("hi")

    stuck = Agent(
        "stuck",
        provider=ScriptedProvider([ProviderResponse(tool_calls=[ToolCall(id="s1", name="slow")])]),
        tools=[slow],
    )
    recorder.attach(stuck)
    task = asyncio.ensure_future(stuck.chat("wait"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    tree = render_tree(build_trace(deterministic(recorder.records)))
    assert (
        tree
        == """\
agent triage  26 ms  → stop
├─ turn 0  11 ms
│  ├─ model call  1.0 ms  → tools: transfer_to_billing
│  └─ tool transfer_to_billing()  3.0 ms  → Transferred to billing.
├─ · handoff to billing
└─ turn 1  4.0 ms
   └─ model call  1.0 ms  → 'Refund issued.'
agent gated  9.0 ms  DENIED: over budget
└─ turn 0  3.0 ms
   └─ model call  0.0 ms  DENIED: over budget
      └─ ! denied at pre_request: over budget
agent stuck  12 ms  ABORTED: CancelledError
└─ turn 0  8.0 ms  UNFINISHED
   ├─ model call  1.0 ms  → tools: slow
   └─ tool slow()  1.0 ms  ERROR: cancelled
"""
    )


def test_a_killed_run_is_shown_unfinished(scenario_records: list[dict[str, Any]]) -> None:
    cut = scenario_records[:45]  # the researcher's run has just started
    tree = render_tree(build_trace(cut))
    assert tree.splitlines()[0] == "agent support  44 ms  UNFINISHED"
    assert tree.endswith("""\
└─ turn 2  11 ms  UNFINISHED
   ├─ model call demo-model  1.0 ms  tokens 50 in / 9 out  → tools: researcher
   └─ tool researcher({"task": "explain hooks"})  6.0 ms  UNFINISHED
      └─ agent researcher  4.0 ms  UNFINISHED
         └─ turn 0  0.0 ms  UNFINISHED
""")


def test_events_outside_a_run_are_points() -> None:
    records = [
        {
            "seq": 1,
            "type": "on_scope_register",
            "mono": 1.0,
            "run_id": "",
            "agent": "a",
            "branch": "a",
            "input": None,
            "output": None,
        }
    ]
    trace = build_trace(records)
    assert render_tree(trace) == "on_scope_register (a)\n"
    assert trace.spans[0].kind == "event"


# reading ---------------------------------------------------------------------------------


def test_load_reads_every_record(tmp_path: Path, scenario_records: list[dict[str, Any]]) -> None:
    path = write_jsonl(tmp_path / "run.jsonl", scenario_records)
    recording = load_recording(path)
    assert recording.records == scenario_records
    assert recording.skipped == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"",
            (
                "{path} is not an agenthooks recording: it is empty; write one with "
                "agenthooks.record.Recorder or `agenthooks demo --record FILE`"
            ),
        ),
        (
            b"[project]\nname = 1\n",
            (
                "{path} is not an agenthooks recording: line 1 is not JSON "
                "(Expecting value); write one with agenthooks.record.Recorder "
                "or `agenthooks demo --record FILE`"
            ),
        ),
        (
            b'{"name": "x"}\n',
            (
                "{path} is not an agenthooks recording: line 1 is an object without "
                '"type", not an event record; write one with '
                "agenthooks.record.Recorder or `agenthooks demo --record FILE`"
            ),
        ),
        (
            b"[1, 2]\n",
            (
                "{path} is not an agenthooks recording: line 1 is a JSON list, not an event "
                "record; write one with agenthooks.record.Recorder or `agenthooks demo "
                "--record FILE`"
            ),
        ),
        (
            b'{"type": "on_message", "seq": "1", "mono": 1}\n',
            (
                '{path} is not an agenthooks recording: line 1 is "seq" is str, not an event record; '
                "write one with agenthooks.record.Recorder or `agenthooks demo --record FILE`"
            ),
        ),
        (
            b"\xff\xfe\x00binary\n",
            (
                "{path} is not an agenthooks recording: line 1 is not UTF-8 "
                "text; write one with agenthooks.record.Recorder or `agenthooks "
                "demo --record FILE`"
            ),
        ),
        (
            b'{"type": "on_chat_start", "se',
            (
                "{path}: nothing readable: line 1: truncated: the file "
                "ends in the middle of this line (was the run stopped "
                "while writing?)"
            ),
        ),
    ],
)
def test_files_that_are_not_recordings(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordingError) as info:
        load_recording(path)
    assert str(info.value) == message.format(path=path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match=r"^.*nope\.jsonl: no such file$"):
        load_recording(tmp_path / "nope.jsonl")
    with pytest.raises(RecordingError, match=r"is a directory, not a recording$"):
        load_recording(tmp_path)


def test_truncated_last_line_and_bad_middle_lines_are_skipped(
    tmp_path: Path, scenario_records: list[dict[str, Any]]
) -> None:
    lines = [json.dumps(r) for r in scenario_records[:10]]
    lines[4] = "{not json"
    lines[6] = json.dumps({"hello": "world"})
    text = "\n".join(lines[:9]) + "\n" + lines[9][:25]
    path = tmp_path / "cut.jsonl"
    path.write_text(text, encoding="utf-8")
    recording = load_recording(path)
    assert [r["seq"] for r in recording.records] == [1, 2, 3, 4, 6, 8, 9]
    assert [str(s) for s in recording.skipped] == [
        "line 5: not valid JSON (Expecting property name enclosed in double quotes)",
        'line 7: an object without "type", not an event record',
        (
            "line 10: truncated: the file ends in the middle of this line (was the run stopped "
            "while writing?)"
        ),
    ]


def test_a_complete_last_line_without_newline_is_read(
    tmp_path: Path, scenario_records: list[dict[str, Any]]
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in scenario_records[:3]), encoding="utf-8")
    recording = load_recording(path)
    assert len(recording.records) == 3 and recording.skipped == []


# the page --------------------------------------------------------------------------------


def test_page_data_has_one_entry_per_span_with_lane_depths(
    scenario_records: list[dict[str, Any]],
) -> None:
    trace = build_trace(scenario_records)
    data = page_data(trace, title="run.jsonl")
    spans = data["spans"]
    assert [s["id"] for s in spans] == [s.id for s in trace.spans]
    assert data["duration_ms"] == pytest.approx(78.0)
    researcher = next(s for s in spans if s["kind"] == "run" and s["name"] == "researcher")
    assert (researcher["branch"], researcher["depth"], researcher["lane_depth"]) == (
        "support/researcher",
        3,
        0,
    )
    assert researcher["start_ms"] == pytest.approx(40.0)
    assert researcher["duration_ms"] == pytest.approx(23.0)
    flaky = next(s for s in spans if s["name"] == "flaky_api")
    assert (flaky["status"], flaky["error"], flaky["label"]) == (
        "error",
        "ConnectionError: upstream returned 503",
        "tool flaky_api() · ERROR: ConnectionError: upstream returned 503",
    )
    model = spans[2]
    assert model["tokens"] == [30, 12]
    assert model["label"] == (
        "model call demo-model · tokens 30 in / 12 out · → tools: search, delete_file, flaky_api"
    )
    assert {s["parent"] for s in spans if s["kind"] == "turn" and s["branch"] == "support"} == {
        spans[0]["id"]
    }


def test_page_is_self_contained_and_escapes_data(scenario_records: list[dict[str, Any]]) -> None:
    records = [dict(r) for r in scenario_records]
    hostile = "</script><script>alert(1)</script><!-- & <b>"
    for record in records[:2]:  # on_chat_start, on_user_message
        record["input"] = hostile
    page = render_html(build_trace(records), title="<run>.jsonl", skipped=[])
    assert page.count("</script>") == 2  # the data block's and the code's own
    assert "<title>agenthooks trace: &lt;run&gt;.jsonl</title>" in page
    for outside in ("http://", "https://", "<link", " src=", "@import", "url("):
        assert outside not in page
    data_text = page.split('<script id="trace-data" type="application/json">')[1].split(
        "</script>"
    )[0]
    assert json.loads(data_text)["spans"][0]["details"]["input"] == hostile


def test_page_lists_skipped_lines(scenario_records: list[dict[str, Any]]) -> None:
    from agenthooks.trace import Skipped

    page = render_html(
        build_trace(scenario_records), title="cut.jsonl", skipped=[Skipped(80, "truncated: <cut>")]
    )
    assert (
        '<div class="warning" id="skipped"><strong>1 line skipped</strong><ul><li>line 80: '
        "truncated: &lt;cut&gt;</li></ul></div>"
    ) in page
    assert '2 runs · 20 spans · <span class="bad">1 error</span> · 1 denied · 79 records' in page


# what the records say ----------------------------------------------------------------------


@tool
async def slow_search() -> str:
    """Takes 50 ms."""
    await asyncio.sleep(0.05)
    return "found"


@tool
def remove(path: str) -> str:
    """Never runs: denied."""
    return f"removed {path}"


@tool
async def read_file(path: str) -> str:
    """Fails after 10 ms."""
    await asyncio.sleep(0.01)
    raise FileNotFoundError(path)


async def test_tool_bars_last_as_long_as_their_records_say_and_errors_keep_their_type() -> None:
    """In a parallel batch, a denied call never ran (its record says 0) and a failed tool ran
    10 ms: neither lasts until its record arrived, after the batch and a slow after-hook."""
    agent = Agent(
        "files",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="c1", name="slow_search"),
                        ToolCall(id="c2", name="remove", arguments={"path": "/"}),
                        ToolCall(id="c3", name="read_file", arguments={"path": "/tmp/x"}),
                    ]
                ),
                "done",
            ]
        ),
        tools=[slow_search, remove, read_file],
        parallel_tool_calls=True,
    )
    agent.on("pre_tool_call", lambda ctx: Deny("no deleting"), match="remove")

    async def slow_after_hook(ctx: object) -> None:
        await asyncio.sleep(0.03)

    agent.on("on_tool_call_error", slow_after_hook)
    recorder = Recorder()
    recorder.attach(agent)
    await agent.chat("go")
    ended = {
        r["tool_call_id"]: r
        for r in recorder.records
        if r["type"] in ("on_tool_call_result", "on_tool_call_error")
    }
    assert (ended["c2"]["duration"], ended["c2"]["error"]) == (0.0, "no deleting")
    assert ended["c3"]["error"] == "FileNotFoundError: /tmp/x"
    trace = build_trace(recorder.records)
    spans = {s.details.get("tool_call_id"): s for s in trace.spans if s.kind == "tool"}
    for call_id in ("c1", "c2", "c3"):
        span = spans[call_id]
        assert span.end == span.start + ended[call_id]["duration"]
    assert spans["c2"].duration == 0.0
    assert 0.01 <= spans["c3"].duration < 0.03  # it ran ~10 ms; its record came 30 ms later
    lines = render_tree(trace).splitlines()
    assert '│  ├─ tool remove({"path": "/"})  0.0 ms  DENIED: no deleting' in lines
    assert [line.split("  ")[-1] for line in lines if "tool read_file" in line] == [
        "ERROR: FileNotFoundError: /tmp/x"
    ]
    page = {s["name"]: s for s in page_data(trace, title="t")["spans"] if s["kind"] == "tool"}
    assert page["remove"]["duration_ms"] == 0.0
    assert page["read_file"]["duration_ms"] == pytest.approx(ended["c3"]["duration"] * 1000)
    assert page["read_file"]["error"] == "FileNotFoundError: /tmp/x"


@tool
async def pay(amount: int) -> str:
    """Pays."""
    return f"paid {amount}"


@tool
def look() -> str:
    """Looks."""
    return "seen"


@pytest.mark.parametrize("approved", [True, False])
async def test_a_call_paused_for_a_human_is_a_point_in_its_turn_and_runs_after_resume(
    approved: bool,
) -> None:
    from agenthooks import Approve, Ask

    agent = Agent(
        "payer",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="p1", name="pay", arguments={"amount": 3}),
                        ToolCall(id="l1", name="look"),
                    ]
                ),
                "done",
            ]
        ),
        tools=[pay, look],
    )
    agent.on("pre_tool_call", lambda ctx: Ask("a human decides"), match="pay")
    recorder = Recorder()
    recorder.attach(agent)
    assert (await agent.chat("go")).finish_reason == "paused"
    paused_part = len(recorder.records)
    await agent.resume({"p1": Approve() if approved else Deny("too much")})
    records = deterministic(recorder.records)
    # the human took 200 ms to answer
    records[paused_part:] = [{**r, "mono": r["mono"] + 0.2} for r in records[paused_part:]]
    trace = build_trace(records)
    turn = next(s for s in trace.spans if s.name == "turn 0")
    asked = next(s for s in turn.children if s.name == "pay")
    assert (asked.duration, asked.status) == (0.0, "paused" if approved else "denied")
    assert all(c.duration <= turn.duration for c in turn.children)
    tree = render_tree(trace)
    if approved:
        assert tree == (
            "agent payer  230 ms  → stop\n"
            "├─ turn 0  9.0 ms\n"
            "│  ├─ model call  1.0 ms  → tools: pay, look\n"
            '│  ├─ tool pay({"amount": 3})  0.0 ms  PAUSED: asked: a human decides\n'
            "│  └─ tool look()  1.0 ms  → seen\n"
            "├─ · paused, waiting on pay #p1: a human decides\n"
            "├─ · resumed: approved #p1\n"
            '├─ tool pay({"amount": 3})  1.0 ms  → paid 3\n'
            "└─ turn 1  4.0 ms\n"
            "   └─ model call  1.0 ms  → 'done'\n"
        )
    else:
        assert tree == (
            "agent payer  228 ms  → stop\n"
            "├─ turn 0  9.0 ms\n"
            "│  ├─ model call  1.0 ms  → tools: pay, look\n"
            '│  ├─ tool pay({"amount": 3})  0.0 ms  DENIED: too much\n'
            "│  └─ tool look()  1.0 ms  → seen\n"
            "├─ · paused, waiting on pay #p1: a human decides\n"
            "├─ · resumed: denied #p1: too much\n"
            "└─ turn 1  4.0 ms\n"
            "   └─ model call  1.0 ms  → 'done'\n"
        )
