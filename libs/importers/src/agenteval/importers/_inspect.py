"""Inspect AI eval logs (``.eval`` zip archives and ``.json`` logs) as labeled traces.

One trace per sample and epoch: the sample's messages (system, user, assistant with its
tool calls, tool results matched by ``tool_call_id``), its final output, the model's
token usage, and a label from its first score: ``C``/``I`` (correct/incorrect), a number
(> 0 is positive), a boolean, or any value the label names accept. Read without inspect-ai
installed (the archive is a zip of JSON files); tested against logs inspect-ai writes.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

from agenteval.contracts.trace import Message, Step, Trace, Usage
from agenteval.importers._assemble import RecordError, imported
from agenteval.importers._labels import LabelError, normalize_label
from agenteval.importers._model import ImportedTrace, ImportProblem

FORMAT = "inspect"
_SCORE_LABELS = {"C": True, "I": False, "CORRECT": True, "INCORRECT": False, "P": True, "N": False}


def looks_like_inspect(data: bytes) -> bool:
    """An .eval archive (a zip holding header.json) or a JSON log with eval and samples."""
    if data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                return "header.json" in archive.namelist()
        except zipfile.BadZipFile:
            return False
    head = data[:4096].lstrip()
    return head.startswith(b"{") and b'"eval"' in data[:200_000] and b'"samples"' in data


def _samples(data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The log's eval spec and its samples, from either form."""
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            header = json.loads(archive.read("header.json"))
            names = sorted(n for n in archive.namelist() if n.startswith("samples/") and n.endswith(".json"))
            return header.get("eval") or {}, [json.loads(archive.read(n)) for n in names]
    doc = json.loads(data)
    if not isinstance(doc, dict):
        raise RecordError("an Inspect log is a JSON object")
    return doc.get("eval") or {}, list(doc.get("samples") or [])


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text")
    return ""


def _trace(sample: dict[str, Any], model: str) -> Trace:
    inputs: list[Message] = []
    steps: list[Step] = []
    calls: dict[str, Step] = {}
    seen_assistant = False
    for m in sample.get("messages") or []:
        role = m.get("role")
        text = _text(m.get("content"))
        if role in ("system", "user") and not seen_assistant:
            inputs.append(Message(role=role, content=text))
        elif role == "user":
            steps.append(Step(type="message", role="user", content=text))
        elif role == "assistant":
            seen_assistant = True
            if text:
                steps.append(Step(type="message", role="assistant", content=text))
            for call in m.get("tool_calls") or []:
                step = Step(
                    type="tool_call", name=call.get("function"), arguments=call.get("arguments") or {}
                )
                steps.append(step)
                if call.get("id"):
                    calls[call["id"]] = step
        elif role == "tool":
            known = calls.get(m.get("tool_call_id") or "")
            error = m.get("error")
            if known is None:
                known = Step(type="tool_call", name=m.get("function"))
                steps.append(known)
            step = known
            step.result = text
            if error:
                step.error = error.get("message") if isinstance(error, dict) else str(error)
    output = sample.get("output") or {}
    choices = output.get("choices") or []
    answer = _text((choices[0].get("message") or {}).get("content")) if choices else output.get("completion")
    usage = output.get("usage") or {}
    used_model = output.get("model") or model
    tokens_in, tokens_out = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return Trace(
        input=inputs or [Message(role="user", content=_text(sample.get("input")))],
        steps=steps,
        output=answer,
        usage=Usage(
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            models={used_model: {"input_tokens": tokens_in, "output_tokens": tokens_out}}
            if used_model
            else {},
        ),
        metadata={"inspect_sample_id": sample.get("id"), "inspect_epoch": sample.get("epoch", 1)},
    )


def _label(sample: dict[str, Any]) -> tuple[Any, str | None]:
    """(label value, the score's explanation) from the sample's first score."""
    scores = sample.get("scores") or {}
    if not scores:
        return None, None
    score = next(iter(scores.values()))
    value = score.get("value") if isinstance(score, dict) else score
    if isinstance(value, str) and value.upper() in _SCORE_LABELS:
        value = _SCORE_LABELS[value.upper()]
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        value = value > 0
    return value, score.get("explanation") if isinstance(score, dict) else None


def parse(data: bytes) -> tuple[list[ImportedTrace], list[ImportProblem]]:
    try:
        spec, samples = _samples(data)
    except (zipfile.BadZipFile, KeyError, ValueError, RecordError) as exc:
        return [], [ImportProblem(0, f"not a readable Inspect log: {exc}", "file")]
    model, task = str(spec.get("model") or ""), str(spec.get("task") or "")
    traces: list[ImportedTrace] = []
    problems: list[ImportProblem] = []
    for n, sample in enumerate(samples, 1):
        try:
            value, explanation = _label(sample)
            traces.append(
                imported(
                    _trace(sample, model),
                    source_id=f"{task}/{sample.get('id')}/{sample.get('epoch', 1)}" if task else None,
                    label=normalize_label(value),
                    comment=explanation,
                    rater=None,
                    source_format=FORMAT,
                    agent=model or None,
                )
            )
        except (RecordError, LabelError, ValueError, TypeError, AttributeError) as exc:
            problems.append(ImportProblem(n, f"sample {sample.get('id')!r}: {exc}", "record"))
    if not traces and not problems:
        problems.append(ImportProblem(0, "the log holds no samples; nothing to import", "file"))
    return traces, problems
