"""The rules the synthesizer learns: conditions on signal values, decision lists, trees of
depth <= 3 and small weighted scorecards, each deciding a score and an explanation for a
trace's signal values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from agenteval.eval_generator.synthesizer._trace_access import _fmt

VALUE_MARK = "\x00"
"""Stands for a signal's formatted value in explanation templates (see ``Decision.template``)."""


@dataclass(frozen=True)
class Condition:
    """``signal >= threshold`` or ``signal < threshold``."""

    signal: str
    op: Literal[">=", "<"]
    threshold: float

    def holds(self, value: float) -> bool:
        return value >= self.threshold if self.op == ">=" else value < self.threshold

    def text(self, value: str = VALUE_MARK) -> str:
        """The condition with the signal's value, for explanations: ``name = 2 >= 1``."""
        return f"{self.signal} = {value} {self.op} {_fmt(self.threshold)}"

    def short(self) -> str:
        """The condition alone, for rule descriptions: ``name >= 1``."""
        return f"{self.signal} {self.op} {_fmt(self.threshold)}"


@dataclass(frozen=True)
class Outcome:
    """What a rule or leaf predicts, with the training traces that reached it."""

    label: bool
    score: float
    support: int
    correct: int


@dataclass(frozen=True)
class Decision:
    """A prediction and its explanation template: ``VALUE_MARK`` i-th stands for ``signals[i]``'s value."""

    outcome: Outcome
    template: str
    signals: tuple[str, ...]

    def explanation(self, values: dict[str, float]) -> str:
        parts = self.template.split(VALUE_MARK)
        out = parts[0]
        for name, part in zip(self.signals, parts[1:], strict=True):
            out += _fmt(values[name]) + part
        return out


def _label_word(label: bool) -> str:
    return "positive" if label else "negative"


@dataclass(frozen=True)
class ListRule:
    condition: Condition
    outcome: Outcome


@dataclass(frozen=True)
class DecisionList:
    """Rules tried in order; the first whose condition holds decides, else the default."""

    rules: tuple[ListRule, ...]
    default: Outcome
    descriptions: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def complexity(self) -> int:
        return len(self.rules)

    def signals_used(self) -> list[str]:
        return list(dict.fromkeys(r.condition.signal for r in self.rules))

    def rule_decision(self, index: int) -> Decision:
        rule = self.rules[index]
        desc = self.descriptions.get(rule.condition.signal, "")
        text = f"{_label_word(rule.outcome.label)}: rule {index + 1} matched: {rule.condition.text()}"
        where = f" ({rule.condition.signal}: {desc})" if desc else ""
        return Decision(rule.outcome, text + where, (rule.condition.signal,))

    def default_decision(self) -> Decision:
        word = _label_word(self.default.label)
        if not self.rules:
            return Decision(self.default, f"{word}: constant rule (most training traces were {word})", ())
        names = self.signals_used()
        checked = ", ".join(f"{n} = {VALUE_MARK}" for n in names)
        return Decision(self.default, f"{word}: no rule matched ({checked})", tuple(names))

    def decide(self, values: dict[str, float]) -> Decision:
        for i, rule in enumerate(self.rules):
            if rule.condition.holds(values[rule.condition.signal]):
                return self.rule_decision(i)
        return self.default_decision()

    def describe(self) -> str:
        lines = []
        for i, rule in enumerate(self.rules):
            word = "IF" if i == 0 else "ELSE IF"
            lines.append(f"{word} {rule.condition.short()} THEN {_label_word(rule.outcome.label)}")
        lines.append(("ELSE " if self.rules else "ALWAYS ") + _label_word(self.default.label))
        return "\n".join(lines)


@dataclass(frozen=True)
class TreeNode:
    """A leaf (no condition) or a split; every node keeps the outcome of the traces reaching it."""

    outcome: Outcome
    condition: Condition | None = None
    yes: TreeNode | None = None
    no: TreeNode | None = None


