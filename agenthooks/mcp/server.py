"""MCP servers: how to reach one (stdio subprocess or streamable HTTP) and the lifetime of its
connection.

The SDK's client lives in anyio task groups and async context managers that must be entered
and left by the same task. A run may start a server and another task may close it, so every
connection has an owner task of its own: it enters the client, lists the tools, waits to be
told to stop, and leaves the client. Calls are made from any task of the same loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import shlex
import sys
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from ..errors import RegistrationError
from .errors import MCPConnectionError, MCPServerError, MCPToolError
from .tool import MCPTool, result_text

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

if TYPE_CHECKING:
    from mcp.types import Tool as MCPToolSpec

    from ..runtime.agent import Agent
    from ..tools import Scope

_PAGES = 100  # a tools/list that never stops paginating cannot hang a connect


class BaseMCPServer:
    """An MCP server an agent takes its tools from (``Agent(mcp_servers=[...])``).

    It connects lazily, at the first run of its agent, and stays connected until
    ``agent.aclose()``. ``name`` names its scope (default: the name the server gives itself);
    ``connect_timeout`` bounds the start, handshake and tool listing.
    """

    unreachable = "could not be reached"
    """How a failed connect reads in its error (``MCPServerStdio``: "could not be started")."""

    def __init__(self, *, name: str | None, connect_timeout: float) -> None:
        if name is not None and (not isinstance(name, str) or not name):
            raise RegistrationError(
                f"an MCP server's name must be a non-empty string, got {name!r}"
            )
        if connect_timeout <= 0:
            raise RegistrationError(f"connect_timeout must be positive, got {connect_timeout}")
        self.name = name
        self.connect_timeout = connect_timeout
        self.owner: Agent | None = None
        """The agent whose tools these are (a server belongs to one agent)."""
        self.server_name: str | None = None
        """The name the server gave itself in the handshake (once connected)."""
        self.tools: list[MCPTool] = []
        """The server's tools, as listed when it connected."""
        self.scope: Scope | None = None
        """The scope of its tools in its agent (while registered)."""
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None

    # what a subclass says --------------------------------------------------------------------

    @property
    def target(self) -> str:
        """Where the server is: its command line or its URL."""
        raise NotImplementedError

    def transport(self) -> AbstractAsyncContextManager[Any]:
        """A fresh SDK transport to the server."""
        raise NotImplementedError

    # state -------------------------------------------------------------------------------------

    @property
    def display(self) -> str:
        """The server's name for messages: ``name``, else its own name, else its target."""
        return self.name or self.server_name or self.target

    @property
    def scope_name(self) -> str:
        """The name of the scope its tools go in."""
        return self.name or self.server_name or self.target

    @property
    def connected(self) -> bool:
        """True while its connection is up (from connect to close)."""
        return self._task is not None and not self._task.done() and self._client is not None

    def lock(self) -> asyncio.Lock:
        """The lock that serializes connecting and closing (one per event loop)."""
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock

    # lifetime ----------------------------------------------------------------------------------

    async def connect(self) -> None:
        """Start the server, do the handshake and list its tools; ``MCPConnectionError``
        naming the server when any of it fails or takes longer than ``connect_timeout``."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[list[MCPToolSpec]] = loop.create_future()
        self._stop = stop = asyncio.Event()
        # a fresh context: the connection outlives the run that happens to start it
        self._task = contextvars.Context().run(loop.create_task, self._own(ready, stop))
        try:
            specs = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        except (asyncio.TimeoutError, TimeoutError):
            await self._abandon(ready)
            raise MCPConnectionError(
                f"MCP server {self.display!r} did not answer within {self.connect_timeout:g} s"
            ) from None
        except BaseException as exc:
            await self._abandon(ready)
            if isinstance(exc, Exception):
                raise MCPConnectionError(
                    f"MCP server {self.display!r} {self.unreachable}: {_describe(exc)}"
                ) from exc
            raise
        self.tools = [MCPTool(self, spec) for spec in specs]

    async def _own(self, ready: asyncio.Future[list[MCPToolSpec]], stop: asyncio.Event) -> None:
        try:
            async with Client(self.transport()) as client:
                info = client.server_info
                self.server_name = info.name if info is not None and info.name else None
                specs = await _list_tools(client)
                self._client = client
                if not ready.done():
                    ready.set_result(specs)
                await stop.wait()
        except BaseException as exc:
            if not isinstance(exc, Exception):
                ready.cancel()
                raise
            if not ready.done():
                ready.set_exception(exc)
            # a failure after the connection was up: the calls already report it
        finally:
            self._client = None

    async def _abandon(self, ready: asyncio.Future[Any]) -> None:
        """Stop a connection that never became ready (its owner task leaves the client, which
        ends the subprocess or the HTTP session)."""
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._task = self._stop = None
        if ready.done() and not ready.cancelled():
            ready.exception()  # retrieved: the caller reports the failure its own way

    async def close(self) -> None:
        """Close the connection and wait until it is gone (the subprocess too); a no-op when it
        is not connected."""
        task, stop = self._task, self._stop
        self._task = self._stop = None
        self.tools = []
        if task is None or task.done() or stop is None:
            return
        if task.get_loop() is not asyncio.get_running_loop():
            return  # its loop is gone or elsewhere: nothing of it can be awaited here
        stop.set()
        await asyncio.gather(task, return_exceptions=True)

    # calls -------------------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """Call the tool ``name``; the text of its result. ``MCPToolError`` for an error result,
        ``MCPServerError`` naming the server when it is not connected or fails."""
        client = self._client
        if client is None:
            raise MCPServerError(f"MCP server {self.display!r} is not connected")
        try:
            result = await client.call_tool(name, arguments)
        except Exception as exc:
            raise MCPServerError(
                f"MCP server {self.display!r} failed on tool {name!r}: {_describe(exc)}"
            ) from exc
        if result.is_error:
            raise MCPToolError(result_text(result) or f"tool {name!r} failed")
        return result_text(result)


async def _list_tools(client: Client) -> list[MCPToolSpec]:
    specs: list[MCPToolSpec] = []
    cursor: str | None = None
    for _ in range(_PAGES):
        page = await client.list_tools(cursor=cursor)
        specs.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return specs


def _describe(exc: BaseException) -> str:
    """The innermost cause of ``exc`` in words (task groups wrap a single failure in groups)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__


