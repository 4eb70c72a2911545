"""The tool message a run writes itself (its one home is ``run.py``)."""

from .run import tool_message

__all__ = ["tool_message"]
