"""The Limits plugin: caps on a run's turns, tool calls, tokens and cost, and rate limits per
tool, each acting by its ladder: ``warn``, ``downgrade``, ``deny`` or ``stop``.

Where each check runs:

- ``pre_tool_call`` (guard): tool-call caps (per run, per tool) and rate limits, measured
  before the call counts; a run-level ``deny`` that fired earlier denies every later call.
- ``prepare_next_turn`` (guard): turns, tokens and cost, measured after a turn and before the
  next request, so an answer already paid for is always returned; a ``downgrade`` returns
  ``{"model": cheaper}`` here (also one a tool check asked for). What the run used since the
  last check is added to its counters in the store, and the caps are checked against them.
- ``on_response`` (ordinary, priority 100): fills ``usage.cost`` from the pricing table when
  the provider did not, so ``max_cost`` and every later hook see the cost.
- ``pre_request`` (guard): the shared ``budget`` of turns, tokens and cost, before every
  provider call of every run (a run that starts after the budget is spent makes no call).
- ``on_response`` (ordinary, priority -1000000): adds the call's tokens and cost to the budget.
- ``on_chat_paused``: keeps the run's state in the pause (``ctx.state["limits"]``: its
  counters, the steps already acted on, a deny or downgrade in force), and
  ``on_run_resumed`` puts it back, so a resumed run, in any process, goes on from what it
  had used (``state.py``'s ``carry`` / ``restore``).
- ``on_chat_end``: drops the run's state.

Counters live in a ``LimitsStore``: this process's memory by default, or Redis
(``RedisStore``), where every process using the same store shares them atomically. A run's
counters are keyed by its run id (``run:ID:tool_calls``, ``run:ID:turns``, ...), so the
processes that serve one run (the workers of ``agenthooks serve`` answering one client
session) count it once between them.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import structlog

from agenthooks import ConfigError, Deny, StopRun
from agenthooks.plugins import Need, PluginError

from .caps import Action, Cap, Price, RateLimit, as_cap, as_price
from .settings import LIMITS_ENV, LimitsConfigError
from .state import RUN_METRICS, Breach, RunState, carry, reached, restore, worst
from .store import Check, LimitsStore, MemoryStore

if TYPE_CHECKING:
    from agenthooks import HookBus
    from agenthooks.events import (
        ChatEndContext,
        ChatPausedContext,
        ChatStartContext,
        PreRequestContext,
        PreToolCallContext,
        ResponseContext,
        RunResumedContext,
        TurnContext,
    )

log = structlog.get_logger("agenthooks_limits")

DISTRIBUTION = "agenthooks-limits"
DEFAULT_DENY_MESSAGE = 'Tool call "{tool}" was denied ({reason})'
RUN_TTL = 7 * 86_400.0
"""Seconds a run's counters outlive their last change in a shared store (a run that never
ended). As long as the hook server keeps a session's state: a client session idle for a day
must not find its tool-call count gone while the session itself goes on."""
BUDGET_KEYS = ("max_turns", "max_tool_calls", "max_tokens", "max_cost", "max_calls_per_tool")
SPEND_PRIORITY = -1_000_000
"""The budget's ``on_response`` handler runs after the others (the pricing one included)."""