@dataclass(frozen=True)
class DecisionTree:
    root: TreeNode

    @property
    def complexity(self) -> int:
        return _count_splits(self.root)

    def signals_used(self) -> list[str]:
        names: list[str] = []
        stack = [self.root]
        while stack:
            node = stack.pop(0)
            if node.condition is not None and node.yes is not None and node.no is not None:
                names.append(node.condition.signal)
                stack += [node.yes, node.no]
        return list(dict.fromkeys(names))

    def leaf_decision(self, path: Sequence[Condition], outcome: Outcome) -> Decision:
        word = _label_word(outcome.label)
        if not path:
            return Decision(outcome, f"{word}: constant rule (most training traces were {word})", ())
        return Decision(
            outcome, f"{word}: " + " and ".join(c.text() for c in path), tuple(c.signal for c in path)
        )

    def decide(self, values: dict[str, float]) -> Decision:
        node = self.root
        path: list[Condition] = []
        while node.condition is not None and node.yes is not None and node.no is not None:
            condition, yes, no = node.condition, node.yes, node.no
            if condition.holds(values[condition.signal]):
                path.append(condition)
                node = yes
            else:
                path.append(negate(condition))
                node = no
        return self.leaf_decision(path, node.outcome)

    def describe(self) -> str:
        lines: list[str] = []
        _describe_node(self.root, 0, lines)
        return "\n".join(lines)


@dataclass(frozen=True)
class WeightedCondition:
    """One line of a scorecard: when ``condition`` holds, ``weight`` is added to the evidence."""

    condition: Condition
    weight: float
    support: int
    """Training traces on which the condition holds."""


def weight_text(weight: float) -> str:
    """A weight or an evidence total as the explanations print it: ``+1.25``."""
    return format(weight, "+.2f")


def logistic_score(evidence: float) -> float:
    """P(positive) from the evidence, to 3 digits, kept on the evidence's side of 0.5."""
    score = round(1.0 / (1.0 + math.exp(-evidence)), 3)
    return max(score, 0.5) if evidence >= 0 else min(score, 0.499)


@dataclass(frozen=True)
class Scorecard:
    """A sparse logistic model over conditions: evidence = bias + the weights of the conditions
    that hold, positive when the evidence is >= 0, score = the logistic of the evidence.

    Every weight has its signal's sign (a violation only lowers the evidence), so each line
    reads as "this finding counts that much against (or for) the trace".
    """

    bias: float
    terms: tuple[WeightedCondition, ...]

    @property
    def complexity(self) -> int:
        # A scorecard line is harder to read than a rule: on a tie a rule of the same size wins.
        return len(self.terms) + 1

    def signals_used(self) -> list[str]:
        return list(dict.fromkeys(t.condition.signal for t in self.terms))

    def evidence(self, values: dict[str, float]) -> tuple[float, list[int]]:
        """The evidence (summed in term order, as the emitted code does) and the terms that hold."""
        total = self.bias
        active: list[int] = []
        for i, term in enumerate(self.terms):
            if term.condition.holds(values[term.condition.signal]):
                total += term.weight
                active.append(i)
        return total, active

    def decide(self, values: dict[str, float]) -> Decision:
        total, active = self.evidence(values)
        label = total >= 0
        outcome = Outcome(label, logistic_score(total), 0, 0)
        head = f"{_label_word(label)}: evidence {weight_text(total)}"
        if active:
            lines = [self.terms[i] for i in active]
            template = (
                head + ": " + "; ".join(f"{t.condition.text()} ({weight_text(t.weight)})" for t in lines)
            )
            return Decision(outcome, template, tuple(t.condition.signal for t in lines))
        names = self.signals_used()
        checked = ", ".join(f"{n} = {VALUE_MARK}" for n in names)
        return Decision(outcome, head + f": no condition holds ({checked})", tuple(names))

    def describe(self) -> str:
        lines = [f"EVIDENCE = {weight_text(self.bias)}"]
        for term in self.terms:
            lines.append(f"  {weight_text(term.weight)} IF {term.condition.short()}")
        lines.append("POSITIVE IF EVIDENCE >= 0")
        return "\n".join(lines)


Model = DecisionList | DecisionTree | Scorecard


def negate(c: Condition) -> Condition:
    return Condition(c.signal, "<" if c.op == ">=" else ">=", c.threshold)


def _count_splits(node: TreeNode) -> int:
    if node.condition is None or node.yes is None or node.no is None:
        return 0
    return 1 + _count_splits(node.yes) + _count_splits(node.no)


def _describe_node(node: TreeNode, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    if node.condition is None or node.yes is None or node.no is None:
        lines.append(f"{pad}{_label_word(node.outcome.label)}")
        return
    lines.append(f"{pad}IF {node.condition.short()}:")
    _describe_node(node.yes, depth + 1, lines)
    lines.append(f"{pad}ELSE:")
    _describe_node(node.no, depth + 1, lines)
