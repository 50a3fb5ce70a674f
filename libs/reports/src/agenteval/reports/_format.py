"""How figures are written in tables and Markdown: one place, so every format shows the same numbers."""

from __future__ import annotations


def pct(rate: float) -> str:
    """A rate in [0, 1] as a percentage with one decimal: 0.8 -> '80.0%'."""
    return f"{rate * 100:.1f}%"


def ci(low: float, high: float) -> str:
    """An interval of rates: '63.0%-84.0%'."""
    return f"{pct(low)}-{pct(high)}"


def points(delta: float) -> str:
    """A change of rate in percentage points, signed: -0.2 -> '-20.0'; no change is '0.0'."""
    value = round(delta * 100, 1)
    # round() keeps the sign of tiny negatives (-0.0); a change that rounds to nothing has none.
    return "0.0" if value == 0 else f"{value:+.1f}"


def pvalue(p: float) -> str:
    """A p-value with four decimals, or '<0.0001' below that."""
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def ms(value: float) -> str:
    """Milliseconds with one decimal."""
    return f"{value:.1f}"


def tokens(input_tokens: int, output_tokens: int) -> str:
    """Input and output tokens: '1,200/340'."""
    return f"{input_tokens:,}/{output_tokens:,}"


def usd(value: float) -> str:
    """Dollars with four decimals (trial costs are often fractions of a cent)."""
    return f"${value:.4f}"


def cost(value: float, unknown_trials: int = 0) -> str:
    """A cost that may be partly unknown: '$0.0123'; 'unknown for 3 trials' when nothing could
    be priced; '$0.0123 + unknown for 1 trial' when some trials' tokens could not."""
    if not unknown_trials:
        return usd(value)
    unknown = f"unknown for {count(unknown_trials, 'trial')}"
    return unknown if value == 0 else f"{usd(value)} + {unknown}"


def score(value: float | None) -> str:
    """A grader's mean score in [0, 1] with two decimals; '' when the grader did not run."""
    return "" if value is None else f"{value:.2f}"


def score_delta(delta: float | None) -> str:
    """A change of mean score, signed with two decimals: -0.5 -> '-0.50'; '' when not comparable."""
    if delta is None:
        return ""
    value = round(delta, 2)
    return "0.00" if value == 0 else f"{value:+.2f}"


def count(n: int, noun: str) -> str:
    """'1 regression', '2 regressions'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
