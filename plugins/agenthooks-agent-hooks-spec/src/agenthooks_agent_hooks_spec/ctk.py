"""The CTK harness: AGENT-HOOKS-0.1's Conformance Test Kit drives a real ``agenthooks.Agent``.

``pytest <file with def test_conformance(agent_hooks_assert): pass>
--agent-hooks-harness=agenthooks_agent_hooks_spec.ctk:AgenthooksHarness``

Each vector becomes one ``agent.chat(input)``: a ``ScriptedProvider`` replays the vector's
model script, each scripted tool is a tool that logs its invocations, and the interceptors
reach the run only through ``bus.use(AgentHooksSpec(...))``, on the production dispatch path.
The harness never calls the emitter; it reads the records the spec's record sink collected.

A vector whose model streams (``respond.stream``: the segments, ``stream_truncated``: the
stream is cut before its response) runs as ``agent.chat_stream(input)`` on a provider that
streams exactly those segments, under incremental output (``incremental.py``); the text the
consumer received is ``released``.
"""

from __future__ import annotations

import copy
import json
from importlib.resources import files
from typing import Any, ClassVar

from agent_hooks import (
    AgentContext,
    ApprovalResolver,
    CompositionConfig,
    EnforcementMode,
    HostRegistry,
    HostSurface,
    IdentityProvider,
    InterceptionRecord,
    Interceptor,
)
from agent_hooks.ctk import redact_paths
from agent_hooks.ctk.harness import Capability, RunOutcome, RunRecord, Scenario, ToolSpec
from agent_hooks.ctk.runner import load_vectors

from agenthooks import (
    Agent,
    FinalResponse,
    ProviderResponse,
    ScriptedProvider,
    StreamDelta,
    TextDelta,
    Tool,
    ToolCall,
)
from agenthooks.messages import ProviderRequest
from agenthooks.plugins import serialize_result

from .incremental import EXPOSURE_BOUND
from .plugin import AgentHooksSpec


