"""The Guard plugin: the policy's checks, registered as guards.

Guards run after every ordinary handler of their event, are never skipped by an ordinary
short-circuit, and fail closed: an exception inside a check counts as ``Deny`` with its text.
Only what the policy configures is registered, so an empty policy costs nothing.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING, Any

import structlog

from agenthooks import Deny, ToolCall
from agenthooks.plugins import PluginError

from .config import POLICY_ENV, load_policy, parse_policy, policy_from_env
from .errors import GuardConfigError
from .policy import Approver, Policy, Rule

if TYPE_CHECKING:
    import os

    from agenthooks import HookBus
    from agenthooks.events import (
        ChatStartContext,
        PreRequestContext,
        PreToolCallContext,
        ResponseContext,
        ToolResultContext,
        UserMessageContext,
    )

    from .redact import Redactor

log = structlog.get_logger("agenthooks_guard")

DISTRIBUTION = "agenthooks-guard"


class Guard:
    """A policy guard for an agenthooks bus: ``bus.use(Guard(policy, approver=...))``.

    ``Guard()`` without a policy reads the TOML file named by ``AGENTHOOKS_GUARD_POLICY``
    (how the ``guard`` entry point loads it); no variable means a guard that allows
    everything and redacts nothing. A policy file that does not load never fails open: the
    guard then denies every run and every tool call with the configuration error as the
    reason, logs it, and adds it to ``bus.plugin_errors``. (``load_policy`` raises the same
    ``GuardConfigError`` for callers who prefer to stop at startup.)

    ``approver(call, ctx) -> bool | Deny`` (async) decides ``ask`` rules; it overrides the
    policy's ``approver``.
    """

    version = "0.1.0"

    def __init__(
        self, policy: Policy | None = None, *, approver: Approver | None = None, name: str = "guard"
    ) -> None:
        self.name = name
        self.config_error: GuardConfigError | None = None
        if policy is None:
            try:
                policy = policy_from_env()
            except GuardConfigError as exc:
                self.config_error = exc
                policy = Policy()
        self.policy = policy
        if approver is not None and not callable(approver):
            raise GuardConfigError(f"approver must be callable, got {approver!r}", key="approver")
        self.approver = approver if approver is not None else policy.approver

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], *, approver: Approver | None = None, name: str = "guard"
    ) -> Guard:
        """A guard for the TOML policy file ``path`` (raises ``GuardConfigError``)."""
        return cls(load_policy(path), approver=approver, name=name)

    @classmethod
    def from_toml(
        cls, text: str, *, approver: Approver | None = None, name: str = "guard"
    ) -> Guard:
        """A guard for the TOML policy ``text`` (raises ``GuardConfigError``)."""
        return cls(parse_policy(text), approver=approver, name=name)

    def __repr__(self) -> str:
        state = (
            f"config_error={str(self.config_error)!r}" if self.config_error else repr(self.policy)
        )
        return f"Guard({state})"

    # installation ---------------------------------------------------------------------------

    def setup(self, bus: HookBus) -> None:
        """Register the guards this policy needs (nothing for an empty policy)."""
        if self.config_error is not None:
            self._lock_down(bus, self.config_error)
            return
        policy = self.policy
        if policy.checks_tools:
            bus.on("pre_tool_call", self._check_tool, guard=True)
            asks = policy.default == "ask" or any(r.action == "ask" for r in policy.rules)
            if asks and self.approver is None:
                log.warning(
                    "guard_ask_without_approver",
                    policy=policy.source,
                    hint="ask rules deny every call until an approver is given",
                )
        if policy.input is not None:
            bus.on("on_user_message", self._check_input, guard=True)
        redact = policy.redact
        if redact is not None:
            if "tool_results" in redact.targets:
                bus.on("on_tool_call_result", self._redact_result, guard=True)
            if "requests" in redact.targets:
                bus.on("pre_request", self._redact_request, guard=True)
            if "responses" in redact.targets:
                bus.on("on_response", self._redact_response, guard=True)

    def _lock_down(self, bus: HookBus, error: GuardConfigError) -> None:
        reason = (
            f"agenthooks-guard: the policy named by {POLICY_ENV} is invalid, so every "
            f"run is denied until it is fixed: {error}"
        )
        log.error("guard_policy_invalid", error=str(error), env=POLICY_ENV)
        bus.plugin_errors.append(PluginError(self.name, DISTRIBUTION, error))

        def deny_run(ctx: ChatStartContext) -> Deny:
            return Deny(reason)

        def deny_tool(ctx: PreToolCallContext) -> Deny:
            return Deny(reason)

        bus.on("on_chat_start", deny_run, guard=True)
        bus.on("pre_tool_call", deny_tool, guard=True)

    # tool rules -----------------------------------------------------------------------------

    async def _check_tool(self, ctx: PreToolCallContext) -> Deny | None:
        call = ctx.call
        rule, action = self.policy.decide(call)
        if action == "allow":
            return None
        if action == "deny":
            if rule is None:
                return Deny(f'Tool call "{call.name}" was denied by policy (default: deny)')
            return Deny(rule.reason or f'Tool call "{call.name}" was denied by policy')
        return await self._ask(call, ctx, rule)

    async def _ask(self, call: ToolCall, ctx: PreToolCallContext, rule: Rule | None) -> Deny | None:
        approver = self.approver
        refused = (
            rule.reason
            if rule is not None and rule.reason
            else f'Tool call "{call.name}" was not approved'
        )
        if approver is None:
            return Deny(f'Tool call "{call.name}" needs approval, but no approver is configured')
        timeout = (
            rule.timeout
            if rule is not None and rule.timeout is not None
            else (self.policy.ask_timeout)
        )
        try:
            verdict: Any = approver(call, ctx)
            if inspect.isawaitable(verdict):
                verdict = await asyncio.wait_for(verdict, timeout)
        except (asyncio.TimeoutError, TimeoutError):
            log.warning(
                "guard_approval_timeout", tool=call.name, timeout=timeout, run_id=ctx.run_id
            )
            return Deny(
                f'Tool call "{call.name}" was denied: no approval within {timeout:g} '
                "seconds (approval timeout)"
            )
        except Exception as exc:
            log.warning(
                "guard_approver_failed",
                tool=call.name,
                error=f"{type(exc).__name__}: {exc}",
                run_id=ctx.run_id,
            )
            return Deny(
                f'Tool call "{call.name}" was denied: the approver failed '
                f"({type(exc).__name__}: {exc})"
            )
        if verdict is True:
            return None
        if isinstance(verdict, Deny):
            return verdict if verdict.reason else Deny(refused)
        if verdict is False:
            return Deny(refused)
        log.warning("guard_approver_bad_return", tool=call.name, returned=repr(verdict))
        return Deny(
            f'Tool call "{call.name}" was denied: the approver returned '
            f"{type(verdict).__name__}, not True, False or Deny"
        )

    # input ----------------------------------------------------------------------------------

    def _check_input(self, ctx: UserMessageContext) -> Deny | None:
        assert self.policy.input is not None
        if ctx.parent_run_id is not None:
            return None  # a sub-agent's task is written by its parent model, not the user
        reason = self.policy.input.check(ctx.message)
        return None if reason is None else Deny(reason)

    # redaction ------------------------------------------------------------------------------

    @property
    def _redactor(self) -> Redactor:
        redactor = self.policy.redact
        assert redactor is not None
        return redactor

    def _redact_result(self, ctx: ToolResultContext) -> dict[str, Any] | None:
        result = ctx.result
        redacted = self._redactor.redact_value(result)
        return None if redacted is result else {"result": redacted}

    def _redact_request(self, ctx: PreRequestContext) -> dict[str, Any] | None:
        redactor = self._redactor
        request = ctx.request
        messages = []
        changed = False
        for message in request.messages:
            if message.content:
                content = redactor.redact(message.content)
                if content != message.content:
                    message = message.model_copy(update={"content": content})
                    changed = True
            messages.append(message)
        if not changed:
            return None
        return {"request": request.model_copy(update={"messages": messages})}

    def _redact_response(self, ctx: ResponseContext) -> dict[str, Any] | None:
        response = ctx.response
        if not response.content:
            return None
        content = self._redactor.redact(response.content)
        if content == response.content:
            return None
        return {"response": response.model_copy(update={"content": content})}


__all__ = ["DISTRIBUTION", "Guard"]
