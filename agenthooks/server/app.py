"""The ASGI app: authentication, body limits, one route per client, health and metrics.

The app is thin on purpose: a route reads the body (bounded), parses the JSON, hands it to
its client's module and sends back what the module answered. Every failure becomes a typed
HTTP answer with one line saying why: 401 (no or a wrong token: no handler ran), 403 (a
session another caller opened), 413 (a body over the limit), 400 (not JSON, or not the
client's schema), 500 (a failure of ours, never a traceback and never an allow).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from importlib import metadata
from typing import Any

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ..bus import HookBus
from . import claude_code, codex, events_wire
from .auth import ANONYMOUS, Caller, Tokens
from .errors import BadRequest, BodyTooLarge, RateLimited, RequestError
from .metrics import CONTENT_TYPE, Metrics, outcome
from .sessions import SessionOwnerError, Sessions
from .state import SessionState

Answer = Callable[[Sessions, str, Any], Awaitable[Any]]
"""A client's module: ``answer(sessions, caller, body)`` returns the client's answer."""

BODY_LIMIT = 1_048_576
"""Bytes a request body may have by default (1 MiB): a hook input is a few kilobytes, a tool
result may be large; more is refused with 413 before it is parsed."""

OPEN_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
"""Paths that answer without a token (they tell nothing about sessions)."""


class BearerAuth:
    """ASGI middleware: a request to any path but ``OPEN_PATHS`` needs a bearer token the
    token file knows, else it is answered 401 before any route runs. The caller goes into
    ``scope["state"]["caller"]``.

    Args:
        app: The app behind it.
        tokens: The accepted tokens; ``None`` serves every request as ``anonymous``
            (``--no-auth``, loopback only).
        metrics: Where refusals are counted.
    """

    def __init__(self, app: ASGIApp, tokens: Tokens | None, metrics: Metrics) -> None:
        self.app = app
        self.tokens = tokens
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 401, or pass the request on with its caller."""
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        caller: Caller | None = ANONYMOUS
        header = None
        if self.tokens is not None:
            for key, value in scope["headers"]:
                if key == b"authorization":
                    header = value.decode("latin-1")
                    break
            caller = self.tokens.caller(header)
        if caller is None:
            self.metrics.failures.labels(_client_of(scope["path"]), "401").inc()
            reason = "missing bearer token" if header is None else "unknown bearer token"
            response = JSONResponse(
                {"error": f"unauthorized: {reason}"},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="agenthooks"'},
            )
            await response(scope, receive, send)
            return
        scope.setdefault("state", {})["caller"] = caller
        await self.app(scope, receive, send)


def _client_of(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1] or "-"


