"""Durable runs: a run that pauses for a human (``pausing``) and goes on at ``resume()``
(``resume``), and what a run on a stored session keeps (``keeper``: what a run stores as it
goes and at its end, and the recovery of a session whose process died; ``journal``: each tool
call noted before and after it runs, so a crash loses nothing). Reading and claiming a stored
session are ``Session``'s own methods (``runtime/session.py``). ``paused`` is the paused run
as data (``PausedRun``, what the stores write), ``store`` the contract a store implements: the
stores import both, the runtime imports no store."""

from .paused import Answer, PausedRun

__all__ = ["Answer", "PausedRun"]
