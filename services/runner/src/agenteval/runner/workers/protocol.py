"""The pipe protocol between the runner's worker pool and its agent workers.

Frames are a 4-byte big-endian length, a 1-byte kind and a payload. The pool writes marshal
(it trusts what it sends, and marshal is the fastest codec for plain data); a worker writes
JSON only, so the pool never unmarshals anything agent code could have shaped.

Pool to worker:
- ``T``: a batch of trials, a marshalled list of :data:`TrialItem` tuples;
- ``L``: load an agent to check it, a marshalled ``(key, spec)``.

Worker to pool:
- ``R``: a finished trial, an 8-byte key and the trace as JSON (without its input);
- ``M``: a JSON control message with an ``op``: ``ready``, ``hb`` (the worker's event loop
  is alive), ``blocked`` (from its watchdog thread: the loop is stuck in trial ``k``),
  ``exit`` (trial ``k`` called ``os._exit(code)``), ``loaded``, ``fatal``.

Only the standard library here: the worker imports this module before anything else.
"""

from __future__ import annotations

import json
import marshal
import struct
from typing import Any

HEADER = struct.Struct(">IB")
KEY = struct.Struct(">Q")

TRIALS = ord("T")
LOAD = ord("L")
RESULT = ord("R")
MESSAGE = ord("M")

TrialItem = tuple[Any, ...]
"""``(key, spec, messages, run_id, case_id, trial_index, seed, initial_state, tool_mocks,
metadata, timeout_s, agent_version)``: one trial as the worker receives it."""

HEARTBEAT_S = 0.1
"""How often a worker's event loop says it is alive."""
BLOCKED_AFTER_S = 0.4
"""A worker's watchdog reports its loop as blocked after this long without a heartbeat."""


def frame(kind: int, payload: bytes) -> bytes:
    return HEADER.pack(len(payload), kind) + payload


def trials_frame(items: list[TrialItem]) -> bytes:
    """A batch of trials; an item marshal cannot encode (it only ever holds JSON data, so
    this is a safety net) goes through JSON first."""
    try:
        return frame(TRIALS, marshal.dumps(items))
    except ValueError:
        return frame(TRIALS, marshal.dumps([json.loads(json.dumps(i, default=str)) for i in items]))


def result_frame(key: int, trace_json: bytes) -> bytes:
    return HEADER.pack(len(trace_json) + KEY.size, RESULT) + KEY.pack(key) + trace_json


def message_frame(message: dict[str, Any]) -> bytes:
    return frame(MESSAGE, json.dumps(message).encode())


class FrameReader:
    """Splits a byte stream into ``(kind, payload)`` frames; refuses a frame over ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        buf = self._buf
        buf += data
        out: list[tuple[int, bytes]] = []
        pos = 0
        size_of = HEADER.unpack_from
        end = len(buf)
        while end - pos >= HEADER.size:
            size, kind = size_of(buf, pos)
            if size > self.max_bytes:
                raise ValueError(f"a {size}-byte frame (limit {self.max_bytes})")
            start = pos + HEADER.size
            if end - start < size:
                break
            out.append((kind, bytes(buf[start : start + size])))
            pos = start + size
        if pos:
            del buf[:pos]
        return out
