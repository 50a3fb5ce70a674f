"""Tool mocks answer by the call's arguments: a table's first matching row, else its
fallback, else the tool fails saying which arguments had no answer; every call recorded."""

from __future__ import annotations

import pytest

from agenteval.sdk import AgentContext, ToolError

MOCKS = {
    "lookup_order": {
        "by_arguments": [
            {"when": {"id": "7"}, "result": {"status": "shipped"}},
            {"when": {"id": "8"}, "result": {"error": "order 8 is archived"}},
            {"when": {"id": "9", "region": "eu"}, "result": {"status": "held at customs"}},
        ],
        "otherwise": {"status": "unknown"},
    },
    "refund": {"by_arguments": [{"when": {"amount": 10}, "result": "refunded"}]},
    "weather": "sunny",
}


def test_a_table_answers_by_arguments_and_falls_back() -> None:
    ctx = AgentContext(tool_mocks=MOCKS)
    assert ctx.call_tool("lookup_order", id="7") == {"status": "shipped"}
    assert ctx.call_tool("lookup_order", id="9", region="eu") == {"status": "held at customs"}
    assert ctx.call_tool("lookup_order", id="9", region="us") == {"status": "unknown"}
    with pytest.raises(ToolError, match="archived"):
        ctx.call_tool("lookup_order", id="8")
    assert ctx.call_tool("refund", amount=10) == "refunded"
    with pytest.raises(ToolError, match=r"no mocked result of tool 'refund' for arguments \{'amount': 99\}"):
        ctx.call_tool("refund", amount=99)
    assert ctx.call_tool("weather", city="Paris") == "sunny"
    recorded = [(s.name, s.arguments, s.result, s.error) for s in ctx.steps]
    assert recorded[3] == ("lookup_order", {"id": "8"}, None, "order 8 is archived")
    assert recorded[5][3] is not None and len(recorded) == 7


def test_a_function_mock_is_called_with_the_arguments_and_what_it_raises_is_a_tool_error() -> None:
    ctx = AgentContext(
        tool_mocks={
            "weather": {"python": "tests.tool_functions:weather"},
            "down": {"python": "tests.tool_functions:down"},
            "table": {
                "by_arguments": [
                    {"when": {"city": "Oslo"}, "result": {"python": "tests.tool_functions:weather"}}
                ],
                "otherwise": {"python": "tests.tool_functions:down"},
            },
            "missing": {"python": "tests.tool_functions:nowhere"},
        }
    )
    found = ctx.call_tool("weather", city="Paris", days=3)
    assert (found["forecast"], found["days"]) == ("rain", 3)
    with pytest.raises(ToolError, match=r"the weather service is down \(asked \['city'\]\)"):
        ctx.call_tool("down", city="Paris")
    assert ctx.call_tool("table", city="Oslo")["forecast"] == "sun"
    with pytest.raises(ToolError, match="down"):
        ctx.call_tool("table", city="Rome")
    with pytest.raises(
        ToolError, match=r"the mock of tool 'missing' cannot be loaded: .*has no attribute 'nowhere'"
    ):
        ctx.call_tool("missing")
    assert [(s.name, s.error is None) for s in ctx.steps] == [
        ("weather", True),
        ("down", False),
        ("table", True),
        ("table", False),
        ("missing", False),
    ]
    assert ctx.steps[1].error == "the weather service is down (asked ['city'])"


async def test_an_async_function_mock_answers_awaited_calls() -> None:
    ctx = AgentContext(tool_mocks={"weather": {"python": "tests.tool_functions:weather_async"}})
    assert await ctx.acall_tool("weather", city="Oslo") == {"city": "Oslo", "forecast": "sun"}
    with pytest.raises(ToolError, match="async"):
        ctx.call_tool("weather", city="Oslo")
    assert [s.error is None for s in ctx.steps] == [True, False]
