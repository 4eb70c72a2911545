"""The bus and its plugins on agents built with other frameworks.

A bridge distribution (``agenthooks-langchain``, ``agenthooks-openai-agents``, ...) plugs into
its framework's own extension point and reports each lifecycle point of a framework run to a
``BridgeRun``: the same events, the same hook layers around model and tool calls, the same
middleware, the same guarantees as on our runtime. Each bridge declares what it fires and
honours in a ``Capabilities``, registered under the ``agenthooks.bridges`` entry-point group.
"""

from ..errors import RunDenied, UnsupportedReturnError
from ..runtime.tool_call import ToolOutcome
from .baseline import BASELINE_FIRES, BASELINE_HONOURS, bridge_capabilities
from .capabilities import (
    ENTRY_POINT_GROUP,
    Capabilities,
    capability_table,
    installed_bridges,
)
from .current import current_run, enter_run, leave_run
from .lock import RunEnded, RunLock, cancel_requested
from .needs import (
    UnfiredEventError,
    UnfiredEventWarning,
    check_bus,
    check_plugins,
    everywhere,
)
from .pausing import PAUSED_RUNS, STORED_KEY, Carried, PausedRuns
from .run import Answer, BridgeError, BridgeRun, FrameworkModel, ModelCall, ToolInvoke
from .stream import BridgeStream
from .subagents import SUBAGENT_EVENTS, Delegation, delegate
from .tool import BridgeTool, Validate
from .turns import NextTurn
from .validation import invalid_arguments

__all__ = [
    "BASELINE_FIRES",
    "BASELINE_HONOURS",
    "ENTRY_POINT_GROUP",
    "PAUSED_RUNS",
    "STORED_KEY",
    "SUBAGENT_EVENTS",
    "Answer",
    "BridgeError",
    "BridgeRun",
    "BridgeStream",
    "BridgeTool",
    "Capabilities",
    "Carried",
    "Delegation",
    "FrameworkModel",
    "ModelCall",
    "NextTurn",
    "PausedRuns",
    "RunDenied",
    "RunEnded",
    "RunLock",
    "ToolInvoke",
    "ToolOutcome",
    "UnfiredEventError",
    "UnfiredEventWarning",
    "UnsupportedReturnError",
    "Validate",
    "bridge_capabilities",
    "cancel_requested",
    "capability_table",
    "check_bus",
    "check_plugins",
    "current_run",
    "delegate",
    "enter_run",
    "everywhere",
    "installed_bridges",
    "invalid_arguments",
    "leave_run",
]
