"""The offline eval-function synthesizer: held-out accuracy on the demo datasets, the emitted
code (standalone, sandbox-clean, identical to the learned rule), determinism and the signals."""

from __future__ import annotations

import ast
import math
import statistics
from dataclasses import dataclass
from typing import Any

import pytest

from agenteval.contracts.trace import Trace
from agenteval.eval_generator.synthesizer import (
    ALLOWED_IMPORTS,
    SIGNALS,
    SIGNALS_BY_NAME,
    SynthesisResult,
    evaluate_code,
    imported_modules,
    load_eval_function,
    run_code,
    signal_rows,
    split_dataset,
    synthesize,
)
from agenteval.eval_generator.synthesizer.emit import emit
from agenteval.eval_generator.synthesizer.learn import TrainingData, fit_scorecard, fit_tree, learn
from agenteval.eval_generator.synthesizer.rules import DecisionTree
from agenteval.sandbox import SandboxPool, check_code
from tests.fixtures.labeled_datasets import DATASETS, LabeledDataset


@dataclass
class Outcome:
    dataset: LabeledDataset
    train: list[int]
    test: list[int]
    result: SynthesisResult
    held_out_accuracy: float


@pytest.fixture(scope="module")
def datasets() -> dict[str, LabeledDataset]:
    return {name: make(n=300, seed=0) for name, make in DATASETS.items()}


@pytest.fixture(scope="module")
def outcomes(datasets: dict[str, LabeledDataset]) -> dict[str, Outcome]:
    out = {}
    for name, ds in datasets.items():
        train, test = split_dataset(ds.traces, ds.labels, holdout=0.3, seed=0)
        result = synthesize([ds.traces[i] for i in train], [ds.labels[i] for i in train], name, seed=0)
        accuracy = evaluate_code(result.code, [ds.traces[i] for i in test], [ds.labels[i] for i in test])
        out[name] = Outcome(ds, train, test, result, accuracy)
    return out


# --- the product target: accuracy on traces the synthesizer never saw ---


@pytest.mark.parametrize("name", list(DATASETS))
def test_emitted_code_scores_held_out_traces_at_least_75_percent(
    name: str, outcomes: dict[str, Outcome]
) -> None:
    o = outcomes[name]
    assert o.held_out_accuracy >= 0.75, (
        f"{name}: held-out accuracy {o.held_out_accuracy:.3f} (train {o.result.train_accuracy:.3f})\n"
        f"{o.result.rule_description}"
    )


def test_mean_held_out_accuracy_over_all_datasets_is_at_least_85_percent(
    outcomes: dict[str, Outcome],
) -> None:
    accuracies = {name: round(o.held_out_accuracy, 3) for name, o in outcomes.items()}
    assert len(accuracies) >= 5
    assert statistics.mean(accuracies.values()) >= 0.85, accuracies


def test_split_holds_out_30_percent_of_each_label_disjointly(outcomes: dict[str, Outcome]) -> None:
    for name, o in outcomes.items():
        labels = o.dataset.labels
        assert sorted(o.train + o.test) == list(range(len(labels))), name
        for cls in (True, False):
            total = sum(1 for y in labels if y == cls)
            held = sum(1 for i in o.test if labels[i] == cls)
            assert abs(held - 0.3 * total) <= 1, f"{name}: {held} of {total} {cls} traces held out"


# --- the emitted code ---


def test_emitted_code_imports_only_allowed_modules(outcomes: dict[str, Outcome]) -> None:
    for name, o in outcomes.items():
        modules = imported_modules(o.result.code)
        assert modules <= set(ALLOWED_IMPORTS), f"{name} imports {modules - set(ALLOWED_IMPORTS)}"
        tree = ast.parse(o.result.code)
        evals = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("eval_")]
        assert evals == [o.result.function_name], f"{name}: eval functions {evals}"


def test_emitted_code_passes_the_sandbox_static_check(outcomes: dict[str, Outcome]) -> None:
    for name, o in outcomes.items():
        problems = check_code(o.result.code, function=o.result.function_name)
        assert problems == [], f"{name}: {problems}"


async def test_emitted_code_runs_in_the_real_sandbox_with_the_same_results(
    outcomes: dict[str, Outcome],
) -> None:
    o = outcomes["billing_two_failures"]
    traces = [o.dataset.traces[i] for i in o.test[:40]]
    async with SandboxPool(workers=1) as pool:
        results = await pool.run_batch(o.result.code, traces)
    assert [r.error for r in results] == [None] * len(traces)
    assert [(r.score, r.explanation) for r in results] == run_code(o.result.code, traces)


