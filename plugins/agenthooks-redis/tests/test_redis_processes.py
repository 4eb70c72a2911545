"""Real OS processes: N publishers × M consumers of one group, and consumers killed between
reading and handling and between handling and the acknowledgement."""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter

import pytest
import redis
from redis_support import child

pytestmark = [pytest.mark.subprocess, pytest.mark.server]


def wait_for(condition: object, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.05)


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


def stream_keys(server: redis.Redis, stream: str) -> list[str]:
    return [f"{f['run_id']}:{f['seq']}" for _id, f in server.xrange(stream)]


def start_consumers(url: str, stream: str, log: str, stop: str, *specs: tuple[str, ...]) -> list:
    consumers = [
        child("redis_worker.py", "consume", url, stream, "g", name, log, stop, *extra)
        for name, *extra in specs
    ]
    # every consumer has read once (it is in the group) before anything is published
    wait_for(lambda: _group_size(url, stream) == len(specs))
    return consumers


def _group_size(url: str, stream: str) -> int:
    client = redis.Redis.from_url(url)
    try:
        return len(client.xinfo_consumers(stream, "g"))
    except redis.ResponseError:
        return 0
    finally:
        client.close()


def test_three_publishers_and_two_consumers(url: str, prefix: str, server: redis.Redis) -> None:
    stream, log, stop = prefix + "events", prefix + "log", prefix + "stop"
    consumers = start_consumers(url, stream, log, stop, ("c1",), ("c2",))
    publishers = [child("redis_worker.py", "publish", url, stream, "5") for _ in range(3)]
    for process in publishers:
        code, out, err = finish(process)
        assert code == 0, err
        assert json.loads(out) == {"sent": 120, "dropped": 0}
    published = stream_keys(server, stream)
    assert len(published) == 360 and len({k.rsplit(":", 1)[0] for k in published}) == 15
    wait_for(lambda: server.llen(log) >= 360 and server.xpending(stream, "g")["pending"] == 0)
    server.set(stop, 1)
    handled = 0
    for process in consumers:
        code, out, err = finish(process)
        assert code == 0, err
        handled += json.loads(out)["handled"]
    logged = server.lrange(log, 0, -1)
    keys = [entry.rsplit(":", 1)[0] for entry in logged]
    assert sorted(keys) == sorted(published) and handled == 360  # each once, none lost
    for run_id in {k.rsplit(":", 1)[0] for k in keys}:
        seqs = [int(k.rsplit(":", 1)[1]) for k in keys if k.rsplit(":", 1)[0] == run_id]
        assert seqs == list(range(1, 25))  # in order, whichever consumer handled each


def test_consumers_killed_mid_entry_lose_nothing(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream, log, stop = prefix + "events", prefix + "log", prefix + "stop"
    consumers = start_consumers(
        url,
        stream,
        log,
        stop,
        ("before", "kill-before", "3"),  # dies between reading its 3rd entry and handling it
        ("after", "kill-after", "3"),  # dies between handling its 3rd entry and the XACK
        ("survivor",),
    )
    code, _out, err = finish(child("redis_worker.py", "publish", url, stream, "8"))
    assert code == 0, err
    published = stream_keys(server, stream)
    assert len(published) == 192

    def all_handled() -> bool:
        logged = {e.rsplit(":", 1)[0] for e in server.lrange(log, 0, -1)}
        return logged == set(published) and server.xpending(stream, "g")["pending"] == 0

    try:
        wait_for(all_handled)
    except AssertionError:
        server.set(stop, 1)
        logged = {e.rsplit(":", 1)[0] for e in server.lrange(log, 0, -1)}
        missing = sorted(set(published) - logged)
        outputs = [finish(process)[2][-2000:] for process in consumers]
        raise AssertionError(f"never handled: {missing}; consumers said: {outputs}") from None
    server.set(stop, 1)
    results = {
        name: finish(process) for name, process in zip(("before", "after", "survivor"), consumers)
    }
    assert results["before"][0] == -9 and results["after"][0] == -9, results
    assert results["survivor"][0] == 0, results["survivor"][2]
    survivor = json.loads(results["survivor"][1])
    assert survivor["reclaimed"] > 0
    entries = [entry.rsplit(":", 1) for entry in server.lrange(log, 0, -1)]
    logged = [key for key, _name in entries]
    counts = Counter(logged)
    assert set(counts) == set(published)  # every event handled at least once, none lost
    twice = {key for key, n in counts.items() if n > 1}
    first_by = dict(reversed(entries))
    died_before, died_after = (server.get(f"{log}:died:{name}") for name in ("before", "after"))
    assert "before" not in [name for key, name in entries if key == died_before]
    assert counts[died_after] == 2 and first_by[died_after] == "after"
    # handled twice: only entries a killed consumer handled without acknowledging them (the
    # one it was killed on, and those of its other runs handled at that moment)
    assert all(first_by[key] in ("before", "after") for key in twice)
    assert all(n <= 2 for n in counts.values()) and counts.total() == 192 + len(twice)
    first_seen = list(dict.fromkeys(logged))  # the dedup key removes the duplicate
    for run_id in {k.rsplit(":", 1)[0] for k in first_seen}:
        seqs = [int(k.rsplit(":", 1)[1]) for k in first_seen if k.rsplit(":", 1)[0] == run_id]
        assert seqs == list(range(1, 25))
