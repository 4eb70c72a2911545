"""The demo: one agent, no hand-written hooks; its behaviour comes from installed plugins."""

from .app import build_agent, main, scripted_model

__all__ = ["build_agent", "main", "scripted_model"]
