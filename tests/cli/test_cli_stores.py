"""The store commands and `tail` as a new user meets them: one line on stderr for every
failure, a non-zero exit, read commands that never create a store, and `tail` reading its URL
from ``AGENTHOOKS_REDIS_URL`` (the console script in a subprocess, against real SQLite,
PostgreSQL and Redis)."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest
from cli_support import SCRIPT, run_cli

from agenthooks import Agent, ScriptedProvider, Session
from agenthooks.stores import SQLiteStore

pytestmark = [pytest.mark.subprocess, pytest.mark.server]

NOT_CREATED = "the file does not exist (check the path; reading never creates a store)"


def free_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_mistyped_sqlite_path_is_named_and_never_created(tmp_path: Path) -> None:
    missing = tmp_path / "sesions.db"  # "sessions.db", mistyped
    commands = [
        ("sessions", "list", "--store", str(missing)),
        ("sessions", "list", "--store", f"sqlite:///{missing}"),
        ("sessions", "show", "s1", "--store", str(missing)),
        ("approvals", "list", "--store", str(missing)),
        ("approvals", "approve", "s1/c1", "--store", str(missing)),
    ]
    for command in commands:
        result = run_cli(*command)
        assert (result.returncode, result.stdout, result.stderr) == (
            2,
            "",
            f"agenthooks {command[0]}: error: no store at '{missing}': {NOT_CREATED}\n",
        ), command
    from_env = run_cli("sessions", "list", env={"AGENTHOOKS_STORE": str(missing)})
    assert (from_env.returncode, from_env.stderr) == (
        2,
        f"agenthooks sessions: error: no store at '{missing}': {NOT_CREATED}\n",
    )
    # the approvals source $AGENTHOOKS_STORE names is a source that failed: exit 1
    source = run_cli(
        "approvals", "list", "--source", "store", env={"AGENTHOOKS_STORE": str(missing)}
    )
    assert (source.returncode, source.stderr) == (
        1,
        f"agenthooks approvals: error: source 'store': no store at '{missing}': {NOT_CREATED}\n",
    )
    assert list(tmp_path.iterdir()) == []  # nothing was created


def test_an_existing_store_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"

    async def one_session() -> None:
        store = SQLiteStore(path)
        agent = Agent("support", provider=ScriptedProvider(["hello"]))
        await Session(agent, store=store, session_id="ticket-1").chat("hi")
        await store.aclose()

    asyncio.run(one_session())
    listed = run_cli("sessions", "list", "--store", str(path))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[2].split()[:4] == ["ticket-1", "support", "idle", "2"]
    empty = run_cli("approvals", "list", "--store", str(path))
    assert (empty.returncode, empty.stdout, empty.stderr) == (0, "no pending approvals\n", "")


def test_a_file_that_holds_no_store_is_named_and_left_as_it_was(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("these are my notes, not a database\n" * 200)
    empty = tmp_path / "empty.db"
    empty.touch()
    foreign = tmp_path / "app.db"  # another program's database, named by mistake
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
    conn.close()
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    no_sessions = "the file holds no agenthooks sessions (no agenthooks_schema table)"
    cases = [
        (notes, "it cannot be read as SQLite (DatabaseError: file is not a database)"),
        (empty, no_sessions),
        (foreign, no_sessions),
        (tmp_path, "it is not a file"),
    ]
    for path, why in cases:
        for command in (("sessions", "list"), ("approvals", "list")):
            result = run_cli(*command, "--store", str(path))
            assert (result.returncode, result.stdout, result.stderr) == (
                2,
                "",
                f"agenthooks {command[0]}: error: no store at '{path}': {why}\n",
            )
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_an_unreachable_postgresql_store_is_one_line_not_a_traceback() -> None:
    url = f"postgresql://127.0.0.1:{free_port()}/test"
    shown = f"PostgresStore('{url}')"
    # both at once: each waits for the store's connection timeout
    processes = {
        name: subprocess.Popen(
            [str(SCRIPT), *args, "--store", url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, args in (("sessions", ("sessions", "list")), ("approvals", ("approvals", "list")))
    }
    outputs = {name: p.communicate(timeout=180) for name, p in processes.items()}
    out, err = outputs["sessions"]
    assert (processes["sessions"].returncode, out) == (1, "")
    assert err.startswith(f"agenthooks sessions: error: {shown}") or err.startswith(
        f"agenthooks sessions: error: cannot read {shown}: "
    ), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    out, err = outputs["approvals"]
    assert processes["approvals"].returncode == 1
    assert err.startswith("agenthooks approvals: error: source 'store' failed: "), err
    assert shown in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_tail_takes_its_url_from_the_environment() -> None:
    none = run_cli("tail", env={"AGENTHOOKS_REDIS_URL": ""})
    assert (none.returncode, none.stdout, none.stderr) == (
        2,
        "",
        "agenthooks tail: error: no stream URL: pass one (e.g. redis://127.0.0.1:6379/0) or set "
        "AGENTHOOKS_REDIS_URL\n",
    )
    closed = f"redis://127.0.0.1:{free_port()}/0"
    refused = run_cli("tail", env={"AGENTHOOKS_REDIS_URL": closed})
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"agenthooks tail: error: {closed}: ConnectionError: ")
    assert refused.stderr.count("\n") == 1
    # a live Redis: tail follows the stream the variable names
    env = {"AGENTHOOKS_REDIS_URL": "redis://127.0.0.1:6379/0"}
    process = subprocess.Popen(
        [str(SCRIPT), "tail"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    try:
        assert process.stderr is not None
        assert process.stderr.readline() == (
            "agenthooks tail: following redis://127.0.0.1:6379/0 (Ctrl-C stops)\n"
        )
    finally:
        process.terminate()
        process.wait(timeout=30)
