"""AGENT-HOOKS-0.1 on agenthooks: run the standard's interceptors as guards of a bus.

``bus.use(AgentHooksSpec([policy]))`` maps the standard's eight interception points onto
agenthooks events (see ``plugin``); ``ctk.AgenthooksHarness`` lets the standard's Conformance
Test Kit drive a real ``agenthooks.Agent``.
"""

from .plugin import FRAMEWORK, AgentHooksSpec
from .projection import ProjectionError
from .settings import SpecSettings

__version__ = "0.1.0"

__all__ = ["FRAMEWORK", "AgentHooksSpec", "ProjectionError", "SpecSettings", "__version__"]
