"""Building the spec: in code, from a host declaration document, and agenthooks' own
declaration document."""

from __future__ import annotations

from typing import Any

import pytest
from agent_hooks import (
    BindingContext,
    CompositionConfig,
    DeclarationError,
    EnforcementMode,
    HostDeclaration,
    HostRegistry,
    HostSurface,
    InterceptionEmitter,
    InterceptionRecord,
)
from agenthooks_agent_hooks_spec import AgentHooksSpec
from agenthooks_agent_hooks_spec.ctk import (
    AgenthooksHarness,
    IncrementalHarness,
    host_declaration,
    incremental_declaration,
)
from spec_helpers import Policy, deny

import agenthooks
from agenthooks import Agent, ScriptedProvider

SURFACE = HostSurface.from_capabilities(["model_calls", "tool_calls"], "continue")


def _registry(policy: Policy) -> HostRegistry:
    def build(config: Any, ctx: BindingContext) -> Policy:
        assert config == {"limit": 3}
        return policy

    return HostRegistry(SURFACE).kind("acme.policy", build)


async def test_a_spec_built_from_a_declaration_runs_its_bindings_and_stamps_records() -> None:
    policy = Policy(output=lambda c: deny("acme:no-answers"))
    records: list[InterceptionRecord] = []
    document = {
        "declaration": "agent-hooks-declaration/1.0",
        "bindings": [{"id": "acme", "kind": "acme.policy", "config": {"limit": 3}}],
    }
    spec = AgentHooksSpec.from_declaration(document, _registry(policy), record_sink=records.append)
    agent = Agent("a", provider=ScriptedProvider(["42"]))
    agent.bus.use(spec)
    response = await agent.chat("answer?")
    assert (response.finish_reason, response.content) == ("denied", "acme:no-answers")
    wire = [r.to_wire() for r in records]
    assert [r["interception_point"] for r in wire] == [
        "agent_startup",
        "input",
        "pre_model_call",
        "post_model_call",
        "output",
        "agent_shutdown",
    ]
    assert {r["declaration"] for r in wire} == {"agent-hooks-declaration/1.0"}
    assert wire[4]["verdicts"] == [
        {"index": 0, "decision": "deny", "reason": "acme:no-answers", "name": "acme"}
    ]


def test_a_refused_declaration_raises_its_refusal_class() -> None:
    document = {
        "declaration": "agent-hooks-declaration/1.0",
        "bindings": [{"id": "x", "kind": "acme.missing"}],
    }
    with pytest.raises(DeclarationError) as info:
        AgentHooksSpec.from_declaration(document, _registry(Policy()))
    assert info.value.code == "declaration_error:kind_unknown"


@pytest.mark.parametrize(
    ("harness", "document", "incremental"),
    [
        (AgenthooksHarness, host_declaration(), False),
        (IncrementalHarness, incremental_declaration(), True),
    ],
    ids=["buffered", "incremental"],
)
def test_incremental_output_follows_the_resolved_surface(
    harness: type[AgenthooksHarness], document: dict[str, Any], incremental: bool
) -> None:
    registry = HostRegistry(harness().host_surface())
    spec = AgentHooksSpec.from_declaration(document, registry)
    resolved = spec.emitter.declaration
    assert resolved is not None
    assert resolved.surface["buffered_output"] is (not incremental)
    assert spec.incremental_output is incremental


def test_our_declaration_document_resolves_and_matches_the_code_defaults() -> None:
    document = host_declaration()
    resolved = HostRegistry(AgenthooksHarness().host_surface()).resolve(
        HostDeclaration.from_value(document)
    )
    spec = AgentHooksSpec([Policy()])
    assert resolved.mode is spec.mode is EnforcementMode.ENFORCE
    assert resolved.composition == spec.emitter.composition == CompositionConfig.default()
    assert resolved.host == {"name": "agenthooks", "version": agenthooks.__version__}
    assert sorted(resolved.surface["capabilities"]) == sorted(
        c.value for c in AgenthooksHarness.capabilities
    )
    assert resolved.surface["buffered_output"] is True
    assert resolved.configuration["posture"] == {"tool_seam_host_error": "continue"}


async def test_named_interceptors_name_their_verdicts() -> None:
    records: list[InterceptionRecord] = []
    agent = Agent("a", provider=ScriptedProvider(["hi"]))
    agent.bus.use(AgentHooksSpec({"audit": Policy(), "pii": Policy()}, record_sink=records.append))
    await agent.chat("hello")
    assert records[0].to_wire()["verdicts"] == [
        {"index": 0, "decision": "allow", "name": "audit"},
        {"index": 1, "decision": "allow", "name": "pii"},
    ]


def test_an_emitter_is_configured_on_the_emitter_not_twice() -> None:
    with pytest.raises(ValueError) as info:
        AgentHooksSpec(emitter=InterceptionEmitter(), mode="evaluate_only")
    assert str(info.value) == (
        "AgentHooksSpec(emitter=...) takes its mode, composition, "
        "resolver and timeout from the emitter: configure them there"
    )


def test_an_object_without_intercept_is_refused_at_construction() -> None:
    with pytest.raises(TypeError) as info:
        AgentHooksSpec({"broken": object()})  # type: ignore[dict-item]
    assert str(info.value) == (
        "interceptor 'broken' has no intercept(context) method; an AGENT-HOOKS-0.1 "
        "interceptor returns a Verdict from intercept(context)"
    )


def test_mode_accepts_the_standard_names() -> None:
    assert AgentHooksSpec([Policy()], mode="evaluate_only").mode is EnforcementMode.EVALUATE_ONLY
    with pytest.raises(ValueError):
        AgentHooksSpec([Policy()], mode="audit")
