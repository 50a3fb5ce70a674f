"""A fake Anthropic Messages API served over real HTTP on 127.0.0.1, for tests.

The real ``anthropic`` SDK talks to it unchanged (``base_url=server.base_url``). Replies
are scripted: a queue of replies, each a text, a message dict, a :class:`FakeError` or a
function of the request; then a handler function; and an injected run of errors
(429/500/529 ...) for the next N requests comes before both. Every request is recorded.
Streaming (``stream: true``) is answered with the same events the real API sends.

    with FakeAnthropicServer() as server:
        server.enqueue(tool_use_reply("search", {"q": "x"}), "The answer is 42.")
        client = anthropic.Anthropic(api_key="test", base_url=server.base_url)
"""

from __future__ import annotations

import json
import sys
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_API_KEY = "sk-ant-fake-test-key"

ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
"""The Anthropic error type the real API sends with each status."""


@dataclass(frozen=True)
class FakeError:
    """An error reply: ``status`` with the API's error JSON, and optional retry-after."""

    status: int
    message: str = "injected error"
    type: str | None = None
    """Error type; by default the one the real API uses for ``status``."""
    retry_after: float | None = None
    """Seconds for the ``retry-after`` header (the SDK and our client honour it)."""
    headers: dict[str, str] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        kind = self.type or ERROR_TYPES.get(self.status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": self.message}}


Handler = Callable[[dict[str, Any]], Any]
"""A function of the request JSON giving a reply: text, a (partial) message dict, a FakeError."""


def rate_limited(retry_after: float | None = 0.0, message: str = "rate limit exceeded") -> FakeError:
    """A 429 rate_limit_error."""
    return FakeError(429, message, retry_after=retry_after)


def overloaded(message: str = "Overloaded") -> FakeError:
    """A 529 overloaded_error."""
    return FakeError(529, message)


def server_error(status: int = 500, message: str = "Internal server error") -> FakeError:
    """A 5xx api_error."""
    return FakeError(status, message)


def unauthorized(message: str = "invalid x-api-key") -> FakeError:
    """A 401 authentication_error (the SDK does not retry it)."""
    return FakeError(401, message)


def cut_off_reply(text: str, *, output_tokens: int | None = None) -> Handler:
    """A reply cut off at max_tokens: ``text`` as far as it got, ``stop_reason: max_tokens``, and
    (unless given) as many output tokens as the request allowed."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        tokens = output_tokens if output_tokens is not None else int(body.get("max_tokens") or 1)
        return text_reply(text, stop_reason="max_tokens", output_tokens=tokens)

    return reply


class Gate:
    """A scripted reply held back until released: the request arrives (``arrived``), the answer
    waits. For tests of what happens while a model call is in flight (a client disconnect, a
    service stopping). A request still held after ``timeout`` seconds gets a 529."""

    def __init__(self, reply: Any, timeout: float = 60.0) -> None:
        self.reply = reply
        self.timeout = timeout
        self.arrived = threading.Event()
        self._open = threading.Event()

    def release(self) -> None:
        self._open.set()

    def __call__(self, body: dict[str, Any]) -> Any:
        self.arrived.set()
        if not self._open.wait(self.timeout):
            return overloaded("held too long by a test Gate")
        return self.reply


def text_reply(
    text: str,
    *,
    stop_reason: str = "end_turn",
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    model: str | None = None,
) -> dict[str, Any]:
    """A message reply holding one text block (usage computed when not given)."""
    reply: dict[str, Any] = {"content": [{"type": "text", "text": text}], "stop_reason": stop_reason}
    return _with_usage(reply, input_tokens, output_tokens, model)


def tool_use_reply(
    name: str,
    tool_input: dict[str, Any],
    *,
    text: str | None = None,
    tool_use_id: str | None = None,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    model: str | None = None,
) -> dict[str, Any]:
    """A message reply asking for one tool call (optionally after some text)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content.append(
        {
            "type": "tool_use",
            "id": tool_use_id or f"toolu_{uuid.uuid4().hex[:24]}",
            "name": name,
            "input": tool_input,
        }
    )
    return _with_usage({"content": content, "stop_reason": "tool_use"}, input_tokens, output_tokens, model)


def _with_usage(
    reply: dict[str, Any], input_tokens: int | None, output_tokens: int | None, model: str | None
) -> dict[str, Any]:
    usage = {
        k: v for k, v in (("input_tokens", input_tokens), ("output_tokens", output_tokens)) if v is not None
    }
    if usage:
        reply["usage"] = usage
    if model:
        reply["model"] = model
    return reply


def estimate_tokens(value: Any) -> int:
    """A deterministic stand-in for a tokenizer: about four characters per token."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return max(1, len(text) // 4)


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: dict[str, Any] | None
    """The JSON body (None when absent or not JSON)."""

    @property
    def model(self) -> str | None:
        return (self.body or {}).get("model")

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("messages", []))

    @property
    def system(self) -> Any:
        return (self.body or {}).get("system")

    def last_user_text(self) -> str:
        """The text of the last user message (blocks joined), '' when none."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return content_text(message.get("content"))
        return ""


def content_text(content: Any) -> str:
    """The text of a message's content, whether a string or a list of blocks."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if isinstance(block, dict):
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                parts.append(content_text(block.get("content")))
    return "\n".join(parts)


class FakeAnthropicServer:
    """The fake API on 127.0.0.1 at an ephemeral port; start/stop or use as a context manager.

    ``api_key``, when set, must be sent (x-api-key or a Bearer token), else 401 as the real API does.
    ``handler`` answers requests the queue does not script.
    """

    def __init__(self, handler: Handler | None = None, *, api_key: str | None = None) -> None:
        self.handler = handler
        self.api_key = api_key
        self._lock = threading.Lock()
        self._queue: deque[Any] = deque()
        self._failures: deque[FakeError] = deque()
        self._requests: list[RecordedRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> FakeAnthropicServer:
        if self._server is not None:
            return self
        fake = self

        class _Handler(_RequestHandler):
            server_fake = fake

        self._server = _QuietServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-anthropic",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeAnthropicServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake Anthropic server is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What to give the SDK as ``base_url`` (or $ANTHROPIC_BASE_URL)."""
        return f"http://127.0.0.1:{self.port}"

    def env(self, api_key: str = FAKE_API_KEY) -> dict[str, str]:
        """Environment variables that point the SDK (and LLMClient) at this server."""
        return {"ANTHROPIC_API_KEY": self.api_key or api_key, "ANTHROPIC_BASE_URL": self.base_url}

    # -- scripting

    def enqueue(self, *replies: Any) -> None:
        """Script the next replies to POST /v1/messages, in order."""
        with self._lock:
            self._queue.extend(replies)

    def fail_next(
        self, n: int = 1, status: int = 429, *, retry_after: float | None = None, message: str | None = None
    ) -> None:
        """Answer the next ``n`` message requests with ``status`` errors, before any script."""
        error = FakeError(status, message or f"injected {status}", retry_after=retry_after)
        with self._lock:
            self._failures.extend([error] * n)

    def pending(self) -> int:
        """Scripted replies and injected errors not used yet."""
        with self._lock:
            return len(self._queue) + len(self._failures)

    def reset(self) -> None:
        """Forget scripts, injected errors and recorded requests."""
        with self._lock:
            self._queue.clear()
            self._failures.clear()
            self._requests.clear()

    # -- inspection

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def message_requests(self) -> list[RecordedRequest]:
        """The POST /v1/messages requests received, in order."""
        return [r for r in self.requests if r.method == "POST" and r.path == "/v1/messages"]

    # -- answering (called from the server's threads)

    def _record(self, request: RecordedRequest) -> int:
        with self._lock:
            self._requests.append(request)
            return len(self._requests)

    def _next_reply(self, body: dict[str, Any], number: int) -> Any:
        with self._lock:
            if self._failures:
                return self._failures.popleft()
            scripted = self._queue.popleft() if self._queue else None
        if scripted is None and self.handler is not None:
            scripted = self.handler
        if scripted is None:
            return FakeError(400, f"fake Anthropic server: no scripted reply for request #{number}")
        # A function may return another function, text, a dict or an error.
        while callable(scripted):
            scripted = scripted(body)
        return scripted

    def answer(self, body: dict[str, Any], number: int) -> FakeError | dict[str, Any]:
        """The error or the full message JSON for one POST /v1/messages body."""
        problem = _validate(body)
        if problem:
            return FakeError(400, problem)
        reply = self._next_reply(body, number)
        if isinstance(reply, FakeError):
            return reply
        if isinstance(reply, str):
            reply = {"content": [{"type": "text", "text": reply}]}
        if not isinstance(reply, dict):
            return FakeError(500, f"fake Anthropic server: a script gave {type(reply).__name__}, not a reply")
        return _complete_message(reply, body)


def _validate(body: dict[str, Any]) -> str | None:
    """The real API's checks that catch client bugs: required fields and message roles."""
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            return f"{name}: Field required"
    messages = body["messages"]
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        content = message.get("content")
        if content == "" or content == []:
            return f"messages.{i}: all messages must have non-empty content"
    return None


def _complete_message(reply: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """A full Message JSON from a partial reply, echoing the request's model."""
    content = reply.get("content", [])
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    has_tool_use = any(block.get("type") == "tool_use" for block in content)
    usage = {
        "input_tokens": estimate_tokens([body.get("system"), body.get("messages")]),
        "output_tokens": estimate_tokens(content),
        **reply.get("usage", {}),
    }
    return {
        "id": reply.get("id", f"msg_{uuid.uuid4().hex[:24]}"),
        "type": "message",
        "role": "assistant",
        "model": reply.get("model", body.get("model")),
        "content": content,
        "stop_reason": reply.get("stop_reason", "tool_use" if has_tool_use else "end_turn"),
        "stop_sequence": reply.get("stop_sequence"),
        "usage": usage,
    }


def sse_events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The server-sent events the real API streams for ``message``."""
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**message["usage"], "output_tokens": 1},
    }
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block.get("type") == "tool_use":
            empty = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block.get("input", {}))}
        else:
            empty = {**block, "text": ""}
            delta = {"type": "text_delta", "text": block.get("text", "")}
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": empty}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _sent_keys(headers: Any) -> set[str]:
    """Keys a request carries: SDK 2.x sends ``Authorization: Bearer``, older ones ``x-api-key``."""
    keys = {headers.get("x-api-key") or ""}
    scheme, _, token = (headers.get("authorization") or "").partition(" ")
    if scheme.lower() == "bearer":
        keys.add(token)
    return keys - {""}


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that went away (a cancelled call) before its held reply was written.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _RequestHandler(BaseHTTPRequestHandler):
    server_fake: FakeAnthropicServer
    # One request per connection: nothing lingers in keep-alive threads after stop().
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        return

    def _read_body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, error: FakeError) -> None:
        headers = dict(error.headers)
        if error.retry_after is not None:
            headers.setdefault("retry-after", f"{error.retry_after:g}")
        self._send_json(error.status, error.body(), headers)

    def _send_stream(self, message: dict[str, Any]) -> None:
        data = "".join(
            f"event: {name}\ndata: {json.dumps(payload)}\n\n" for name, payload in sse_events(message)
        ).encode("utf-8")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        fake = self.server_fake
        fake._record(RecordedRequest("GET", self.path, {k.lower(): v for k, v in self.headers.items()}, None))
        self._send_error(FakeError(404, f"fake Anthropic server has no GET {self.path}"))

    def do_POST(self) -> None:
        fake = self.server_fake
        body = self._read_body()
        path = self.path.split("?", 1)[0]
        number = fake._record(
            RecordedRequest("POST", path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        if fake.api_key is not None and fake.api_key not in _sent_keys(self.headers):
            self._send_error(FakeError(401, "invalid x-api-key"))
            return
        if body is None:
            self._send_error(FakeError(400, "the request body is not a JSON object"))
            return
        if path == "/v1/messages/count_tokens":
            self._send_json(
                200, {"input_tokens": estimate_tokens([body.get("system"), body.get("messages")])}
            )
            return
        if path != "/v1/messages":
            self._send_error(FakeError(404, f"fake Anthropic server has no POST {path}"))
            return
        try:
            result = fake.answer(body, number)
        except Exception as exc:  # a broken test handler must show up as an error reply, not a hang
            result = FakeError(500, f"fake Anthropic server handler raised {type(exc).__name__}: {exc}")
        if isinstance(result, FakeError):
            self._send_error(result)
        elif body.get("stream"):
            self._send_stream(result)
        else:
            self._send_json(200, result)


__all__ = [
    "ERROR_TYPES",
    "FAKE_API_KEY",
    "FakeAnthropicServer",
    "FakeError",
    "Gate",
    "RecordedRequest",
    "content_text",
    "cut_off_reply",
    "estimate_tokens",
    "overloaded",
    "rate_limited",
    "server_error",
    "sse_events",
    "text_reply",
    "tool_use_reply",
    "unauthorized",
]
