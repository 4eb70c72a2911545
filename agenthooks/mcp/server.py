"""MCP servers: how to reach one (stdio subprocess or streamable HTTP) and the lifetime of its
connection.

The SDK's client lives in anyio task groups and async context managers that must be entered
and left by the same task. A run may start a server and another task may close it, so every
connection has an owner task of its own: it enters the client, lists the tools, waits to be
told to stop, and leaves the client. Calls are made from any task of the same loop.

A call waits at most ``call_timeout`` seconds. A connection that ended (the subprocess died, the
HTTP session is gone, the loop that owned it ended) is noticed from what the transport reads and
from the calls that fail, and the server is started again at its next call, under the same
tools; ``max_restarts`` restarts in a row without a call answered in between, and the server is
left down (``MCPServerDownError``) until it is closed.
"""

from __future__ import annotations

import asyncio
import contextvars
import shlex
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from ..errors import RegistrationError
from .errors import (
    MCPConnectionError,
    MCPServerDownError,
    MCPServerError,
    MCPTimeoutError,
    MCPToolError,
)
from .tool import MCPTool, result_text

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

if TYPE_CHECKING:
    from mcp.types import Tool as MCPToolSpec

    from ..runtime.agent import Agent
    from ..tools import Scope

_PAGES = 100  # a tools/list that never stops paginating cannot hang a connect
_CONNECTION_CLOSED = -32000  # the JSON-RPC code the SDK gives calls on a connection that ended
CALL_TIMEOUT = 60.0
"""The default ``call_timeout``: how long one tool call may take, in seconds."""
MAX_RESTARTS = 3
"""The default ``max_restarts``: restarts in a row without a call answered in between."""


