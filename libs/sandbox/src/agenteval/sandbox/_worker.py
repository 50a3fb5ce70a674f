"""The sandbox worker: a long-lived process that runs eval functions for the pool.

Started by the pool as ``python -I -S -B -c <bootstrap>``; the bootstrap puts this folder on
``sys.path`` and calls :func:`main`, so this module, :mod:`_walls` and :mod:`_policy` are
top-level modules here and only the stdlib is importable.

Walls, in the order code meets them:

1. the static check (:func:`_policy.analyze`): imports, dunder/frame attributes, builtins;
2. the restricted namespace (:mod:`_walls`): safe builtins, allowlisted read-only imports,
   a getattr that refuses dunder names given as strings;
3. the audit hook (:mod:`_walls`), fail-closed: process creation, signals, sockets,
   ctypes, file writes, reads outside the stdlib, exec/compile are refused;
4. rlimits: address space, CPU time per call, no file writes, few descriptors, no cores.

Protocol: frames of a 4-byte big-endian length and a payload (marshal from the pool,
each trace marshalled on its own; JSON to the pool), read from a private copy of fd 0
and written to a private copy of fd 1 (fds 0 and 1 then point at /dev/null and
``sys.stdout`` is a sink, so ``print`` cannot corrupt the stream).
"""

from __future__ import annotations

import ast
import importlib
import json
import marshal
import math
import os
import resource
import signal
import struct
import sys
import time
import types
from collections import OrderedDict
from typing import Any

import _policy  # type: ignore[import-not-found]  # top-level modules inside the worker
import _walls  # type: ignore[import-not-found]
from _walls import GUARD, TRUSTED, USER_MODULE, LLMError, Violation

USER_FILENAME = "<eval>"
PRELOAD = (*_policy.DEFAULT_ALLOWED_IMPORTS, "__future__", "_strptime", "collections.abc")
CODE_CACHE_SIZE = 64

_HEADER = struct.Struct(">I")

# --- the channel to the pool --------------------------------------------------------------


