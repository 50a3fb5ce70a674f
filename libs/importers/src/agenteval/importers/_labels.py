"""Human labels in their many spellings, mapped to positive / negative."""

from __future__ import annotations

from typing import Any

from agenteval.importers._model import Label

_POSITIVE = {
    "positive", "pos", "good", "pass", "passed", "yes", "y", "true", "correct", "thumbs_up", "thumbsup",
    "up", "like", "liked", "accept", "accepted", "approved", "+1", "1", "👍",
}  # fmt: skip
_NEGATIVE = {
    "negative", "neg", "bad", "fail", "failed", "no", "n", "false", "incorrect", "thumbs_down",
    "thumbsdown", "down", "dislike", "disliked", "reject", "rejected", "-1", "0", "👎",
}  # fmt: skip

# Names under which sources store the human verdict (scores, assessments, attributes, tags).
LABEL_NAMES = {
    "label", "rating", "feedback", "user_feedback", "human_feedback", "human_label", "user_rating",
    "human_rating", "thumbs", "thumbs_up_down", "vote", "user_vote", "agenteval_label", "feedback_rating",
    "feedback_label",
}  # fmt: skip

LABEL_HELP = "use positive/negative, good/bad, thumbs_up/thumbs_down, true/false or 1/0"


class LabelError(ValueError):
    """A label value that maps to neither positive nor negative."""


def normalize_label(value: Any) -> Label | None:
    """Map a label value to positive / negative; None when there is none; LabelError when unreadable."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "positive" if value else "negative"
    if isinstance(value, (int, float)):
        if value == 1:
            return "positive"
        if value in (0, -1):
            return "negative"
        raise LabelError(f"label {value!r} is not understood; {LABEL_HELP}")
    if isinstance(value, str):
        key = value.strip().lower()
        if not key:
            return None
        for candidate in (key, key.replace("-", "_").replace(" ", "_")):
            if candidate in _POSITIVE:
                return "positive"
            if candidate in _NEGATIVE:
                return "negative"
        try:
            return normalize_label(float(key))
        except ValueError:
            pass
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    raise LabelError(f"label {shown} is not understood; {LABEL_HELP}")


def is_label_name(name: Any) -> bool:
    """Whether a score / assessment / attribute name holds the human label."""
    if not isinstance(name, str):
        return False
    key = name.strip().lower().replace("-", "_").replace(" ", "_").replace(".", "_")
    return key in LABEL_NAMES
