"""Cases from JSONL and CSV files: the documented field mapping, and every bad row named by its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.suites import (
    SuiteError,
    dump_suite_yaml,
    load_cases,
    loads_suite,
    suite_digest,
    suite_from_cases,
)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_rows_become_cases_with_their_expectations(tmp_path: Path) -> None:
    rows = [
        {
            "id": "refund",
            "input": "Refund order A1",
            "expected_output": "refunded",
            "tags": ["fast", "refunds"],
        },
        {
            "input": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
            "tags": "slow smoke",
        },
        {
            "id": "graded",
            "input": "Cancel A2",
            "graders": [{"tool_called": {"tool": "cancel_order"}}],
            "expected_tools": ["cancel_order"],
            "trials": 2,
            "timeout_s": 5,
            "metadata": {"owner": "ana"},
            "metadata.ticket": "T-1",
            "initial_state": {"orders": {"A2": {"status": "new"}}},
        },
    ]
    path = write(tmp_path / "cases.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    cases = load_cases(path)
    assert [c.id for c in cases] == ["refund", "case-2", "graded"]
    refund = cases[0]
    assert refund.expected_output == "refunded" and refund.tags == ["fast", "refunds"]
    assert [(g.name, g.params) for g in refund.graders] == [("output_contains", {"text": "refunded"})]
    assert [m.role for m in cases[1].input] == ["system", "user"] and cases[1].tags == ["slow", "smoke"]
    graded = cases[2]
    assert graded.trials == 2 and graded.timeout_s == 5 and graded.expected_tools == ["cancel_order"]
    assert graded.metadata == {"owner": "ana", "ticket": "T-1"}
    assert graded.initial_state["orders"]["A2"]["status"] == "new"
    equals = load_cases(path, expect="equals")[0]
    assert [g.name for g in equals.graders] == ["output_equals"]
    assert load_cases(path, expect="none")[0].graders == []


def test_csv_rows_become_cases(tmp_path: Path) -> None:
    path = write(
        tmp_path / "cases.csv",
        "\ufeffid,input,expected_output,tags,metadata.source,graders\n"
        'greet,"Hello, there",hello,"fast; smoke",faq,\n'
        'multi,"line one\nline two",,slow,,"[{""max_steps"": {""max"": 3}}]"\n'
        ",,,,,\n",
    )
    cases = load_cases(path)
    assert [c.id for c in cases] == ["greet", "multi"]
    assert cases[0].input[0].content == "Hello, there" and cases[0].tags == ["fast", "smoke"]
    assert cases[0].metadata == {"source": "faq"}
    assert cases[1].input[0].content == "line one\nline two" and cases[1].expected_output is None
    assert [(g.name, g.params) for g in cases[1].graders] == [("max_steps", {"max": 3})]
    suite = suite_from_cases(path, "faq", agent="python:tests.agents:echo", trials=4)
    assert (suite.name, suite.agent, suite.trials, len(suite.cases)) == (
        "faq",
        "python:tests.agents:echo",
        4,
        2,
    )
    # A suite made of cases exports as a suite file that reads back to the same content.
    assert suite_digest(loads_suite(dump_suite_yaml(suite))) == suite_digest(suite)


def test_every_bad_jsonl_row_is_named_by_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "cases.jsonl",
        "\n".join(
            [
                '{"id": "ok", "input": "fine"}',
                '{"id": "broken", "input": "x"',
                '["not", "an", "object"]',
                '{"id": "no_input"}',
                '{"id": "ok", "input": "again"}',
                '{"id": "bad id!", "input": "x"}',
                '{"input": "x", "trials": 0}',
                '{"input": "x", "graders": [{"tool_caled": {"tool": "x"}}]}',
                '{"input": "x", "expected": "y"}',
                '{"input": "x", "tags": [1, 2]}',
                '{"input": "x", "expected_output": "   "}',
            ]
        ),
    )
    with pytest.raises(SuiteError) as info:
        load_cases(path)
    lines = str(info.value).splitlines()
    expected = [
        (2, "not valid JSON"),
        (3, "give one JSON object per line, got list"),
        (4, "input: missing"),
        (5, "duplicate case id 'ok' (first on line 1)"),
        (6, "id: String should match pattern"),
        (7, "trials: Input should be greater than or equal to 1"),
        (8, "graders[0]: unknown grader 'tool_caled'"),
        (9, "unknown field 'expected'"),
        (10, "tags: give a list of strings"),
        (11, "expected_output: give non-empty text"),
    ]
    assert len(lines) == len(expected) + 1 and lines[-1] == "nothing was stored"
    for line, (number, message) in zip(lines, expected, strict=False):
        assert line.startswith(f"{path}:{number}: "), line
        assert message in line, (message, line)


def test_bad_csv_rows_and_files(tmp_path: Path) -> None:
    path = write(
        tmp_path / "cases.csv",
        'id,input,trials,graders\na,hi,2,\nb,,1,\nc,"hi",two,\nd,hi,,"[{oops"\ne,hi,1,,extra\n',
    )
    with pytest.raises(SuiteError) as info:
        load_cases(path)
    text = str(info.value)
    assert f"{path}:3: input: missing" in text
    assert f"{path}:4: trials:" in text
    assert f"{path}:5: graders: not valid JSON" in text
    assert f"{path}:6: more cells than the header has columns" in text
    assert f"{path}:2:" not in text
    for name, content, message in [
        ("dup.csv", "input,input\nx,y\n", "names column 'input' twice"),
        ("blank.csv", "input,\nx,y\n", "no name for column 2"),
        ("empty.jsonl", "\n\n", "no cases in the file"),
        ("nul.jsonl", '{"input": "a"}\n{"input": "b\x00"}\n', ":2: contains a NUL byte"),
    ]:
        with pytest.raises(SuiteError, match=message):
            load_cases(write(tmp_path / name, content))
    (tmp_path / "latin.csv").write_bytes(b"input\ncaf\xe9\n")
    with pytest.raises(SuiteError, match="not UTF-8"):
        load_cases(tmp_path / "latin.csv")
    with pytest.raises(SuiteError, match="no such file"):
        load_cases(tmp_path / "missing.jsonl")


def test_the_same_suite_written_differently_has_one_digest_and_a_change_another() -> None:
    short = "name: s\ncases:\n  - id: a\n    input: hi\n    graders: [termination]\n"
    long = (
        "# a comment\ncases:\n  - graders: [{name: termination, params: {}}]\n    id: a\n"
        "    input: [{role: user, content: hi}]\n    tags: []\nname: s\ntrials: 3\ntimeout_s: 60\n"
    )
    assert suite_digest(loads_suite(short)) == suite_digest(loads_suite(long))
    assert suite_digest(loads_suite(short)) != suite_digest(loads_suite(short.replace("hi", "hi!")))
    assert suite_digest(loads_suite(short)) != suite_digest(loads_suite(short + "trials: 4\n"))
