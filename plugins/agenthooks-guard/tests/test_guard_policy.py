"""Policy parsing and evaluation: every config error names the file and the key (or line)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from agenthooks_guard import (
    GuardConfigError,
    InputRules,
    Policy,
    PolicyEvaluationError,
    Rule,
    load_policy,
    parse_policy,
)

from agenthooks import AgentHooksError, ToolCall


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=arguments)


def error_of(text: str) -> str:
    with pytest.raises(GuardConfigError) as info:
        parse_policy(text, source="policy.toml")
    assert isinstance(info.value, AgentHooksError)
    return str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('default = "alow"', "policy.toml: default: 'alow' is not one of allow, deny, ask"),
        (
            '[[rules]]\naction = "deny"\n[[rules]]\naction = "deny"\n[[rules]]\naction = "alow"\n',
            "policy.toml: rules[2].action: 'alow' is not one of allow, deny, ask",
        ),
        (
            '[[rules]]\ntool = "x"\n',
            "policy.toml: rules[0].action: missing; give one of allow, deny, ask",
        ),
        (
            '[[rules]]\ntool = "x"\nacton = "deny"\n',
            "policy.toml: rules[0].acton: unknown key; did you mean 'action'?",
        ),
        ('defualt = "deny"', "policy.toml: defualt: unknown key; did you mean 'default'?"),
        (
            '[rules]\naction = "deny"\n',
            "policy.toml: rules: expected a list (an array of tables), got dict {'action': 'deny'}",
        ),
        (
            "[[rules]]\naction = 1\n",
            "policy.toml: rules[0].action: int 1 is not one of allow, deny, ask",
        ),
        (
            '[[rules]]\naction = "deny"\ntool = 3\n',
            (
                'policy.toml: rules[0].tool: expected a tool name, a regex, {regex = "..."} or a non-empty '
                "list of those, got int 3"
            ),
        ),
        (
            '[[rules]]\naction = "deny"\ntool = ["a", 3]\n',
            "policy.toml: rules[0].tool[1]: expected a tool name or a regex, got int 3",
        ),
        (
            '[[rules]]\naction = "deny"\ntool = { regex = "(" }\n',
            (
                "policy.toml: rules[0].tool.regex: invalid regular expression '(': missing ), "
                "unterminated subpattern at position 0"
            ),
        ),
        (
            '[[rules]]\naction = "deny"\ntool = { regx = "a" }\n',
            "policy.toml: rules[0].tool.regx: unknown key; did you mean 'regex'?",
        ),
        (
            '[[rules]]\naction = "deny"\nargs.path.startswit = "/etc/"\n',
            (
                "policy.toml: rules[0].args.path.startswit: unknown operator; did you mean 'startswith'? "
                "(to test a nested argument of that name write rules[0].args.path.startswit.equals = ...)"
            ),
        ),
        (
            '[[rules]]\naction = "deny"\nargs.path = { startswith = "/", endwith = "x" }\n',
            "policy.toml: rules[0].args.path.endwith: unknown operator; did you mean 'endswith'?",
        ),
        (
            '[[rules]]\naction = "deny"\nargs.amount.gt = "100"\n',
            "policy.toml: rules[0].args.amount.gt: expected a number, got str '100'",
        ),
        (
            '[[rules]]\naction = "deny"\nargs.mode.in = "w"\n',
            "policy.toml: rules[0].args.mode.in: expected a list, got str 'w'",
        ),
        (
            '[[rules]]\naction = "deny"\nargs.path.matches = "["\n',
            (
                "policy.toml: rules[0].args.path.matches: invalid regular expression '[': unterminated "
                "character set at position 0"
            ),
        ),
        (
            '[[rules]]\naction = "ask"\ntimeout = 0\n',
            "policy.toml: rules[0].timeout: expected a positive number of seconds, got int 0",
        ),
        (
            'ask_timeout = "soon"',
            "policy.toml: ask_timeout: expected a positive number of seconds, got str 'soon'",
        ),
        (
            'approver = "nocolon"',
            "policy.toml: approver: expected 'module:function', got str 'nocolon'",
        ),
        (
            'approver = "json:dumps.__name__"',
            "policy.toml: approver: 'json:dumps.__name__' is str 'dumps', not a callable",
        ),
        (
            '[input]\nmax_length = "long"\n',
            "policy.toml: input.max_length: expected a positive integer, got str 'long'",
        ),
        (
            '[input]\ndeny_patterns = ["ok", "("]\n',
            (
                "policy.toml: input.deny_patterns[1]: invalid regular expression '(': missing ), "
                "unterminated subpattern at position 0"
            ),
        ),
        (
            '[input]\ndeny_patterns = [{ pattern = "x", why = "y" }]\n',
            "policy.toml: input.deny_patterns[0].why: unknown key; known keys: pattern, reason",
        ),
        (
            '[redact]\npatterns = ["emial"]\n',
            (
                "policy.toml: redact.patterns[0]: 'emial' is not a built-in pattern (api_key, email, card, "
                "phone); add your own under [[redact.custom]]"
            ),
        ),
        (
            '[redact]\ntargets = ["tool_result"]\n',
            (
                "policy.toml: redact.targets[0]: 'tool_result' is not one of tool_results, requests, "
                "responses"
            ),
        ),
        (
            '[redact]\nreplacement = "[{kind}]"\n',
            (
                "policy.toml: redact.replacement: '[{kind}]' is not a valid replacement: KeyError: 'kind'; "
                "use {name} for the pattern's name, e.g. '[REDACTED:{name}]'"
            ),
        ),
        (
            '[[redact.custom]]\nname = "ssn"\n',
            "policy.toml: redact.custom[0].regex: expected a string, got NoneType None",
        ),
    ],
)
def test_bad_config_names_the_file_and_the_key(text: str, message: str) -> None:
    assert error_of(text) == message


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        (
            'default = "allow"\n[[rules]]\ntool = "x"\naction = deny\n',
            "policy.toml:4:10: invalid TOML: Invalid value",
            4,
        ),
        (
            'default = "allow"\nreason = "unterminated',
            ("policy.toml:2: invalid TOML: Unterminated string at the end of the document"),
            2,
        ),
    ],
)
def test_a_toml_syntax_error_names_the_file_and_the_line(
    text: str, message: str, line: int
) -> None:
    with pytest.raises(GuardConfigError) as info:
        parse_policy(text, source="policy.toml")
    assert (str(info.value), info.value.line) == (message, line)


def test_load_policy_names_the_file_as_given(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('[[rules]]\ntool = "a"\naction = "alow"\n')
    with pytest.raises(GuardConfigError) as info:
        load_policy(path)
    assert str(info.value) == f"{path}: rules[0].action: 'alow' is not one of allow, deny, ask"
    assert (info.value.source, info.value.key) == (str(path), "rules[0].action")


def test_code_built_rules_raise_the_same_typed_errors() -> None:
    with pytest.raises(GuardConfigError) as info:
        Rule("delete_file", "nope")  # type: ignore[arg-type]
    assert str(info.value) == "Rule('delete_file').action: 'nope' is not one of allow, deny, ask"
    with pytest.raises(GuardConfigError) as info:
        Rule("w", "deny", name="w-rule", args={"path": {"startswith": 3}})
    assert str(info.value) == (
        "Rule('w-rule').args.path.startswith: expected a string or a list of strings, got int 3"
    )
    with pytest.raises(GuardConfigError) as info:
        Policy(default="maybe")  # type: ignore[arg-type]
    assert str(info.value) == "default: 'maybe' is not one of allow, deny, ask"
    with pytest.raises(GuardConfigError) as info:
        InputRules(max_length=0)
    assert str(info.value) == "InputRules.max_length: expected a positive integer, got int 0"


def test_a_full_policy_parses_into_rules_input_and_redaction() -> None:
    policy = parse_policy(
        """
