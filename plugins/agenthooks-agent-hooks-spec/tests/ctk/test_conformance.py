"""AGENT-HOOKS-0.1 Conformance Test Kit against agenthooks (one case per CTK vector).

Run: pytest plugins/agenthooks-agent-hooks-spec/tests/ctk/test_conformance.py -rs
     --agent-hooks-harness=agenthooks_agent_hooks_spec.ctk:AgenthooksHarness
(the conftest beside this file makes our harness the default, never the SDK's reference host).
"""


def test_conformance(agent_hooks_assert):
    pass
