"""``RemoteHooks``: a local bus's interceptor events decided by a hook server's bus.

Installed on any bus (our runtime's, a bridge's), it sends each run's gate events to
``agenthooks serve`` (``POST /v1/events``) and applies the answers, so an agent in any
process is governed by the central policy, its records kept beside every other client's.
A server that does not answer in time (or fails, or refuses the token) fails closed for the
gates, as a local guard does: ``on_chat_start``, ``on_user_message``, ``pre_tool_call`` and
``on_tool_call_result`` are registered as guards, so the failure denies. The reports
(``on_tool_call_error``, ``on_chat_end``) fail open: the failure is logged, the run goes on.
"""

from __future__ import annotations

from typing import Any

import httpx
import structlog

from .bus import HookBus
from .decisions import Ask, Deny
from .errors import AgentHooksError
from .events.contexts import (
    ChatEndContext,
    ChatStartContext,
    EventContext,
    PreToolCallContext,
    ToolCallErrorContext,
    ToolCallResultContext,
    UserMessageContext,
)
from .loop_clients import LoopClients
from .messages import ToolCall
from .record.jsonable import to_jsonable

log = structlog.get_logger("agenthooks")


class RemoteHooksError(AgentHooksError):
    """The hook server did not give a usable answer (unreachable, too slow, an error status,
    an answer that is not a verdict); in a gate it denies with this text."""


class RemoteHooks:
    """Send this bus's gate events to a hook server and apply its verdicts.

    Args:
        url: The server's base URL (``http://127.0.0.1:8765``).
        token: The bearer token the server's token file knows (its name is this caller's
            identity in the server's records).
        timeout: Seconds to wait for an answer; past it a gate denies.
        name: The plugin's name on the bus.
        client: An ``httpx.AsyncClient`` to use as is (tests, custom transports); by default
            one is made per event loop.
    """

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        timeout: float = 10.0,
        name: str = "remote",
        client: httpx.AsyncClient | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"RemoteHooks: timeout must be positive, not {timeout!r}")
        self.url = url.rstrip("/") + "/v1/events"
        self.name = name
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._clients = LoopClients(
            lambda: httpx.AsyncClient(headers=headers, timeout=timeout), client
        )
        if client is not None and token:
            client.headers.update(headers)

    def __repr__(self) -> str:
        return f"RemoteHooks({self.url!r})"

    def setup(self, bus: HookBus) -> None:
        """Register the gates as guards and the reports as isolated observers."""
        bus.on("on_chat_start", self._chat_start, guard=True)
        bus.on("on_user_message", self._user_message, guard=True)
        bus.on("pre_tool_call", self._pre_tool_call, guard=True)
        bus.on("on_tool_call_result", self._tool_result, guard=True)
        bus.on("on_tool_call_error", self._tool_error, errors="isolate")
        bus.on("on_chat_end", self._chat_end)

    async def ask(self, event: str, ctx: EventContext, **values: Any) -> dict[str, Any]:
        """Post one event of ``ctx``'s run; the server's verdict.

        Raises:
            RemoteHooksError: No usable answer (it names the server and why).
        """
        body = {
            "event": event,
            "run_id": ctx.run_id,
            "parent_run_id": ctx.parent_run_id,
            "session_id": ctx.session_id,
            "agent": ctx.agent,
            "branch": ctx.branch,
            **values,
        }
        try:
            response = await self._clients.get().post(self.url, json=to_jsonable(body))
        except httpx.TimeoutException:
            raise RemoteHooksError(
                f"the hook server at {self.url} did not answer within {self.timeout:g} s"
            ) from None
        except httpx.HTTPError as exc:
            raise RemoteHooksError(
                f"the hook server at {self.url} cannot be reached ({type(exc).__name__})"
            ) from None
        if response.status_code != 200:
            try:
                said = response.json().get("error", "")
            except ValueError:
                said = response.text[:200]
            raise RemoteHooksError(
                f"the hook server at {self.url} answered {response.status_code}: {said}"
            )
        try:
            verdict = response.json()
        except ValueError:
            verdict = None
        if not isinstance(verdict, dict) or verdict.get("decision") not in (None, "deny", "ask"):
            raise RemoteHooksError(f"the hook server at {self.url} sent no verdict")
        return verdict

    @staticmethod
    def _refusal(verdict: dict[str, Any]) -> Deny | Ask | None:
        reason = verdict.get("reason")
        if verdict.get("decision") == "deny":
            return Deny(reason)
        if verdict.get("decision") == "ask":
            return Ask(reason)
        return None

    async def _chat_start(self, ctx: ChatStartContext) -> Deny | Ask | None:
        return self._refusal(await self.ask("on_chat_start", ctx, message=ctx.message))

    async def _user_message(self, ctx: UserMessageContext) -> Any:
        verdict = await self.ask("on_user_message", ctx, message=ctx.message)
        refused = self._refusal(verdict)
        if refused is not None:
            return refused
        message = verdict.get("message")
        return {"message": message} if isinstance(message, str) else None

    @staticmethod
    def _call(call: ToolCall) -> dict[str, Any]:
        return {"id": call.id, "name": call.name, "arguments": call.arguments}

    async def _pre_tool_call(self, ctx: PreToolCallContext) -> Any:
        verdict = await self.ask("pre_tool_call", ctx, call=self._call(ctx.call))
        refused = self._refusal(verdict)
        if refused is not None:
            return refused
        arguments = verdict.get("arguments")
        if isinstance(arguments, dict):
            return {"call": ctx.call.model_copy(update={"arguments": arguments})}
        return None

    async def _tool_result(self, ctx: ToolCallResultContext) -> Any:
        verdict = await self.ask(
            "on_tool_call_result", ctx, call=self._call(ctx.call), result=ctx.result
        )
        refused = self._refusal(verdict)
        if refused is not None:
            return refused
        return {"result": verdict["result"]} if "result" in verdict else None

    async def _tool_error(self, ctx: ToolCallErrorContext) -> None:
        await self.ask("on_tool_call_error", ctx, call=self._call(ctx.call), error=str(ctx.error))

    async def _chat_end(self, ctx: ChatEndContext) -> None:
        try:
            await self.ask("on_chat_end", ctx)
        except RemoteHooksError as exc:  # a report: the run's end never waits on the server
            log.warning("remote_hooks_unanswered", hook_event="on_chat_end", error=str(exc))

    async def aclose(self) -> None:
        """Close the HTTP clients this plugin made."""
        await self._clients.aclose()


__all__ = ["RemoteHooks", "RemoteHooksError"]
