"""What the agenthooks-redis tests share: a scripted agent run, a redis-server of their own,
and child processes that run the package's code for real."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.testing import require

HERE = Path(__file__).resolve().parent
URL = "redis://127.0.0.1:6379/0"
_probe: list[str | None] = []


def redis_problem() -> str | None:
    """Why the shared Redis cannot be used, or None (asked once per session)."""
    if not _probe:
        client = redis.Redis.from_url(URL, socket_connect_timeout=2, socket_timeout=2)
        try:
            client.ping()
            _probe.append(None)
        except redis.RedisError as exc:
            _probe.append(f"{type(exc).__name__}: {exc}")
        finally:
            client.close()
    return _probe[0]


def need(what: str, problem: str | None) -> None:
    """Skip (or, under CI=true, fail) the test when ``problem`` is set."""
    require(None if problem is None else f"{what}: {problem}")


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def calc_agent(bus: HookBus) -> Agent:
    """The agent of every test run: user → add(2, 3) → "5"."""
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="add", arguments={"a": 2, "b": 3})]
            ),
            "5",
        ]
    )
    return Agent("calc", provider=provider, tools=[add], bus=bus)


def free_port() -> int:
    """A loopback port nothing listens on (closed right after it is found)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OwnRedis:
    """A redis-server of the test's own on a loopback port: started, stopped, started again
    on the same port (never the shared one on 6379)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary is not None
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        client.close()

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@contextmanager
def own_redis(workdir: Path) -> Iterator[OwnRedis]:
    """A started ``OwnRedis``; stopped on exit (skips, or fails under CI=true, without
    redis-server)."""
    need(
        "redis-server is not installed, which the outage tests start on their own port",
        None if shutil.which("redis-server") else "not on PATH",
    )
    server = OwnRedis(workdir)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def child(script: str, *args: str) -> subprocess.Popen[str]:
    """Run ``tests/<script>`` in a new Python process (this venv), output piped."""
    return subprocess.Popen(
        [sys.executable, str(HERE / script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(HERE)},
    )
