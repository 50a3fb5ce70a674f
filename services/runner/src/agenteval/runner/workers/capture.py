"""What an agent prints, kept per trial (inside an agent worker).

``sys.stdout`` and ``sys.stderr`` of a worker are :class:`CapturedText` streams: a write goes
to the :class:`TrialIO` of the trial whose code made it (a context variable, which tasks and
the sync agents' threads inherit), up to a cap, and nowhere else. The trace carries it in
``metadata.stdout`` / ``metadata.stderr``. Writes outside any trial (a thread the agent
started itself) are dropped, and so are writes at the file-descriptor level: fds 1 and 2 of
a worker are /dev/null.
"""

from __future__ import annotations

import io
from contextvars import ContextVar
from typing import Any

CURRENT: ContextVar[TrialIO | None] = ContextVar("agenteval_trial", default=None)
"""The trial (or agent load) whose code is running."""

STREAMS = ("stdout", "stderr")


class TrialIO:
    """One trial's captured output: the first ``cap`` characters of each stream, and how much
    was written in all."""

    __slots__ = ("cap", "kept", "key", "written")

    def __init__(self, key: int, cap: int) -> None:
        self.key = key
        self.cap = cap
        self.kept: list[list[str]] = [[], []]
        self.written = [0, 0]

    def write(self, stream: int, text: str) -> None:
        before = self.written[stream]
        self.written[stream] = before + len(text)
        room = self.cap - before
        if room > 0:
            self.kept[stream].append(text if len(text) <= room else text[:room])

    def attach(self, metadata: dict[str, Any]) -> None:
        """Put what was captured into a trace's metadata (nothing when nothing was written)."""
        for stream, name in enumerate(STREAMS):
            written = self.written[stream]
            if not written:
                continue
            metadata[name] = "".join(self.kept[stream])
            if written > self.cap:
                metadata[f"{name}_truncated"] = True
                metadata[f"{name}_chars"] = written


class CapturedText(io.TextIOBase):
    """``sys.stdout`` / ``sys.stderr`` of an agent worker."""

    def __init__(self, stream: int) -> None:
        super().__init__()
        self._stream = stream
        self._buffer = CapturedBytes(self)

    @property
    def name(self) -> str:
        return f"<{STREAMS[self._stream]}>"

    encoding = "utf-8"
    errors = "replace"

    @property
    def buffer(self) -> CapturedBytes:
        return self._buffer

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        trial = CURRENT.get()
        if trial is not None:
            trial.write(self._stream, text)
        return len(text)

    def flush(self) -> None:
        pass


class CapturedBytes(io.RawIOBase):
    """``sys.stdout.buffer``: bytes are decoded (invalid UTF-8 replaced) and captured as text."""

    def __init__(self, text: CapturedText) -> None:
        super().__init__()
        self._text = text

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data)
        self._text.write(view.tobytes().decode("utf-8", "replace"))
        return view.nbytes
