"""Shared by the generation tests: a dataset whose rule no trace signal can find, eval functions
of known accuracy on it, and helpers to import traces and follow generation jobs through the
typed client (over gRPC)."""

from __future__ import annotations

import json
import random
from typing import Any

from agenteval.sdk import (
    Client,
    EvalCandidate,
    EvalInfo,
    GenerationEvent,
    GenerationJob,
    GenerationRequest,
    NotFound,
)
from agenteval.v1 import eval_generator_pb2 as pb


def parity_traces(n: int = 60, seed: int = 7) -> list[tuple[str, dict[str, Any], str]]:
    """(id, trace, label): positive exactly when the ticket number is even, balanced.

    Nothing in the trace's structure or wording tells the labels apart, so the synthesizer's
    rule stays near chance while code that reads the number can be right on every trace."""
    rng = random.Random(seed)
    numbers = rng.sample(range(1000, 9999), n)
    evens = [x for x in numbers if x % 2 == 0][: n // 2]
    odds = [x for x in numbers if x % 2][: n // 2]
    picked = evens + odds
    rng.shuffle(picked)
    out = []
    for i, ticket in enumerate(picked):
        status = rng.choice(["open", "closed", "pending"])
        trace = {
            "input": [{"role": "user", "content": f"What is the status of ticket {ticket}?"}],
            "steps": [
                {
                    "type": "tool_call",
                    "name": "lookup_ticket",
                    "arguments": {"ticket": ticket},
                    "result": {"status": status},
                },
                {"type": "message", "role": "assistant", "content": f"Ticket {ticket} is {status}."},
            ],
            "output": f"Ticket {ticket} is {status}.",
            "metadata": {"ticket": ticket},
        }
        out.append((f"p{i}", trace, "positive" if ticket % 2 == 0 else "negative"))
    return out


def _parity_code(name: str, wrong_below: int, doc: str) -> str:
    """Right on parity except where ticket % 100 < wrong_below (so about 1 - wrong_below/100)."""
    return (
        f"def eval_{name}(trace, ctx=None):\n"
        f'    """{doc}"""\n'
        '    ticket = trace["metadata"]["ticket"]\n'
        "    even = ticket % 2 == 0\n"
        f"    if ticket % 100 < {wrong_below}:\n"
        "        even = not even\n"
        '    return (1.0 if even else 0.0), "parity"\n'
    )


def perfect(name: str) -> str:
    return _parity_code(name, 0, "Even tickets are good.")


def about_73(name: str) -> str:
    return _parity_code(name, 27, "Mostly right.")


def about_59(name: str) -> str:
    return _parity_code(name, 41, "Often wrong.")


def always_good(name: str) -> str:
    return f'def eval_{name}(trace, ctx=None):\n    return 1.0, "looks fine"\n'


def hangs(name: str, variant: int = 0) -> str:
    return (
        f"def eval_{name}(trace, ctx=None):\n"
        f"    n = {variant}\n"
        "    while True:\n"
        "        n += 1\n"
        '    return 1.0, "never"\n'
    )


def raises_sometimes(name: str) -> str:
    """Perfect, except that it raises on about one trace in 25: never to be chosen."""
    return (
        f"def eval_{name}(trace, ctx=None):\n"
        '    ticket = trace["metadata"]["ticket"]\n'
        "    if ticket % 25 == 3:\n"
        '        raise KeyError("surprise")\n'
        '    return (1.0 if ticket % 2 == 0 else 0.0), "parity"\n'
    )


def jsonl(labeled: list[tuple[str, dict[str, Any], str]]) -> bytes:
    return "\n".join(json.dumps({"id": i, "trace": t, "label": lab}) for i, t, lab in labeled).encode()


async def import_traces(client: Client, dataset: str, labeled: list[tuple[str, dict[str, Any], str]]) -> None:
    report = await client.import_traces(dataset, jsonl(labeled), format="jsonl")
    assert report.imported == len(labeled), report


def request(name: str, dataset: str, **fields: Any) -> GenerationRequest:
    return GenerationRequest(name=name, dataset=dataset, seed=1, **fields)


def request_pb(name: str, dataset: str, **fields: Any) -> pb.GenerateEvalRequest:
    """The same request as a client in another language sends it (the raw message)."""
    return pb.GenerateEvalRequest(name=name, dataset=dataset, seed=1, **fields)


async def start(client: Client, req: GenerationRequest) -> GenerationJob:
    return await client.start_generation_job(req)


async def follow(client: Client, job_id: str, after: int = 0) -> tuple[list[GenerationEvent], GenerationJob]:
    """Every event from ``after`` to the job's end, and the job as it ended."""
    events: list[GenerationEvent] = []
    job = None
    async for event, latest in client.watch_generation_job(job_id, after):
        events.append(event)
        job = latest
    if job is None:
        job = await client.get_generation_job(job_id)
    return events, job


def kinds(events: list[GenerationEvent]) -> list[str]:
    return [e.type for e in events]


def status(job: GenerationJob) -> str:
    return job.status


def outcome(job: GenerationJob) -> str:
    return job.outcome or "unspecified"


def saved_eval(events: list[GenerationEvent]) -> EvalInfo:
    """The eval the last event (saved or kept) names."""
    saved = events[-1].eval
    assert saved is not None, events[-1]
    return saved


async def current_eval(client: Client, name: str) -> EvalInfo | None:
    """What eval:NAME resolves to, None when nothing does."""
    try:
        return await client.get_eval(name)
    except NotFound:
        return None


def candidates_by_source(ev: EvalInfo) -> dict[str, list[EvalCandidate]]:
    found: dict[str, list[EvalCandidate]] = {}
    for c in ev.candidates:
        found.setdefault(c.source, []).append(c)
    return found