class MCPServerStdio(BaseMCPServer):
    """An MCP server run as a subprocess speaking over its stdin and stdout.

    ``MCPServerStdio("python", ["weather_server.py"])``. ``env`` is added to a minimal
    inherited environment (PATH, HOME, ...); ``cwd`` is the subprocess's working directory.
    The subprocess's stderr is this process's.
    """

    unreachable = "could not be started"

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        *,
        name: str | None = None,
        cwd: str | None = None,
        connect_timeout: float = 10.0,
    ) -> None:
        if not isinstance(command, str) or not command:
            raise RegistrationError(f"MCPServerStdio needs a command, got {command!r}")
        if isinstance(args, str) or not all(isinstance(a, str) for a in args):
            raise RegistrationError(f"MCPServerStdio args must be a list of strings, got {args!r}")
        super().__init__(name=name, connect_timeout=connect_timeout)
        self.command = command
        self.args = list(args)
        self.env = dict(env) if env is not None else None
        self.cwd = cwd

    def __repr__(self) -> str:
        return f"MCPServerStdio({self.command!r}, {self.args!r})"

    @property
    def target(self) -> str:
        """The command line."""
        return shlex.join([self.command, *self.args])

    def transport(self) -> AbstractAsyncContextManager[Any]:
        """A stdio transport that spawns the subprocess."""
        params = StdioServerParameters(
            command=self.command, args=self.args, env=self.env, cwd=self.cwd
        )
        return stdio_client(params)


class MCPServerHTTP(BaseMCPServer):
    """An MCP server reached over streamable HTTP: ``MCPServerHTTP("http://host:8000/mcp")``."""

    def __init__(self, url: str, *, name: str | None = None, connect_timeout: float = 10.0) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise RegistrationError(f"MCPServerHTTP needs an http(s) URL, got {url!r}")
        super().__init__(name=name, connect_timeout=connect_timeout)
        self.url = url

    def __repr__(self) -> str:
        return f"MCPServerHTTP({self.url!r})"

    @property
    def target(self) -> str:
        """The URL."""
        return self.url

    def transport(self) -> AbstractAsyncContextManager[Any]:
        """A streamable HTTP transport."""
        return streamable_http_client(self.url)


__all__ = ["BaseMCPServer", "MCPServerHTTP", "MCPServerStdio"]
