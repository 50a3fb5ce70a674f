"""A small async client of the Anthropic Messages API for LLM judges and eval functions.

Wraps ``anthropic.AsyncAnthropic`` with its own retry loop (so the backoff is
configurable and testable), a content-keyed cache, and token/cost accounting. The SDK
is imported on first use only: it takes seconds to import.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agenteval.grading.judge_cache import CachedCompletion, CompletionCache, MemoryCache, cache_key

API_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
"""Statuses worth another try: timeouts, conflicts, rate limits, server errors, overloaded."""


@dataclass(frozen=True)
class LLMResponse:
    """One completion. Tokens and cost are what this call spent: 0 when served from the cache."""

    text: str
    input_tokens: int
    output_tokens: int
    model: str
    cached: bool = False
    cost_usd: float = 0.0
    stop_reason: str | None = None


class LLMError(RuntimeError):
    """An LLM call failed for good (after the retries it was worth)."""

    def __init__(self, message: str, *, status: int | None = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.status = status
        self.attempts = attempts


class LLMNotConfiguredError(LLMError):
    """No API key is configured."""


def price_usd(model: str, input_tokens: int, output_tokens: int) -> float:
    """List-price cost of the tokens; 0.0 when the price table is unavailable."""
    try:
        from agenteval.stats import cost_usd
    except ImportError:  # the stats library is optional for this client
        return 0.0
    return float(cost_usd(model, input_tokens, output_tokens))


def _as_messages(prompt: str | Sequence[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """API messages from a prompt or a conversation, and the text of any system messages in it."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}], []
    messages: list[dict[str, Any]] = []
    system: list[str] = []
    for item in prompt:
        if isinstance(item, Mapping):
            role, content = item.get("role", "user"), item.get("content", "")
        else:  # a pydantic Message or anything with role/content attributes
            role, content = getattr(item, "role", "user"), getattr(item, "content", "")
        if role == "system":
            system.append(str(content))
        elif role in ("user", "assistant"):
            messages.append({"role": role, "content": content})
        else:
            raise ValueError(f"message role must be user, assistant or system, got {role!r}")
    if not messages:
        raise ValueError("a completion needs at least one user or assistant message")
    return messages, system


