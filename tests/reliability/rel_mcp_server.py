"""An MCP server written with the SDK (``MCPServer``) that misbehaves on request, for the MCP
reliability tests.

Run as a script it speaks stdio: ``python rel_mcp_server.py CALLS.jsonl [MODE]`` appends one
line per call it receives (``{"tool": ..., "pid": ...}``), so a test can tell which calls
reached which process. ``MODE`` ``die-on-call`` ends the process at every call; when the file
``CALLS.jsonl.refuse`` exists the process exits at once instead of starting (a server that can
no longer be started). ``Served`` runs the same server over streamable HTTP on a fixed port of
127.0.0.1 in a thread: ``stop()`` takes it away and ``start()`` brings up a new one (a new
process as its clients see it: no session of the old one is known).

Tools: ``echo(text)``, ``pid()``, ``sleep(seconds)`` (an async wait: the server stays
responsive), ``hang()`` (never answers), ``block(seconds)`` (a sync sleep), ``die()`` (ends the
process, stdio only).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer

Record = Callable[[str], None]


def build(record: Record, *, die_on_call: bool = False, name: str = "flaky") -> MCPServer:
    server = MCPServer(name, log_level="ERROR")

    def reached(tool: str) -> None:
        record(tool)
        if die_on_call:
            os._exit(5)

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text."""
        reached("echo")
        return text

    @server.tool()
    def pid() -> int:
        """The server's process id."""
        reached("pid")
        return os.getpid()

    @server.tool()
    async def sleep(seconds: float) -> str:
        """Answer after ``seconds``."""
        reached("sleep")
        await asyncio.sleep(seconds)
        return f"slept {seconds}"

    @server.tool()
    async def hang() -> str:
        """Never answer."""
        reached("hang")
        await asyncio.Event().wait()
        return "never"

    @server.tool()
    def block(seconds: float) -> str:
        """Sleep without yielding."""
        reached("block")
        time.sleep(seconds)
        return f"blocked {seconds}"

    @server.tool()
    def die() -> str:
        """End the process at once."""
        reached("die")
        os._exit(3)

    return server


def file_recorder(path: str) -> Record:
    def record(tool: str) -> None:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": tool, "pid": os.getpid()}) + "\n")

    return record


class Served:
    """The server over streamable HTTP at ``url`` (a port fixed for its lifetime)."""

    def __init__(self) -> None:
        import uvicorn  # only the HTTP cases need it

        self._uvicorn = uvicorn
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.calls: list[dict[str, Any]] = []
        self.generation = 0
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None

    def start(self) -> Served:
        self.generation += 1
        generation = self.generation

        def record(tool: str) -> None:
            self.calls.append({"tool": tool, "generation": generation})

        app = build(record).streamable_http_app()
        config = self._uvicorn.Config(app, log_level="critical", lifespan="on")
        self._server = self._uvicorn.Server(config)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self._sock = sock
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]})
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the MCP HTTP server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._thread is None:
            return
        self._server.should_exit = True
        self._thread.join(10)
        if self._sock is not None:
            self._sock.close()
        self._thread = None

    def __enter__(self) -> Served:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":
    log = sys.argv[1]
    if os.path.exists(log + ".refuse"):
        sys.exit(7)
    mode = sys.argv[2] if len(sys.argv) > 2 else ""
    build(file_recorder(log), die_on_call=mode == "die-on-call").run("stdio")
