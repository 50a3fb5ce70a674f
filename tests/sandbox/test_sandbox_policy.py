"""Static validation of eval code (check_code): no worker is started here."""

from __future__ import annotations

import pytest

from agenteval.sandbox import DEFAULT_ALLOWED_IMPORTS, SandboxPool, check_code

GOOD = """
import json, re
from typing import Any

def eval_mentions_refund(trace: dict, ctx=None) -> tuple[float, str]:
    input = trace.get("input")  # a local named like a builtin is fine
    if re.search(r"refund", trace.get("output") or ""):
        return 1.0, "mentions a refund"
    return 0.0, json.dumps(input)
"""


def rules(code: str, **kwargs: object) -> list[str]:
    return [p.rule for p in check_code(code, **kwargs)]  # type: ignore[arg-type]


def test_valid_eval_code_has_no_problems() -> None:
    assert check_code(GOOD) == []
    assert SandboxPool.check_code(GOOD) == []


def test_default_allowlist_holds_the_documented_modules_and_nothing_with_io() -> None:
    assert {"json", "re", "typing", "math", "datetime", "difflib"} <= set(DEFAULT_ALLOWED_IMPORTS)
    assert not {"os", "sys", "subprocess", "socket", "string", "operator", "io"} & set(
        DEFAULT_ALLOWED_IMPORTS
    )


def test_syntax_error_names_the_line() -> None:
    [problem] = check_code("def eval_x(trace)\n    return 1.0, ''")
    assert problem.rule == "syntax_error"
    assert "line 1" in problem.message


@pytest.mark.parametrize(
    ("code", "function", "fragment"),
    [
        ("def helper(t):\n    return 1.0, ''", None, "no top-level function named eval_*"),
        ("def eval_a(t):\n    return 1.0, ''\ndef eval_b(t):\n    return 1.0, ''", None, "more than one"),
        ("def eval_a(t):\n    return 1.0, ''", "eval_b", "'eval_b'"),
        ("async def eval_a(t):\n    return 1.0, ''", None, "plain def"),
        ("def outer():\n    def eval_a(t):\n        return 1.0, ''", None, "no top-level function"),
    ],
)
def test_missing_or_ambiguous_eval_function(code: str, function: str | None, fragment: str) -> None:
    problems = check_code(code, function=function)
    assert [p.rule for p in problems] == ["no_eval_function"], problems
    assert fragment in problems[0].message


def test_a_named_function_picks_one_of_several() -> None:
    code = "def eval_a(t):\n    return 1.0, ''\ndef eval_b(t):\n    return 0.0, ''"
    assert check_code(code, function="eval_b") == []


@pytest.mark.parametrize("module", ["os", "subprocess", "socket", "sys", "os.path", "importlib", "string"])
def test_import_outside_the_allowlist_is_rejected_with_the_allowlist(module: str) -> None:
    for stmt in (f"import {module}", f"from {module} import x"):
        [problem] = check_code(f"{stmt}\ndef eval_x(t):\n    return 1.0, ''")
        assert problem.rule == "import_not_allowed"
        assert f"import of {module!r} is not allowed" in problem.message
        assert "allowed: collections, datetime, difflib" in problem.message


def test_caller_can_allow_extra_modules_per_call() -> None:
    code = "import textwrap\ndef eval_x(t):\n    return 1.0, textwrap.shorten('a b c', 3)"
    assert rules(code) == ["import_not_allowed"]
    assert check_code(code, allowed_imports=["textwrap"]) == []


def test_relative_imports_are_rejected() -> None:
    assert rules("from . import x\ndef eval_x(t):\n    return 1.0, ''") == ["import_not_allowed"]


def test_allowed_imports_takes_top_level_names_only() -> None:
    with pytest.raises(ValueError, match="top-level module names"):
        check_code(GOOD, allowed_imports=["os.path"])


@pytest.mark.parametrize(
    "expr",
    [
        "().__class__.__bases__[0].__subclasses__()",
        "type.__subclasses__(object)",
        "eval_x.__globals__",
        "eval_x.__code__",
        "t.__dict__",
        "object.__getattribute__(t, 'x')",
        "(x for x in []).gi_frame",
        "(x for x in []).gi_frame.f_globals",
        "json.__loader__",
    ],
)
def test_dunder_and_frame_attributes_are_rejected(expr: str) -> None:
    problems = check_code(f"import json\ndef eval_x(t):\n    return 1.0, str({expr})")
    assert problems and {p.rule for p in problems} == {"forbidden_attribute"}, problems
    assert "line 3" in problems[0].message


def test_harmless_dunders_are_allowed() -> None:
    code = "def eval_x(t):\n    return 1.0, type(t).__name__ + eval_x.__doc__.__str__()"
    assert check_code(code) == []


def test_match_class_patterns_cannot_read_dunders() -> None:
    code = "def eval_x(t):\n    match t:\n        case object(__class__=c):\n            pass\n    return 1.0, ''"
    assert rules(code) == ["forbidden_attribute"]


@pytest.mark.parametrize(
    "expr",
    [
        "open('/etc/passwd').read()",
        "eval('1')",
        "exec('x = 1')",
        "compile('1', 'f', 'eval')",
        "globals()",
        "locals()",
        "vars()",
        "__import__('os')",
        "__builtins__['open']",
        "breakpoint()",
        "input()",
    ],
)
def test_forbidden_builtins_and_names_are_rejected(expr: str) -> None:
    problems = check_code(f"def eval_x(t):\n    return 1.0, str({expr})")
    assert problems and problems[0].rule == "forbidden_builtin", problems


def test_dunder_names_cannot_be_rebound() -> None:
    assert rules("__name__ = 'collections'\ndef eval_x(t):\n    return 1.0, ''") == ["forbidden_builtin"]
    assert rules("import json as __builtins__\ndef eval_x(t):\n    return 1.0, ''") == ["forbidden_builtin"]


def test_patching_imported_modules_is_rejected() -> None:
    for stmt in ("json.loads = None", "json.decoder.JSONDecoder.decode = None", "del json.dumps"):
        code = f"import json\ndef eval_x(t):\n    {stmt}\n    return 1.0, ''"
        assert rules(code) == ["forbidden_attribute"], stmt
    # Attributes of the code's own objects stay writable.
    assert check_code("def eval_x(t):\n    class A: pass\n    A.x = 1\n    return 1.0, ''") == []


def test_every_problem_is_reported_in_line_order() -> None:
    code = "import os\ndef eval_x(t):\n    return 1.0, str(().__class__) + str(eval('1'))"
    problems = check_code(code)
    assert [p.rule for p in problems] == ["import_not_allowed", "forbidden_attribute", "forbidden_builtin"]