def test_emitted_code_documents_its_rule_and_training_accuracy(outcomes: dict[str, Outcome]) -> None:
    for name, o in outcomes.items():
        code = o.result.code
        assert f"Training accuracy {o.result.train_accuracy:.3f}" in code, name
        for signal in o.result.signals_used:
            assert f"# {signal}: {SIGNALS_BY_NAME[signal].description}" in code, (
                f"{name}: {signal} undocumented"
            )
        assert "\n    # Rule 1" in code or "\n    if " in code or "constant" in code, name


@pytest.mark.parametrize("name", ["support_tool_errors", "billing_two_failures", "outdated_instruction"])
def test_emitted_code_gives_exactly_the_learned_rules_decisions_on_every_trace(
    name: str, datasets: dict[str, LabeledDataset]
) -> None:
    ds = datasets[name]
    train, _ = split_dataset(ds.traces, ds.labels, seed=3)
    rows = signal_rows(ds.traces)
    names = [s.name for s in SIGNALS]
    descriptions = {s.name: s.description for s in SIGNALS}
    learned = learn([rows[i] for i in train], [ds.labels[i] for i in train], names, 3, descriptions)
    code = emit(learned.model, name, descriptions, learned.train_accuracy, learned.cv_accuracy, len(train))
    emitted = run_code(code, ds.traces)
    for i, row in enumerate(rows):
        values = dict(zip(names, row, strict=True))
        decision = learned.model.decide(values)
        assert emitted[i] == (decision.outcome.score, decision.explanation(values)), f"trace {i}"


def test_emitted_tree_gives_exactly_the_trees_decisions(datasets: dict[str, LabeledDataset]) -> None:
    ds = datasets["loops_and_evasion"]
    rows = signal_rows(ds.traces)
    names = [s.name for s in SIGNALS]
    data = TrainingData.build(rows, ds.labels, names)
    tree = fit_tree(data, data.full, max_depth=3)
    assert isinstance(tree, DecisionTree) and tree.complexity >= 2
    code = emit(tree, "tree", {}, 0.9, 0.9, len(rows))
    assert "decision tree" in code
    emitted = run_code(code, ds.traces)
    for i, row in enumerate(rows):
        values = dict(zip(names, row, strict=True))
        decision = tree.decide(values)
        assert emitted[i] == (decision.outcome.score, decision.explanation(values)), f"trace {i}"


def test_emitted_scorecard_gives_exactly_the_scorecards_decisions(
    datasets: dict[str, LabeledDataset],
) -> None:
    ds = datasets["billing_two_failures"]
    rows = signal_rows(ds.traces)
    names = [s.name for s in SIGNALS]
    polarity = {s.name: s.polarity for s in SIGNALS}
    data = TrainingData.build(rows, ds.labels, names, polarity)
    card = fit_scorecard(data, data.full)[-1]
    assert len(card.terms) >= 2, card.describe()
    code = emit(card, "card", {s.name: s.description for s in SIGNALS}, 0.9, 0.9, len(rows))
    assert "scorecard" in code and "import math" in code
    emitted = run_code(code, ds.traces)
    for i, row in enumerate(rows):
        values = dict(zip(names, row, strict=True))
        decision = card.decide(values)
        assert emitted[i] == (decision.outcome.score, decision.explanation(values)), f"trace {i}"
        assert (decision.outcome.score >= 0.5) == (card.evidence(values)[0] >= 0)


def test_scorecard_weights_read_each_signal_in_its_direction_and_add_up_independent_findings() -> None:
    # Two independent violations, each behind part of the negatives: an OR of them fits, and no
    # weight may say "a violation makes a trace better" (the five noisy positives invite that).
    names = ["unsupported_facts", "error_unacknowledged"]
    rows = [[1.0, 0.0]] * 25 + [[0.0, 1.0]] * 25 + [[1.0, 1.0]] * 10 + [[0.0, 0.0]] * 35 + [[1.0, 0.0]] * 5
    labels = [False] * 60 + [True] * 40
    polarity = {s.name: s.polarity for s in SIGNALS}
    data = TrainingData.build(rows, labels, names, polarity)
    for card in fit_scorecard(data, data.full):
        for term in card.terms:
            if polarity[term.condition.signal] < 0:
                assert (term.weight <= 0) == (term.condition.op == ">="), card.describe()
    learned = learn(rows, labels, names, polarity=polarity)
    assert {"unsupported_facts", "error_unacknowledged"} <= set(learned.model.signals_used())
    assert learned.train_accuracy >= 0.95


def test_explanation_names_the_deciding_condition(outcomes: dict[str, Outcome]) -> None:
    o = outcomes["billing_two_failures"]
    results = run_code(o.result.code, o.dataset.traces)
    for (score, explanation), clean in zip(results, o.dataset.clean_labels, strict=True):
        assert explanation.startswith("positive" if score >= 0.5 else "negative"), explanation
        if not clean and score < 0.5:
            assert any(s in explanation for s in o.result.signals_used), explanation


