"""CachePlugin: provider responses and tool results served from a cache, short-circuiting.

A lookup sits in ``pre_request`` / ``pre_tool_call`` (a hit returns ``{"response"}`` /
``{"result"}``, so the call, its middleware and its retries are skipped). What gets stored is
what the provider or the tool itself returned (a capturing middleware sees it), and only once
the after-event (``on_response`` / ``on_tool_call_result``) finished without a deny: a guard
at the lowest priority commits it. Errors, recoveries from ``on_model_error`` /
``on_tool_call_error``, short-circuits and denied values are never stored.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import structlog

from agenthooks import CallNext, HookBus, Middleware
from agenthooks.events import (
    ChatEndContext,
    PreRequestContext,
    PreToolCallContext,
    ResponseContext,
    ToolResultContext,
)

from .backends import CacheBackend, MemoryBackend
from .codec import decode_response, decode_result, encode_response, encode_result
from .keys import response_key, tool_key
from .redis_backend import RedisBackend
from .settings import DEFAULT_MAX_ENTRIES, CacheConfigError, CacheSettings

log = structlog.get_logger("agenthooks.cache")

LOOKUP_PRIORITY = -1_000_000
"""Lookups run after the other ordinary handlers, so they key the final request or call."""
STORE_PRIORITY = -1_000_000
"""The storing guards run after every other guard: a deny anywhere means no entry."""

_MISSING: Any = object()


@dataclass(slots=True)
class CacheStats:
    """Counters since the plugin was created (all kinds together)."""

    hits: int = 0
    misses: int = 0
    stores: int = 0
    errors: int = 0


@dataclass(slots=True)
class _Pending:
    key: str
    value: Any = _MISSING


class _Capture(Middleware):
    """Innermost view of a genuine call: records what the provider or tool returned."""

    def __init__(self, plugin: CachePlugin, stacks: tuple[str, ...]) -> None:
        setattr(self, "stacks", stacks)  # noqa: B010 - instance value over the class default
        self._plugin = plugin

    async def wrap(self, ctx: Any, call_next: CallNext) -> Any:
        value = await call_next(ctx)
        pending = self._plugin._pending_for(ctx)
        if pending is not None:
            pending.value = value
        return value


class CachePlugin:
    """Cache provider responses and tool results: ``bus.use(CachePlugin(ttl=3600))``.

    A cached response comes back with zero usage and ``raw={"cached": True, "key": ...}``;
    the runtime counts it as a turn and streams it as one chunk. A failing backend never
    breaks a run: the error is logged (``cache_backend_failed``) and counts as a miss.

    Args:
        responses: Cache provider calls, keyed by the sha256 of the canonical JSON of the
            request (``model``, ``system``, ``messages``, ``tools``, ``tool_choice``,
            ``temperature``, ``reasoning_effort``) and the provider's name and default model.
        tools: ``False`` (default: a cached ``send_email`` would send once), a list of tool
            names (only those; sub-agents too if named), or ``True`` (every plain tool;
            sub-agent and handoff tools are left out); keyed by the tool name and its
            arguments. Cache only tools without side effects.
        ttl: Seconds an entry lives; ``None`` (default): until evicted.
        max_entries: The bound of the default in-memory LRU backend (default 1024).
        backend: Anything with ``get(key)`` / ``set(key, value, ttl)``, sync or async
            (``MemoryBackend``, ``RedisBackend``).

    Raises:
        CacheConfigError: An option has a bad value; it names the option.
    """

    name = "cache"

    def __init__(
        self,
        *,
        responses: bool = True,
        tools: bool | Iterable[str] = False,
        ttl: float | None = None,
        max_entries: int | None = None,
        backend: CacheBackend | None = None,
    ) -> None:
        self._configure(
            CacheSettings.of(
                "CachePlugin",
                responses=responses,
                tools=tools,
                ttl=ttl,
                max_entries=max_entries,
                backend=backend,
            ),
            backend,
        )

    @classmethod
    def from_env(cls) -> CachePlugin:
        """The plugin the ``AGENTHOOKS_CACHE_*`` variables configure (the ``cache`` entry point
        builds it so): ``RESPONSES`` (1/0), ``TOOLS`` (1/0 or ``search,fetch``), ``TTL``
        (seconds or ``none``), ``MAX_ENTRIES``, ``REDIS_URL`` (a ``RedisBackend`` instead of
        memory) and ``REDIS_PREFIX``.

        Raises:
            CacheConfigError: Naming the variable that is unknown or bad.
        """
        options = CacheSettings.from_env()
        backend = None
        if options.redis_url is not None:
            prefix = {} if options.redis_prefix is None else {"prefix": options.redis_prefix}
            try:
                backend = RedisBackend(options.redis_url, **prefix)
            except CacheConfigError as exc:
                key = CacheSettings.env_names()["redis_url"]
                raise CacheConfigError("cache", "environment", key, exc.problem) from None
        plugin = cls.__new__(cls)
        plugin._configure(options, backend)
        return plugin

    def _configure(self, options: CacheSettings, backend: CacheBackend | None) -> None:
        self.responses: bool = options.responses
        self.tools: bool | frozenset[str] = (
            options.tools if isinstance(options.tools, bool) else frozenset(options.tools)
        )
        self.ttl: float | None = options.ttl
        # never `or`: an empty MemoryBackend is falsy
        self.backend: CacheBackend = (
            backend
            if backend is not None
            else MemoryBackend(options.max_entries or DEFAULT_MAX_ENTRIES)
        )
        self.stats = CacheStats()
        # run id -> {("response", iteration) | ("tool", tool_call_id): pending entry}
        self._pending: dict[str, dict[tuple[str, Any], _Pending]] = {}

    def setup(self, bus: HookBus) -> None:
        """Register the lookups, the storing guards, the capture middleware and the cleanup."""
        stacks: list[str] = []
        if self.responses:
            stacks.append("provider")
            bus.on("pre_request", self._lookup_response, priority=LOOKUP_PRIORITY)
            bus.on("on_response", self._store_response, guard=True, priority=STORE_PRIORITY)
        if self.tools is not False:
            stacks.append("tool")
            match = None if self.tools is True else sorted(self.tools)
            bus.on("pre_tool_call", self._lookup_tool, match=match, priority=LOOKUP_PRIORITY)
            bus.on(
                "on_tool_call_result",
                self._store_tool,
                match=match,
                guard=True,
                priority=STORE_PRIORITY,
            )
        bus.on("on_chat_end", self._forget_run)
        bus.use(_Capture(self, tuple(stacks)))

    # provider responses -------------------------------------------------------------------

    async def _lookup_response(self, ctx: PreRequestContext) -> dict[str, Any] | None:
        key = response_key(ctx.request, ctx.provider)
        entry = await self._get(key, "response")
        if entry is not None:
            try:
                response = decode_response(entry, key)
            except ValueError as exc:
                self._failed("decode", key, exc)
            else:
                self.stats.hits += 1
                log.debug("cache_hit", kind="response", key=key, run_id=ctx.run_id)
                return {"response": response}
        self.stats.misses += 1
        self._pending.setdefault(ctx.run_id, {})[("response", ctx.iteration)] = _Pending(key)
        return None

    async def _store_response(self, ctx: ResponseContext) -> None:
        pending = self._take(ctx.run_id, ("response", ctx.iteration))
        if pending is not None:
            await self._set(pending.key, lambda: encode_response(pending.value))

    # tool results -------------------------------------------------------------------------

    async def _lookup_tool(self, ctx: PreToolCallContext) -> dict[str, Any] | None:
        tool = ctx.tool
        if tool is None or (
            self.tools is True and (tool.subagent is not None or tool.handoff is not None)
        ):
            return None
        key = tool_key(ctx.call.name, ctx.call.arguments)
        entry = await self._get(key, "tool")
        if entry is not None:
            try:
                result = decode_result(entry)
            except (ValueError, KeyError, TypeError) as exc:
                self._failed("decode", key, exc)
            else:
                self.stats.hits += 1
                log.debug(
                    "cache_hit",
                    kind="tool",
                    key=key,
                    run_id=ctx.run_id,
                    tool_call_id=ctx.tool_call_id,
                )
                return {"result": result}
        self.stats.misses += 1
        self._pending.setdefault(ctx.run_id, {})[("tool", ctx.tool_call_id)] = _Pending(key)
        return None

    async def _store_tool(self, ctx: ToolResultContext) -> None:
        pending = self._take(ctx.run_id, ("tool", ctx.tool_call_id))
        if pending is not None:
            await self._set(pending.key, lambda: encode_result(pending.value))

    # bookkeeping --------------------------------------------------------------------------

    def _pending_for(self, ctx: Any) -> _Pending | None:
        slots = self._pending.get(ctx.run_id)
        if not slots:
            return None
        if isinstance(ctx, PreToolCallContext):
            return slots.get(("tool", ctx.tool_call_id))
        return slots.get(("response", ctx.iteration))

    def _take(self, run_id: str, slot: tuple[str, Any]) -> _Pending | None:
        """The pending entry of ``slot`` if the genuine call filled it (removed either way)."""
        slots = self._pending.get(run_id)
        pending = slots.pop(slot, None) if slots else None
        return pending if pending is not None and pending.value is not _MISSING else None

    def _forget_run(self, ctx: ChatEndContext) -> None:
        # entries of calls that failed or were denied never reach a storing guard
        self._pending.pop(ctx.run_id, None)

    async def _get(self, key: str, kind: str) -> str | None:
        try:
            entry = self.backend.get(key)
            if inspect.isawaitable(entry):
                entry = await entry
        except Exception as exc:
            self._failed("get", key, exc)
            return None
        return entry if isinstance(entry, str) else None

    async def _set(self, key: str, encode: Any) -> None:
        # runs in a guard: anything raised here would count as a deny, so nothing escapes
        try:
            entry = encode()
            done = self.backend.set(key, entry, self.ttl)
            if inspect.isawaitable(done):
                await done
        except Exception as exc:
            self._failed("set", key, exc)
            return
        self.stats.stores += 1

    def _failed(self, operation: str, key: str, exc: BaseException) -> None:
        self.stats.errors += 1
        log.warning(
            "cache_backend_failed",
            operation=operation,
            key=key,
            backend=repr(self.backend),
            error=f"{type(exc).__name__}: {exc}",
        )

    def __repr__(self) -> str:
        return (
            f"CachePlugin(responses={self.responses}, tools={self.tools!r}, "
            f"ttl={self.ttl!r}, backend={self.backend!r})"
        )


__all__ = ["LOOKUP_PRIORITY", "STORE_PRIORITY", "CachePlugin", "CacheStats"]
