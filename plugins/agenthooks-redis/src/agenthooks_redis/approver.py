"""Remote approvals, the asking side: a guard's ``ask`` in one process, the answer in another.

``RedisApprover`` is a guard approver (``Guard(policy, approver=RedisApprover(url))``, or
``approver = "agenthooks_redis.approver:ask"`` in a policy file): it files the request (an
entry of the stream ``P``, the hash ``P:req:ID``, the pending index) and blocks on the list
``P:answer:ID`` until ``agenthooks approvals approve|deny ID`` answers it.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import TYPE_CHECKING, Any

import structlog

from agenthooks import Deny
from agenthooks.plugins import LoopClients

from .approvals import Keys, RedisApprovals, clients
from .checks import check_name, check_seconds, check_url
from .settings import DEFAULT_APPROVALS, DEFAULT_URL, RedisSettings

if TYPE_CHECKING:
    from agenthooks import ToolCall

log = structlog.get_logger("agenthooks.redis")


class RedisApprover:
    """A guard approver that asks another process: ``Guard(policy, approver=RedisApprover())``.

    Each ``ask`` files a request (stream entry, hash, pending index) and blocks on its answer
    list until ``agenthooks approvals approve|deny ID`` (or any ``RedisApprovals.answer``)
    answers it: approve runs the call, deny refuses it with the given reason (or the rule's).
    ``timeout`` (seconds, default none) bounds the wait here too: no answer by then denies and
    marks the request expired; the guard's own ``ask_timeout`` cancels the wait the same way.
    ``ttl``: seconds a request is kept in Redis.
    """

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        prefix: str = DEFAULT_APPROVALS,
        timeout: float | None = None,
        ttl: float = 86_400.0,
        poll: float = 1.0,
    ) -> None:
        self.url = check_url(url, "RedisApprover")
        self.prefix = check_name(prefix, "RedisApprover", "prefix")
        self.timeout = (
            None if timeout is None else check_seconds(timeout, "RedisApprover", "timeout")
        )
        self.ttl = check_seconds(ttl, "RedisApprover", "ttl")
        self.poll = check_seconds(poll, "RedisApprover", "poll")
        self._keys = Keys(self.prefix)
        self._clients: LoopClients[Any] = clients(self.url)
        self._source = RedisApprovals(self.url, prefix=self.prefix)

    def __repr__(self) -> str:
        return f"RedisApprover({self.url!r}, prefix={self.prefix!r})"

    async def __call__(self, call: ToolCall, ctx: Any) -> bool | Deny:
        """File the request for ``call`` and wait for the answer."""
        approval_id = uuid.uuid4().hex[:12]
        approval_id = await self.request(approval_id, call, ctx)
        try:
            return await self.wait(approval_id, call)
        except BaseException:  # cancelled by the guard's timeout, or failed: nobody may answer now
            await asyncio.shield(self._expire(approval_id))
            raise

    async def request(self, approval_id: str, call: ToolCall, ctx: Any) -> str:
        """File the request ``approval_id``; returns the id."""
        client = self._clients.get()
        now = time.time()
        arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True, default=str)
        fields = {
            "id": approval_id,
            "status": "pending",
            "tool": call.name,
            "arguments": arguments,
            "summary": f"{call.name}({arguments})",
            "run_id": getattr(ctx, "run_id", "") or "",
            "agent": getattr(ctx, "agent", "") or "",
            "tool_call_id": getattr(ctx, "tool_call_id", "") or "",
            "requested_at": repr(now),
            "expires_at": "" if self.timeout is None else repr(now + self.timeout),
        }
        keys = self._keys
        pipe = client.pipeline(transaction=True)
        pipe.hset(keys.request(approval_id), mapping=fields)
        pipe.pexpire(keys.request(approval_id), int(self.ttl * 1000))
        pipe.zadd(keys.pending, {approval_id: now})
        pipe.xadd(keys.stream, fields, maxlen=10_000, approximate=True)
        await pipe.execute()
        log.info(
            "redis_approval_requested", id=approval_id, tool=call.name, run_id=fields["run_id"]
        )
        return approval_id

    async def wait(self, approval_id: str, call: ToolCall) -> bool | Deny:
        """Block until ``approval_id`` is answered (or ``timeout`` passes: a deny)."""
        client = self._clients.get()
        loop = asyncio.get_running_loop()
        deadline = None if self.timeout is None else loop.time() + self.timeout
        key = self._keys.answer(approval_id)
        while True:
            wait = self.poll if deadline is None else min(self.poll, deadline - loop.time())
            if wait <= 0:
                await self._expire(approval_id)
                return Deny(
                    f'Tool call "{call.name}" was denied: no approval within {self.timeout:g} '
                    "seconds (approval timeout)"
                )
            answer = await client.blpop([key], timeout=wait)
            if answer is None:
                continue
            status = answer[1]
            found = await self._source.get(approval_id)
            reason = found.reason if found is not None else None
            log.info("redis_approval_answered", id=approval_id, status=status, tool=call.name)
            return True if status == "approved" else Deny(reason)

    async def _expire(self, approval_id: str) -> None:
        try:
            await self._source.set_status(approval_id, "expired", None, None)
        except Exception as exc:
            log.warning(
                "redis_approval_expire_failed", id=approval_id, error=f"{type(exc).__name__}: {exc}"
            )

    async def aclose(self) -> None:
        """Close this loop's clients."""
        await self._clients.aclose()
        await self._source.aclose()


_from_env: dict[tuple[str, str], RedisApprover] = {}


async def ask(call: ToolCall, ctx: Any) -> bool | Deny:
    """A guard approver configured by ``AGENTHOOKS_REDIS_URL`` / ``AGENTHOOKS_REDIS_APPROVALS``,
    for policy files: ``approver = "agenthooks_redis.approver:ask"``."""
    env = RedisSettings.from_env()
    url, prefix = env.url, env.approvals
    approver = _from_env.get((url, prefix))
    if approver is None:
        approver = _from_env[(url, prefix)] = RedisApprover(url, prefix=prefix)
    return await approver(call, ctx)


__all__ = ["RedisApprover", "ask"]
