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

from agenthooks import Ask, Deny, ToolCall
from agenthooks.errors import ConfigError, ToolValidationError
from agenthooks.plugins import Need, PluginError

from .conditions import plain
from .config import load_policy, parse_policy, policy_from_env
from .names import RuleNames
from .outputs import RedactionHooks
from .policy import Approver, Policy, Rule
from .settings import POLICY_ENV, GuardConfigError

if TYPE_CHECKING:
    import os

    from agenthooks import HookBus
    from agenthooks.events import ChatStartContext, PreToolCallContext, UserMessageContext

log = structlog.get_logger("agenthooks_guard")

DISTRIBUTION = "agenthooks-guard"

CANCEL_GRACE = 1.0
"""Seconds a timed-out approver gets to finish after its cancellation (its answer is ignored:
the timeout has denied already)."""


class Guard:
    """A policy guard for an agenthooks bus: ``bus.use(Guard(policy, approver=...))``.

    A policy file that does not load never fails open: the guard then denies every run and
    every tool call with the configuration error as the reason, logs it, and adds it to
    ``bus.plugin_errors``. (``load_policy`` raises the same ``GuardConfigError`` for callers
    who prefer to stop at startup.)

    Args:
        policy: The rules. ``None``: the TOML file ``AGENTHOOKS_GUARD_POLICY`` names (as
            ``Guard.from_env()``, what the ``guard`` entry point loads, does); no variable
            means a guard that allows everything and redacts nothing.
        approver: ``approver(call, ctx) -> bool | Deny`` (async) decides ``ask`` rules; it
            overrides the policy's ``approver``.
        name: The plugin's name on the bus (two guards need two names).

    Raises:
        GuardConfigError: ``approver`` is not callable.
    """

    version = "0.1.0"

    def __init__(
        self, policy: Policy | None = None, *, approver: Approver | None = None, name: str = "guard"
    ) -> None:
        self.name = name
        self.config_error: ConfigError | None = None
        """What kept the policy from loading (a ``PluginOptionError`` for a bad variable, a
        ``GuardConfigError`` for the file); the guard then denies everything."""
        if policy is None:
            try:
                policy = policy_from_env()
            except ConfigError as exc:  # both kinds fail closed
                self.config_error = exc
                policy = Policy()
        self.policy = policy
        if approver is not None and not callable(approver):
            raise GuardConfigError(f"approver must be callable, got {approver!r}", key="approver")
        self.approver = approver if approver is not None else policy.approver
        self.rule_names = RuleNames(policy)
        """Reports, once, the rules whose ``tool`` names no tool the agents offer."""

    @classmethod
    def from_env(cls, *, approver: Approver | None = None, name: str = "guard") -> Guard:
        """The guard for the TOML policy file ``AGENTHOOKS_GUARD_POLICY`` names (the ``guard``
        entry point builds it so); no variable: a guard that allows everything. A policy that
        does not load, or a bad variable, makes a guard that denies every run with the error
        as the reason (fail closed)."""
        return cls(approver=approver, name=name)

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

    def needs(self) -> list[Need]:
        """The events this policy's promises rest on: redacting answers needs ``post_agent``
        (every answer the caller gets passes it) and ``on_response``."""
        redactor = self.policy.redact if self.config_error is None else None
        if redactor is None or "responses" not in redactor.targets:
            return []
        return [Need("redact", {"on_response", "post_agent"}, "redacts every answer")]

    def setup(self, bus: HookBus) -> None:
        """Register the guards this policy needs (nothing for an empty policy)."""
        if self.config_error is not None:
            self._lock_down(bus, self.config_error)
            return
        policy = self.policy
        if policy.checks_tools:
            bus.on("pre_tool_call", self._check_tool, guard=True)
            self.rule_names.install(bus)  # a rule naming no tool is reported after a first run
            asks = policy.default == "ask" or any(r.action == "ask" for r in policy.rules)
            if asks and self.approver is None and policy.ask == "wait":
                log.warning(
                    "guard_ask_without_approver",
                    policy=policy.source,
                    hint="ask rules deny every call until an approver is given",
                )
        if policy.input is not None:
            bus.on("on_user_message", self._check_input, guard=True)
        if policy.redact is not None:
            RedactionHooks(policy.redact).install(bus)

    # redaction for exporters (agenthooks.redaction) ------------------------------------------

    @property
    def redacts(self) -> bool:
        """True when the policy redacts: exporters then redact what they export with it."""
        return self.config_error is None and self.policy.redact is not None

    def redact_value(self, value: Any) -> Any:
        """``value`` with every string inside it redacted (itself when nothing matched)."""
        redactor = self.policy.redact
        return value if redactor is None else redactor.redact_value(value)

    def _lock_down(self, bus: HookBus, error: ConfigError) -> None:
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

    async def _check_tool(self, ctx: PreToolCallContext) -> Deny | Ask | None:
        call = ctx.call
        tool = ctx.tool
        if tool is not None and tool.name != call.name:  # judge the tool that will run
            call = call.model_copy(update={"name": tool.name})

        def arguments() -> dict[str, Any]:
            """The arguments the tool will receive: validated and coerced (an ordinary
            handler's ``{"call"}`` is validated only after the guards), as plain data."""
            given = ctx.call.arguments
            if tool is not None:
                try:
                    given = tool.validate(given)
                except ToolValidationError:
                    pass  # the tool will not run: its validation error answers the call
            judged: dict[str, Any] = plain(given)
            return judged

        rule, action = self.policy.decide(call, arguments)
        if action == "allow":
            return None
        if action == "deny":
            if rule is None:
                return Deny(f'Tool call "{call.name}" was denied by policy (default: deny)')
            return Deny(rule.reason or f'Tool call "{call.name}" was denied by policy')
        if self.policy.ask == "pause":  # a person answers later, from anywhere: resume()
            return Ask(
                rule.reason
                if rule is not None and rule.reason
                else f'Tool call "{call.name}" needs approval'
            )
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
                verdict = await _within(verdict, timeout, call.name)
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


async def _within(awaitable: Any, timeout: float, tool: str) -> Any:
    """The approver's answer, or ``TimeoutError`` once ``timeout`` has passed, whatever the
    approver does then: one that swallows its cancellation and answers ``True`` is too late."""
    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except BaseException:  # the run itself was cancelled while waiting
        task.cancel()
        raise
    if task in done:
        if task.cancelled():  # cancelled by someone else: no answer is no approval
            return Deny(f'Tool call "{tool}" was denied: the approver was cancelled')
        return task.result()
    task.cancel()
    finished, _ = await asyncio.wait({task}, timeout=CANCEL_GRACE)
    if task in finished:
        if not task.cancelled() and task.exception() is None:
            log.warning("guard_approver_ignored_cancel", tool=tool, late_answer=repr(task.result()))
    else:
        log.warning("guard_approver_still_running", tool=tool, grace=CANCEL_GRACE)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
    raise TimeoutError


__all__ = ["DISTRIBUTION", "Guard"]