class BaseMCPServer:
    """An MCP server an agent takes its tools from (``Agent(mcp_servers=[...])``).

    It connects lazily, at the first run of its agent, and stays connected until
    ``agent.aclose()``. A tool call that takes longer than ``call_timeout`` ends as an
    ``MCPTimeoutError`` naming the server, the tool and the timeout, which the model reads.

    A connection that ended (a subprocess that died, an HTTP session that is gone) is started
    again at the server's next call; a call that was in flight when it ended is not sent again
    (it may have run) but fails with an ``MCPServerError``. After ``max_restarts`` (default 3)
    restarts in a row without a call answered in between, the server is left down: every call
    fails at once with an ``MCPServerDownError`` naming it, until it is closed
    (``agent.aclose()``; a later run starts it again).

    Args:
        name: The name of its tools' scope; ``None``: the name the server gives itself.
        connect_timeout: Seconds for the start, the handshake and the tool listing.
        call_timeout: Seconds each tool call may take (default 60).
        max_restarts: Restarts in a row, without a call answered in between, before the
            server is left down (default 3).

    Raises:
        RegistrationError: A name that is not a non-empty string, a timeout that is not
            positive, or ``max_restarts`` below 0.
    """

    unreachable = "could not be reached"
    """How a failed connect reads in its error (``MCPServerStdio``: "could not be started")."""

    def __init__(
        self,
        *,
        name: str | None,
        connect_timeout: float,
        call_timeout: float = CALL_TIMEOUT,
        max_restarts: int = MAX_RESTARTS,
    ) -> None:
        if name is not None and (not isinstance(name, str) or not name):
            raise RegistrationError(
                f"an MCP server's name must be a non-empty string, got {name!r}"
            )
        for key, value in (("connect_timeout", connect_timeout), ("call_timeout", call_timeout)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise RegistrationError(f"{key} must be positive, got {value!r}")
        if isinstance(max_restarts, bool) or not isinstance(max_restarts, int) or max_restarts < 0:
            raise RegistrationError(f"max_restarts must be an int >= 0, got {max_restarts!r}")
        self.name = name
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self.max_restarts = max_restarts
        self.restarts = 0
        """Restarts in a row without a call answered since (reset by an answer and by close)."""
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
        self._open = False  # connected once and not closed since: restarted when it drops
        self._generation = 0  # of the current connection: an old one's end changes nothing
        self._lost = False  # the current connection ended (its transport read its end)

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
        """True while its connection is up: connected, not closed, and not known to have
        ended (a server whose connection ended is started again at its next call)."""
        return self._open and self._up()

    @property
    def opened(self) -> bool:
        """True from a successful connect to ``close()``, whether the connection is up or is
        started again at the next call."""
        return self._open

    def _up(self) -> bool:
        task = self._task
        return (
            not self._lost
            and self._client is not None
            and task is not None
            and not task.done()
            and task.get_loop() is asyncio.get_running_loop()
        )

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
        specs = await self._start()
        self.tools = [MCPTool(self, spec) for spec in specs]
        self._open, self.restarts = True, 0

    async def _start(self) -> list[MCPToolSpec]:
        """A new connection (its owner task), once it listed the tools."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[list[MCPToolSpec]] = loop.create_future()
        self._stop = stop = asyncio.Event()
        self._generation += 1
        self._lost = False
        # a fresh context: the connection outlives the run that happens to start it
        self._task = contextvars.Context().run(
            loop.create_task, self._own(ready, stop, self._generation)
        )
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
        return specs

    async def _own(
        self, ready: asyncio.Future[list[MCPToolSpec]], stop: asyncio.Event, generation: int
    ) -> None:
        def ended() -> None:
            if generation == self._generation:
                self._lost = True

        try:
            async with Client(_watched(self.transport(), ended)) as client:
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
        is not connected. A server left down may be started again after it."""
        self._open, self.restarts = False, 0
        self.tools = []
        await self._end()

    async def _end(self) -> None:
        """End the current connection, if any (its owner task leaves the client)."""
        task, stop = self._task, self._stop
        self._task = self._stop = None
        self._generation += 1  # whatever the old connection reports now is not about the next
        if task is None or task.done() or stop is None:
            return
        if task.get_loop() is not asyncio.get_running_loop():
            return  # its loop is gone or elsewhere: nothing of it can be awaited here
        stop.set()
        await asyncio.gather(task, return_exceptions=True)

    async def _restart(self) -> Client:
        """The client of a connection started again (the last one ended); under the lock,
        so parallel calls start one. ``MCPServerDownError`` once ``max_restarts`` restarts in
        a row were not enough, ``MCPConnectionError`` when this one fails."""
        async with self.lock():
            if not self._open:
                raise MCPServerError(f"MCP server {self.display!r} is not connected")
            if self._up():  # a parallel call started it meanwhile
                return self._client  # type: ignore[return-value]
            if self.restarts >= self.max_restarts:
                raise MCPServerDownError(
                    f"MCP server {self.display!r} keeps stopping: it was started again "
                    f"{self.restarts} times in a row without answering a call "
                    f"(max_restarts={self.max_restarts}); it stays down until it is closed"
                )
            self.restarts += 1
            await self._end()
            await self._start()  # the tools stay those listed first: they are the scope's
            return self._client  # type: ignore[return-value]

    # calls -------------------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """Call the tool ``name``; the text of its result. ``MCPToolError`` for an error result;
        ``MCPTimeoutError`` after ``call_timeout`` seconds; ``MCPServerError`` naming the
        server when it is not connected or fails (a connection that ended is started again
        first, see the class)."""
        client = self._client
        if client is None or not (self._open and self._up()):
            client = await self._restart()
        generation = self._generation
        try:
            result = await asyncio.wait_for(client.call_tool(name, arguments), self.call_timeout)
        except (asyncio.TimeoutError, TimeoutError):
            raise MCPTimeoutError(
                f"MCP server {self.display!r} did not answer tool {name!r} within "
                f"{self.call_timeout:g} s (call_timeout)",
                server=self.display,
                tool=name,
                timeout=self.call_timeout,
            ) from None
        except Exception as exc:
            if _connection_ended(exc) and generation == self._generation:
                self._lost = True  # not sent again (it may have run): the next call restarts
            raise MCPServerError(
                f"MCP server {self.display!r} failed on tool {name!r}: {_describe(exc)}"
            ) from exc
        self.restarts = 0  # it answered
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


def _connection_ended(exc: BaseException) -> bool:
    """True when a call failed because its connection ended (not an error the server sent
    as its answer): the SDK's "Connection closed", a session the server no longer knows (an
    HTTP server started again), or a transport error."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return exc.error.code == _CONNECTION_CLOSED or exc.error.message == "Session terminated"
    return True


