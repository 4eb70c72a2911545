"""Durable runs: a run that pauses for a human (``pausing``) and goes on at ``resume()``
(``resume``), and a conversation kept in a store (``stored_session``: claims and reads;
``keeper``: what a run stores as it goes and at its end; ``journal``: each tool call noted
before and after it runs, so a crash loses nothing). ``paused`` is the paused run as data
(``PausedRun``, what the stores write), ``store`` the contract a store implements: the stores
import both, the runtime imports no store."""

from .paused import Answer, PausedRun

__all__ = ["Answer", "PausedRun"]
