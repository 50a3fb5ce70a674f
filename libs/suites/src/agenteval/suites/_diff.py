"""What changed between two suites, case by case, in the words of their YAML files."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Literal

from agenteval.contracts.suite import Suite
from agenteval.suites._text import dump_yaml, suite_file_data

CaseChangeKind = Literal["added", "removed", "modified"]


@dataclass
class FieldChange:
    """A suite-level field (trials, graders, ...) that differs, with its value in force in each."""

    field: str
    before: str
    after: str


@dataclass
class CaseChange:
    """A case added, removed or modified; ``fields`` names what a modification touched."""

    case_id: str
    kind: CaseChangeKind
    fields: list[str] = field(default_factory=list)
    before: str = ""
    """The case as YAML in the base ("" when added)."""
    after: str = ""
    """The case as YAML in the target ("" when removed)."""
    unified_diff: str = ""


@dataclass
class SuiteDiff:
    suite_fields: list[FieldChange]
    cases: list[CaseChange]
    unchanged_cases: int
    order_changed: bool
    """The cases both have are in a different order (the order is content: it is the run order)."""

    @property
    def identical(self) -> bool:
        return not self.suite_fields and not self.cases and not self.order_changed


def _text(value: Any) -> str:
    return "" if value is None else dump_yaml(value)


def diff_suites(
    base: Suite, target: Suite, base_label: str = "base", target_label: str = "target"
) -> SuiteDiff:
    """Suite fields, then cases in the target's order (removed ones last), that differ."""
    a, b = suite_file_data(base), suite_file_data(target)
    # A field left at its default is absent from the file data; a change shows the value in force.
    a_all, b_all = base.model_dump(mode="json"), target.model_dump(mode="json")
    fields = [
        FieldChange(key, _text(a.get(key, a_all.get(key))), _text(b.get(key, b_all.get(key))))
        for key in dict.fromkeys([*a, *b])
        if key != "cases" and a.get(key) != b.get(key)
    ]
    before = {c["id"]: c for c in a["cases"]}
    after = {c["id"]: c for c in b["cases"]}
    changes: list[CaseChange] = []
    unchanged = 0
    for case_id, new in after.items():
        old = before.get(case_id)
        if old is None:
            changes.append(CaseChange(case_id, "added", after=dump_yaml(new)))
            continue
        if old == new:
            unchanged += 1
            continue
        old_text, new_text = dump_yaml(old), dump_yaml(new)
        diff = difflib.unified_diff(
            old_text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            f"{base_label} {case_id}",
            f"{target_label} {case_id}",
        )
        touched = [k for k in dict.fromkeys([*old, *new]) if old.get(k) != new.get(k)]
        changes.append(CaseChange(case_id, "modified", touched, old_text, new_text, "".join(diff)))
    for case_id, old in before.items():
        if case_id not in after:
            changes.append(CaseChange(case_id, "removed", before=dump_yaml(old)))
    common_a = [c for c in before if c in after]
    common_b = [c for c in after if c in before]
    return SuiteDiff(fields, changes, unchanged, common_a != common_b)