class Channel:
    """Frames in: marshal from the trusted pool (fast for traces). Frames out: JSON, which
    the pool can parse safely whatever this process has been made to write."""

    def __init__(self, in_fd: int, out_fd: int) -> None:
        self._in = os.fdopen(in_fd, "rb", buffering=1 << 16)
        self._out = out_fd

    def read(self) -> dict[str, Any] | None:
        head = self._in.read(4)
        if len(head) < 4:
            return None
        (size,) = _HEADER.unpack(head)
        body = self._in.read(size)
        if len(body) < size:
            return None
        with TRUSTED:
            return marshal.loads(body)

    def write(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode()
        view = memoryview(_HEADER.pack(len(data)) + data)
        while view:
            view = view[os.write(self._out, view) :]


class _NullStream:
    """``sys.stdout``/``sys.stderr`` for eval code: ``print`` goes nowhere."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


# --- running eval code --------------------------------------------------------------------


class Request:
    """The limits and position of the call in progress (read by ``ctx.call_llm``)."""

    def __init__(self, message: dict[str, Any]) -> None:
        limits = message["limits"]
        self.id: int = message["id"]
        self.cpu_s: int = limits["cpu_s"]
        self.max_output_bytes: int = limits["max_output_bytes"]
        self.max_error_chars: int = limits["max_error_chars"]
        self.max_llm_calls: int = limits["max_llm_calls"]
        self.max_llm_prompt_bytes: int = limits["max_llm_prompt_bytes"]
        self.index = 0
        self.llm_calls = 0


class Prepared:
    """Eval code compiled once per (code, function, imports)."""

    def __init__(
        self,
        code: types.CodeType | None,
        function: str | None,
        pass_ctx: bool,
        safe_builtins: dict[str, Any],
        problem: _policy.Problem | None,
    ) -> None:
        self.code = code
        self.function = function
        self.pass_ctx = pass_ctx
        self.builtins = safe_builtins
        self.problem = problem


class EvalContext:
    """The ``ctx`` eval functions receive: ``ctx.call_llm(prompt, ...)`` asks the pool's LLM."""

    __slots__ = ()

    def call_llm(
        self, prompt: str, model: str | None = None, temperature: float = 0, max_tokens: int = 1000
    ) -> str:
        return _call_llm(prompt, model, temperature, max_tokens)

    def __repr__(self) -> str:
        return "<EvalContext call_llm(prompt, model=None, temperature=0, max_tokens=1000)>"


CTX = EvalContext()
_STATE: dict[str, Any] = {}  # "channel" and "request" while a call runs


def _call_llm(prompt: object, model: object, temperature: object, max_tokens: object) -> str:
    request: Request = _STATE["request"]
    channel: Channel = _STATE["channel"]
    if not isinstance(prompt, str):
        raise TypeError("call_llm: prompt must be a str")
    if model is not None and not isinstance(model, str):
        raise TypeError("call_llm: model must be a str or None")
    if not isinstance(temperature, int | float) or not math.isfinite(temperature):
        raise TypeError("call_llm: temperature must be a number")
    if not isinstance(max_tokens, int) or max_tokens < 1:
        raise TypeError("call_llm: max_tokens must be a positive int")
    if request.llm_calls >= request.max_llm_calls:
        raise LLMError(f"eval function made more than {request.max_llm_calls} LLM calls")
    prompt = str.__str__(prompt)
    if len(prompt) > request.max_llm_prompt_bytes or len(prompt.encode("utf-8", "replace")) > (
        request.max_llm_prompt_bytes
    ):
        raise LLMError(f"prompt is larger than {request.max_llm_prompt_bytes} bytes")
    request.llm_calls += 1
    channel.write(
        {
            "op": "llm",
            "id": request.id,
            "i": request.index,
            "prompt": prompt,
            "model": None if model is None else str.__str__(model),
            "temperature": float(temperature),
            "max_tokens": int(max_tokens),
        }
    )
    reply = channel.read()
    if reply is None:
        os._exit(0)
    if reply.get("error") is not None:
        raise LLMError(reply["error"])
    return str(reply.get("text", ""))


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [truncated, {len(text)} characters]"


def _prepare(message: dict[str, Any], cache: OrderedDict[str, Prepared]) -> Prepared:
    key = message["key"]
    prepared = cache.get(key)
    if prepared is not None:
        cache.move_to_end(key)
        return prepared
    allowed = frozenset(message["imports"])
    code: types.CodeType | None = None
    pass_ctx = False
    with TRUSTED:  # ast.parse and compile raise audit events; no eval code runs in here
        analysis = _policy.analyze(message["code"], allowed, message.get("function"))
        problem = analysis.problems[0] if analysis.problems else None
        if problem is None and analysis.tree is not None:
            code = compile(analysis.tree, USER_FILENAME, "exec", dont_inherit=True)
            for node in analysis.tree.body:
                if isinstance(node, ast.FunctionDef) and node.name == analysis.function:
                    arguments = node.args
                    positional = len(arguments.posonlyargs) + len(arguments.args)
                    pass_ctx = positional >= 2 or arguments.vararg is not None
    prepared = Prepared(code, analysis.function, pass_ctx, _walls.make_builtins(allowed), problem)
    cache[key] = prepared
    if len(cache) > CODE_CACHE_SIZE:
        cache.popitem(last=False)
    return prepared


def _set_cpu_budget(seconds: int) -> None:
    with TRUSTED:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        used = usage.ru_utime + usage.ru_stime
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        soft = int(used) + seconds + 1
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _error_line(exc: BaseException) -> int:
    """The eval-code line the exception came from (0 if none)."""
    line = 0
    with TRUSTED:  # tb_frame raises an audit event; only builtin attributes are read here
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == USER_FILENAME:
                line = tb.tb_lineno
            tb = tb.tb_next
    return line


def _describe(exc: BaseException, limit: int) -> str:
    line = _error_line(exc)
    try:
        text = str(exc)
    except BaseException:
        text = "<exception message could not be formatted>"
    name = type(exc).__name__
    where = f" (line {line})" if line else ""
    return _truncate(f"{name}{where}: {text}" if text else f"{name}{where}", limit)


def _check_return(value: object, request: Request) -> tuple[float, str]:
    if not isinstance(value, tuple | list) or len(value) != 2:
        kind = type(value).__name__
        raise Violation("bad_return", f"eval function must return (score, explanation), got {kind}")
    score, explanation = value
    if not isinstance(score, int | float):
        raise Violation("bad_return", f"score must be a number, got {type(score).__name__}")
    score = float(score)
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        raise Violation("bad_return", f"score must be in [0, 1], got {score!r}")
    if not isinstance(explanation, str):
        raise Violation("bad_return", f"explanation must be a str, got {type(explanation).__name__}")
    explanation = str.__str__(explanation)
    limit = request.max_output_bytes
    size = len(explanation)
    if size * 4 > limit:
        size = len(explanation.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise Violation("output_too_large", f"explanation is {size} bytes (limit {limit})")
    return score, explanation


def run_one(prepared: Prepared, trace: Any, request: Request) -> dict[str, Any]:
    """Run the eval function on one trace; every outcome is a result dict, never an exception."""
    if prepared.problem is not None:
        return {"error": [prepared.problem.rule, prepared.problem.message], "ms": 0.0}
    # _prepare compiles whenever the analysis found no problem (no parse tree always comes with one).
    assert prepared.code is not None
    GUARD.violation = None
    request.llm_calls = 0
    _set_cpu_budget(request.cpu_s)
    error: tuple[str, str] | None = None
    score: float | None = None
    explanation = ""
    recycle = False
    started = time.perf_counter()
    try:
        namespace: dict[str, Any] = {"__builtins__": prepared.builtins, "__name__": USER_MODULE}
        GUARD.exec_code = prepared.code
        exec(prepared.code, namespace)
        GUARD.exec_code = None
        function = namespace.get(prepared.function or "")
        if not callable(function):
            raise Violation("no_eval_function", f"{prepared.function!r} is not a function after the code ran")
        value = function(trace, CTX) if prepared.pass_ctx else function(trace)
        score, explanation = _check_return(value, request)
        del value
    except Violation as exc:
        error = (exc.rule, _truncate(exc.message, request.max_error_chars))
    except RecursionError:
        error = ("recursion_limit", "maximum recursion depth exceeded")
    except MemoryError:
        error = ("memory_limit", "the eval function ran out of memory")
        recycle = True  # the heap may be fragmented or half-updated; start a fresh process
    except NameError as exc:
        if exc.name in _policy.FORBIDDEN_BUILTINS:
            error = ("forbidden_builtin", f"the builtin {exc.name!r} is not available in eval functions")
        else:
            error = ("exception", _describe(exc, request.max_error_chars))
    except BaseException as exc:
        error = ("exception", _describe(exc, request.max_error_chars))
    finally:
        GUARD.exec_code = None
    elapsed_ms = (time.perf_counter() - started) * 1000.0
    violation = GUARD.violation
    if violation is not None and (error is None or error[0] == "exception"):
        # A blocked operation the code caught and carried on from is still a violation.
        error = (violation.rule, _truncate(violation.message, request.max_error_chars))
    GUARD.violation = None
    result: dict[str, Any] = {"ms": elapsed_ms, "llm": request.llm_calls}
    if error is not None:
        result["error"] = list(error)
    else:
        result["score"] = score
        result["explanation"] = explanation
    if recycle:
        result["recycle"] = True
    return result


def serve(channel: Channel) -> None:
    cache: OrderedDict[str, Prepared] = OrderedDict()
    _STATE["channel"] = channel
    while True:
        try:
            message = channel.read()
        except MemoryError:
            channel.write(
                {"op": "fatal", "rule": "memory_limit", "message": "request too large for the worker"}
            )
            return
        if message is None:
            return
        if message.get("op") != "run":
            continue
        request = Request(message)
        _STATE["request"] = request
        prepared = _prepare(message, cache)
        traces = message["traces"]
        message.clear()
        for index in range(len(traces)):
            request.index = index
            blob, traces[index] = traces[index], None
            with TRUSTED:
                trace = marshal.loads(blob)
            del blob
            result = run_one(prepared, trace, request)
            del trace
            result["op"] = "result"
            result["id"] = request.id
            result["i"] = index
            channel.write(result)
            if result.get("recycle"):
                channel.write({"op": "exit", "id": request.id})
                return
        channel.write({"op": "done", "id": request.id})


def _seal(config: dict[str, Any]) -> None:
    """Apply rlimits and the audit hook; after this nothing can be relaxed by eval code."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a file write fails with EFBIG, not a kill
    memory = int(config["memory_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    files = int(config["max_open_files"])
    resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
    sys.addaudithook(_walls.audit_hook)


def main(config_json: str) -> None:
    config = json.loads(config_json)
    in_fd, out_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    sys.stdout = sys.stderr = _NullStream()
    channel = Channel(in_fd, out_fd)
    try:
        for name in PRELOAD:
            importlib.import_module(name)
        for name in _policy.DEFAULT_ALLOWED_IMPORTS:
            _walls.module_proxy(sys.modules[name])
        here = config["sandbox_dir"]
        sys.path[:] = [p for p in sys.path if p and os.path.normpath(p) != os.path.normpath(here)]
        GUARD.read_roots = tuple(os.path.normpath(p) for p in sys.path)
        sys.setrecursionlimit(int(config.get("recursion_limit", 1000)))
        _seal(config)
    except BaseException as exc:
        channel.write({"op": "fatal", "rule": "worker_crashed", "message": f"worker setup failed: {exc!r}"})
        os._exit(1)
    channel.write({"op": "ready", "pid": os.getpid()})
    try:
        serve(channel)
    finally:
        os._exit(0)  # skip interpreter teardown: eval code's __del__ has nothing to say at exit