def _error_detail(exc: Any) -> str:
    """``type: message`` from an Anthropic error body, else the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        err = body.get("error")
        if isinstance(err, Mapping) and err.get("message"):
            return f"{err.get('type', 'error')}: {err['message']}"
    return str(exc)


class LLMClient:
    """Completions from the Anthropic Messages API with retries, a cache and cost accounting.

    ``api_key``/``base_url`` default to $ANTHROPIC_API_KEY / $ANTHROPIC_BASE_URL. Retries
    ``max_retries`` times on 408/409/429/5xx/529 and connection errors, waiting what a
    retry-after header asks (up to ``max_retry_after_s``) or else an exponential backoff
    from ``backoff_s`` (capped at ``max_backoff_s``) with jitter.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 4,
        timeout_s: float = 60.0,
        cache: CompletionCache | None = None,
        *,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        max_retry_after_s: float = 60.0,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
    ) -> None:
        self.api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV) or None
        self.base_url = base_url if base_url is not None else os.environ.get(BASE_URL_ENV) or None
        self.max_retries = max(0, max_retries)
        self.timeout_s = timeout_s
        self.cache = cache
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.max_retry_after_s = max_retry_after_s
        self._sleep = sleep or asyncio.sleep
        self._sdk: Any = None
        self._sdk_loop: asyncio.AbstractEventLoop | None = None

    def available(self) -> bool:
        """Whether an API key is configured."""
        return bool(self.api_key)

    def _client(self) -> Any:
        # The SDK's HTTP pool belongs to the loop it was first used on: make one per loop.
        loop = asyncio.get_running_loop()
        if self._sdk is None or self._sdk_loop is not loop:
            import anthropic  # slow import, so only when a call is made

            self._sdk = anthropic.AsyncAnthropic(
                api_key=self.api_key,
                base_url=self.base_url,
                timeout=self.timeout_s,
                max_retries=0,  # retries are ours: configurable backoff, testable
            )
            self._sdk_loop = loop
        return self._sdk

    def retry_delay(self, attempt: int, headers: Mapping[str, str] | None = None) -> float:
        """Seconds to wait before retry number ``attempt + 1``."""
        if headers is not None:
            for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
                raw = headers.get(name)
                if raw is None:
                    continue
                try:
                    asked = float(raw) * scale
                except ValueError:
                    continue  # an HTTP date: fall back to our own backoff
                if asked >= 0:
                    return min(asked, self.max_retry_after_s)
        backoff = min(self.backoff_s * (2.0**attempt), self.max_backoff_s)
        # Jitter spreads out the retries of many graders hitting the same limit at once.
        return backoff * (1.0 - 0.25 * random.random())

    async def complete(
        self,
        prompt: str | Sequence[Any],
        model: str,
        system: str | None = None,
        temperature: float | None = None,
        max_tokens: int = 1024,
        *,
        cache_tag: str = "",
    ) -> LLMResponse:
        """Complete ``prompt`` (a user message, or a list of {role, content} messages).

        ``temperature`` None leaves sampling to the model: the SDK (2.x) no longer has
        sampling parameters, so a number is sent as an extra body field, for models that
        still accept it. ``cache_tag`` (e.g. judge name and version) is part of the cache
        key. Raises :class:`LLMNotConfiguredError` without an API key and
        :class:`LLMError` when the call fails for good.
        """
        messages, extra_system = _as_messages(prompt)
        system_text = "\n\n".join([s for s in [system, *extra_system] if s]) or None
        key = cache_key(
            model=model,
            system=system_text,
            messages=messages,
            temperature=temperature,
            max_tokens=max_tokens,
            tag=cache_tag,
        )
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return LLMResponse(
                    text=hit.text,
                    input_tokens=0,
                    output_tokens=0,
                    model=hit.model,
                    cached=True,
                    cost_usd=0.0,
                    stop_reason=hit.stop_reason,
                )
        if not self.available():
            raise LLMNotConfiguredError(f"no Anthropic API key configured (set {API_KEY_ENV})")

        kwargs: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": max_tokens}
        if system_text:
            kwargs["system"] = system_text
        if temperature is not None:
            kwargs["extra_body"] = {"temperature": temperature}
        message = await self._create_with_retries(kwargs)

        text = "".join(getattr(block, "text", "") for block in message.content if block.type == "text")
        used_model = message.model or model
        input_tokens = int(message.usage.input_tokens or 0)
        output_tokens = int(message.usage.output_tokens or 0)
        if self.cache is not None:
            self.cache.put(
                key,
                CachedCompletion(
                    text=text,
                    model=used_model,
                    input_tokens=input_tokens,
                    output_tokens=output_tokens,
                    stop_reason=message.stop_reason,
                ),
            )
        return LLMResponse(
            text=text,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            model=used_model,
            cached=False,
            cost_usd=price_usd(used_model, input_tokens, output_tokens),
            stop_reason=message.stop_reason,
        )

    async def _create_with_retries(self, kwargs: dict[str, Any]) -> Any:
        import anthropic

        sdk = self._client()
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            try:
                return await sdk.messages.create(**kwargs)
            except anthropic.APIStatusError as exc:
                should = exc.response.headers.get("x-should-retry")
                retryable = should == "true" or (should != "false" and exc.status_code in RETRYABLE_STATUS)
                if not retryable or attempt == attempts - 1:
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    raise LLMError(
                        f"Anthropic API returned {exc.status_code} ({_error_detail(exc)}){tries}",
                        status=exc.status_code,
                        attempts=attempt + 1,
                    ) from None
                delay = self.retry_delay(attempt, exc.response.headers)
            except anthropic.APIConnectionError as exc:  # includes timeouts
                if attempt == attempts - 1:
                    raise LLMError(
                        f"could not reach the Anthropic API at {self.base_url or 'the default URL'}: "
                        f"{type(exc).__name__}: {exc} after {attempt + 1} attempts",
                        attempts=attempt + 1,
                    ) from None
                delay = self.retry_delay(attempt)
            await self._sleep(delay)
        raise AssertionError("unreachable")  # the loop returns or raises

    async def aclose(self) -> None:
        """Close the HTTP connections of the current loop's SDK client."""
        if self._sdk is not None:
            sdk, self._sdk, self._sdk_loop = self._sdk, None, None
            await sdk.close()


_default: LLMClient | None = None


def default_client() -> LLMClient:
    """The process-wide client built from the environment, with an in-memory cache.

    Rebuilt when $ANTHROPIC_API_KEY or $ANTHROPIC_BASE_URL change (tests, key rotation).
    """
    global _default
    key = os.environ.get(API_KEY_ENV) or None
    url = os.environ.get(BASE_URL_ENV) or None
    if _default is None or (_default.api_key, _default.base_url) != (key, url):
        _default = LLMClient(api_key=key, base_url=url, cache=MemoryCache())
    return _default
