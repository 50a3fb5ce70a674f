"""A learned rule as standalone eval-function source.

The generated code re-implements the signals it uses by copying their source (and the
helpers and constants they reach) from the sandbox-safe modules, so it runs in the
sandbox with nothing but the standard modules it imports, and it computes exactly what
the learner saw. Explanations come from the same templates as :meth:`Model.decide`, so
emitted and in-process predictions agree to the character.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass
from functools import cache
from types import ModuleType

from agenteval.eval_generator.synthesizer import (
    _phrases,
    _trace_access,
    _values,
    sig_actions,
    sig_answers,
    sig_dialogue,
    sig_efficiency,
    sig_grounding,
    sig_outcomes,
    sig_patterns,
)
from agenteval.eval_generator.synthesizer.rules import (
    VALUE_MARK,
    Condition,
    Decision,
    DecisionList,
    DecisionTree,
    Model,
    Outcome,
    Scorecard,
    TreeNode,
    negate,
    weight_text,
)

_COPIED_MODULES: tuple[ModuleType, ...] = (
    _trace_access,
    _phrases,
    _values,
    sig_outcomes,
    sig_grounding,
    sig_actions,
    sig_dialogue,
    sig_answers,
    sig_efficiency,
    sig_patterns,
)
_IMPORTABLE = ("json", "re", "typing", "math", "difflib")


@dataclass(frozen=True)
class _Definition:
    order: tuple[int, int]
    source: str
    references: frozenset[str]


@cache
def _definitions() -> dict[str, _Definition]:
    """Top-level functions and constants of the copied modules, with the names each one uses."""
    out: dict[str, _Definition] = {}
    for module_index, module in enumerate(_COPIED_MODULES):
        source = inspect.getsource(module)
        lines = source.splitlines()
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            else:
                continue  # imports, docstrings, classes: the registry stays behind
            segment = ast.get_source_segment(source, node) or ""
            first = node.lineno - 1
            while first > 0 and lines[first - 1].lstrip().startswith("#"):
                first -= 1  # keep the comment that explains a definition
            comment = "\n".join(lines[first : node.lineno - 1])
            text = (comment + "\n" if comment else "") + segment
            refs = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
            for name in names:
                if name in out:  # the emitted code has one namespace
                    raise RuntimeError(f"{name!r} is defined in two copied modules")
                out[name] = _Definition((module_index, node.lineno), text, refs)
    return out


def copied_source(roots: list[str]) -> tuple[list[str], str]:
    """The imports and the source of ``roots`` plus everything they reach, in original order."""
    defs = _definitions()
    needed: set[str] = set()
    stack = list(roots)
    modules: set[str] = set()
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        if name not in defs:
            raise KeyError(f"{name!r} is not a copyable signal or helper")
        needed.add(name)
        for ref in defs[name].references:
            if ref in defs and ref not in needed:
                stack.append(ref)
            elif ref in _IMPORTABLE:
                modules.add(ref)
    chosen = sorted({defs[n].order: defs[n] for n in needed}.values(), key=lambda d: d.order)
    return sorted(modules), "\n\n\n".join(d.source for d in chosen)


def function_name(name: str) -> str:
    """``eval_<name>`` with ``name`` made a lower-case identifier."""
    ident = re.sub(r"\W+", "_", name.strip().lower()).strip("_")
    ident = ident.removeprefix("eval_") or "generated"
    if ident[0].isdigit():
        ident = "n" + ident
    return f"eval_{ident}"


def _var(signal: str) -> str:
    return f"v_{signal}"


def _explanation_expr(decision: Decision) -> str:
    parts = decision.template.split(VALUE_MARK)
    pieces = [repr(parts[0])] if parts[0] else []
    for name, part in zip(decision.signals, parts[1:], strict=True):
        pieces.append(f"_fmt({_var(name)})")
        if part:
            pieces.append(repr(part))
    return " + ".join(pieces) or "''"


def _return(decision: Decision, indent: str) -> str:
    return f"{indent}return {decision.outcome.score!r}, {_explanation_expr(decision)}"


def _test(cond: Condition) -> str:
    return f"{_var(cond.signal)} {cond.op} {cond.threshold!r}"


def _stats(outcome: Outcome) -> str:
    word = "positive" if outcome.label else "negative"
    return f"training: {outcome.support} traces reach here, {outcome.correct} of them {word}"


def _list_body(model: DecisionList, descriptions: dict[str, str]) -> list[str]:
    lines: list[str] = []
    for i, rule in enumerate(model.rules):
        desc = descriptions.get(rule.condition.signal, "")
        lines.append(
            f"    # Rule {i + 1}: {rule.condition.signal} {rule.condition.op} {rule.condition.threshold!r}"
        )
        if desc:
            lines.append(f"    #   where {rule.condition.signal}: {desc}")
        lines.append(f"    #   ({_stats(rule.outcome)})")
        lines.append(f"    if {_test(rule.condition)}:")
        lines.append(_return(model.rule_decision(i), "        "))
    lines.append(f"    # No rule matched ({_stats(model.default)})")
    lines.append(_return(model.default_decision(), "    "))
    return lines


def _tree_body(model: DecisionTree, node: TreeNode, path: list[Condition], depth: int) -> list[str]:
    indent = "    " * (depth + 1)
    if node.condition is None or node.yes is None or node.no is None:
        return [f"{indent}# {_stats(node.outcome)}", _return(model.leaf_decision(path, node.outcome), indent)]
    cond = node.condition
    lines = [f"{indent}if {_test(cond)}:"]
    lines += _tree_body(model, node.yes, [*path, cond], depth + 1)
    lines.append(f"{indent}else:")
    lines += _tree_body(model, node.no, [*path, negate(cond)], depth + 1)
    return lines


def _card_body(model: Scorecard, descriptions: dict[str, str]) -> list[str]:
    """Evidence summed in term order (as ``Scorecard.evidence`` does), then its logistic."""
    lines = [
        "    # Evidence: a bias, plus each weight whose condition holds; positive when it is >= 0.",
        f"    evidence = {model.bias!r}",
        "    found = []",
    ]
    for term in model.terms:
        cond = term.condition
        desc = descriptions.get(cond.signal, "")
        lines.append(
            f"    # {weight_text(term.weight)} if {cond.short()} (training: holds on {term.support} traces)"
        )
        if desc:
            lines.append(f"    #   where {cond.signal}: {desc}")
        lines.append(f"    if {_test(cond)}:")
        lines.append(f"        evidence += {term.weight!r}")
        text = cond.text().split(VALUE_MARK)
        lines.append(
            f"        found.append({text[0]!r} + _fmt({_var(cond.signal)}) + {text[1] + ' (' + weight_text(term.weight) + ')'!r})"
        )
    names = model.signals_used()
    checked = " + ', ' + ".join(f"{(n + ' = ')!r} + _fmt({_var(n)})" for n in names) or "''"
    lines += [
        "    score = round(1.0 / (1.0 + math.exp(-evidence)), 3)",
        "    word = 'positive' if evidence >= 0 else 'negative'",
        "    score = max(score, 0.5) if evidence >= 0 else min(score, 0.499)",
        "    head = word + ': evidence ' + format(evidence, '+.2f')",
        "    if found:",
        "        return score, head + ': ' + '; '.join(found)",
        f"    return score, head + ': no condition holds (' + {checked} + ')'",
    ]
    return lines


def emit(
    model: Model,
    name: str,
    descriptions: dict[str, str],
    train_accuracy: float,
    cv_accuracy: float,
    n_train: int,
) -> str:
    """Standalone source of ``def eval_<name>(trace, ctx=None) -> (score, explanation)`` for ``model``."""
    fn = function_name(name)
    used = model.signals_used()
    kind = (
        "decision list"
        if isinstance(model, DecisionList)
        else "scorecard"
        if isinstance(model, Scorecard)
        else "decision tree"
    )
    modules, copied = copied_source(["_signal_value", "_fmt", *used])
    conditions = model.complexity
    if isinstance(model, Scorecard):
        modules = sorted({*modules, "math"})
        conditions = len(model.terms)
    rule_text = "\n".join("    " + line for line in model.describe().splitlines())
    header = [
        f'"""{fn}: synthesized offline by agenteval from {n_train} labeled traces.',
        "",
        f"Rule ({kind}, {conditions} condition{'s' if conditions != 1 else ''}):",
        rule_text,
        "",
        f"Training accuracy {train_accuracy:.3f}; cross-validated on the training traces {cv_accuracy:.3f}.",
        "The signals below are copied from agenteval.eval_generator.synthesizer.",
        '"""',
        "",
    ]
    header += [f"import {m}" for m in modules]
    body = [
        "",
        "",
        f"def {fn}(trace: dict, ctx=None) -> tuple[float, str]:",
        '    """Score >= 0.5 means positive; the explanation names the condition that decided."""',
        "    if not isinstance(trace, dict):",
        "        trace = {}",
    ]
    for signal in used:
        body.append(f"    # {signal}: {descriptions.get(signal, '')}".rstrip())
        body.append(f"    {_var(signal)} = _signal_value({signal}, trace)")
    if isinstance(model, DecisionList):
        body += _list_body(model, descriptions)
    elif isinstance(model, Scorecard):
        body += _card_body(model, descriptions)
    else:
        body += _tree_body(model, model.root, [], 0)
    return "\n".join(header) + "\n\n\n" + copied + "\n" + "\n".join(body) + "\n"


def imported_modules(code: str) -> set[str]:
    """Top-level names of every module the code imports."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            out |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            out.add((node.module or "").partition(".")[0] if node.level == 0 else ".")
    return out
