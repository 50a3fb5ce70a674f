"""Building blocks of the labeled demo datasets: a trace builder, scenario sampling, label noise."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agenteval.contracts.trace import Trace

MODELS = ("claude-sonnet-4-5", "claude-haiku-4-5", "gpt-4.1-mini")
FIRST_NAMES = (
    "Alice",
    "Bruno",
    "Chen",
    "Dana",
    "Emeka",
    "Farah",
    "Goran",
    "Hana",
    "Ines",
    "Jonas",
    "Kavya",
    "Liam",
)
LAST_NAMES = (
    "Nguyen",
    "Okafor",
    "Schmidt",
    "Rossi",
    "Tanaka",
    "Silva",
    "Kowalski",
    "Haddad",
    "Moreau",
    "Lindqvist",
)
CITIES = (
    "Lisbon",
    "Denver",
    "Osaka",
    "Nairobi",
    "Toronto",
    "Krakow",
    "Austin",
    "Porto",
    "Seville",
    "Hamburg",
    "Boston",
)
STREETS = ("Maple", "Harbor", "Cedar", "Station", "Mill", "Oak", "River", "Garden", "Chapel", "Elm")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True)
class LabeledDataset:
    """Traces (as eval dicts) with their labels; ``labels`` carry the noise, ``clean_labels`` do not."""

    name: str
    description: str
    traces: list[dict[str, Any]]
    labels: list[bool]
    clean_labels: list[bool]
    scenarios: list[str] = field(default_factory=list)
    """The scenario each trace came from (for reading failures; never put in the trace)."""


class TraceBuilder:
    """Appends messages, LLM calls and tool calls in order, then validates through ``Trace``."""

    def __init__(self, rng: random.Random, system: str | None = None) -> None:
        self.rng = rng
        self.model = rng.choice(MODELS)
        self.input: list[dict[str, str]] = []
        self.steps: list[dict[str, Any]] = []
        if system:
            self.input.append({"role": "system", "content": system})

    def user(self, text: str) -> TraceBuilder:
        """A user turn of the conversation given to the agent."""
        self.input.append({"role": "user", "content": text})
        return self

    def prior_assistant(self, text: str) -> TraceBuilder:
        """An earlier assistant turn of the conversation given to the agent."""
        self.input.append({"role": "assistant", "content": text})
        return self

    def say(self, text: str, role: str = "assistant") -> TraceBuilder:
        """A message step during the trial (a scripted user turn, or the agent speaking)."""
        if role == "assistant":
            self.think(text)
        self.steps.append({"type": "message", "role": role, "content": text})
        return self

    def think(self, content: str = "") -> TraceBuilder:
        self.steps.append(
            {
                "type": "llm_call",
                "model": self.model,
                "content": content,
                "input_tokens": self.rng.randint(300, 2500),
                "output_tokens": self.rng.randint(20, 300),
                "latency_ms": round(self.rng.uniform(300, 2500), 1),
            }
        )
        return self

    def call(
        self, name: str, arguments: dict[str, Any], result: Any = None, error: str | None = None
    ) -> TraceBuilder:
        self.think()
        self.steps.append(
            {
                "type": "tool_call",
                "name": name,
                "arguments": arguments,
                "result": result,
                "error": error,
                "latency_ms": round(self.rng.uniform(20, 900), 1),
            }
        )
        return self

    def build(self, output: str | None, status: str = "ok") -> dict[str, Any]:
        if output is not None:
            self.think(output)
        llm = [s for s in self.steps if s["type"] == "llm_call"]
        usage = {
            "input_tokens": sum(s["input_tokens"] for s in llm),
            "output_tokens": sum(s["output_tokens"] for s in llm),
        }
        latency = sum(s.get("latency_ms", 0.0) for s in self.steps) + self.rng.uniform(50, 400)
        trace = Trace.model_validate(
            {
                "input": self.input,
                "steps": self.steps,
                "output": output,
                "usage": usage,
                "latency_ms": round(latency, 1),
                "status": status,
                "metadata": {"model": self.model},
            }
        )
        return trace.to_eval_dict()


Scenario = tuple[str, float, bool, Callable[[random.Random], dict[str, Any]]]
"""(name, weight, label, make trace)."""


def generate(
    name: str,
    description: str,
    scenarios: Sequence[Scenario],
    n: int,
    seed: int,
    noise: float,
) -> LabeledDataset:
    """``n`` traces from scenarios drawn by weight, with ``round(noise * n)`` labels flipped."""
    rng = random.Random(f"{name}:{seed}")
    weights = [s[1] for s in scenarios]
    traces: list[dict[str, Any]] = []
    clean: list[bool] = []
    kinds: list[str] = []
    for _ in range(n):
        kind, _, label, make = rng.choices(scenarios, weights=weights)[0]
        traces.append(make(rng))
        clean.append(label)
        kinds.append(kind)
    flipped = set(rng.sample(range(n), round(noise * n)))
    labels = [(not y) if i in flipped else y for i, y in enumerate(clean)]
    return LabeledDataset(name, description, traces, labels, clean, kinds)


def pick(rng: random.Random, options: Sequence[str], **values: Any) -> str:
    """One of ``options``, formatted with ``values``."""
    return rng.choice(options).format(**values)


def some_id(rng: random.Random, prefixes: Sequence[str]) -> str:
    prefix = rng.choice(prefixes)
    number = rng.randint(10000, 99999)
    return f"#{number}" if prefix == "#" else f"{prefix}-{number}"


def person(rng: random.Random) -> tuple[str, str]:
    """A full name and a matching email address."""
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    domain = rng.choice(("example.com", "mail.test", "acme.io", "inbox.dev"))
    return f"{first} {last}", f"{first.lower()}.{last.lower()}@{domain}"


def address(rng: random.Random) -> str:
    kind = rng.choice(("Street", "Road", "Avenue", "Lane"))
    return f"{rng.randint(3, 980)} {rng.choice(STREETS)} {kind}, {rng.choice(CITIES)}"


def money(rng: random.Random, low: float, high: float) -> float:
    return round(rng.uniform(low, high), 2)
