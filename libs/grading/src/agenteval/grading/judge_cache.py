"""A cache of LLM completions keyed by their content, so re-grading a transcript costs nothing.

The key is a sha256 over everything that decides a completion: model, system prompt,
messages, temperature, max_tokens and a tag naming the judge and its version. Two
implementations: an in-memory LRU (per process) and a SQLite file (shared by processes
and kept across restarts).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class CachedCompletion:
    """What a cached completion returns again: the text and what it took to make it."""

    text: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    stop_reason: str | None = None


class CompletionCache(Protocol):
    """Where completions are kept by key; ``get`` returns None on a miss."""

    def get(self, key: str) -> CachedCompletion | None: ...

    def put(self, key: str, value: CachedCompletion) -> None: ...


def cache_key(
    *,
    model: str,
    system: str | None,
    messages: list[dict[str, Any]],
    temperature: float | None,
    max_tokens: int,
    tag: str = "",
) -> str:
    """The content key of one completion request (hex sha256)."""
    payload = {
        "model": model,
        "system": system,
        "messages": messages,
        "temperature": None if temperature is None else float(temperature),
        "max_tokens": int(max_tokens),
        "tag": tag,
    }
    # Canonical JSON: the same request must hash the same in every process.
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class MemoryCache:
    """An in-memory LRU of at most ``max_entries`` completions (thread-safe)."""

    def __init__(self, max_entries: int = 4096) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._items: OrderedDict[str, CachedCompletion] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedCompletion | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: str, value: CachedCompletion) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


class SqliteCache:
    """Completions in a SQLite file at ``path`` (created with its folder when missing).

    WAL mode and a busy timeout let several grader processes share one file.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), timeout=10.0, check_same_thread=False)
        with self._lock, self._conn:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS judge_cache ("
                " key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at REAL NOT NULL)"
            )

    def get(self, key: str) -> CachedCompletion | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM judge_cache WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return CachedCompletion(**json.loads(row[0]))
        except (TypeError, ValueError):
            return None  # a row written by an incompatible version is a miss, not a crash

    def put(self, key: str, value: CachedCompletion) -> None:
        blob = json.dumps(asdict(value), ensure_ascii=False)
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO judge_cache (key, value, created_at) VALUES (?, ?, ?)",
                (key, blob, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM judge_cache").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
