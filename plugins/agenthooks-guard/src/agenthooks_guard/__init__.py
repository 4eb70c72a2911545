"""agenthooks-guard: a policy guard for agenthooks.

Tool rules (allow / deny / ask per tool, with argument conditions, first match wins, a
default action), human approval for ``ask`` with a timeout, PII redaction of tool results,
provider requests and responses, and checks on the user message. Every check registers as a
guard: it runs last, is never skipped, and fails closed.

``bus.use(Guard(policy))``, or install the distribution and set ``AGENTHOOKS_GUARD_POLICY``
to a TOML policy file: ``HookBus(plugins="auto")`` then loads ``Guard.from_env()``.
"""

from .conditions import OPERATORS, Condition, PolicyEvaluationError
from .config import load_policy, parse_policy, policy_from_env, policy_from_mapping
from .plugin import Guard
from .policy import ACTIONS, Action, Approver, InputRules, Policy, Rule
from .redact import BUILTIN_PATTERNS, TARGETS, RedactionPattern, Redactor, luhn_valid
from .settings import POLICY_ENV, GuardConfigError, GuardSettings

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
    "GuardSettings",
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
