"""`agenthooks trace` and `agenthooks tail` on a Redis stream, run as other processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import redis
from agenthooks_redis import RedisEventPublisher
from redis_support import calc_agent

from agenthooks import HookBus
from agenthooks.events import EventRecord

pytestmark = [pytest.mark.subprocess, pytest.mark.server]

DURATION = re.compile(r"\d+(\.\d+)? (ms|s)\b")
CLOCK = re.compile(r"^\d\d:\d\d:\d\d\.\d\d\d  ")


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "agenthooks.cli", *args]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        command(*args), capture_output=True, text=True, env=env, timeout=60, check=False
    )


def masked(text: str) -> list[str]:
    return [DURATION.sub("D", line) for line in text.splitlines()]


async def publish(url: str, stream: str, runs: int) -> list[str]:
    publisher = RedisEventPublisher(url, stream=stream)
    bus = HookBus()
    bus.use(publisher)
    ids: list[str] = []
    bus.on("on_chat_start", lambda ctx: ids.append(ctx.run_id))
    for _ in range(runs):
        await calc_agent(bus).chat("2+3?")
    await publisher.aclose()
    return ids


TREE = [
    "agent calc  D  → stop",
    "├─ turn 0  D",
    "│  ├─ model call  D  → tools: add",
    '│  └─ tool add({"a": 2, "b": 3})  D  → 5',
    "└─ turn 1  D",
    "   └─ model call  D  → '5'",
]


async def test_trace_reads_a_stream(url: str, prefix: str, tmp_path: Path) -> None:
    stream = prefix + "events"
    _first, second = await publish(url, stream, 2)
    where = f"{url}?stream={stream}"
    both = run("trace", where)
    assert both.returncode == 0, both.stderr
    assert masked(both.stdout) == TREE + TREE
    one = run("trace", where, "--run", second)
    assert masked(one.stdout) == TREE
    page = tmp_path / "runs.html"
    html = run("trace", where, "--html", str(page))
    assert html.stdout.startswith(f"wrote {page} (") and page.read_text().startswith(
        "<!DOCTYPE html>"
    )
    none = run("trace", where, "--run", "nope")
    assert (none.returncode, none.stderr) == (
        2,
        f"agenthooks trace: error: {where}: no records of run 'nope'\n",
    )


def test_trace_of_an_empty_stream_and_of_an_unknown_scheme(url: str, prefix: str) -> None:
    where = f"{url}?stream={prefix}nothing"
    empty = run("trace", where)
    assert (empty.returncode, empty.stderr) == (
        2,
        f"agenthooks trace: error: {where}: the stream '{prefix}nothing' has no event entries\n",
    )
    other = run("trace", "nats://127.0.0.1:4222")
    assert other.returncode == 2
    assert other.stderr == (
        "agenthooks trace: error: nats://127.0.0.1:4222: no event source reads nats:// URLs "
        "(redis://, rediss://); for a Redis stream install agenthooks-redis\n"
    )


def follow(*args: str) -> tuple[subprocess.Popen[str], threading.Timer]:
    """`agenthooks tail ...` running; returns once it follows the stream."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    process = subprocess.Popen(
        command("tail", *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    guard = threading.Timer(60, process.kill)  # never hang the suite
    guard.start()
    assert process.stderr is not None
    assert process.stderr.readline().startswith("agenthooks tail: following ")
    return process, guard


def lines(process: subprocess.Popen[str], count: int) -> list[str]:
    assert process.stdout is not None
    return [process.stdout.readline().rstrip("\n") for _ in range(count)]


async def test_tail_prints_every_run_as_it_happens(url: str, prefix: str) -> None:
    stream = prefix + "events"
    process, guard = follow(f"{url}?stream={stream}")
    try:
        first, second = await publish(url, stream, 2)
        got = lines(process, 14)
    finally:
        process.terminate()
        process.wait()
        guard.cancel()
    assert all(CLOCK.match(line) for line in got)
    body = [DURATION.sub("D", CLOCK.sub("", line)) for line in got]
    for run_id, part in ((first, body[:7]), (second, body[7:])):
        assert part == [
            f"agent calc started  run {run_id}  2+3?",
            "    model call  D  → tools: add",
            '    tool add({"a": 2, "b": 3})  D  → 5',
            "  turn 0  D",
            "    model call  D  → '5'",
            "  turn 1  D",
            "agent calc  D  → stop",
        ]


async def test_tail_one_event_of_one_run(url: str, prefix: str) -> None:
    stream = prefix + "events"
    process, guard = follow(f"{url}?stream={stream}", "--event", "PreToolUse", "--run", "wanted")
    try:
        publisher = RedisEventPublisher(url, stream=stream)
        bus = HookBus()
        bus.use(publisher)
        await calc_agent(bus).chat("2+3?")  # another run: not shown
        publisher.publish(
            EventRecord(
                type="pre_tool_call",
                run_id="wanted",
                agent="calc",
                tool_name="add",
                input={"a": 1, "b": 1},
                timestamp=0.0,
            )
        )
        await publisher.aclose()
        [line] = lines(process, 1)
    finally:
        process.terminate()
        process.wait()
        guard.cancel()
    assert (
        line
        == '00:00:00.000  pre_tool_call  agent calc  run wanted  tool add  input {"a": 1, "b": 1}'
    )


async def test_tail_an_event_that_ends_a_span_shows_the_span(url: str, prefix: str) -> None:
    stream = prefix + "events"
    process, guard = follow(f"{url}?stream={stream}", "--event", "on_tool_call_result")
    try:
        await publish(url, stream, 1)
        [line] = lines(process, 1)
    finally:
        process.terminate()
        process.wait()
        guard.cancel()
    assert CLOCK.match(line)
    assert (
        DURATION.sub("D", CLOCK.sub("", line))
        == 'on_tool_call_result  tool add({"a": 2, "b": 3})  D  → 5'
    )


def test_tail_rejects_an_unknown_event_and_a_path(url: str) -> None:
    bad = run("tail", url, "--event", "pre_tool_cal")
    assert bad.returncode == 2 and "pre_tool_call" in bad.stderr
    path = run("tail", "run.jsonl")
    assert (path.returncode, path.stderr) == (
        2,
        "agenthooks tail: error: 'run.jsonl' is not a URL (scheme://...), e.g. redis://127.0.0.1:6379/0\n",
    )


def test_the_try_it_worker(url: str, prefix: str, server: redis.Redis) -> None:
    env = {**os.environ, "AGENTHOOKS_REDIS_STREAM": prefix + "events"}
    done = subprocess.run(
        [sys.executable, "-m", "agenthooks_redis", "--runs", "2"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"2 runs, 48 events to {prefix}events at redis://127.0.0.1:6379/0\n"
    assert server.xlen(prefix + "events") == 48
