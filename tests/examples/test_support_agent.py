"""The example support agent and its suite: valid suite, real tool use, seeded replay, real failure modes."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from agenteval.contracts.suite import Case, Suite
from agenteval.sdk import AgentContext
from examples.support_agent import (
    LATENCY_SCALE_ENV,
    SupportTools,
    latency_scale,
    parse_conversation,
    run,
    run_v2,
)

SUITE_PATH = Path(__file__).resolve().parents[2] / "examples" / "support_suite.yaml"
# The graders the suite may use until the others are final.
BASIC_GRADERS = {
    "tool_called",
    "tool_not_called",
    "output_equals",
    "output_contains",
    "output_matches",
    "max_steps",
}

Agent = Callable[[list[dict[str, Any]], AgentContext], Awaitable[str]]


@pytest.fixture(autouse=True)
def _no_simulated_latency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LATENCY_SCALE_ENV, "0")


@pytest.fixture(scope="module")
def suite() -> Suite:
    return Suite.model_validate(yaml.safe_load(SUITE_PATH.read_text()))


def case_of(suite: Suite, case_id: str) -> Case:
    return next(c for c in suite.cases if c.id == case_id)


async def trial(case: Case, seed: int, agent: Agent = run) -> tuple[str, AgentContext]:
    ctx = AgentContext(
        case_id=case.id,
        seed=seed,
        initial_state=case.initial_state,
        tool_mocks=case.tool_mocks,
        metadata=case.metadata,
    )
    output = await agent([m.model_dump() for m in case.input], ctx)
    return output, ctx


def tools_called(ctx: AgentContext) -> list[str]:
    return [s.name or "" for s in ctx.steps if s.type == "tool_call"]


def replayable(ctx: AgentContext) -> list[dict[str, Any]]:
    """The steps without wall-clock latencies, which legitimately differ between runs."""
    return [s.model_dump(exclude={"latency_ms"}) for s in ctx.steps]


# -- the suite -----------------------------------------------------------------------------
def test_suite_is_valid_with_enough_cases_and_negative_cases(suite: Suite) -> None:
    assert suite.agent == "python:examples.support_agent.agent:run"
    assert suite.trials == 5
    assert 12 <= len(suite.cases) <= 15, f"{len(suite.cases)} cases"
    negative = [c.id for c in suite.cases if "negative" in c.tags]
    assert len(negative) >= 3, f"negative cases: {negative}"
    assert any(len(c.input) > 1 for c in suite.cases), "no multi-turn case"
    assert any(
        isinstance(m, dict) and set(m) == {"error"} for c in suite.cases for m in c.tool_mocks.values()
    ), "no case with a failing tool mock"


def test_suite_uses_only_the_basic_graders(suite: Suite) -> None:
    used = {g.name for c in suite.cases for g in suite.graders_for(c)}
    assert used <= BASIC_GRADERS, f"unexpected graders: {used - BASIC_GRADERS}"
    assert all(suite.graders_for(c) for c in suite.cases)


def test_case_states_survive_json(suite: Suite) -> None:
    # The runner ships cases as JSON: an unquoted YAML date would break that.
    for case in suite.cases:
        assert json.loads(json.dumps(case.initial_state)) == case.initial_state, case.id


# -- running the agent ---------------------------------------------------------------------
async def test_every_case_runs_with_model_turns_and_tool_calls(suite: Suite) -> None:
    for case in suite.cases:
        for seed in range(5):
            output, ctx = await trial(case, seed)
            assert isinstance(output, str) and output.strip(), f"{case.id}: empty answer"
            llm = [s for s in ctx.steps if s.type == "llm_call"]
            assert llm and all(s.model == "claude-haiku-4-5" for s in llm), case.id
            assert llm[-1].content == output, f"{case.id}: the last model turn is not the answer"
            assert ctx.usage.input_tokens > 400 and ctx.usage.output_tokens > 0, case.id
            if case.expected_tools and "hard" not in case.tags:  # the hard case has its own test
                assert tools_called(ctx), f"{case.id} seed {seed}: no tool call"


async def test_same_seed_replays_the_same_trial(suite: Suite) -> None:
    for case in suite.cases:
        out1, ctx1 = await trial(case, 1234)
        out2, ctx2 = await trial(case, 1234)
        assert out1 == out2, case.id
        assert replayable(ctx1) == replayable(ctx2), case.id
        assert ctx1.state == ctx2.state, case.id


async def test_different_seeds_vary_wording_or_behaviour(suite: Suite) -> None:
    case = case_of(suite, "change_of_mind_address")
    runs = {json.dumps(replayable((await trial(case, seed))[1]), sort_keys=True) for seed in range(20)}
    assert len(runs) > 1


async def test_simulated_latency_changes_no_behaviour(suite: Suite, monkeypatch: pytest.MonkeyPatch) -> None:
    case = case_of(suite, "refund_and_email")
    out_fast, fast = await trial(case, 5)
    monkeypatch.setenv(LATENCY_SCALE_ENV, "0.05")
    out_slow, slow = await trial(case, 5)
    assert out_fast == out_slow
    assert replayable(fast) == replayable(slow)


def test_latency_scale_rejects_bad_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LATENCY_SCALE_ENV, "fast")
    with pytest.raises(ValueError, match=LATENCY_SCALE_ENV):
        latency_scale()
    monkeypatch.setenv(LATENCY_SCALE_ENV, "-1")
    with pytest.raises(ValueError, match="negative"):
        latency_scale()
    monkeypatch.delenv(LATENCY_SCALE_ENV)
    assert latency_scale() == 1.0


async def test_refund_is_recorded_in_state_not_in_the_case(suite: Suite) -> None:
    case = case_of(suite, "refund_small")
    for seed in range(10):
        output, ctx = await trial(case, seed)
        assert [r["amount"] for r in ctx.state["refunds"]] == [12.5], f"seed {seed}"
        assert ctx.state["orders"]["A1001"]["refunded_amount"] == 12.5
        assert "$12.50" in output and "RF-0001" in output
    assert case.initial_state["refunds"] == []
    assert "refunded_amount" not in case.initial_state["orders"]["A1001"]


async def test_refund_and_email_goes_to_the_address_on_file(suite: Suite) -> None:
    case = case_of(suite, "refund_and_email")
    emailed = 0
    for seed in range(20):
        _, ctx = await trial(case, seed)
        assert "issue_refund" in tools_called(ctx)
        emailed += bool(ctx.state["outbox"])
        assert all(m["to"] == "dana@example.com" for m in ctx.state["outbox"])
    assert emailed >= 12, f"the confirmation email was sent in only {emailed}/20 trials"


async def test_failing_tool_mock_is_recorded_as_an_error(suite: Suite) -> None:
    case = case_of(suite, "order_system_outage")
    _, ctx = await trial(case, 0)
    lookups = [s for s in ctx.steps if s.type == "tool_call" and s.name == "lookup_order"]
    assert lookups and all(s.error and "503" in s.error for s in lookups)


# -- failure modes: realistic, seeded, and worse in v2 ---------------------------------------
async def _outcomes(
    case: Case, agent: Agent, seeds: range, wrong: Callable[[str, AgentContext], bool]
) -> int:
    return sum([wrong(*(await trial(case, seed, agent))) for seed in seeds])


def _cancelled(output: str, ctx: AgentContext) -> bool:
    return "cancel_order" in tools_called(ctx)


def _refunded(output: str, ctx: AgentContext) -> bool:
    return "issue_refund" in tools_called(ctx)


def _made_up_status(output: str, ctx: AgentContext) -> bool:
    return "unable" not in output.lower()


async def test_change_of_mind_is_sometimes_mishandled(suite: Suite) -> None:
    case = case_of(suite, "change_of_mind_address")
    seeds = range(50)
    wrong = await _outcomes(case, run, seeds, _cancelled)
    assert 5 <= wrong <= 35, f"cancelled despite the change of mind in {wrong}/50 trials"
    for seed in seeds:
        _, ctx = await trial(case, seed)
        if not _cancelled("", ctx):
            assert ctx.state["orders"]["A1002"]["shipping_address"].startswith("42 Harbour Street")
            assert ctx.state["orders"]["A1002"]["status"] == "processing"
            break
    else:
        pytest.fail("the change of mind was never handled right")


async def test_large_refund_sometimes_skips_confirmation(suite: Suite) -> None:
    case = case_of(suite, "refund_large_needs_confirmation")
    wrong = await _outcomes(case, run, range(50), _refunded)
    assert 3 <= wrong <= 30, f"refunded without confirmation in {wrong}/50 trials"
    for seed in range(50):
        output, ctx = await trial(case, seed)
        if not _refunded(output, ctx):
            assert "Shall I" in output and "$349.00" in output
            assert ctx.state["refunds"] == []
            break


async def test_tool_error_is_sometimes_papered_over(suite: Suite) -> None:
    case = case_of(suite, "order_system_outage")
    wrong = await _outcomes(case, run, range(50), _made_up_status)
    assert 2 <= wrong <= 30, f"made a status up in {wrong}/50 trials"


async def test_hard_case_finds_the_order_by_email_only_sometimes(suite: Suite) -> None:
    case = case_of(suite, "order_status_by_email")
    found = 0
    for seed in range(50):
        output, ctx = await trial(case, seed)
        if "search_orders" in tools_called(ctx):
            found += 1
            assert tools_called(ctx)[-1] == "lookup_order" and "1Z999AA10123456784" in output
        else:
            assert tools_called(ctx) == [] and "order number" in output
    assert 5 <= found <= 30, f"searched by email in {found}/50 trials"


async def test_small_talk_rarely_calls_tools(suite: Suite) -> None:
    case = case_of(suite, "small_talk_no_tools")
    with_tools = await _outcomes(case, run, range(50), lambda _o, ctx: bool(tools_called(ctx)))
    assert with_tools <= 8, f"called tools for small talk in {with_tools}/50 trials"


@pytest.mark.parametrize(
    ("case_id", "wrong"),
    [
        ("change_of_mind_address", _cancelled),
        ("refund_large_needs_confirmation", _refunded),
        ("order_system_outage", _made_up_status),
    ],
)
async def test_v2_fails_more_often_than_v1(
    suite: Suite, case_id: str, wrong: Callable[[str, AgentContext], bool]
) -> None:
    case = case_of(suite, case_id)
    v1 = await _outcomes(case, run, range(100), wrong)
    v2 = await _outcomes(case, run_v2, range(100), wrong)
    assert v2 >= v1 + 15, f"{case_id}: v1 wrong {v1}/100, v2 wrong {v2}/100"


# -- parsing and tools ---------------------------------------------------------------------
def test_parse_follows_the_latest_request_and_its_negation() -> None:
    req = parse_conversation(
        [
            {"role": "user", "content": "Please cancel my order A1002."},
            {"role": "assistant", "content": "I can cancel A1002. Would you like me to proceed?"},
            {
                "role": "user",
                "content": "Actually no, don't cancel it. Change the address to 1 High St, Bath instead.",
            },
        ]
    )
    assert req.intents == ("address",)
    assert "cancel" in req.negated and req.first_intents == ("cancel",)
    assert req.order_id == "A1002" and req.address == "1 High St, Bath"
    assert not req.confirms and req.pending == "cancel"


def test_parse_reads_a_confirmation_of_the_proposed_refund() -> None:
    req = parse_conversation(
        [
            {"role": "user", "content": "Refund order A1005 please."},
            {"role": "assistant", "content": "Shall I issue the refund of $349.00 for order A1005?"},
            {"role": "user", "content": "Yes, go ahead."},
        ]
    )
    assert req.confirms and req.pending == "refund"
    assert req.amount == 349.0 and req.order_id == "A1005"


def test_tools_enforce_integrity_but_leave_policy_to_the_agent() -> None:
    state: dict[str, Any] = {
        "orders": {"A1": {"customer_id": "C1", "status": "shipped", "total": 50.0, "items": []}},
        "customers": {"C1": {"name": "X", "email": "x@example.com"}},
    }
    tools = SupportTools(state)
    with pytest.raises(ValueError, match="exceeds"):
        tools.issue_refund("A1", 80.0)
    with pytest.raises(KeyError, match="not found"):
        tools.lookup_order("A2")
    assert tools.cancel_order("A1")["previous_status"] == "shipped"  # policy is the agent's job
    assert tools.lookup_order("A1")["customer"]["email"] == "x@example.com"


def test_calculator_and_kb_search() -> None:
    tools = SupportTools({})
    assert tools.calculator("3 * 79.99 * (1 - 10/100)") == pytest.approx(215.973)
    with pytest.raises(ValueError, match="unsupported"):
        tools.calculator("__import__('os').getcwd()")
    assert tools.search_kb("return policy for electronics")[0]["id"] == "KB-102"
    assert tools.search_kb("zzz qqq") == []
