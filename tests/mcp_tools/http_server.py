"""The weather MCP server over streamable HTTP on 127.0.0.1, in a thread with its own loop."""

from __future__ import annotations

import socket
import threading
from typing import Any

import uvicorn
from weather_server import build


class HTTPWeatherServer:
    """``with HTTPWeatherServer() as server:`` serves ``server.url``; ``calls`` holds every
    call that reached it, in order."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"
        app = build(self._record).streamable_http_app()
        config = uvicorn.Config(app, log_level="critical", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]})

    def _record(self, tool: str, arguments: dict[str, Any]) -> None:
        self.calls.append({"tool": tool, "arguments": arguments})

    def __enter__(self) -> HTTPWeatherServer:
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the MCP HTTP server did not start")
            threading.Event().wait(0.01)
        return self

    def stop(self) -> None:
        """Stop serving (the server is gone for its clients)."""
        self._server.should_exit = True
        self._thread.join(10)
        self._sock.close()

    def __exit__(self, *exc: object) -> None:
        if self._thread.is_alive():
            self.stop()