@asynccontextmanager
async def _watched(
    transport: AbstractAsyncContextManager[Any], ended: Callable[[], None]
) -> AsyncIterator[tuple[Any, Any]]:
    """``transport`` whose read side reports its end to ``ended`` (a subprocess that died, a
    stream the server closed): the messages pass through a stream of our own, so no private
    part of the SDK is read."""
    async with transport as streams:
        read, write = streams[0], streams[1]
        forward, receive = anyio.create_memory_object_stream[Any](0)

        async def pump() -> None:
            try:
                async with forward:
                    async for item in read:
                        await forward.send(item)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass  # the client stopped reading: it is leaving
            finally:
                ended()

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            try:
                yield receive, write
            finally:
                group.cancel_scope.cancel()


def _describe(exc: BaseException) -> str:
    """The innermost cause of ``exc`` in words (task groups wrap a single failure in groups)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__


class MCPServerStdio(BaseMCPServer):
    """An MCP server run as a subprocess speaking over its stdin and stdout.

    ``MCPServerStdio("python", ["weather_server.py"])``. The subprocess's stderr is this
    process's.

    Args:
        command: The program to run.
        args: Its arguments.
        env: Variables added to a minimal inherited environment (PATH, HOME, ...).
        name: The name of its tools' scope; ``None``: the name the server gives itself.
        cwd: The subprocess's working directory.
        connect_timeout: Seconds for the start, the handshake and the tool listing.
        call_timeout: Seconds each tool call may take.
        max_restarts: Restarts in a row before the server is left down.

    Raises:
        RegistrationError: An empty command, ``args`` that is not a list of strings, or an
            invalid option of ``BaseMCPServer``.
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
        call_timeout: float = CALL_TIMEOUT,
        max_restarts: int = MAX_RESTARTS,
    ) -> None:
        if not isinstance(command, str) or not command:
            raise RegistrationError(f"MCPServerStdio needs a command, got {command!r}")
        if isinstance(args, str) or not all(isinstance(a, str) for a in args):
            raise RegistrationError(f"MCPServerStdio args must be a list of strings, got {args!r}")
        super().__init__(
            name=name,
            connect_timeout=connect_timeout,
            call_timeout=call_timeout,
            max_restarts=max_restarts,
        )
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
    """An MCP server reached over streamable HTTP: ``MCPServerHTTP("http://host:8000/mcp")``.

    Args:
        url: The server's endpoint, ``http://`` or ``https://``.
        name: The name of its tools' scope; ``None``: the name the server gives itself.
        connect_timeout: Seconds for the connection, the handshake and the tool listing.
        call_timeout: Seconds each tool call may take.
        max_restarts: Restarts in a row before the server is left down.

    Raises:
        RegistrationError: ``url`` is not an http(s) URL, or an option of ``BaseMCPServer``
            is invalid.
    """

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        connect_timeout: float = 10.0,
        call_timeout: float = CALL_TIMEOUT,
        max_restarts: int = MAX_RESTARTS,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise RegistrationError(f"MCPServerHTTP needs an http(s) URL, got {url!r}")
        super().__init__(
            name=name,
            connect_timeout=connect_timeout,
            call_timeout=call_timeout,
            max_restarts=max_restarts,
        )
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


__all__ = ["CALL_TIMEOUT", "MAX_RESTARTS", "BaseMCPServer", "MCPServerHTTP", "MCPServerStdio"]
