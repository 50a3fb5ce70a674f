"""Suites load from YAML, and an invalid suite names the file, the case and the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agenteval.suites import SuiteError, filter_cases, load_suite

GOOD = """
name: demo
trials: 3
graders:
  - max_steps: {max: 5}
cases:
  - id: greet
    input: "hello"
    tags: [fast]
    graders:
      - output_contains: {text: hello}
  - id: multi
    input:
      - {role: user, content: "first"}
      - {role: assistant, content: "ok"}
      - {role: user, content: "second"}
    trials: 2
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "suite.yaml"
    p.write_text(text)
    return p


def test_yaml_suite_loads_with_shorthand_graders(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, GOOD))
    assert [c.id for c in suite.cases] == ["greet", "multi"]
    greet = suite.cases[0]
    assert greet.input[0].role == "user" and greet.input[0].content == "hello"
    assert [g.name for g in suite.graders_for(greet)] == ["max_steps", "output_contains"]
    assert suite.trials_for(suite.cases[1]) == 2
    assert suite.trials_for(suite.cases[1], k=7) == 7
    assert [c.id for c in filter_cases(suite, ["fast"]).cases] == ["greet"]


def test_unknown_grader_names_file_case_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("output_contains", "output_containz"))
    with pytest.raises(SuiteError) as exc:
        load_suite(path)
    msg = str(exc.value)
    assert str(path) in msg and "cases[0] (id 'greet')" in msg and "graders[0]" in msg
    assert "output_containz" in msg


def test_bad_grader_params_fail_at_load(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r"cases\[0\] \(id 'greet'\): graders\[0\].*output_contains"):
        load_suite(write(tmp_path, GOOD.replace("{text: hello}", "{txet: hello}")))


def test_structural_errors_name_the_case_and_field(tmp_path: Path) -> None:
    bad = GOOD.replace("    trials: 2", "    trials: many")
    with pytest.raises(SuiteError) as exc:
        load_suite(write(tmp_path, bad))
    assert "cases[1] (id 'multi').trials" in str(exc.value)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("name: x\ncases: []\n", "cases"),
        ("- just a list\n", "must be a mapping"),
        ("name: x\ncases:\n  - id: a\n    input: hi\n  - id: a\n    input: hi\n", "duplicate case id"),
        ("name: x\ncases:\n  - id: a\n", "input"),
        ("name: [unclosed\n", "not valid YAML"),
    ],
)
def test_invalid_suites_are_explained(tmp_path: Path, text: str, fragment: str) -> None:
    with pytest.raises(SuiteError, match=fragment):
        load_suite(write(tmp_path, text))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="no such suite file"):
        load_suite(tmp_path / "nope.yaml")


EVAL_SUITE = """
name: evals
allowed_imports: [pathlib]
cases:
  - id: c1
    input: hi
    graders:
      - eval_function:
          code: "import os\\nimport pathlib\\ndef eval_x(trace, ctx=None):\\n    return 1.0, ''\\n"
"""


def test_eval_function_imports_are_checked_against_the_suite_at_load(tmp_path: Path) -> None:
    with pytest.raises(SuiteError) as exc:
        load_suite(write(tmp_path, EVAL_SUITE))
    msg = str(exc.value)
    assert "cases[0] (id 'c1'): graders[0]" in msg and "import of 'os' is not allowed" in msg
    assert "pathlib" not in msg.split("import of")[1].split("(")[0]  # the suite allows pathlib
    allowed = EVAL_SUITE.replace("[pathlib]", "[pathlib, os]")
    assert load_suite(write(tmp_path, allowed)).allowed_imports == ["pathlib", "os"]


def test_suite_allowed_imports_must_be_top_level_module_names(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r"allowed_imports: .*got 'os\.path'"):
        load_suite(write(tmp_path, EVAL_SUITE.replace("[pathlib]", "[pathlib, os.path]")))


MOCKED = """
name: mocked
cases:
  - id: forecast
    input: "Weather in Paris?"
    tool_mocks:
      weather: {python: "tests.tool_functions:weather"}
      lookup:
        by_arguments:
          - {when: {id: "7"}, result: {python: "tests/tool_functions.py:weather"}}
        otherwise: {python: "tests.tool_functions:down"}
"""


def test_function_tool_mocks_load_without_importing_anything(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, MOCKED.replace("tests.tool_functions", "not_imported_at_load")))
    assert suite.cases[0].tool_mocks["weather"] == {"python": "not_imported_at_load:weather"}


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        (
            '{python: "tests.tool_functions:weather"}',
            '{python: "tests.tool_functions"}',
            "tool_mocks.weather:",
        ),
        ('{python: "tests.tool_functions:weather"}', "{python: 42}", "tool_mocks.weather:"),
        ('{python: "tests.tool_functions:down"}', '{python: ":down"}', "tool_mocks.lookup.otherwise:"),
        (
            '{python: "tests/tool_functions.py:weather"}',
            '{python: "tests/tool_functions.py:"}',
            r"tool_mocks.lookup.by_arguments\[0\].result:",
        ),
    ],
)
def test_a_malformed_function_mock_is_one_clear_line(tmp_path: Path, old: str, new: str, where: str) -> None:
    with pytest.raises(SuiteError) as exc:
        load_suite(write(tmp_path, MOCKED.replace(old, new, 1)))
    msg = str(exc.value)
    assert "\n" not in msg, msg
    assert msg.startswith(f"{tmp_path / 'suite.yaml'}: cases[0] (id 'forecast'): "), msg
    assert re.search(where + r" python: .*must (look like 'module:function'|be a string)", msg), msg