default = "ask"
ask_timeout = 12.5

[[rules]]
name = "reads"
tool = ["read_file", { regex = "^list_" }]
action = "allow"

[[rules]]
tool = "write_file"
action = "deny"
reason = "no system writes"
args.path = { startswith = ["/etc/", "/usr/"] }
args.mode = "w"

[input]
max_length = 100
deny_patterns = ["(?i)jailbreak", { pattern = "secret", reason = "no secrets" }]

[redact]
patterns = ["email"]
targets = ["responses"]
replacement = "<{name}>"

[[redact.custom]]
name = "ssn"
regex = '\\b\\d{3}-\\d{2}-\\d{4}\\b'
""",
        source="policy.toml",
    )
    assert (policy.default, policy.ask_timeout, len(policy.rules)) == ("ask", 12.5, 2)
    assert policy.decide(call("read_file", path="/x")) == (policy.rules[0], "allow")
    assert policy.decide(call("list_dir"))[1] == "allow"
    assert policy.decide(call("write_file", path="/etc/x", mode="w")) == (policy.rules[1], "deny")
    assert policy.decide(call("write_file", path="/etc/x", mode="a")) == (None, "ask")
    assert policy.decide(call("write_file", path="/home/x", mode="w")) == (None, "ask")
    assert [str(c) for c in policy.rules[1].conditions] == [
        "args.path startswith ('/etc/', '/usr/')",
        "args.mode equals 'w'",
    ]
    assert policy.input is not None
    assert policy.input.check("a JailBreak") == "message denied by input policy"
    assert policy.input.check("my secret") == "no secrets"
    assert policy.input.check("x" * 101) == "message too long: 101 characters, the limit is 100"
    assert policy.input.check("hello") is None
    assert policy.redact is not None
    assert policy.redact.targets == frozenset({"responses"})
    assert policy.redact.redact("ada@example.com 123-45-6789") == "<email> <ssn>"


CONDITIONS: list[tuple[dict[str, Any], dict[str, Any], bool]] = [
    ({"path": {"equals": "/a"}}, {"path": "/a"}, True),
    ({"path": "/a"}, {"path": "/b"}, False),
    ({"path": {"not_equals": "/a"}}, {"path": "/b"}, True),
    ({"path": {"matches": r"\.\./"}}, {"path": "/tmp/../etc"}, True),
    ({"path": {"not_matches": r"^/tmp/"}}, {"path": "/tmp/x"}, False),
    ({"path": {"startswith": "/etc/"}}, {"path": "/etc/hosts"}, True),
    ({"path": {"not_startswith": "/tmp/"}}, {"path": "/etc/hosts"}, True),
    ({"path": {"endswith": [".pem", ".key"]}}, {"path": "/k.key"}, True),
    ({"path": {"not_endswith": ".txt"}}, {"path": "a.txt"}, False),
    ({"text": {"contains": "DROP"}}, {"text": "x; DROP TABLE"}, True),
    ({"tags": {"contains": "admin"}}, {"tags": ["user", "admin"]}, True),
    ({"tags": {"not_contains": "admin"}}, {"tags": ["user"]}, True),
    ({"mode": {"in": ["w", "a"]}}, {"mode": "r"}, False),
    ({"mode": {"not_in": ["w", "a"]}}, {"mode": "r"}, True),
    ({"amount": {"gt": 100}}, {"amount": 100}, False),
    ({"amount": {"ge": 100}}, {"amount": 100}, True),
    ({"amount": {"lt": 100}}, {"amount": "99.5"}, True),
    ({"amount": {"le": 100, "gt": 10}}, {"amount": 10}, False),
    ({"options": {"force": {"equals": True}}}, {"options": {"force": True}}, True),
    ({"options.force": True}, {"options": {"force": False}}, False),
    ({"path": {"startswith": "/"}}, {}, False),  # a missing argument never holds
    ({"path": {"not_startswith": "/tmp/"}}, {}, False),
]


@pytest.mark.parametrize(("args", "arguments", "holds"), CONDITIONS)
def test_argument_conditions(args: dict[str, Any], arguments: dict[str, Any], holds: bool) -> None:
    rule = Rule("t", "deny", args=args)
    assert rule.matches(call("t", **arguments)) is holds


def test_a_numeric_condition_on_a_non_number_raises_an_evaluation_error() -> None:
    rule = Rule("t", "deny", args={"amount": {"gt": 5}})
    with pytest.raises(PolicyEvaluationError) as info:
        rule.matches(call("t", amount=[1]))
    assert str(info.value) == (
        "policy condition args.amount gt 5.0 cannot be checked: args.amount is list [1], "
        "not a number"
    )


def test_tool_matchers_exact_regex_and_lists() -> None:
    assert Rule("a", "deny").matches(call("a"))
    assert not Rule("a", "deny").matches(call("ab"))
    assert Rule(re.compile("^fs_"), "deny").matches(call("fs_rm"))
    assert Rule({"regex": "rm$"}, "deny").matches(call("fs_rm"))
    assert Rule(["a", re.compile("^b")], "deny").matches(call("bee"))
    assert not Rule(["a", re.compile("^b")], "deny").matches(call("cab"))
    assert Rule(None, "deny").matches(call("anything"))