async def read_json(request: Request, limit: int) -> Any:
    """The request's body parsed as JSON, read at most ``limit`` bytes far.

    Raises:
        BodyTooLarge: The body (or its declared length) is over ``limit``.
        BadRequest: The body is not JSON (UTF-8).
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise BadRequest(f"Content-Length {declared!r} is not a number") from None
        if size > limit:
            raise BodyTooLarge(f"the body has {size} bytes; the limit is {limit}")
    chunks: list[bytes] = []
    seen = 0
    async for chunk in request.stream():
        seen += len(chunk)
        if seen > limit:
            raise BodyTooLarge(f"the body is over the limit of {limit} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw:
        raise BadRequest("the body is empty; a JSON object was expected")
    try:
        # decoded here: json.loads would guess UTF-16 or UTF-32 from the first bytes
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadRequest("the body is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BadRequest(
            f"the body is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


def one_line(exc: BaseException) -> str:
    """``TypeName: message`` on one line."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def create_app(
    bus: HookBus,
    *,
    tokens: Tokens | None = None,
    body_limit: int = BODY_LIMIT,
    clients: Mapping[str, Answer] | None = None,
    state: SessionState | None = None,
    rate: tuple[int, float] | None = None,
    session_limit: int = 10_000,
) -> Starlette:
    """The hook server's ASGI app in front of ``bus`` (run it with uvicorn, or any ASGI
    server).

    Args:
        bus: The bus whose handlers, guards and plugins decide; build it as usual
            (``HookBus(plugins="auto")`` loads the installed plugins).
        tokens: The accepted bearer tokens (``Tokens.from_file(path)``); ``None`` serves
            every request without authentication (keep such a server on loopback).
        body_limit: Bytes a request body may have (413 above).
        clients: More clients, ``{name: answer}``, each served at ``/v1/NAME``; by default
            the installed ones (the ``agenthooks.server_clients`` entry points, e.g.
            ``agent-hooks`` from agenthooks-agent-hooks-spec). The built-in clients (Claude
            Code, Codex, our own wire) are always served.
        state: Where sessions' state is shared: ``RedisState(url)`` for several workers or
            hosts; by default this process's memory (one worker).
        rate: ``(calls, seconds)``: at most that many requests per caller in any window of
            that many seconds, counted in ``state`` (so across workers with ``RedisState``);
            beyond it a 429 before any handler runs.
        session_limit: Open sessions kept per process (the oldest is ended beyond it).

    Returns:
        A Starlette app; ``app.state.sessions`` and ``app.state.metrics`` hold its state.
    """
    if rate is not None and (rate[0] < 1 or rate[1] <= 0):
        raise ValueError(f"create_app: rate must be (calls >= 1, seconds > 0), not {rate!r}")
    metrics = Metrics()
    sessions = Sessions(bus, state=state, limit=session_limit)
    served: dict[str, Answer] = {
        claude_code.CLIENT: claude_code.answer,
        codex.CLIENT: codex.answer,
    }
    extra = dict(installed_clients() if clients is None else clients)

    def client_route(name: str, answer: Answer) -> Callable[[Request], Awaitable[Response]]:
        async def route(request: Request) -> Response:
            caller: Caller = request.state.caller
            started = time.perf_counter()
            event = "-"
            try:
                if rate is not None:
                    made = await sessions.state.spend(caller.name, *rate)
                    if made is not None:
                        raise RateLimited(
                            f"rate limit: caller {caller.name!r} made {made} requests in the "
                            f"last {rate[1]:g} s, the limit is {rate[0]}"
                        )
                body = await read_json(request, body_limit)
                if isinstance(body, dict):
                    named = next(
                        (body[k] for k in _EVENT_KEYS if isinstance(body.get(k), str)), "-"
                    )
                    # a label value: bounded, so a hostile client cannot grow the series
                    event = named[:64] if isinstance(named, str) else "-"
                result = await answer(sessions, caller.name, body)
            except RequestError as exc:
                metrics.failures.labels(name, str(exc.status)).inc()
                return JSONResponse({"error": str(exc)}, status_code=exc.status)
            except SessionOwnerError as exc:
                metrics.failures.labels(name, "403").inc()
                return JSONResponse({"error": str(exc)}, status_code=403)
            except ClientDisconnect:
                metrics.failures.labels(name, "499").inc()
                return Response(status_code=400)
            except Exception as exc:  # a failure of ours: a 500 the client reads as failure
                metrics.failures.labels(name, "500").inc()
                return JSONResponse({"error": f"hook failed: {one_line(exc)}"}, status_code=500)
            finally:
                metrics.sessions.set(len(sessions))
            metrics.decisions.labels(name, event, outcome(result)).inc()
            metrics.latency.labels(name, event).observe(time.perf_counter() - started)
            return JSONResponse(result)

        return route

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        broken = [str(error) for error in bus.plugin_errors]
        if broken:
            return JSONResponse({"status": "not ready", "plugin_errors": broken}, status_code=503)
        return JSONResponse({"status": "ready", "plugins": sorted(bus.plugins)})

    async def metrics_route(request: Request) -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics_route, methods=["GET"]),
    ]
    for name, answer in served.items():
        routes.append(Route(f"/v1/hooks/{name}", client_route(name, answer), methods=["POST"]))
    routes.append(
        Route("/v1/events", client_route(events_wire.CLIENT, events_wire.answer), methods=["POST"])
    )
    for name, answer in extra.items():
        routes.append(Route(f"/v1/{name}", client_route(name, answer), methods=["POST"]))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        yield
        sessions.clear()
        await sessions.state.aclose()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(BearerAuth, tokens=tokens, metrics=metrics)
    app.state.sessions = sessions
    app.state.metrics = metrics
    app.state.bus = bus
    return app


_EVENT_KEYS = ("hook_event_name", "event", "interception_point")
"""Where each client's body names its event (for the metrics' ``event`` label)."""

CLIENTS_GROUP = "agenthooks.server_clients"
"""The entry-point group of installed clients: each name is served at ``/v1/NAME`` by the
``answer(sessions, caller, body)`` coroutine function its entry point loads."""


def installed_clients() -> dict[str, Answer]:
    """The clients installed through ``CLIENTS_GROUP``, by name (sorted). An entry point that
    fails to load raises: a server that silently lacks a client its callers expect would
    answer them 404."""
    found: dict[str, Answer] = {}
    for ep in sorted(metadata.entry_points(group=CLIENTS_GROUP), key=lambda ep: ep.name):
        found[ep.name] = ep.load()
    return found


__all__ = [
    "BODY_LIMIT",
    "CLIENTS_GROUP",
    "OPEN_PATHS",
    "Answer",
    "BearerAuth",
    "create_app",
    "installed_clients",
    "read_json",
]