class Limits:
    """Run limits for an agenthooks bus: ``bus.use(Limits(max_turns=10, max_cost=0.50, ...))``.

    Caps are numbers (the default action: ``stop`` for ``max_turns`` / ``max_tokens`` /
    ``max_cost``, ``deny`` for tool-call caps and rate limits) or ``Cap(limit, action)`` /
    ``Cap(limit, ladder={0.8: "warn", 1.0: "downgrade", 1.2: "stop"})``.

    ``Limits()`` without limits reads the TOML file named by ``AGENTHOOKS_LIMITS_CONFIG``
    (as ``Limits.from_env()``, what the ``limits`` entry point loads, does); no variable means
    no limits. A file that does not load denies every run with the error as the reason (fail
    closed).

    State is kept per run (``ctx.run_id``) and dropped at ``on_chat_end``; a sub-agent's run
    is a run of its own. Shared rate-limit windows live as long as the plugin.

    Args:
        max_turns: Provider calls per run.
        max_tool_calls: Tool calls per run.
        max_calls_per_tool: ``{tool: cap}``: calls of each tool per run.
        max_tokens: Total tokens per run.
        max_cost: Dollars per run (``usage.cost``, from the provider or ``pricing``).
        rate_limits: ``{tool: RateLimit(calls, per=seconds, shared=False)}``.
        pricing: ``{model: (input, output)}`` dollars per 1M tokens (or ``Price``); a model
            matches exactly or by its longest priced prefix (``gpt-4o-2024-08-06`` →
            ``gpt-4o``).
        downgrade: The cheaper model (a name, or ``{current: cheaper}``) a ``downgrade``
            step switches to for the next turn.
        deny_message: The text the model reads for a denied call (``{tool}``, ``{reason}``).
        budget: Caps shared by every run on the store, with the same keys (``max_turns``,
            ``max_tool_calls``, ``max_tokens``, ``max_cost``, ``max_calls_per_tool``) and
            ladders; across processes when the store is shared.
        store: Where the counters live (``MemoryStore`` by default, or ``RedisStore``).
        clock: Monotonic seconds for rate-limit windows (tests replace it).
        name: The plugin's name on the bus.
        from_env: Read ``AGENTHOOKS_LIMITS_CONFIG`` (True) or not (False); ``None``: only
            when no limit is given.

    Raises:
        LimitsConfigError: A limit, rate limit, price or ``downgrade`` is not of a type it
            takes; it names the option.
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
        budget: Mapping[str, Any] | None = None,
        store: LimitsStore | None = None,
        clock: Callable[[], float] = time.monotonic,
        name: str = "limits",
        from_env: bool | None = None,
    ) -> None:
        self.name = name
        self.config_error: ConfigError | None = None
        """What kept the limits from loading (a ``PluginOptionError`` for a bad variable, a
        ``LimitsConfigError`` for the file); the plugin then denies every run."""
        given = (
            max_turns,
            max_tool_calls,
            max_calls_per_tool,
            max_tokens,
            max_cost,
            rate_limits,
            pricing,
            downgrade,
            budget,
            store,
        )
        if from_env or (from_env is None and all(v is None for v in given)):
            from .config import limits_from_env

            try:
                loaded = limits_from_env()
            except ConfigError as exc:  # a bad variable or a bad file: both fail closed
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
                    budget = loaded.get("budget", budget)
                    store = loaded.get("store", store)
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
        self.budget = self._budget(budget)
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
        if store is not None and not isinstance(store, LimitsStore):
            raise LimitsConfigError(
                f"{store!r} has no count(checks), add(key, amount, ttl) and forget(keys)",
                key="store",
            )
        self.store: LimitsStore = store if store is not None else MemoryStore(clock)
        self._runs: dict[str, RunState] = {}
        self._unpriced: set[str] = set()

    @classmethod
    def from_env(cls) -> Limits:
        """The limits in the TOML file ``AGENTHOOKS_LIMITS_CONFIG`` names (the ``limits`` entry
        point builds the plugin so); no variable means no limits. A file that does not load,
        or a bad variable, denies every run with the error as the reason (fail closed).
        """
        return cls(from_env=True)

    @staticmethod
    def _budget(budget: Mapping[str, Any] | None) -> dict[str, Any]:
        if budget is None:
            return {}
        if not isinstance(budget, Mapping):
            raise LimitsConfigError(
                f"expected a mapping of caps, got {type(budget).__name__}", key="budget"
            )
        out: dict[str, Any] = {}
        for name, value in budget.items():
            if name not in BUDGET_KEYS:
                raise LimitsConfigError(
                    f"unknown key; a budget has {', '.join(BUDGET_KEYS)}", key=f"budget.{name}"
                )
            if name == "max_calls_per_tool":
                if not isinstance(value, Mapping):
                    raise LimitsConfigError("expected {tool: cap}", key=f"budget.{name}")
                out[name] = {
                    tool: as_cap(cap, "deny", f"budget.{name}[{tool!r}]")
                    for tool, cap in value.items()
                }
            else:
                default: Action = "deny" if name == "max_tool_calls" else "stop"
                out[name] = as_cap(value, default, f"budget.{name}")
        return out

    def _run_caps(self) -> list[Cap]:
        return [c for c in (self.max_turns, self.max_tokens, self.max_cost) if c is not None]

    def _budget_run_caps(self) -> list[Cap]:
        return [self.budget[k] for k in ("max_turns", "max_tokens", "max_cost") if k in self.budget]

    def _tool_caps(self) -> list[Cap]:
        caps = [*self.max_calls_per_tool.values(), *(r.cap for r in self.rate_limits.values())]
        caps += list(self.budget.get("max_calls_per_tool", {}).values())
        if "max_tool_calls" in self.budget:
            caps.append(self.budget["max_tool_calls"])
        return caps + ([self.max_tool_calls] if self.max_tool_calls is not None else [])

    def _actions(self) -> set[Action]:
        caps = (*self._run_caps(), *self._budget_run_caps(), *self._tool_caps())
        return {s.action for c in caps for s in c.steps or ()}

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

    def needs(self) -> list[Need]:
        """The events each configured cap rests on: a run cap (turns, tokens, cost, and a
        ``downgrade`` step) is checked between turns; a tool cap before each tool call."""
        found: list[Need] = []
        for name in ("max_turns", "max_tokens", "max_cost"):
            if getattr(self, name) is not None:
                found.append(Need(name, {"prepare_next_turn"}, "checked between turns"))
        for name in ("max_turns", "max_tokens", "max_cost"):
            if name in self.budget:
                found.append(Need(f"budget.{name}", {"pre_request"}, "checked before each request"))
        if self._tool_caps():
            found.append(Need("max_tool_calls", {"pre_tool_call"}, "checked before each tool call"))
        return found

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
        if self._budget_run_caps():
            bus.on("pre_request", self._check_budget, guard=True)
            if "max_tokens" in self.budget or "max_cost" in self.budget:
                bus.on("on_response", self._spend, priority=SPEND_PRIORITY)
        if turn_checks or tool_checks or self._budget_run_caps():
            bus.on("on_chat_paused", self._paused)
            bus.on("on_run_resumed", self._resumed)
            bus.on("on_chat_end", self._forget)

    def _lock_down(self, bus: HookBus, error: ConfigError) -> None:
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

    def run_keys(self, run_id: str) -> set[str]:
        """Every counter the configuration keeps for the run ``run_id`` in the store (its
        ``run:ID:...`` keys), whether or not this process has counted in it."""
        run = f"run:{run_id}:"
        caps = (self.max_turns, self.max_tokens, self.max_cost)
        keys = {run + m for m, cap in zip(RUN_METRICS, caps) if cap is not None}
        if self.max_tool_calls is not None:
            keys.add(run + "tool_calls")
        keys.update(f"{run}tool:{tool}" for tool in self.max_calls_per_tool)
        keys.update(f"{run}rate:{t}" for t, rate in self.rate_limits.items() if not rate.shared)
        return keys

    async def _forget(self, ctx: ChatEndContext) -> None:
        self._runs.pop(ctx.run_id, None)
        # the counters the run may have anywhere: another process (a worker that answered
        # part of a served session) may have counted in them without this one knowing
        keys = self.run_keys(ctx.run_id)
        if keys:
            try:
                await _maybe(self.store.forget(sorted(keys)))
            except Exception as exc:  # a shared store expires them anyway (RUN_TTL)
                log.warning("limits_store_failed", operation="forget", error=_text(exc))

    async def _paused(self, ctx: ChatPausedContext) -> None:
        state = self._runs.get(ctx.run_id)
        prefix = f"run:{ctx.run_id}:"
        # the running totals of the run's counters (a per-run rate window is a time window:
        # a human's pause outlasts it, so it starts afresh)
        totals = sorted(k for k in self.run_keys(ctx.run_id) if ":rate:" not in k)
        used: list[float] = []
        if totals:
            try:
                checks = [Check(key, 0, 1.0) for key in totals]
                used, _counted = await _maybe(self.store.count(checks))
            except Exception as exc:  # the pause goes on; the resumed run counts afresh
                log.warning("limits_store_failed", operation="carry", error=_text(exc))
                used = []
        counters = {k[len(prefix) :]: u for k, u in zip(totals, used) if u}
        if state is not None or counters:
            ctx.state[self.name] = carry(state or RunState(), counters)

    async def _resumed(self, ctx: RunResumedContext) -> None:
        kept = ctx.state.get(self.name)
        if not isinstance(kept, dict):
            return
        state, counters = restore(kept)
        prefix = f"run:{ctx.run_id}:"
        keys = {prefix + suffix: amount for suffix, amount in counters.items()}
        self._runs[ctx.run_id] = state
        try:  # set, not added to: a counter this process still has is replaced
            await _maybe(self.store.forget(sorted(keys)))
            for key, amount in keys.items():
                await _maybe(self.store.add(key, amount, RUN_TTL))
        except Exception as exc:
            log.warning("limits_store_failed", operation="restore", error=_text(exc))

    def active_runs(self) -> list[str]:
        """The run ids whose state this process keeps (runs that have not ended and have
        state beyond their counters in the store: the steps acted on, a deny or downgrade in
        force, what was added between turns)."""
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

    async def _check_tool(self, ctx: PreToolCallContext) -> Deny | None:
        if ctx.short_circuit is not None:
            return None  # an ordinary handler answered (a cache hit): nothing is spent
        # no state is made for a run until it has some: a worker that answers part of a
        # served session another worker ends keeps nothing of it
        state = self._runs.get(ctx.run_id)
        name = ctx.call.name
        if state is not None and state.deny_tools is not None:
            return Deny(self.deny_message.format(tool=name, reason=state.deny_tools.text))
        run = f"run:{ctx.run_id}:"
        # (metric, cap, tool, per, check) for every counter this call spends
        counters: list[tuple[str, Cap, str | None, float | None, Check]] = []
        if self.max_tool_calls is not None:
            counters.append(self._counter("tool_calls", self.max_tool_calls, run + "tool_calls"))
        cap = self.max_calls_per_tool.get(name)
        if cap is not None:
            counters.append(self._counter("tool", cap, f"{run}tool:{name}", tool=name))
        rate = self.rate_limits.get(name)
        if rate is not None:
            key = f"rate:{name}" if rate.shared else f"{run}rate:{name}"
            counters.append(self._counter("rate", rate.cap, key, tool=name, per=rate.per))
        shared = self.budget.get("max_tool_calls")
        if shared is not None:
            counters.append(self._counter("tool_calls", shared, "budget:tool_calls", ttl=None))
        shared = self.budget.get("max_calls_per_tool", {}).get(name)
        if shared is not None:
            counters.append(
                self._counter("tool", shared, f"budget:tool:{name}", tool=name, ttl=None)
            )
        if not counters:
            return None
        checks = [c[4] for c in counters]
        used, _counted = await _maybe(self.store.count(checks))
        breaches: list[Breach] = []
        for (metric, cap, tool, per, _check), amount in zip(counters, used):
            breaches += reached(metric, cap, amount, tool=tool, per=per)
        verdict = self._act(ctx.run_id, breaches)
        if verdict is not None:
            if verdict.action == "stop":
                raise StopRun(verdict.text)
            return Deny(self.deny_message.format(tool=name, reason=verdict.text))
        return None

    def _counter(
        self,
        metric: str,
        cap: Cap,
        key: str,
        *,
        tool: str | None = None,
        per: float | None = None,
        amount: float = 1,
        ttl: float | None = RUN_TTL,
    ) -> tuple[str, Cap, str | None, float | None, Check]:
        blocking = [s.at for s in cap.steps or () if s.action in ("deny", "stop")]
        check = Check(key, amount, cap.limit, min(blocking, default=None), per, ttl)
        return (metric, cap, tool, per, check)

    async def _check_budget(self, ctx: PreRequestContext) -> dict[str, Any] | Deny | None:
        if ctx.response is not None:
            return None  # an ordinary handler answered (a cache hit): no call is made
        counters = []
        for name, metric, amount in (
            ("max_turns", "turns", 1),
            ("max_tokens", "tokens", 0),
            ("max_cost", "cost", 0),
        ):
            cap = self.budget.get(name)
            if cap is not None:
                counters.append(
                    self._counter(metric, cap, f"budget:{metric}", amount=amount, ttl=None)
                )
        used, _counted = await _maybe(self.store.count([c[4] for c in counters]))
        breaches: list[Breach] = []
        for (metric, cap, _tool, _per, _check), amount in zip(counters, used):
            breaches += reached(metric, cap, amount)
        verdict = self._act(ctx.run_id, breaches)
        if verdict is not None:
            if verdict.action == "stop":
                raise StopRun(f"shared budget: {verdict.text}")
            return Deny(f"shared budget: {verdict.text}")
        state = self._runs.get(ctx.run_id)
        if state is None or state.downgrade is None:
            return None
        wanted, state.downgrade = state.downgrade, None
        model = ctx.request.model
        cheaper = self._cheaper(model)
        if cheaper is None or cheaper == model:
            return None
        log.warning(
            "limit_downgrade", model=model, to=cheaper, run_id=ctx.run_id, reason=wanted.text
        )
        return {"request": ctx.request.model_copy(update={"model": cheaper})}

    async def _spend(self, ctx: ResponseContext) -> None:
        usage = ctx.response.usage
        spent = []
        if "max_tokens" in self.budget:
            tokens = usage.total_tokens or usage.input_tokens + usage.output_tokens
            if tokens:
                spent.append(("budget:tokens", float(tokens)))
        if "max_cost" in self.budget and usage.cost:
            spent.append(("budget:cost", float(usage.cost)))
        for key, amount in spent:
            try:
                await _maybe(self.store.add(key, amount, None))
            except Exception as exc:  # the call was made; a failed count must not break the run
                log.warning("limits_store_failed", operation="add", key=key, error=_text(exc))

    async def _between_turns(self, ctx: TurnContext) -> dict[str, Any] | None:
        state = self._state(ctx.run_id)
        usage = ctx.usage
        # the run's own measures (a sub-agent's usage included) ...
        measures = {
            "turns": (self.max_turns, float((ctx.iteration or 0) + 1)),
            "tokens": (
                self.max_tokens,
                float(usage.total_tokens or usage.input_tokens + usage.output_tokens),
            ),
            "cost": (self.max_cost, float(usage.cost)),
        }
        run = f"run:{ctx.run_id}:"
        counted: list[tuple[str, Cap, Check]] = []
        for metric, (cap, measure) in measures.items():
            if cap is None:
                continue
            # ... of which the store gets what this process has not added yet, so the
            # counter is the run's total whichever processes saw its turns; never blocking
            # (the turn happened): the check reads the total it reached
            amount = max(0.0, measure - state.added.get(metric, 0.0))
            state.added[metric] = state.added.get(metric, 0.0) + amount
            counted.append((metric, cap, Check(run + metric, amount, cap.limit, ttl=RUN_TTL)))
        breaches: list[Breach] = []
        if counted:
            used, _counted = await _maybe(self.store.count([c[2] for c in counted]))
            for (metric, cap, check), before in zip(counted, used):
                breaches += reached(metric, cap, before + check.amount)
        verdict = self._act(ctx.run_id, breaches)
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

    def _act(self, run_id: str, breaches: list[Breach]) -> Breach | None:
        """Log every newly reached warn / downgrade step (each once per run), remember a
        downgrade for the next turn, and return the breach that denies or stops, if any."""
        for breach in breaches:
            if breach.action in ("warn", "downgrade"):
                state = self._state(run_id)
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


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


__all__ = ["DEFAULT_DENY_MESSAGE", "DISTRIBUTION", "RUN_TTL", "Limits"]
