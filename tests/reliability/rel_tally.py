"""Counting generated cases: the reliability generators use ``agenthooks.testing.Tally``."""

from agenthooks.testing import Problem, Tally

__all__ = ["Problem", "Tally"]
