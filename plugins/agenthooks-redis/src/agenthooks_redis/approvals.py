"""Remote approvals, the answering side: ``RedisApprovals``, the approval source
``agenthooks approvals`` lists and answers through (entry point ``redis`` in
``agenthooks.approvals``). The asking side is ``approver.RedisApprover``.

Under the prefix ``P`` (default ``agenthooks:approvals``): the stream ``P`` of requests (one
entry each, for anyone watching), the hash ``P:req:ID`` (the request and its status), the
sorted set ``P:pending`` (pending ids by time) and the list ``P:answer:ID`` the waiting
process blocks on. Answering is one script: only a pending request can be answered, once.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis.asyncio as redis_asyncio
import structlog

from agenthooks.plugins import Approval, ApprovalError, LoopClients

from .checks import check_name, check_url
from .settings import RedisSettings

log = structlog.get_logger("agenthooks.redis")

ANSWER = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'pending' then return status end
local expires = redis.call('HGET', KEYS[1], 'expires_at')
if expires and expires ~= '' and tonumber(expires) <= tonumber(ARGV[4]) then
  redis.call('HSET', KEYS[1], 'status', 'expired')
  redis.call('ZREM', KEYS[2], ARGV[6])
  return 'expired'
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'reason', ARGV[2], 'by', ARGV[3], 'answered_at', ARGV[4])
redis.call('ZREM', KEYS[2], ARGV[6])
if ARGV[1] ~= 'expired' then
  redis.call('RPUSH', KEYS[3], ARGV[1])
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
end
return 'ok'
"""
"""KEYS: the request hash, the pending set, the answer list. ARGV: status (approved, denied,
expired), reason, by, now, TTL (ms) of the answer, id. Returns ``ok`` or the status that
stopped it (``unknown``, ``approved``, ``denied``, ``expired``)."""


class Keys:
    """The keys of the requests under one prefix."""

    def __init__(self, prefix: str) -> None:
        self.stream = prefix
        self.pending = f"{prefix}:pending"
        self.prefix = prefix

    def request(self, approval_id: str) -> str:
        return f"{self.prefix}:req:{approval_id}"

    def answer(self, approval_id: str) -> str:
        return f"{self.prefix}:answer:{approval_id}"


def clients(url: str) -> LoopClients[Any]:
    """One client per event loop for ``url``."""
    return LoopClients(lambda: redis_asyncio.Redis.from_url(url, decode_responses=True))


def _approval(data: dict[str, str], source: str) -> Approval:
    def number(key: str) -> float | None:
        raw = data.get(key) or ""
        return float(raw) if raw else None

    status = data.get("status", "pending")
    try:
        arguments = json.loads(data.get("arguments") or "{}")
    except ValueError:
        arguments = data.get("arguments")
    return Approval(
        id=data.get("id", ""),
        source=source,
        kind="tool call",
        summary=data.get("summary", ""),
        status=status if status in ("pending", "approved", "denied", "expired") else "pending",  # type: ignore[arg-type]
        run_id=data.get("run_id") or None,
        agent=data.get("agent") or None,
        requested_at=number("requested_at"),
        expires_at=number("expires_at"),
        reason=data.get("reason") or None,
        details={
            "tool": data.get("tool"),
            "arguments": arguments,
            "tool_call_id": data.get("tool_call_id") or None,
            "by": data.get("by") or None,
        },
    )


class RedisApprovals:
    """The approval source for ``agenthooks approvals``: the requests under ``prefix`` in the
    Redis at ``url`` (default: ``AGENTHOOKS_REDIS_URL`` / ``AGENTHOOKS_REDIS_APPROVALS``)."""

    def __init__(
        self, url: str | None = None, *, prefix: str | None = None, name: str = "redis"
    ) -> None:
        env = RedisSettings.from_env() if url is None or prefix is None else None
        self.url = check_url(url if env is None or url is not None else env.url, "RedisApprovals")
        self.prefix = check_name(
            prefix if env is None or prefix is not None else env.approvals,
            "RedisApprovals",
            "prefix",
        )
        self.name = name
        self._keys = Keys(self.prefix)
        self._clients: LoopClients[Any] = clients(self.url)

    def __repr__(self) -> str:
        return f"RedisApprovals({self.url!r}, prefix={self.prefix!r})"

    async def pending(self) -> list[Approval]:
        """The pending requests, oldest first (expired ones are marked so and left out)."""
        client = self._clients.get()
        ids = await client.zrange(self._keys.pending, 0, -1)
        if not ids:
            return []
        pipe = client.pipeline(transaction=False)
        for approval_id in ids:
            pipe.hgetall(self._keys.request(approval_id))
        found = await pipe.execute()
        out: list[Approval] = []
        now = time.time()
        for approval_id, data in zip(ids, found):
            if not data:  # its TTL ran out
                await client.zrem(self._keys.pending, approval_id)
                continue
            approval = _approval(data, self.name)
            if approval.expires_at is not None and approval.expires_at <= now:
                await self.set_status(approval_id, "expired", None, None)
                continue
            if approval.status == "pending":
                out.append(approval)
        return out

    async def get(self, approval_id: str) -> Approval | None:
        """The request ``approval_id`` in any status, or ``None``."""
        data = await self._clients.get().hgetall(self._keys.request(approval_id))
        return _approval(data, self.name) if data else None

    async def answer(
        self, approval_id: str, approved: bool, *, reason: str | None = None, by: str | None = None
    ) -> Approval:
        """Approve or deny a pending request; ``ApprovalError`` when it is unknown or no
        longer pending."""
        outcome = await self.set_status(
            approval_id, "approved" if approved else "denied", reason, by
        )
        if outcome == "unknown":
            raise ApprovalError(f"no approval request {approval_id!r} in {self.prefix!r}")
        if outcome != "ok":
            raise ApprovalError(f"approval request {approval_id!r} is no longer pending: {outcome}")
        found = await self.get(approval_id)
        assert found is not None
        return found

    async def set_status(
        self, approval_id: str, status: str, reason: str | None, by: str | None
    ) -> str:
        """Set a pending request's status in one atomic step (the ``ANSWER`` script).

        Returns:
            ``"ok"``; ``"unknown"`` for no such request; else the status it has instead
                (``"expired"`` when its time ran out, now or before).
        """
        client = self._clients.get()
        keys = self._keys
        result = await client.eval(
            ANSWER,
            3,
            keys.request(approval_id),
            keys.pending,
            keys.answer(approval_id),
            status,
            reason or "",
            by or "",
            repr(time.time()),
            3_600_000,
            approval_id,
        )
        return str(result)

    async def aclose(self) -> None:
        """Close this loop's client."""
        await self._clients.aclose()


__all__ = ["ANSWER", "RedisApprovals"]
