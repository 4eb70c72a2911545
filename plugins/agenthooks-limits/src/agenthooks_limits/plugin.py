"""The Limits plugin: caps on a run's turns, tool calls, tokens and cost, and rate limits per
tool, each acting by its ladder: ``warn``, ``downgrade``, ``deny`` or ``stop``.

Where each check runs:

- ``pre_tool_call`` (guard): tool-call caps (per run, per tool) and rate limits, measured
  before the call counts; a run-level ``deny`` that fired earlier denies every later call.
- ``prepare_next_turn`` (guard): turns, tokens and cost, measured after a turn and before the
  next request, so an answer already paid for is always returned; a ``downgrade`` returns
  ``{"model": cheaper}`` here (also one a tool check asked for).
- ``on_response`` (ordinary, priority 100): fills ``usage.cost`` from the pricing table when
  the provider did not, so ``max_cost`` and every later hook see the cost.
- ``on_chat_end``: drops the run's state.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import structlog

from agenthooks import Deny, StopRun
from agenthooks.plugins import PluginError

from .caps import Action, Cap, Price, RateLimit, as_cap, as_price
from .errors import LimitsConfigError
from .state import Breach, RunState, Window, reached, worst

if TYPE_CHECKING:
    from agenthooks import HookBus
    from agenthooks.events import (
        ChatEndContext,
        ChatStartContext,
        PreToolCallContext,
        ResponseContext,
        TurnContext,
    )

log = structlog.get_logger("agenthooks_limits")

DISTRIBUTION = "agenthooks-limits"
DEFAULT_DENY_MESSAGE = 'Tool call "{tool}" was denied ({reason})'


class Limits:
    """Run limits for an agenthooks bus: ``bus.use(Limits(max_turns=10, max_cost=0.50, ...))``.

    Caps are numbers (the default action: ``stop`` for ``max_turns`` / ``max_tokens`` /
    ``max_cost``, ``deny`` for tool-call caps and rate limits) or ``Cap(limit, action)`` /
    ``Cap(limit, ladder={0.8: "warn", 1.0: "downgrade", 1.2: "stop"})``.

    - ``max_turns``: provider calls per run. ``max_tokens``: total tokens per run.
      ``max_cost``: dollars per run (``usage.cost``, from the provider or ``pricing``).
    - ``max_tool_calls``: tool calls per run; ``max_calls_per_tool``: ``{tool: cap}`` per run.
    - ``rate_limits``: ``{tool: RateLimit(calls, per=seconds, shared=False)}``.
    - ``pricing``: ``{model: (input, output)}`` dollars per 1M tokens (or ``Price``); a model
      matches exactly or by its longest priced prefix (``gpt-4o-2024-08-06`` → ``gpt-4o``).
    - ``downgrade``: the cheaper model (a name, or ``{current: cheaper}``) a ``downgrade``
      step switches to for the next turn.
    - ``deny_message``: the text the model reads for a denied call (``{tool}``, ``{reason}``).

    ``Limits()`` without limits reads the TOML file named by ``AGENTHOOKS_LIMITS_CONFIG``
    (how the ``limits`` entry point loads it; ``from_env=True/False`` forces either way); no
    variable means no limits. A file that does not load denies every run with the error as
    the reason (fail closed).

    State is kept per run (``ctx.run_id``) and dropped at ``on_chat_end``; a sub-agent's run
    is a run of its own. Shared rate-limit windows live as long as the plugin.
    """

    version = "0.1.0"

    def __init__(
        self,
        *,
        max_turns: int | Cap | None = None,
        max_tool_calls: int | Cap | None = None,
        max_calls_per_tool: Mapping[str, int | Cap] | None = None,
        max_tokens: int | Cap | None = None,
        max_cost: float | Cap | None = None,
        rate_limits: Mapping[str, RateLimit] | None = None,
        pricing: Mapping[str, Price | tuple[float, float] | Mapping[str, float]] | None = None,
        downgrade: str | Mapping[str, str] | None = None,
        deny_message: str = DEFAULT_DENY_MESSAGE,
        clock: Callable[[], float] = time.monotonic,
        name: str = "limits",
        from_env: bool | None = None,
    ) -> None:
        self.name = name
        self.config_error: LimitsConfigError | None = None
        given = (
            max_turns,
            max_tool_calls,
            max_calls_per_tool,
            max_tokens,
            max_cost,
            rate_limits,
            pricing,
            downgrade,
        )
        if from_env or (from_env is None and all(v is None for v in given)):
            from .config import limits_from_env

            try:
                loaded = limits_from_env()
            except LimitsConfigError as exc:
                self.config_error = exc
            else:
                if loaded is not None:
                    (
                        max_turns,
                        max_tool_calls,
                        max_calls_per_tool,
                        max_tokens,
                        max_cost,
                        rate_limits,
                        pricing,
                        downgrade,
                    ) = (
                        loaded.get(k)
                        for k in (
                            "max_turns",
                            "max_tool_calls",
                            "max_calls_per_tool",
                            "max_tokens",
                            "max_cost",
                            "rate_limits",
                            "pricing",
                            "downgrade",
                        )
                    )
                    deny_message = loaded.get("deny_message", deny_message)
        self.max_turns = as_cap(max_turns, "stop", "max_turns")
        self.max_tool_calls = as_cap(max_tool_calls, "deny", "max_tool_calls")
        self.max_tokens = as_cap(max_tokens, "stop", "max_tokens")
        self.max_cost = as_cap(max_cost, "stop", "max_cost")
        per_tool: dict[str, Cap] = {}
        for tool, cap in (max_calls_per_tool or {}).items():
            found = as_cap(cap, "deny", f"max_calls_per_tool[{tool!r}]")
            if found is not None:
                per_tool[tool] = found
        self.max_calls_per_tool = per_tool
        self.rate_limits: dict[str, RateLimit] = {}
        for tool, rate in (rate_limits or {}).items():
            if not isinstance(rate, RateLimit):
                raise LimitsConfigError(
                    f"expected a RateLimit, got {type(rate).__name__}", key=f"rate_limits[{tool!r}]"
                )
            self.rate_limits[tool] = rate
        self.pricing = {
            model: as_price(p, f"pricing[{model!r}]") for model, p in (pricing or {}).items()
        }
        if downgrade is not None and not isinstance(downgrade, (str, Mapping)):
            raise LimitsConfigError(
                f"expected a model name or {{current: cheaper}}, got {type(downgrade).__name__}",
                key="downgrade",
            )
        self.downgrade = downgrade
        if "downgrade" in self._actions() and not downgrade:
            raise LimitsConfigError(
                "a ladder step downgrades, but no cheaper model is configured; pass "
                "downgrade='cheaper-model' (or {current: cheaper})",
                key="downgrade",
            )
        try:
            deny_message.format(tool="t", reason="r")
        except (KeyError, IndexError, ValueError) as exc:
            raise LimitsConfigError(
                f"{deny_message!r} is not a valid message: {type(exc).__name__}: {exc}; use "
                "{tool} and {reason}",
                key="deny_message",
            ) from None
        self.deny_message = deny_message
        self.clock = clock
        self._runs: dict[str, RunState] = {}
        self._shared: dict[str, Window] = {}
        self._unpriced: set[str] = set()

    def _run_caps(self) -> list[Cap]:
        return [c for c in (self.max_turns, self.max_tokens, self.max_cost) if c is not None]

    def _tool_caps(self) -> list[Cap]:
        caps = [*self.max_calls_per_tool.values(), *(r.cap for r in self.rate_limits.values())]
        return caps + ([self.max_tool_calls] if self.max_tool_calls is not None else [])

    def _actions(self) -> set[Action]:
        return {s.action for c in (*self._run_caps(), *self._tool_caps()) for s in c.steps or ()}

    def __repr__(self) -> str:
        if self.config_error is not None:
            return f"Limits(config_error={str(self.config_error)!r})"
        parts = [
            f"{k}={v!r}"
            for k, v in (
                ("max_turns", self.max_turns),
                ("max_tool_calls", self.max_tool_calls),
                ("max_tokens", self.max_tokens),
                ("max_cost", self.max_cost),
            )
            if v is not None
        ]
        return f"Limits({', '.join(parts)})"

    # installation ---------------------------------------------------------------------------

    def setup(self, bus: HookBus) -> None:
        """Register the checks the configuration needs (nothing when there are no limits)."""
        if self.config_error is not None:
            self._lock_down(bus, self.config_error)
            return
        if self.pricing:
            bus.on("on_response", self._price, priority=100)
        elif self.max_cost is not None:
            log.warning(
                "limits_cost_without_pricing",
                hint="max_cost counts only the cost the provider reports",
            )
        actions = self._actions()
        turn_checks = bool(self._run_caps()) or "downgrade" in actions
        tool_checks = bool(self._tool_caps()) or any(
            s.action == "deny" for c in self._run_caps() for s in c.steps or ()
        )
        if turn_checks:
            bus.on("prepare_next_turn", self._between_turns, guard=True)
        if tool_checks:
            bus.on("pre_tool_call", self._check_tool, guard=True)
        if turn_checks or tool_checks:
            bus.on("on_chat_end", self._forget)

    def _lock_down(self, bus: HookBus, error: LimitsConfigError) -> None:
        from .config import LIMITS_ENV

        reason = (
            f"agenthooks-limits: the limits named by {LIMITS_ENV} are invalid, so every "
            f"run is denied until they are fixed: {error}"
        )
        log.error("limits_config_invalid", error=str(error), env=LIMITS_ENV)
        bus.plugin_errors.append(PluginError(self.name, DISTRIBUTION, error))

        def deny_run(ctx: ChatStartContext) -> Deny:
            return Deny(reason)

        bus.on("on_chat_start", deny_run, guard=True)

    def _state(self, run_id: str) -> RunState:
        state = self._runs.get(run_id)
        if state is None:
            state = self._runs[run_id] = RunState()
        return state

    def _forget(self, ctx: ChatEndContext) -> None:
        self._runs.pop(ctx.run_id, None)

    def active_runs(self) -> list[str]:
        """The run ids whose state is kept (runs that have not ended)."""
        return list(self._runs)

    # pricing --------------------------------------------------------------------------------

    def price_for(self, model: str) -> Price | None:
        """The price of ``model``: an exact entry, else the longest priced prefix."""
        price = self.pricing.get(model)
        if price is not None:
            return price
        prefixes = [m for m in self.pricing if model.startswith(m)]
        return self.pricing[max(prefixes, key=len)] if prefixes else None

    def _price(self, ctx: ResponseContext) -> dict[str, Any] | None:
        response = ctx.response
        usage = response.usage
        if usage.cost or not (usage.input_tokens or usage.output_tokens):
            return None  # the provider's own cost wins; nothing to price without counts
        model = ctx.request.model
        price = self.price_for(model)
        if price is None:
            if model not in self._unpriced:
                self._unpriced.add(model)
                log.warning(
                    "limits_model_unpriced",
                    model=model,
                    hint="its calls count as $0 toward max_cost",
                )
            return None
        cost = price.cost(usage.input_tokens, usage.output_tokens)
        priced = usage.model_copy(update={"cost": cost})
        return {"response": response.model_copy(update={"usage": priced})}

    # checks ---------------------------------------------------------------------------------

    def _check_tool(self, ctx: PreToolCallContext) -> Deny | None:
        if ctx.short_circuit is not None:
            return None  # an ordinary handler answered (a cache hit): nothing is spent
        state = self._state(ctx.run_id)
        name = ctx.call.name
        if state.deny_tools is not None:
            return Deny(self.deny_message.format(tool=name, reason=state.deny_tools.text))
        breaches: list[Breach] = []
        if self.max_tool_calls is not None:
            breaches += reached("tool_calls", self.max_tool_calls, state.tool_calls)
        cap = self.max_calls_per_tool.get(name)
        if cap is not None:
            breaches += reached("tool", cap, state.per_tool[name], tool=name)
        rate = self.rate_limits.get(name)
        window: Window | None = None
        now = 0.0
        if rate is not None:
            now = self.clock()
            windows = self._shared if rate.shared else state.windows
            window = windows.get(name)
            if window is None:
                window = windows[name] = Window(rate.per)
            breaches += reached("rate", rate.cap, window.used(now), tool=name, per=rate.per)
        verdict = self._act(ctx.run_id, state, breaches)
        if verdict is not None:
            if verdict.action == "stop":
                raise StopRun(verdict.text)
            return Deny(self.deny_message.format(tool=name, reason=verdict.text))
        state.tool_calls += 1
        state.per_tool[name] += 1
        if window is not None:
            window.add(now)
        return None

    def _between_turns(self, ctx: TurnContext) -> dict[str, Any] | None:
        state = self._state(ctx.run_id)
        usage = ctx.usage
        breaches: list[Breach] = []
        if self.max_turns is not None:
            breaches += reached("turns", self.max_turns, (ctx.iteration or 0) + 1)
        if self.max_tokens is not None:
            tokens = usage.total_tokens or usage.input_tokens + usage.output_tokens
            breaches += reached("tokens", self.max_tokens, tokens)
        if self.max_cost is not None:
            breaches += reached("cost", self.max_cost, usage.cost)
        verdict = self._act(ctx.run_id, state, breaches)
        if verdict is not None:
            if verdict.action == "stop":
                raise StopRun(verdict.text)
            if state.deny_tools is None:
                state.deny_tools = verdict  # from now on every tool call of the run is denied
        wanted, state.downgrade = state.downgrade, None
        if wanted is None:
            return None
        cheaper = self._cheaper(ctx.model)
        if cheaper is None or cheaper == ctx.model:
            log.warning(
                "limit_downgrade_unavailable",
                model=ctx.model,
                run_id=ctx.run_id,
                reason=wanted.text,
            )
            return None
        log.warning(
            "limit_downgrade", model=ctx.model, to=cheaper, run_id=ctx.run_id, reason=wanted.text
        )
        return {"model": cheaper}

    def _cheaper(self, model: str) -> str | None:
        target = self.downgrade
        if isinstance(target, str):
            return target
        return None if target is None else target.get(model)

    def _act(self, run_id: str, state: RunState, breaches: list[Breach]) -> Breach | None:
        """Log every newly reached warn / downgrade step (each once per run), remember a
        downgrade for the next turn, and return the breach that denies or stops, if any."""
        for breach in breaches:
            if breach.action in ("warn", "downgrade"):
                key = (breach.metric, breach.tool, breach.step.at)
                if key in state.fired:
                    continue
                state.fired.add(key)
                if breach.action == "downgrade":
                    state.downgrade = breach
            log.warning(
                "limit_reached",
                action=breach.action,
                metric=breach.metric,
                tool=breach.tool,
                used=breach.used,
                limit=breach.limit,
                level=round(breach.level, 4),
                run_id=run_id,
                reason=breach.text,
            )
        final = worst([b for b in breaches if b.action in ("deny", "stop")])
        return final


__all__ = ["DEFAULT_DENY_MESSAGE", "DISTRIBUTION", "Limits"]