def test_same_seed_gives_the_same_code_and_labels_may_be_words(datasets: dict[str, LabeledDataset]) -> None:
    ds = datasets["risky_actions"]
    first = synthesize(ds.traces[:150], ds.labels[:150], "risky", seed=4)
    again = synthesize(ds.traces[:150], ds.labels[:150], "risky", seed=4)
    words = ["positive" if y else "negative" for y in ds.labels[:150]]
    as_words = synthesize(ds.traces[:150], words, "risky", seed=4)
    assert first.code == again.code == as_words.code
    assert first.function_name == "eval_risky"


def test_one_class_only_gives_a_constant_rule() -> None:
    traces = [{"input": [{"role": "user", "content": "hi"}], "output": "hello there friend"}] * 4
    result = synthesize(traces, ["good"] * 4, "always fine")
    fn = load_eval_function(result.code)
    score, explanation = fn({})
    assert score >= 0.5 and "constant" in explanation
    assert result.signals_used == [] and result.train_accuracy == 1.0


def test_bad_inputs_are_rejected() -> None:
    with pytest.raises(ValueError):
        synthesize([{}], ["maybe"], "x")
    with pytest.raises(ValueError):
        synthesize([{}, {}], [True], "x")
    with pytest.raises(ValueError):
        split_dataset([1, 2], [True, False], holdout=1.5)


def test_evaluate_code_refuses_imports_outside_the_allowed_list() -> None:
    code = "import os\n\ndef eval_x(trace, ctx=None):\n    return 1.0, 'ok'\n"
    with pytest.raises(ImportError):
        evaluate_code(code, [{}], [True])
    ok = "import json\n\ndef eval_x(trace, ctx=None):\n    return (1.0 if trace.get('output') else 0.0), 'has output'\n"
    assert evaluate_code(ok, [{"output": "a"}, {"output": None}], [True, True]) == 0.5


# --- the datasets ---


def test_datasets_are_seeded_noisy_valid_traces(datasets: dict[str, LabeledDataset]) -> None:
    for name, ds in datasets.items():
        assert len(ds.traces) == len(ds.labels) == 300, name
        flipped = sum(a != b for a, b in zip(ds.labels, ds.clean_labels, strict=True)) / len(ds.labels)
        assert 0.05 <= flipped <= 0.10, f"{name}: {flipped:.3f} label noise"
        assert 0.25 <= sum(ds.labels) / len(ds.labels) <= 0.75, f"{name}: unbalanced"
        for trace in ds.traces[:20]:
            assert Trace.model_validate(trace).to_eval_dict() == trace
        assert len({len(t["tool_calls"]) for t in ds.traces}) > 1, f"{name}: every trace has the same shape"
    again = DATASETS["research_hallucination"](n=300, seed=0)
    assert again.traces == datasets["research_hallucination"].traces
    assert DATASETS["research_hallucination"](n=50, seed=1).traces != again.traces[:50]


def test_datasets_vary_their_tool_names(datasets: dict[str, LabeledDataset]) -> None:
    for name, ds in datasets.items():
        tools = {c["name"] for t in ds.traces for c in t["tool_calls"]}
        assert len(tools) >= 6, f"{name}: only {sorted(tools)}"


# --- signals ---


def _trace(
    *steps: dict[str, Any], output: str | None = "ok", users: tuple[str, ...] = ("hi",)
) -> dict[str, Any]:
    return Trace.model_validate(
        {"input": [{"role": "user", "content": u} for u in users], "steps": list(steps), "output": output}
    ).to_eval_dict()


def _call(name: str, result: Any = None, error: str | None = None, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "arguments": arguments, "result": result, "error": error}


def _say(text: str, role: str = "assistant") -> dict[str, Any]:
    return {"type": "message", "role": role, "content": text}


def value(signal: str, trace: dict[str, Any]) -> float:
    return SIGNALS_BY_NAME[signal].fn(trace)


def test_every_signal_is_documented_and_survives_empty_or_odd_traces() -> None:
    odd = [
        {},
        {"input": "just text", "steps": None, "output": 3},
        {"tool_calls": [{"name": None, "error": "x"}]},
    ]
    for s in SIGNALS:
        assert s.description and "\n" not in s.description, s.name
        # The whole first paragraph of the docstring, not its first line cut mid-sentence.
        assert s.description.endswith((".", ")", '"', "?")), (s.name, s.description)
        for trace in odd:
            assert math.isfinite(s.fn(trace)), s.name


