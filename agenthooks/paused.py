"""The paused-run data under its former name: it lives in ``agenthooks.runtime.durable.paused``
(and ``agenthooks.PausedRun``)."""

from __future__ import annotations

from .runtime.durable.paused import Answer, PausedRun

__all__ = ["Answer", "PausedRun"]