def host_declaration() -> dict[str, Any]:
    """The host declaration document of agenthooks (AGENT-HOOKS-0.1 §7.7): what it claims."""
    text = files(__package__).joinpath("agenthooks.declaration.json").read_text(encoding="utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


class ScriptedToolError(Exception):
    """A scripted tool's ``is_error`` return, raised so the run sees a failed call."""


class LoggingTool(Tool[Any]):
    """A CTK mock tool: logs every invocation (``{"name", "args"}``, the arguments it really
    got) and answers from the vector's behaviour clauses.

    The vector's ``schema`` is informal (``{"arg": "string"}``), so the tool accepts any JSON
    object as its arguments instead of validating them against a signature."""

    def __init__(self, spec: ToolSpec, log: list[dict[str, Any]]) -> None:
        async def scripted(**arguments: Any) -> Any:
            log.append({"name": spec.name, "args": copy.deepcopy(arguments)})
            value, is_error = spec.invoke(arguments)
            if is_error:
                raise ScriptedToolError(serialize_result(value))
            return value

        super().__init__(scripted, name=spec.name, description=f"scripted tool {spec.name}")
        self.parameters = {
            "type": "object",
            "properties": {
                k: {"type": v} if isinstance(v, str) else {} for k, v in spec.schema.items()
            },
        }

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Accept any JSON object as it is: the vector's schema is informal."""
        return dict(arguments)


class AgenthooksHarness:
    """The CTK harness of agenthooks (no-argument constructor; one instance per vector)."""

    name = "agenthooks"
    capabilities: ClassVar[frozenset[Capability]] = frozenset(
        {
            Capability.MODEL_CALLS,
            Capability.TOOL_CALLS,
            Capability.INT64_JSON,  # Python ints hold any JSON integer losslessly
            Capability.BIGINT_JSON,
            Capability.HOST_DECLARATION,  # AgentHooksSpec.from_declaration(document, registry)
        }
    )
    incremental = False
    """Whether streamed vectors run under incremental output (``IncrementalHarness``)."""
    tool_seam_host_error = "continue"  # a tool deny is an error the model reads; the run goes on

    def __init__(self) -> None:
        self._scenario: Scenario | None = None
        self._spec: AgentHooksSpec | None = None
        self._records: list[InterceptionRecord] = []
        self._tool_log: list[dict[str, Any]] = []
        self.released: str | None = None
        """What a streamed run's consumer received (None for a run that was not streamed)."""
        self.persisted: list[str] = []
        """The contents of the agent's history after the run."""

    # the Harness protocol -----------------------------------------------------------------

    def host_surface(self) -> HostSurface:
        """The code surface a declaration is resolved against."""
        surface = HostSurface.from_capabilities(
            sorted(c.value for c in self.capabilities), self.tool_seam_host_error
        )
        return surface.with_exposure_bound(EXPOSURE_BOUND) if self.incremental else surface

    def declaration(self) -> dict[str, Any]:
        """The host declaration document of agenthooks; the CTK reads the claimed surface."""
        return host_declaration()

    def setup(
        self,
        scenario: Scenario,
        interceptors: list[Interceptor],
        resolver: ApprovalResolver | None,
        mode: EnforcementMode,
        composition: CompositionConfig | None = None,
        identity_provider: str | None = "jcs-sha256",
        redact_for_approval: list[str] | None = None,
    ) -> None:
        """A field-based vector: the spec built in code, as a user builds it."""
        spec = AgentHooksSpec(
            interceptors,
            mode=mode,
            composition=composition,
            resolver=resolver,
            record_sink=self._records.append,
            incremental_output=self.incremental,
        )
        if identity_provider == "ctk-fault":

            def fault(_ctx: AgentContext) -> str:
                raise RuntimeError("ctk scripted provider fault")

            spec.emitter.set_identity_provider(IdentityProvider("ctk-fault", fault))
        elif identity_provider is None:
            spec.emitter.set_identity_provider(None)
        paths = list(redact_for_approval or [])
        if paths:
            spec.emitter.set_approval_redactor(lambda ctx: redact_paths(ctx, paths))
        self._scenario, self._spec = scenario, spec

    def setup_declared(
        self, scenario: Scenario, document: dict[str, Any], registry: HostRegistry
    ) -> None:
        """A declaration vector: the spec built from the document (a refusal propagates)."""
        self._spec = AgentHooksSpec.from_declaration(
            document, registry, record_sink=self._records.append
        )
        self._scenario = scenario

    async def run(self) -> RunRecord:
        """One ``agent.chat`` on the vector's input, the spec installed with ``bus.use``."""
        assert self._scenario is not None and self._spec is not None
        scenario = self._scenario
        if scenario.input.get("role", "user") != "user":
            raise NotImplementedError("agenthooks takes the input as a user message")
        streams = _streams(scenario) if self.incremental else None
        provider = ScriptedProvider(_script(scenario)) if streams is None else None
        agent = Agent(
            "ctk-agent",
            provider=provider or SegmentProvider(_script(scenario), streams or []),
            tools=[LoggingTool(t, self._tool_log) for t in scenario.tools.values()],
        )
        outcome, final, error = RunOutcome.COMPLETED, None, None
        with agent.bus.use(self._spec):
            try:
                if streams is None:
                    response = await agent.chat(scenario.input["content"])
                else:
                    response = await self._streamed(agent, scenario.input["content"])
            except Exception as exc:
                outcome, error = RunOutcome.ERROR, f"{type(exc).__name__}: {exc}"
            else:
                if response.finish_reason == "denied":
                    outcome = RunOutcome.BLOCKED
                else:
                    final = response.content
        self.persisted = [m.content or "" for m in agent.history]
        return RunRecord(
            outcome=outcome,
            final_output=final,
            tool_invocations=list(self._tool_log),
            error=error,
            identities=[(r.input_identity, r.enforced_identity) for r in self._records],
            records=[r.to_wire() for r in self._records],
        )

    async def _streamed(self, agent: Agent, message: str) -> Any:
        """``chat_stream``: the text released to the consumer, and the final response."""
        self.released = ""
        async for item in agent.chat_stream(message):
            if isinstance(item, TextDelta):
                self.released += item.text
            elif isinstance(item, FinalResponse):
                return item.response
        raise AssertionError("the stream ended without its final response")

    def teardown(self) -> None:
        """Forget the vector."""
        self._scenario = self._spec = None


class IncrementalHarness(AgenthooksHarness):
    """The harness of agenthooks configured for incremental output: ``AgentHooksSpec(...,
    incremental_output=True)`` and a declaration with ``buffered_output: false`` and the
    exposure bound. Streamed vectors run as ``chat_stream``; ``released`` is what the consumer
    received and ``persisted`` what the history kept."""

    name = "agenthooks-incremental"
    capabilities: ClassVar[frozenset[Capability]] = AgenthooksHarness.capabilities | {
        Capability.INCREMENTAL_OUTPUT
    }
    incremental = True

    def declaration(self) -> dict[str, Any]:
        """The host declaration with incremental output."""
        return incremental_declaration()


def incremental_declaration() -> dict[str, Any]:
    """The host declaration of agenthooks for incremental output: ``incremental_output``,
    ``buffered_output: false`` and the exposure bound it enforces."""
    document = host_declaration()
    surface = document["surface"]
    surface["capabilities"] = sorted([*surface["capabilities"], "incremental_output"])
    surface["buffered_output"] = False
    surface["exposure_bound"] = EXPOSURE_BOUND
    return document


class SegmentProvider:
    """Streams each scripted response as exactly the vector's segments; a truncated stream
    stops after its segments, without the response (a cut stream)."""

    def __init__(self, script: list[ProviderResponse], streams: list[dict[str, Any]]) -> None:
        self.script = list(script)
        self.streams = list(streams)
        self.name = "ctk-segments"

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """The next scripted response, whole."""
        return self.script.pop(0)

    async def stream(self, request: ProviderRequest) -> Any:
        """The next scripted response as the vector's segments, then the response itself unless
        the vector cuts the stream.
        """
        response = self.script.pop(0)
        plan = self.streams.pop(0) if self.streams else {}
        for text in plan.get("stream") or ([response.content] if response.content else []):
            yield StreamDelta(text)
        if not plan.get("stream_truncated", False):
            yield response


_VECTORS: list[dict[str, Any]] | None = None


def _streams(scenario: Scenario) -> list[dict[str, Any]] | None:
    """The ``stream`` / ``stream_truncated`` of each scripted response, when the vector streams.

    agent-hooks-sdk 0.1.0b3's ``Scenario`` keeps only a response's content, tool calls and
    finish reason, so they are read from the packaged vector the scenario was loaded from."""
    global _VECTORS
    if _VECTORS is None:
        _VECTORS = load_vectors()
    for vector in _VECTORS:
        raw = vector["scenario"]
        steps = [m["respond"] for m in raw.get("model_script", [])]
        if not any("stream" in step for step in steps):
            continue
        if Scenario.from_wire(raw) == scenario:
            return [
                {k: step[k] for k in ("stream", "stream_truncated") if k in step} for step in steps
            ]
    return None


def _script(scenario: Scenario) -> list[ProviderResponse]:
    return [
        ProviderResponse(
            content=m.content,
            tool_calls=[
                ToolCall(id=c.get("id", ""), name=c["name"], arguments=c["args"])
                for c in m.tool_calls
            ],
            finish_reason=m.finish_reason,
        )
        for m in scenario.model_script
    ]


__all__ = [
    "AgenthooksHarness",
    "IncrementalHarness",
    "LoggingTool",
    "ScriptedToolError",
    "SegmentProvider",
    "host_declaration",
    "incremental_declaration",
]