def test_tool_errors_count_error_fields_and_failed_results_and_resolve_on_retry() -> None:
    failed = _trace(
        _call("update_plan", result={"ok": False, "message": "locked"}), output="Done, you're all set!"
    )
    assert value("unresolved_tool_error", failed) == 1.0
    assert value("error_unacknowledged", failed) == 1.0
    assert value("claims_success_after_error", failed) == 1.0
    owned = _trace(_call("update_plan", error="503"), output="Sorry, the change didn't go through.")
    assert value("error_unacknowledged", owned) == 0.0
    polite = _trace(_call("update_plan", error="503"), output="No problem! Sorry for the wait, it's done.")
    assert value("error_unacknowledged", polite) == 1.0
    retried = _trace(
        _call("update_plan", error="503"), _call("update_plan", result={"ok": True}), output="Done."
    )
    assert value("unresolved_tool_error", retried) == 0.0 and value("tool_error_count", retried) == 1.0


def test_risky_action_needs_an_outright_request_or_a_later_confirmation() -> None:
    asked = _trace(_call("issue_refund", result={}), users=("Please refund order 123.",))
    question = _trace(_call("issue_refund", result={}), users=("Is order 123 eligible for a refund?",))
    confirmed = _trace(
        _call("get_order", result={}),
        _say("It is eligible. Shall I refund it?"),
        _say("Yes, go ahead.", role="user"),
        _call("issue_refund", result={}),
        users=("Is order 123 eligible for a refund?",),
    )
    held = _trace(
        _say("Shall I cancel it?"),
        _say("Wait, don't cancel it yet.", role="user"),
        _call("cancelSubscription", result={}),
        users=("Cancel my plan please.",),
    )
    lookup_only = _trace(_call("get_refund_status", result={}), users=("Where is my refund?",))
    assert [
        value("risky_without_confirmation", t) for t in (asked, question, confirmed, held, lookup_only)
    ] == [
        0.0,
        1.0,
        0.0,
        1.0,
        0.0,
    ]


def test_outdated_instruction_compares_the_action_with_the_latest_value_of_each_kind() -> None:
    users = ("Book a table for 4 at 7pm on Friday.", "Sorry, I meant six of us, not 4.")
    stale = _trace(_call("book_table", result={}, party_size=4, time="19:00", day="Friday"), users=users)
    fresh = _trace(_call("book_table", result={}, party_size=6, time="19:00", day="Friday"), users=users)
    thanks = _trace(
        _call("book_table", result={}, party_size=4, time="19:00", day="Friday"),
        users=(users[0], "Perfect, thanks!"),
    )
    city = _trace(
        _call("book_hotel", result={}, city="Lisbon"),
        users=("A hotel in Lisbon.", "Actually, make it Porto."),
    )
    assert value("acted_on_superseded_instruction", stale) == 1.0
    assert value("acted_on_superseded_instruction", fresh) == 0.0
    assert value("acted_on_superseded_instruction", thanks) == 0.0
    assert value("acted_on_superseded_instruction", city) == 1.0


def test_unsupported_numbers_accept_restated_formats_and_catch_new_ones() -> None:
    result = {"population": 67390000, "growth": 0.4, "refund_rate": 0.031, "price": 57.8}
    call = _call("stats", result=result)
    ok = "About 67.4 million people (67,390,000), growing 0.4%; refunds 3.1%, average $57.80, in 2 regions."
    assert value("unsupported_numbers", _trace(call, output=ok)) == 0.0
    made_up = "About 71 million people, up 14% since last year."
    assert value("unsupported_numbers", _trace(call, output=made_up)) == 2.0
    assert value("unsupported_facts", _trace(call, output='Order ORD-9981 is "in transit".')) == 2.0


def test_repeated_calls_ignore_retries_after_a_failure_but_count_loops() -> None:
    retry = _trace(_call("search", error="timeout", q="x"), _call("search", result={"r": 1}, q="x"))
    loop = _trace(*[_call("search", result={"r": 1}, q="x") for _ in range(4)])
    pages = _trace(*[_call("list_tickets", result={}, page=p) for p in (1, 2, 3)])
    assert [value("repeated_calls", t) for t in (retry, loop, pages)] == [0.0, 3.0, 0.0]
    assert value("longest_same_tool_streak", pages) == 3.0


def test_evasive_answers_and_json_requests() -> None:
    assert value("evasive_answer", _trace(output="I'm not able to help with this request.")) == 1.0
    assert value("evasive_answer", _trace(output="")) == 1.0
    assert value("evasive_answer", _trace(output="I couldn't find that article; can you share more?")) == 0.0
    asked = ("Reply in JSON please.",)
    assert value("json_requested_not_json", _trace(output='```json\n{"a": 1}\n```', users=asked)) == 0.0
    assert value("json_requested_not_json", _trace(output="a is 1", users=asked)) == 1.0
    assert (
        value("act_before_lookup", _trace(_call("delete_user", result={}), _call("get_user", result={})))
        == 1.0
    )
