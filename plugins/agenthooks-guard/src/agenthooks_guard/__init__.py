"""agenthooks-guard: a policy guard for agenthooks.

Tool rules (allow / deny / ask per tool, with argument conditions, first match wins, a
default action), human approval for ``ask`` with a timeout, PII redaction of tool results,
provider requests and responses, and checks on the user message. Every check registers as a
guard: it runs last, is never skipped, and fails closed.

``bus.use(Guard(policy))``, or install the distribution and set ``AGENTHOOKS_GUARD_POLICY``
to a TOML policy file: ``HookBus(plugins="auto")`` then loads it.
"""

from .conditions import OPERATORS, Condition
from .config import POLICY_ENV, load_policy, parse_policy, policy_from_env, policy_from_mapping
from .errors import GuardConfigError, PolicyEvaluationError
from .plugin import Guard
from .policy import ACTIONS, Action, Approver, InputRules, Policy, Rule
from .redact import BUILTIN_PATTERNS, TARGETS, RedactionPattern, Redactor, luhn_valid

__version__ = "0.1.0"

__all__ = [
    "ACTIONS",
    "BUILTIN_PATTERNS",
    "OPERATORS",
    "POLICY_ENV",
    "TARGETS",
    "Action",
    "Approver",
    "Condition",
    "Guard",
    "GuardConfigError",
    "InputRules",
    "Policy",
    "PolicyEvaluationError",
    "RedactionPattern",
    "Redactor",
    "Rule",
    "load_policy",
    "luhn_valid",
    "parse_policy",
    "policy_from_env",
    "policy_from_mapping",
]
