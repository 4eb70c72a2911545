"""The hook server against its floor: decisions per second and p50 / p99 latency.

Two uvicorn processes, one worker each, side by side in one run: the floor, a bare
Starlette endpoint that parses the hook input and returns the same deny without the bus,
and the hook server (``create_app``) with the Guard policy loaded and a bearer token checked,
deciding each ``PreToolUse`` on the session's run. The load generator is this process: C
keep-alive connections on raw asyncio streams (lighter than an HTTP client library, so the
servers, not the generator, are measured), each sending one request at a time, for
``BENCH_SERVER_SECONDS`` per round, rounds interleaved (floor first in one round, ours
first in the next) so a loaded machine hits both alike: that gives decisions/s. Latency
(p50 / p99) is measured apart, with one connection (one request in flight, so no queueing
in the figure), on the generator's clock. Each
server's CPU time (``/proc``) per decision is the steadier figure on a loaded machine: the
wall-clock rate of a CPU-bound server is its inverse, less whatever else runs.

Targets (issue 27): ours >= 50 % of the floor's decisions/s, and at most +1 ms at p50.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from agenthooks.server import token_digest

HERE = Path(__file__).resolve().parent
SECONDS = float(os.environ.get("BENCH_SERVER_SECONDS", "3"))
ROUNDS = int(os.environ.get("BENCH_SERVER_ROUNDS", "4"))
CONNECTIONS = int(os.environ.get("BENCH_SERVER_CONNECTIONS", "8"))
TOKEN = "bench-token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(factory: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            f"_server_apps:{factory}",
            "--factory",
            "--app-dir",
            str(HERE),
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        env={**os.environ, **env},
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return process, port
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"{factory} did not start")


def request(port: int, session: str) -> bytes:
    body = json.dumps(
        {
            "session_id": session,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build", "description": "clean"},
            "tool_use_id": "toolu_bench",
            "cwd": "/repo",
            "permission_mode": "default",
        }
    ).encode()
    head = (
        f"POST /v1/hooks/claude-code HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body


async def connection(port: int, session: str, until: float, latencies: list[float]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = request(port, session)
    try:
        while time.perf_counter() < until:
            started = time.perf_counter()
            writer.write(payload)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            answer = await reader.readexactly(length)
            latencies.append(time.perf_counter() - started)
            if b'"deny"' not in answer:
                raise SystemExit(f"unexpected answer: {head!r} {answer!r}")
    finally:
        writer.close()


async def load(port: int, seconds: float, connections: int = CONNECTIONS) -> list[float]:
    latencies: list[float] = []
    until = time.perf_counter() + seconds
    await asyncio.gather(
        *(connection(port, f"bench-{n}", until, latencies) for n in range(connections))
    )
    return latencies


def cpu_seconds(pid: int) -> float:
    """The user + system CPU time a process used so far (Linux /proc), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tokens = Path(tmp) / "tokens"
        tokens.write_text(f"bench = {token_digest(TOKEN)}\n", encoding="utf-8")
        env = {"BENCH_TOKENS": str(tokens)}
        floor, floor_port = start("floor", env)
        ours, ours_port = start("served", env)
        try:
            asyncio.run(load(floor_port, 0.5))  # warm both up
            asyncio.run(load(ours_port, 0.5))
            results: dict[str, list[list[float]]] = {"floor": [], "ours": []}
            cpu: dict[str, float] = {"floor": 0.0, "ours": 0.0}
            single: dict[str, list[float]] = {"floor": [], "ours": []}
            ports = {"floor": floor_port, "ours": ours_port}
            pids = {"floor": floor.pid, "ours": ours.pid}
            for round_ in range(ROUNDS):
                # each goes first in every other round: a load that drifts hits both alike
                order = ("floor", "ours") if round_ % 2 == 0 else ("ours", "floor")
                for name in order:
                    before = cpu_seconds(pids[name])
                    results[name].append(asyncio.run(load(ports[name], SECONDS)))
                    cpu[name] += cpu_seconds(pids[name]) - before
                for name in order:
                    single[name] += asyncio.run(load(ports[name], SECONDS / 2, 1))
        finally:
            for process in (floor, ours):
                process.terminate()
                process.wait(10)
    print(
        f"hook server vs bare Starlette: {ROUNDS} rounds x {SECONDS:g} s, "
        f"{CONNECTIONS} connections, one uvicorn worker each"
    )
    print(f"p50 / p99 with one request in flight; decisions/s with {CONNECTIONS} connections")
    print(f"{'':<8}{'decisions/s':>14}{'p50 ms':>10}{'p99 ms':>10}{'CPU us/decision':>18}")
    figures = {}
    for name, rounds in results.items():
        rates = [len(r) / SECONDS for r in rounds]
        every = [x for r in rounds for x in r]
        rate = statistics.median(rates)
        alone = single[name]
        p50, p99 = percentile(alone, 0.50) * 1000, percentile(alone, 0.99) * 1000
        per = cpu[name] / len(every) * 1e6
        figures[name] = (rate, p50, p99, per)
        print(f"{name:<8}{rate:>14,.0f}{p50:>10.2f}{p99:>10.2f}{per:>18,.0f}")
    ratio = figures["ours"][0] / figures["floor"][0]
    cpu_ratio = figures["floor"][3] / figures["ours"][3]
    added = figures["ours"][1] - figures["floor"][1]
    print(
        f"ours / floor throughput: {ratio:.2f} on the wall clock, {cpu_ratio:.2f} per server "
        f"CPU second (goal >= 0.50); p50 added: {added:+.2f} ms (goal <= +1 ms)"
    )


if __name__ == "__main__":
    main()
