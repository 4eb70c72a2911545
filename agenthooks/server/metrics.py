"""Prometheus metrics of one server: decisions by client, event and outcome, latency,
failures. Each app has a registry of its own, so two apps in one process never share series."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Metrics:
    """The series a server keeps."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.decisions = Counter(
            "agenthooks_server_decisions",
            "Answers given, by client, client event and outcome",
            ("client", "event", "outcome"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "agenthooks_server_latency_seconds",
            "Time from a request's body read to its answer, by client and client event",
            ("client", "event"),
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30, 300),
            registry=self.registry,
        )
        self.failures = Counter(
            "agenthooks_server_failures",
            "Requests refused or failed, by client and HTTP status",
            ("client", "status"),
            registry=self.registry,
        )
        self.sessions = Gauge(
            "agenthooks_server_sessions", "Open sessions in this process", registry=self.registry
        )

    def render(self) -> bytes:
        """The metrics in Prometheus' text format."""
        return generate_latest(self.registry)


def outcome(answer: Any) -> str:
    """The outcome an answer carries, for the ``outcome`` label: ``deny``, ``ask``,
    ``block``, ``stop``, ``rewrite``, ``redact``, ``allow`` (an explicit allow) or ``none``."""
    if not isinstance(answer, dict):
        return "none"
    if answer.get("continue") is False:
        return "stop"
    if answer.get("decision") == "block":
        return "block"
    specific = answer.get("hookSpecificOutput")
    if isinstance(specific, dict):
        decision = specific.get("permissionDecision")
        if decision in ("deny", "ask"):
            return str(decision)
        if "updatedInput" in specific:
            return "rewrite"
        if "updatedMCPToolOutput" in specific:
            return "redact"
        if decision == "allow":
            return "allow"
    verdict = answer.get("verdict", answer)  # our wire, or AGENT-HOOKS-0.1's envelope
    decision = verdict.get("decision") if isinstance(verdict, dict) else None
    if isinstance(decision, str):
        return decision
    return "none"


__all__ = ["CONTENT_TYPE", "Metrics", "outcome"]
