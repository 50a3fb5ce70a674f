"""The grader's wiring: the sandbox pool, bus handlers, GraderService."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from faststream.nats import NatsBroker

from agenteval.contracts.events import TrialGraded
from agenteval.grader import handlers
from agenteval.grader.eval_code import EvalCodeTester
from agenteval.grader.grpc_api import GraderServicer
from agenteval.grader.service import GraderService
from agenteval.grader.settings import GraderSettings
from agenteval.runtime.bus import connection_of, publish_many
from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.settings import CommonSettings
from agenteval.runtime.transcript_bucket import TranscriptBucket
from agenteval.v1 import grader_pb2, grader_pb2_grpc

if TYPE_CHECKING:
    from agenteval.sandbox import LLMReply, LLMRequest


class LLMBroker:
    """The one way eval functions reach an LLM (``ctx.call_llm``): through the grader's client,
    with its retries and content cache, each call charged to its grade at its own cost."""

    DEFAULT_MODEL = "claude-haiku-4-5"

    def __init__(self, services: dict[str, Any], cache_path: Any = None) -> None:
        self.services = services
        self.cache_path = cache_path
        self.calls = 0
        self.cost_usd = 0.0

    def client(self) -> Any:
        client = self.services.get("llm")
        if client is None:
            from agenteval.grading.judge_cache import MemoryCache, SqliteCache
            from agenteval.grading.llm_client import LLMClient

            cache = SqliteCache(self.cache_path) if self.cache_path else MemoryCache()
            client = self.services["llm"] = LLMClient(cache=cache)
        return client

    async def __call__(self, request: LLMRequest) -> LLMReply:
        from agenteval.sandbox import LLMReply

        resp = await self.client().complete(
            request.prompt,
            model=request.model or self.DEFAULT_MODEL,
            temperature=request.temperature,
            max_tokens=request.max_tokens,
            cache_tag="eval_function",
        )
        self.calls += 1
        self.cost_usd += resp.cost_usd
        # The pool adds this to the calling trace's result: a cache hit costs 0, a fresh call its price.
        return LLMReply(text=str(resp.text), cost_usd=float(resp.cost_usd))


class SavedEvals:
    """Code of saved evals (``eval:NAME[@VERSION]`` graders), fetched from the eval-generator once."""

    def __init__(self, target: str, common: CommonSettings) -> None:
        from agenteval.v1 import eval_generator_pb2_grpc

        self.stub = eval_generator_pb2_grpc.EvalGeneratorServiceStub(common.channel(target))
        self._code: dict[tuple[str, str, int], str] = {}

    async def __call__(self, name: str, version: int) -> str:
        from agenteval.runtime import auth
        from agenteval.v1 import eval_generator_pb2

        project = auth.current().project  # the trial's (set while it is graded)
        key = (project, name, version)
        if key not in self._code:
            resp = await self.stub.GetEval(
                eval_generator_pb2.GetEvalRequest(name=name, version=version),
                metadata=((auth.PROJECT_HEADER, project),),
            )
            if version == 0:  # "newest" may change: cache it briefly by its resolved version only
                self._code[(project, name, resp.eval.version)] = resp.eval.code
                return resp.eval.code
            self._code[key] = resp.eval.code
        return self._code[key]


class LazyPool:
    """The sandbox pool, started on first use: suites without eval functions never spawn workers."""

    def __init__(self, settings: GraderSettings, llm: LLMBroker) -> None:
        self.settings = settings
        self.broker_llm = llm
        self._pool: Any = None
        self._lock = asyncio.Lock()
        self._waiting: dict[tuple[Any, ...], list[tuple[dict[str, Any], asyncio.Future[Any]]]] = {}

    async def get(self) -> Any:
        if self._pool is not None:
            return self._pool
        async with self._lock:  # concurrent first calls must start one pool, not several
            if self._pool is not None:
                return self._pool
            from agenteval.sandbox import SandboxLimits, SandboxPool

            pool = SandboxPool(
                workers=self.settings.sandbox_workers,
                limits=SandboxLimits(timeout_s=self.settings.sandbox_timeout_s),
                llm=self.broker_llm,
            )
            await pool.start()
            self._pool = pool
        return self._pool

    async def run_batch(self, *args: Any, **kwargs: Any) -> Any:
        return await (await self.get()).run_batch(*args, **kwargs)

    async def run(
        self,
        code: str,
        trace: dict[str, Any],
        *,
        function: str | None = None,
        allowed_imports: Sequence[str] = (),
        timeout_s: float | None = None,
    ) -> Any:
        """One eval-function call; concurrent calls with the same code go to the pool together
        as one pipelined batch (``run_batch``), which is several times cheaper per call."""
        key = (code, function, tuple(allowed_imports), timeout_s)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        waiting = self._waiting.setdefault(key, [])
        waiting.append((trace, future))
        if len(waiting) == 1:
            asyncio.get_running_loop().create_task(self._flush(key))
        return await future

    async def _flush(self, key: tuple[Any, ...]) -> None:
        await asyncio.sleep(0)  # let the other trials of this batch join
        items = self._waiting.pop(key, [])
        code, function, allowed, timeout_s = key
        try:
            pool = await self.get()
            results = await pool.run_batch(
                code, [t for t, _ in items], function=function, allowed_imports=allowed, timeout_s=timeout_s
            )
        except Exception as exc:
            for _, future in items:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, future), result in zip(items, results, strict=True):
            if not future.done():
                future.set_result(result)

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()


class GraderComponent:
    name = "grader"

    def __init__(self, common: CommonSettings, settings: GraderSettings | None = None) -> None:
        self.common = common
        self.settings = settings or GraderSettings()
        services: dict[str, Any] = {}
        self.llm = LLMBroker(services, common.data_dir / "llm-cache.sqlite")
        self.llm.client()  # judges and eval functions share one client and its content cache
        self.pool = LazyPool(self.settings, self.llm)
        services["sandbox"] = self.pool
        self.service = GraderService(services)
        self.tester = EvalCodeTester(self.pool)
        self.broker: NatsBroker | None = None

    async def _publish(self, subject: str, events: Sequence[TrialGraded]) -> None:
        assert self.broker is not None
        await publish_many(self.broker, subject, events, self.common.subjects)

    async def prepare(self) -> None:
        pass

    def register_handlers(self, broker: NatsBroker) -> None:
        self.broker = broker
        transcripts = TranscriptBucket(
            lambda: connection_of(broker), self.common.subjects, self.common.bus_replicas
        )
        handlers.register(
            broker,
            self.service,
            self.common.subjects,
            self._publish,
            self.settings.batch_size,
            transcripts,
            batches_in_flight=self.settings.batches_in_flight,
        )

    def register_grpc(self, server: GrpcServer) -> None:
        server.add(
            grader_pb2_grpc.add_GraderServiceServicer_to_server,
            GraderServicer(self.tester),
            [grader_pb2.DESCRIPTOR.services_by_name["GraderService"].full_name],
        )

    async def started(self, host: ServiceHost) -> None:
        target = self.settings.evalgen_addr or host.target
        self.service.services["eval_source"] = SavedEvals(target, self.common)

    async def close(self) -> None:
        await self.pool.close()
